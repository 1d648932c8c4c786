"""NeMo Gym: `racesc compile --format nemo-gym` rows have the documented shape
(`responses_create_params.input` messages, the record beside), read back as records, and the
template server's verify step (racesl.integrations.nemo_gym.verify_payload) scores a
Responses API response: gold 1.0, reasoning items ignored, no block `no_answer`, no
record `error`. The template's server, copied as its README says and loaded in a fresh
process, scores every gold answer of a user library 1.0 (sort and select re-executed from
the sidecar beside the rows). nemo-gym 0.4.0 needs Python 3.12, which CI does not have: the
server runs against a stand-in of nemo_gym.base_resources_server (tests/integrations/stubs)
whose fields are nemo-gym 0.4.0's; run_nemo_gym.py runs unchanged with the real package."""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

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


def _template_server(tmp_path, sidecar: bool) -> dict:
    """The template copied as `resources_servers/racesl/`, rows compiled into its data/ as
    the README says, verified by run_nemo_gym.py in a fresh process (cwd elsewhere, no
    RACESL_LIBRARY_PATH)."""
    server = tmp_path / "resources_servers" / "racesl"
    shutil.copytree(nemo_gym.TEMPLATE, server)
    (tmp_path / "shop.races").write_text(TOY, encoding="utf-8")
    run_racesc("compile", "shop.races", "-n", 40, "-q", "--no-audit", "--format", "nemo-gym",
               "--operators", "sort=2-3,select=2-3", "-o", server / "data" / "train.jsonl",
               cwd=tmp_path)
    if not sidecar:
        (server / "data" / "train.jsonl.library.json").unlink()
    here = Path(__file__).parent
    env = {k: v for k, v in os.environ.items() if k != "RACESL_LIBRARY_PATH"}
    env["PYTHONPATH"] = os.pathsep.join([str(here / "stubs"), str(here.parents[1])])
    p = subprocess.run([sys.executable, str(here / "run_nemo_gym.py"), str(server)], capture_output=True,
                       text=True, timeout=300, cwd=tmp_path, env=env)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout.strip().splitlines()[-1])


def test_the_template_server_finds_the_library_beside_the_rows(tmp_path):
    out = _template_server(tmp_path, sidecar=True)
    assert "stubs" in out["nemo_gym"]
    gold = [v for v in out["verified"] if v[1] == "gold"]
    assert len(gold) == 40 and "sort" in {v[0] for v in gold} <= {"sort", "select"}
    assert all(v[2:] == [1.0, "ok"] for v in gold), [v for v in gold if v[2:] != [1.0, "ok"]]
    assert all(v[2:] == [0.0, "no_answer"] for v in out["verified"] if v[1] == "junk")


def test_without_the_sidecar_the_server_says_library_missing(tmp_path):
    """The control: what the sidecar beside the rows is for (a wrong listing of a sort or
    select task needs the library; without it the verdict says so, never a silent 0)."""
    out = _template_server(tmp_path, sidecar=False)
    statuses = {v[3] for v in out["verified"] if v[1] == "gold" and v[0] in ("sort", "select")}
    assert "library_missing" in statuses
