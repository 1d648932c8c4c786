"""`racesc evolve` against endpoints that refuse or stall (scripted OpenAI-compatible servers on
127.0.0.1): a strict server that refuses a field it does not know, and one that drips its
replies. What is asserted: the cause is on stderr, the exit is non-zero when a step got no
completion at all, such a step is not committed and a rerun retries it; the grammar goes out
only where asked; Ctrl-C stops a run within seconds and a rerun resumes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from racesl.cli.main import main
from racesl.pool import Pool
from tests.generation.test_openai_refusals import KNOWN, strict
from tests.support.openai_stub import Slow
from tests.support.tasks import default_sigint

ROOT = Path(__file__).resolve().parents[2]
JUNK = "I would rather not write a module."  # a completion that stops at extract: cheap to judge


def _config(tmp_path, extra: str = "", n: int = 2) -> Path:
    cfg = tmp_path / "evolve.toml"
    cfg.write_text(f'[pool]\ndir = "pool"\n[generator]\ncandidates_per_step = {n}\nretries = 1\ntimeout = 60.0\n'
                   f'model_gates = false\n{extra}', encoding="utf-8")
    return cfg


def _log(tmp_path) -> list[dict]:
    return [json.loads(x) for x in (tmp_path / "pool" / "evolve.jsonl").read_text().splitlines()]


def test_a_server_refusing_every_request_is_loud_and_the_step_is_retried(tmp_path, capsys, openai_stub):
    cfg = _config(tmp_path)
    refusing = openai_stub(strict(JUNK, known=KNOWN - {"seed"}))  # refuses a field evolve must send
    assert main(["evolve", str(cfg), "--endpoint", refusing.url, "--steps", "1", "--json"]) == 1
    captured = capsys.readouterr()
    out, err = json.loads(captured.out), captured.err
    assert out["stalled"] == 0 and out["last_step"] == 0 and out["funnel"]["generate"] == 2
    assert "2 of 2 candidate(s) got no completion" in err and "HTTP 400" in err and "seed" in err
    assert "racesc: error: step 0: the generator gave no completion" in err and "not committed" in err
    assert Pool.open(tmp_path / "pool").step == 0  # not committed ...
    assert [(r["step"], r["gate"]) for r in _log(tmp_path)] == [(0, "generate"), (0, "generate")]  # ... but said
    # a rerun retries the step (a server that takes the request now)
    fine = openai_stub(strict(JUNK))
    assert main(["evolve", str(cfg), "--endpoint", fine.url, "--steps", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["first_step"] == 0 and out["last_step"] == 1 and out["stalled"] is None
    assert [(r["step"], r["gate"]) for r in _log(tmp_path)] == [(0, "extract"), (0, "extract")]


def test_no_grammar_unless_asked_and_a_refused_one_is_said_once(tmp_path, capsys, openai_stub):
    stub = openai_stub(strict(JUNK))
    cfg = _config(tmp_path)  # constrained unset: an endpoint gets no grammar
    assert main(["evolve", str(cfg), "--endpoint", stub.url, "--steps", "1", "--json"]) == 0
    assert stub.requests and not any("structured_outputs" in b for b in stub.requests)
    assert "got no completion" not in capsys.readouterr().err
    # asked for: sent, refused by name, sent again without it, and said once on stderr
    cfg = _config(tmp_path, "constrained = true\n")
    before = len(stub.requests)
    assert main(["evolve", str(cfg), "--endpoint", stub.url, "--steps", "2", "--json"]) == 0
    err = capsys.readouterr().err
    sent = [("structured_outputs" in b) for b in stub.requests[before:]]
    # the step's two requests went out at once: each sent with it was refused and sent again
    # without it (that it is then sent no more: tests/generation/test_openai_refusals.py)
    assert 1 <= sent.count(True) <= 2 and len(sent) == 2 + sent.count(True) and not sent[-1], sent
    assert err.count("refused the generation grammar") == 1 and "constrained = false" in err
    assert Pool.open(tmp_path / "pool").step == 2


def _evolve_process(cfg: Path, url: str) -> subprocess.Popen:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen([sys.executable, "-m", "racesl", "evolve", str(cfg), "--endpoint", url, "--steps", "1"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=default_sigint)


STOP_SECONDS = 5.0  # Ctrl-C to exit, with four requests in flight and retries left


def test_ctrl_c_stops_within_seconds_and_a_rerun_resumes(tmp_path, openai_stub):
    cfg = _config(tmp_path, n=4)  # four requests at once (the thread pool), each with a retry left
    drip = openai_stub(lambda body: Slow(120, JUNK))
    proc = _evolve_process(cfg, drip.url)
    try:
        deadline = time.monotonic() + 240  # starting and checking the pool, on a loaded machine
        while len(drip.requests) < 4 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert len(drip.requests) == 4, proc.communicate(timeout=30)
        time.sleep(0.3)
        began = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        took = time.monotonic() - began
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130 and "interrupted" in err, err
    assert took < STOP_SECONDS, took
    assert len(drip.requests) == 4  # no retry went out after Ctrl-C
    assert Pool.open(tmp_path / "pool").step == 0
    # the rerun does the step again, with the same prompts and seeds
    fine = openai_stub(lambda body: JUNK)
    rerun = _evolve_process(cfg, fine.url)
    _, err = rerun.communicate(timeout=300)
    assert rerun.returncode == 0, err
    assert Pool.open(tmp_path / "pool").step == 1
    assert sorted(b["seed"] for b in fine.requests) == sorted(b["seed"] for b in drip.requests)
