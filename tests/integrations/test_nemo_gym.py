"""NeMo Gym: `racesc compile --format nemo-gym` rows have the documented shape
(`responses_create_params.input` messages, the record beside), read back as records, and the
template server's verify step (racesl.integrations.nemo_gym.verify_payload) scores a
Responses API response: gold 1.0, reasoning items ignored, no block `no_answer`, no
record `error`. NeMo Gym itself needs Python 3.13, so its template is checked as source."""

from __future__ import annotations

import ast
import json

import yaml

from racesl.integrations import nemo_gym
from racesl.records import read_records
from racesl.rewards.libraries import read_tasks
from tests.support.tasks import TOY, run_racesc, wrap


def _response(*texts, reasoning="Let me think... <answer>0</answer>"):
    return {"id": "resp_1", "object": "response", "output": [
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": reasoning}]},
        *({"type": "message", "role": "assistant", "id": f"msg_{k}", "status": "completed",
           "content": [{"type": "output_text", "text": t, "annotations": []}]} for k, t in enumerate(texts))]}


def test_rows_have_the_documented_shape_and_verify_scores_them(tmp_path):
    (tmp_path / "shop.races").write_text(TOY, encoding="utf-8")
    run_racesc("compile", "shop.races", "-n", 30, "-q", "-o", "rows.jsonl", "--format", "nemo-gym", "--no-audit",
               "--operators", "sequential=2-3,sort=2-3,loop=2-3", cwd=tmp_path)
    rows = [json.loads(line) for line in (tmp_path / "rows.jsonl").read_text().splitlines()]
    assert len(rows) == 30 and all(nemo_gym.row_problems(r) == [] for r in rows)
    assert [r["record"] for r in rows] == read_records(tmp_path / "rows.jsonl") == read_tasks(tmp_path / "rows.jsonl")
    for r in rows:
        rec = r["record"]
        assert r["responses_create_params"]["input"] == [{"role": "user", "content": rec["prompt"]}]
        right = nemo_gym.verify_payload({**r, "response": _response("Working it out.", " " + wrap(rec["answer"]))})
        assert right == {"reward": 1.0, "status": "ok", "detail": "right"}
        assert nemo_gym.verify_payload({**r, "response": _response("no idea")})["status"] == "no_answer"
    assert nemo_gym.verify_payload({"response": _response(wrap("1"))})["status"] == "error"
    assert nemo_gym.verify_payload({"record": "{}", "response": None})["reward"] == 0.0


def test_row_problems_names_what_is_wrong():
    good = {"responses_create_params": {"input": [{"role": "user", "content": "q"}]}, "id": "a", "record": {"id": "a"}}
    assert nemo_gym.row_problems(good) == []
    assert nemo_gym.row_problems([]) == ["not a JSON object"]
    assert "input is not" in nemo_gym.row_problems({**good, "responses_create_params": {"input": []}})[0]
    assert "input[0]" in nemo_gym.row_problems({**good, "responses_create_params": {"input": [{"role": "x"}]}})[0]
    assert nemo_gym.row_problems({**good, "id": "b"}) == ["id is not the record's id"]


def test_the_template_is_a_resources_server_that_calls_verify_payload():
    t = nemo_gym.TEMPLATE
    tree = ast.parse((t / "app.py").read_text())
    classes = {n.name: [b.id for b in n.bases if isinstance(b, ast.Name)] for n in tree.body
               if isinstance(n, ast.ClassDef)}
    assert classes["RaceslResourcesServer"] == ["SimpleResourcesServer"]
    assert classes["RaceslVerifyRequest"] == ["BaseVerifyRequest"]
    verify = next(f for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "RaceslResourcesServer"
                  for f in n.body if isinstance(f, ast.AsyncFunctionDef) and f.name == "verify")
    assert "verify_payload" in ast.unparse(verify)
    cfg = yaml.safe_load((t / "configs" / "racesl.yaml").read_text())
    assert cfg["racesl"]["resources_servers"]["racesl"]["entrypoint"] == "app.py"
    agent = cfg["racesl_simple_agent"]["responses_api_agents"]["simple_agent"]
    assert agent["resources_server"] == {"type": "resources_servers", "name": "racesl"}
