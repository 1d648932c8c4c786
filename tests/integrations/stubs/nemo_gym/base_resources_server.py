"""The four classes of nemo_gym.base_resources_server that the racesl template uses, with
nemo-gym 0.4.0's fields; requests and responses are plain dicts here."""

from typing import Any

from pydantic import BaseModel


class BaseResourcesServerConfig(BaseModel):
    host: str
    port: int
    num_workers: int | None = None
    entrypoint: str
    domain: str | None = None
    name: str


class BaseVerifyRequest(BaseModel):
    responses_create_params: dict[str, Any]
    response: dict[str, Any]


class BaseVerifyResponse(BaseVerifyRequest):
    reward: float


class SimpleResourcesServer(BaseModel):
    config: BaseResourcesServerConfig
