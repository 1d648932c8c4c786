"""Environments that change their input in place must not change the search's state.

The search tries several candidates from one state object, and the rewards cache parsed
literals; each body gets its own copy when it may mutate (racesl.lower.effects)."""

from __future__ import annotations

import json

from racesl.check import check_paths
from racesl.compile import compile_tasks
from racesl.library import Library
from racesl.records import to_record
from racesl.rewards.score import score
from racesl.runtime.contract import canonical
from racesl.runtime.watchdog import WATCHDOG
from racesl.search.config import CompileConfig
from racesl.search.engine import Executor
from tests.support.tasks import replay_chain

SOURCE = '''module m

env make(n: Int where 0 <= it <= 30) -> List[Int]:
    """Return the list of the numbers from 1 to n + 2."""
    return list(range(1, n + 3))

env grow(xs: List[Int], k: Int where 1 <= it <= 9) -> Int:
    """Return the number of items in xs plus 100 plus {k}."""
    xs.append(7)
    xs[0] = 99
    return len(xs) + 100 + k

env shrink(xs: List[Int]) -> List[Int]:
    """Return xs without its first item."""
    ys = xs
    ys.pop(0)
    return ys

env total(xs: List[Int]) -> Int:
    """Return the sum of the items in xs."""
    return sum(xs)
'''


def _lib(tmp_path) -> Library:
    (tmp_path / "m.races").write_text(SOURCE)
    checked = check_paths([str(tmp_path / "m.races")])
    assert checked.ok, checked.diagnostics
    return Library(checked)


def test_mutating_bodies_are_found(tmp_path):
    lib = _lib(tmp_path)
    flagged = {q for q, e in lib.envs.items() if lib.may_mutate(e)}
    assert flagged == {"m.grow", "m.shrink"}


def test_library_run_leaves_the_callers_value_alone(tmp_path):
    lib = _lib(tmp_path)
    xs = [1, 2, 3]
    assert lib.run(lib.envs["m.grow"], xs, (5,)).value == 109
    assert lib.run(lib.envs["m.shrink"], xs).value == [2, 3]
    assert xs == [1, 2, 3]


def test_search_candidates_share_an_unchanged_state(tmp_path):
    lib = _lib(tmp_path)
    cfg = CompileConfig(n=1, seed=0)
    ex = Executor(lib, cfg)
    xs = [1, 2, 3]
    stats: dict = {}
    from collections import Counter
    stats = Counter()
    with WATCHDOG.session():
        for q in ("m.grow", "m.shrink", "m.grow"):
            assert ex.run(lib.envs[q], xs, (5,) if q == "m.grow" else (), False, stats, canonical(xs))
        step = ex.run(lib.envs["m.total"], xs, (), False, stats, canonical(xs))
    assert step.output == 6 and xs == [1, 2, 3]


def test_compiled_traces_replay_from_text(tmp_path):
    lib = _lib(tmp_path)
    tasks, _ = compile_tasks(lib, CompileConfig(n=60, seed=3, operators=(("sequential", 2, 3),)))
    assert len(tasks) >= 20
    for k, t in enumerate(tasks):
        assert replay_chain(lib, t.input, t.chain, t.settings) == list(t.trace), t
        rec = json.loads(json.dumps(to_record(t, k, 3, lib.hash)))
        assert score(rec, f"<answer>{rec['answer']}</answer>") == 1.0
