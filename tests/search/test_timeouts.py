"""An environment that always times out is dropped after DROP_AFTER timeouts: the compile
finishes in bounded time, makes the same tasks in and out of `--untrusted` and for any
worker count, and says why the environment was never used."""

from __future__ import annotations

import functools
import time

import attrs
import pytest

from racesl.compile import compile_tasks
from racesl.library import load
from racesl.runtime.limits import MAX_FUEL
from racesl.sandbox_runner import SandboxRunner
from racesl.search.config import CompileConfig
from racesl.search.engine import DROP_AFTER
from tests.support.tasks import HALVE, TRIPLE, toy_library

SPIN = toy_library("spin", '''\
env add_k(n: Nat, k: Int where 2 <= it <= 9) -> Nat:
    """Add {k} to n, capped at 300."""
    return min(n + k, 300)
''', TRIPLE, HALVE, '''\
env spin(n: Nat) -> Nat:
    """Count up from n, forever."""
    y = n
    while True:
        y = y + 1
    return y
''')

WALL = 0.25


@pytest.fixture(scope="module")
def spin_lib(tmp_path_factory):
    d = tmp_path_factory.mktemp("spin")
    (d / "spin.races").write_text(SPIN, encoding="utf-8")
    return load([d / "spin.races"])


def _fingerprint(tasks):
    return [(t.operator, t.chain, t.input, t.trace, t.answer) for t in tasks]


def test_an_always_timing_out_environment_is_dropped(spin_lib):
    """Fuel enough for days: only the wall limit stops `spin`. Without the drop every chain
    that draws it waits the wall again (the search keeps drawing an unused environment)."""
    base = CompileConfig()
    cfg = attrs.evolve(base, n=60, seed=1, filters=attrs.evolve(base.filters, max_steps=MAX_FUEL, wall=WALL))
    seen = []
    for untrusted, workers in ((False, 1), (False, 2), (True, 1), (True, 2)):
        t0 = time.perf_counter()
        sandbox = functools.partial(SandboxRunner, spin_lib, workers=1, wall=WALL) if untrusted else None
        tasks, summary = compile_tasks(spin_lib, cfg, workers=workers, sandbox=sandbox)
        took = time.perf_counter() - t0
        calls = summary.dropped.get("spin.spin", 0)
        assert DROP_AFTER <= calls <= DROP_AFTER + workers, (untrusted, workers, summary.dropped)
        assert list(summary.dropped) == ["spin.spin"]
        assert summary.unused["spin.spin"].startswith(f"dropped after {calls} calls timed out"), summary.unused
        assert not any("spin.spin" in t.chain for t in tasks)
        assert len(tasks) == 60
        assert took < 60, (untrusted, workers, took)
        seen.append(_fingerprint(tasks))
    assert all(s == seen[0] for s in seen)
