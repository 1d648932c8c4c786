"""Static pruning: with the solver, an environment whose declared output is always
degenerate is never executed; without it, it runs and the filters drop its outputs."""

from __future__ import annotations

from collections import Counter

import pytest

from racesl.compile import compile_tasks
from racesl.library import load
from racesl.search.config import CompileConfig

SRC = '''
env parity(x: Int where 0 <= it <= 200) -> Int where 0 <= it <= 1:
    """Return x modulo 2."""
    return x % 2

env inc(x: Int where 0 <= it <= 200) -> Int where 1 <= it <= 201:
    """Return x plus one."""
    return x + 1

env half(x: Int where 0 <= it <= 201) -> Int where 0 <= it <= 100:
    """Return x divided by two, rounded down."""
    return x // 2

env triple(x: Int where 0 <= it <= 100) -> Int where 0 <= it <= 300:
    """Return three times x."""
    return 3 * x
'''


@pytest.fixture()
def lib(tmp_path):
    p = tmp_path / "toy.races"
    p.write_text(SRC)
    return load([p])


def run_counting(lib, solver: bool):
    """Compile, counting the bodies the search runs (through the program's hot path)."""
    ran: Counter = Counter()
    real = lib.program.function
    names = {e.pyname: q for q, e in lib.envs.items()}

    def spy(name, **kw):
        fn = real(name, **kw)

        def counted(*a):
            ran[names.get(name, name)] += 1
            return fn(*a)
        counted.meter, counted.fuel = fn.meter, fn.fuel
        return counted

    lib.program.function = spy
    try:
        cfg = CompileConfig(n=60, seed=3, operators=(("sequential", 2, 3),), solver=solver)
        tasks, summary = compile_tasks(lib, cfg)
    finally:
        del lib.program.function
    return ran, tasks, summary


def test_solver_prunes_what_the_filters_would_drop(lib):
    ran_on, tasks_on, s_on = run_counting(lib, solver=True)
    ran_off, tasks_off, s_off = run_counting(lib, solver=False)
    assert s_on.solver["pruned"] == {"toy.parity": "value"}
    assert ran_on["toy.parity"] == 0
    assert ran_off["toy.parity"] > 0 and s_off.rejections["value"] > 0
    assert all("toy.parity" not in t.chain for t in tasks_on + tasks_off)
    assert s_on.executions < s_off.executions


def test_solver_proves_edges_the_syntax_cannot(lib):
    from racesl.graph.signature import build_graph

    plain, _ = build_graph(lib.envs.values(), False)
    proved, _ = build_graph(lib.envs.values(), True)
    assert plain.counts()["proved"] < proved.counts()["proved"]
    # half's output (0..100) fits triple's input (0..100) and inc's input (0..200)
    kinds = dict(proved.successors("toy.half"))
    assert kinds["toy.triple"] == "proved" and kinds["toy.inc"] == "proved"
