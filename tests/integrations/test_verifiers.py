"""verifiers 0.4 (v1 API): `racesl-tasks` loads through verifiers' own loader, as one Taskset
subclass in `__all__`; 50 streamed tasks ask for `<answer>`, pass the gold validation, score
1.0 for the gold reply and 0 for junk through verifiers' Task.score; keys are the record
ids and repeat for the same seed; a compiled file gives a finite taskset of its records. The
documented `vf-eval racesl-tasks …` runs as written against a stub OpenAI server."""

from __future__ import annotations

import json
import os
import shlex
import socket
import subprocess
import sys
from pathlib import Path

from racesl.integrations.tasks import stream
from racesl.records import read_records
from racesl.rewards import score
from tests.integrations.conftest import ROOT, hub_run
from tests.support.tasks import run_racesc


def test_racesl_tasks_through_verifiers_loader(tmp_path):
    run_racesc("compile", "stdlib", "-n", 30, "--seed", 2, "-o", tmp_path / "t.jsonl", "-q", "--no-audit")
    out = hub_run("verifiers", "run_verifiers.py", tmp_path / "t.jsonl")
    assert (out["module"], out["taskset"], out["exported"], out["config"]) == \
        ("racesl_tasks", "RacesTaskset", ["RacesTaskset"], "RacesConfig")
    assert out["infinite"] and out["n"] == 50 and out["ask_for_answer"] == 50 and out["gold_valid"] == 50
    assert out["gold_rewards"] == [1.0] * 50 and out["junk_rewards"] == [0.0] * 50
    assert out["keys"] == out["ids"] == out["again"] and len(set(out["keys"])) == 50
    assert out["operators"] == ["loop", "sequential", "sort"]
    records = read_records(tmp_path / "t.jsonl")
    assert out["file_bounded"] and out["file_keys"] == [r["id"] for r in records] and out["file_gold"] == 30


def _doc_command(name: str) -> list[str]:
    """The `name …` command of docs/integrations.md, continuation lines joined, comments cut."""
    text = (ROOT / "docs" / "integrations.md").read_text(encoding="utf-8").replace("\\\n", " ")
    line = next(ln for ln in text.splitlines() if ln.startswith(name + " "))
    return shlex.split(line, comments=True)


def test_vf_eval_runs_as_documented(tmp_path):
    """The docs' `vf-eval racesl-tasks …`, word for word but the stub's port, in the verifiers
    venv against a stub OpenAI server on 127.0.0.1 that answers each task's prompt with its
    gold reply (prompts it does not know get junk): every episode completes, and each reward
    is racesl's score of the reply the trace records."""
    cmd = _doc_command("vf-eval")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert "http://127.0.0.1:8000/v1" in cmd
    cmd = [c.replace("127.0.0.1:8000", f"127.0.0.1:{port}") for c in cmd]
    taskset = {cmd[k].removeprefix("--env.taskset."): cmd[k + 1] for k in range(len(cmd) - 1)
               if cmd[k].startswith("--env.taskset.")}
    limit = int(cmd[cmd.index("--select.limit") + 1])
    records = stream(seed=int(taskset["seed"]), operators=taskset["operators"], limit=limit + 20)
    (tmp_path / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    hub = ROOT / ".venv-hubs" / "verifiers" / "bin"
    server = subprocess.Popen([sys.executable, str(Path(__file__).with_name("stub_openai.py")), str(port),
                               str(tmp_path / "records.jsonl"), str(tmp_path / "requests.log")])
    try:
        env = dict(os.environ, OPENAI_API_KEY="stub", OMP_NUM_THREADS="1",
                   PATH=os.pathsep.join([str(hub), str(Path(sys.executable).parent), os.environ["PATH"]]))
        p = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    finally:
        server.terminate()
        server.wait(30)
    assert p.returncode == 0, f"{' '.join(cmd)} exited {p.returncode}\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}"
    rows = [json.loads(line) for f in tmp_path.glob("outputs/*/traces.jsonl") for line in f.open()]
    assert len(rows) == limit and all(r["ok"] and not r["errors"] for r in rows)
    rewards = []
    for r in rows:
        trace = r["traces"][0]
        record = trace["task"]["data"]["record"]
        reply = [n["message"]["content"] for n in trace["nodes"] if n["message"]["role"] == "assistant"][-1]
        rewards.append(trace["rewards"]["races"]["score"])
        assert rewards[-1] == score(record, reply)
    assert sum(x == 1.0 for x in rewards) >= limit - 2  # (the stub knows the stream's first tasks)
