"""`racesc compile` does not depend on the hash seed: the CLI no longer re-executes itself
with PYTHONHASHSEED=0, so processes with different seeds (and any number of workers) must
write the same bytes — tasks and library sidecar alike."""

from __future__ import annotations

import pytest

from racesl import resources
from tests.support.tasks import run_racesc

N = 600
RUNS = [("0", 1), ("1", 1), ("2", 1), ("2", 2)]  # (PYTHONHASHSEED, --workers)


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    d = tmp_path_factory.mktemp("hashseed")
    files = {}
    for hs, w in RUNS:
        out = d / f"hs{hs}-w{w}.jsonl"
        # each its own cold solver cache: nothing carries over from one process to the next
        env = {"PYTHONHASHSEED": hs, "RACESL_CACHE_DIR": str(d / f"cache-{hs}-{w}")}
        run_racesc("compile", resources.stdlib_dir(), "-n", N, "--seed", 7, "--workers", w, "-o", out, "-q",
                   cwd=d, env=env, timeout=300)
        files[hs, w] = (out.read_bytes(), (d / (out.name + ".library.json")).read_bytes())
    return files


@pytest.mark.slow
@pytest.mark.parametrize("run", RUNS[1:], ids=[f"hashseed{hs}-workers{w}" for hs, w in RUNS[1:]])
def test_same_bytes_under_every_hash_seed(outputs, run):
    tasks, sidecar = outputs[run]
    want_tasks, want_sidecar = outputs[RUNS[0]]
    assert tasks.count(b"\n") == N
    assert tasks == want_tasks
    assert sidecar == want_sidecar
