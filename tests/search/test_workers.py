"""Worker processes: the same tasks as one process, and failures that surface, not hang."""

from __future__ import annotations

import os

import pytest

import racesl.compile.workers as workers
from racesl.compile import Generator
from racesl.compile import compile_tasks
from racesl.search.config import CompileConfig
from tests.support.tasks import stdlib


def _fingerprint(tasks):
    return [(t.operator, t.chain, t.input, t.trace, t.prompt, t.answer) for t in tasks]


def test_three_workers_build_what_one_builds_across_batches():
    lib = stdlib()
    cfg = CompileConfig(n=300, seed=21, batch=64)  # several batches: the quota lag matters
    one, s1 = compile_tasks(lib, cfg, workers=1)
    three, s3 = compile_tasks(lib, cfg, workers=3)
    assert len(one) == 300 and _fingerprint(one) == _fingerprint(three)
    assert s1.attempts == s3.attempts and s1.rejections == s3.rejections  # reuse changes no count
    assert s1.executions + s1.reused == s3.executions + s3.reused


def test_a_failing_worker_raises_in_the_parent(monkeypatch):
    lib = stdlib()
    parent = os.getpid()
    real = Generator.build

    def build(self, i, quota, block=0):
        if os.getpid() != parent:
            raise ValueError(f"boom at {i}")
        return real(self, i, quota, block)

    monkeypatch.setattr(Generator, "build", build)
    with pytest.raises(RuntimeError, match="boom at"):
        compile_tasks(lib, CompileConfig(n=200, seed=3, batch=64), workers=2)


@pytest.mark.parametrize("ready", [False, True])
def test_building_ahead_while_waiting_changes_no_task(monkeypatch, ready):
    """The parent builds into the next batch until the workers' results are in: with
    `ready` always False it builds the whole of each next batch ahead, with True never."""
    lib = stdlib()
    cfg = CompileConfig(n=300, seed=5, batch=64)
    one, _ = compile_tasks(lib, cfg, workers=1)
    calls = []
    monkeypatch.setattr(workers.Forked, "ready", lambda self: calls.append(1) or ready)
    two, _ = compile_tasks(lib, cfg, workers=2)
    assert calls and _fingerprint(two) == _fingerprint(one)
