"""In-process scoring does not depend on the hash seed.

verl and TRL call `racesl.rewards.score` inside their own processes, whatever
PYTHONHASHSEED those have. `sort` and `select` are scored by re-executing chains, so every
order of a sort task and every selection of a select task must score the same in processes
with different seeds. One compile of small sort and select tasks; three processes
(PYTHONHASHSEED 0, 1 and 2) each score every answer of every task; the lists must agree.
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from racesl import resources
from tests.support.tasks import PYTHON, REPO, run_racesc

N = 200

_SCORE_ALL = r"""
import hashlib, itertools, json, sys
from racesl.records import read_records
from racesl.rewards import score
from racesl.rewards.libraries import load_sidecar

tasks = sys.argv[1]
load_sidecar(tasks + ".library.json")
scores, counts = [], {"sort": 0, "select": 0}
for r in read_records(tasks):
    labels = [chr(ord("A") + k) for k in range(len(r["extra"]["candidates"]))]
    if r["operator"] == "sort":  # every order of all the candidates
        answers = itertools.permutations(labels)
    else:  # every sequence of distinct candidates, up to one longer than the chain
        answers = (a for k in range(1, r["size"] + 2) for a in itertools.permutations(labels, k))
    for a in answers:
        scores.append(score(r, "<answer>" + ", ".join(a) + "</answer>"))
        counts[r["operator"]] += 1
print(json.dumps({"sha": hashlib.sha256(repr(scores).encode()).hexdigest(), "n": len(scores),
                  "ones": sum(s == 1.0 for s in scores), "counts": counts}))
"""


@pytest.fixture(scope="module")
def tasks(tmp_path_factory):
    d = tmp_path_factory.mktemp("hashseed_scores")
    out = d / "tasks.jsonl"
    run_racesc("compile", resources.stdlib_dir(), "-n", N, "--seed", 11, "--operators", "sort=2-3,select=2-3",
               "-o", out, "-q", cwd=d, env={"RACESL_CACHE_DIR": str(d / "cache")}, timeout=300)
    return out


def _scores(tasks, seeds) -> dict:
    """Score in one process per hash seed, the processes side by side."""
    procs = {}
    for hs in seeds:
        env = dict(os.environ, PYTHONHASHSEED=hs, RACESL_CACHE_DIR=str(tasks.parent / "cache"))
        procs[hs] = subprocess.Popen([PYTHON, "-c", _SCORE_ALL, str(tasks)], cwd=REPO, env=env,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out = {}
    for hs, p in procs.items():
        stdout, stderr = p.communicate(timeout=600)
        assert p.returncode == 0, stderr
        out[hs] = json.loads(stdout)
    return out


@pytest.mark.slow
def test_every_answer_scores_the_same_under_every_hash_seed(tasks):
    records = [json.loads(line) for line in tasks.read_text().splitlines()]
    assert len(records) == N and {r["operator"] for r in records} == {"sort", "select"}
    runs = _scores(tasks, ("0", "1", "2"))
    first = runs["0"]
    assert first["counts"]["sort"] > 0 and first["counts"]["select"] > 0
    assert 0 < first["ones"] < first["n"]  # the answers are told apart: some right, most wrong
    for hs, got in runs.items():
        assert got == first, f"PYTHONHASHSEED={hs} scored differently from PYTHONHASHSEED=0"
