"""`racesc evolve` end to end on the CPU with real backends: an OpenAI-compatible stub
server on 127.0.0.1 (scripted completions, a 503 and a reply slower than the timeout, each
retried), and the tiny random model in process (it admits nothing: an honest result, and
the funnel says where its candidates stopped)."""

import json
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path

import pytest

from racesl.cli.main import main
from racesl.evolve.loop import request_seed
from tests.support.openai_stub import Fail, OpenAIStub, Slow

CORPUS = Path(__file__).parent / "corpus"
SEED = 5


def _block(text):
    return f"Here is the module:\n\n```races\n{text}```\n"


def test_evolve_against_an_openai_compatible_stub(tmp_path, capsys):
    ternary = (CORPUS / "ternary.races").read_text(encoding="utf-8")
    seeds = [request_seed(SEED, 0, i) for i in range(3)]
    calls: Counter = Counter()
    lock = threading.Lock()

    def script(body):  # by the request's seed: concurrent requests arrive in any order
        with lock:
            i = seeds.index(body["seed"])
            calls[i] += 1
            k = calls[i]
        if i == 0:
            return _block(ternary)
        if i == 1:
            return Fail(503, "overloaded") if k == 1 else "I cannot write that."
        return Slow(3.0, "too late") if k == 1 else _block("module broken\nenv (:\n")

    cfg = tmp_path / "evolve.toml"
    cfg.write_text(f'[pool]\ndir = "pool"\n[generator]\ncandidates_per_step = 3\nseed = {SEED}\ntimeout = 1.0\n'
                   'retries = 2\nmodel_gates = false\ntemperature = 0.8\nmax_tokens = 300\n'
                   '[admit]\nsamples = 24\nprobes = 16\n', encoding="utf-8")
    with OpenAIStub(script) as stub:
        assert main(["evolve", str(cfg), "--endpoint", stub.url, "--steps", "1", "--json"]) == 0
        bodies = list(stub.requests)
    out = json.loads(capsys.readouterr().out)
    assert out["candidates"] == 3 and out["admitted"] == ["ternary"]
    assert out["funnel"]["extract"] == 1 and out["funnel"]["parse"] == 1
    assert calls[1] == 2 and calls[2] == 2  # the 503 and the slow reply were each retried once
    assert {b["temperature"] for b in bodies} == {0.8} and {b["max_tokens"] for b in bodies} == {300}
    assert sorted({b["seed"] for b in bodies}) == sorted(seeds)
    rows = [json.loads(line) for line in (tmp_path / "pool" / "evolve.jsonl").read_text().splitlines()]
    assert [r.get("gate") for r in sorted(rows, key=lambda r: r["index"])] == [None, "extract", "parse"]


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    path = tmp_path_factory.mktemp("tiny") / "model"
    subprocess.run([sys.executable, "-m", "racesl.train.tiny", str(path)], check=True, capture_output=True,
                   env={"OMP_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"})
    return path


def test_evolve_in_process_with_the_tiny_model(tmp_path, capsys, tiny_model):
    cfg = tmp_path / "evolve.toml"
    cfg.write_text('[pool]\ndir = "pool"\n[generator]\ncandidates_per_step = 2\nmax_tokens = 48\n'
                   'model_gates = true\n', encoding="utf-8")
    assert main(["evolve", str(cfg), "--model", str(tiny_model), "--steps", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["candidates"] == 2 and out["admitted"] == []
    assert sum(out["funnel"].values()) == 2  # every candidate stopped somewhere, and the funnel says where
