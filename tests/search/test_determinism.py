"""Determinism: the same sources, config and seed give byte-identical files, whatever the
number of worker processes and whatever the process's hash seed; another seed differs."""

from __future__ import annotations

import hashlib
import os
import subprocess

import pytest

from racesl import resources
from racesl.compile import compile_tasks
from racesl.records import dumps, read_records, to_record
from racesl.search.config import CompileConfig
from tests.support.tasks import PYTHON, REPO, run_racesc, stdlib

N = 300


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    d = tmp_path_factory.mktemp("det")
    files = {}
    # a fresh solver cache: the first run classifies edges cold, the later ones read the cache
    env = {"RACESL_CACHE_DIR": str(d / "cache")}
    for fmt in ("jsonl", "parquet"):
        for w in (1, 2):
            out = d / f"w{w}.{fmt}"
            run_racesc("compile", resources.stdlib_dir(), "-n", N, "--seed", 5, "--workers", w, "-o", out, "-q",
                       cwd=d, env=env)
            files[fmt, w] = out
    return files


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_workers_do_not_change_a_byte(outputs, fmt):
    a, b = outputs[fmt, 1].read_bytes(), outputs[fmt, 2].read_bytes()
    assert a == b
    sa = (outputs[fmt, 1].parent / (outputs[fmt, 1].name + ".library.json")).read_bytes()
    sb = (outputs[fmt, 2].parent / (outputs[fmt, 2].name + ".library.json")).read_bytes()
    assert sa == sb


def test_formats_hold_the_same_records(outputs):
    j = read_records(outputs["jsonl", 1])
    p = read_records(outputs["parquet", 1])
    assert len(j) == N
    assert j == p
    assert {r["seed"] for r in j} == {5}
    assert [r["id"] for r in j] == [f"races-5-{k:06d}" for k in range(N)]


def _text(n, seed) -> str:
    lib = stdlib()
    tasks, _ = compile_tasks(lib, CompileConfig(n=n, seed=seed))
    return "".join(dumps(to_record(t, k, seed, lib.hash)) + "\n" for k, t in enumerate(tasks))


def test_same_seed_same_tasks_other_seed_other_tasks():
    a, b, c = _text(200, 11), _text(200, 11), _text(200, 12)
    assert a == b
    assert a != c
    # not just the ids and seeds: the tasks themselves differ
    strip = lambda s: {line.split('"operator"', 1)[1].rsplit('"seed"', 1)[0] for line in s.splitlines()}  # noqa: E731
    assert len(strip(a) & strip(c)) < 20


_SCRIPT = """
import hashlib
from racesl import resources
from racesl.compile import compile_tasks
from racesl.library import load
from racesl.records import dumps, to_record
from racesl.search.config import CompileConfig
lib = load([resources.stdlib_dir()])
tasks, _ = compile_tasks(lib, CompileConfig(n=150, seed=2))
print(hashlib.sha256("".join(dumps(to_record(t, k, 2, lib.hash)) for k, t in enumerate(tasks)).encode()).hexdigest())
"""


def test_python_api_does_not_depend_on_the_hash_seed():
    """The CLI pins PYTHONHASHSEED, but a library user calling compile_tasks does not: a
    process with another hash seed must make the same tasks as this one."""
    hs = "2" if os.environ.get("PYTHONHASHSEED") == "1" else "1"
    env = dict(os.environ, PYTHONHASHSEED=hs)
    p = subprocess.run([PYTHON, "-c", _SCRIPT], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == hashlib.sha256(_text(150, 2).replace("\n", "").encode()).hexdigest()
