"""The NeMo Gym template's resources server, in a fresh process: load `app.py` from a copy
of the template (argv[1], with its `data/train.jsonl` and sidecar), verify a gold and a
junk response for every row through the server's own `verify()`, print one JSON object of
[operator, kind, reward, status] per verify. Runs with the real nemo-gym (0.4.0, Python
3.12) or with tests/integrations/stubs on the path (test_nemo_gym.py)."""

import asyncio
import importlib.util
import json
import sys
import time
from pathlib import Path


def response(text: str) -> dict:
    """A Responses API response with one assistant message (and a reasoning item before it)."""
    return {"id": "resp_1", "object": "response", "created_at": time.time(), "model": "policy",
            "parallel_tool_calls": False, "tool_choice": "auto", "tools": [],
            "output": [{"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "hm"}]},
                       {"type": "message", "role": "assistant", "id": "msg_1", "status": "completed",
                        "content": [{"type": "output_text", "text": text, "annotations": []}]}]}


def main(server_dir: Path) -> dict:
    spec = importlib.util.spec_from_file_location("racesl_resources_server", server_dir / "app.py")
    app = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(app)
    config = app.RaceslResourcesServerConfig(host="127.0.0.1", port=8000, entrypoint="app.py", name="racesl",
                                             domain="knowledge")
    server = app.RaceslResourcesServer.model_construct(config=config)
    rows = [json.loads(line) for line in (server_dir / "data" / "train.jsonl").read_text().splitlines()]
    out = []
    for row in rows:
        for kind, text in (("gold", f"Done. <answer>{row['record']['answer']}</answer>"), ("junk", "no idea")):
            body = app.RaceslVerifyRequest.model_validate({**row, "response": response(text)})
            got = asyncio.run(server.verify(body))
            out.append([row["record"]["operator"], kind, got.reward, got.status])
    return {"verified": out, "nemo_gym": sys.modules["nemo_gym"].__file__}


print(json.dumps(main(Path(sys.argv[1]))))
