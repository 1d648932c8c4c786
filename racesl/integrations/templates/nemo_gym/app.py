"""A NeMo Gym resources server for racesl tasks: `verify()` scores the policy's response
against the task record in the row, with racesl's reward (racesl.integrations.nemo_gym).
Sort and select answers are re-executed in the library the record names: its sidecar
(`train.jsonl.library.json`, written beside the rows) is read from DATA, this server's
`data/` folder, or found through RACESL_LIBRARY_PATH."""

from pathlib import Path
from typing import Any

from nemo_gym.base_resources_server import (
    BaseResourcesServerConfig,
    BaseVerifyRequest,
    BaseVerifyResponse,
    SimpleResourcesServer,
)

from racesl.integrations.nemo_gym import verify_payload

DATA = Path(__file__).resolve().parent / "data"


class RaceslResourcesServerConfig(BaseResourcesServerConfig):
    pass


class RaceslVerifyRequest(BaseVerifyRequest):
    id: str
    record: dict[str, Any]


class RaceslVerifyResponse(BaseVerifyResponse):
    status: str
    detail: str


class RaceslResourcesServer(SimpleResourcesServer):
    config: RaceslResourcesServerConfig

    async def verify(self, body: RaceslVerifyRequest) -> RaceslVerifyResponse:
        out = verify_payload(body.model_dump(mode="json"), libraries=(DATA,))
        return RaceslVerifyResponse(**body.model_dump(), reward=out["reward"], status=out["status"],
                                    detail=out["detail"])


if __name__ == "__main__":
    RaceslResourcesServer.run_webserver()
