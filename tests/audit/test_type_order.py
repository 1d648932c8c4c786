"""The audit's type_order strategy (issue 45): a learner who reads the candidates' public
signatures and the prompt's start and target, and guesses among the orders whose declared
types chain. It is a real attack (on candidates whose types chain one way only it always
scores 1), and on what `racesc compile` writes it stays at chance: sort and select draw their
chains among environments of one shape (racesl.operators.oneshape)."""

from __future__ import annotations

import functools
import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from racesl.audit import audit_records
from racesl.audit.shortcuts import _wrap, type_order
from racesl.compile import compile_tasks
from racesl.library import load
from racesl.operators.orders import shape_link, type_fit
from racesl.records import Task, to_record
from racesl.rewards import register, score
from racesl.runtime.contract import canonical
from racesl.search.config import CompileConfig, parse_operators
from tests.support.tasks import stdlib

# four environments whose shapes chain one way only: Int -> Str -> List[Int] -> Tuple -> Int
CHAIN = '''\
module chain4

env to_text(n: Int where 0 <= it <= 50) -> Str:
    """Write n in decimal digits."""
    return str(n)

env digit_list(s: Str where 1 <= len(it) <= 4 and it.isdigit()) -> List[Int]:
    """The digits of s, each as a number, in order."""
    return [ord(c) - 48 for c in s]

env ends(xs: List[Int] where 1 <= len(it) <= 4) -> Tuple[Int, Int]:
    """The first and the last element of xs, as a pair."""
    return (xs[0], xs[-1])

env pair_sum(p: Tuple[Int, Int]) -> Int:
    """The sum of the two numbers of the pair p."""
    return p[0] + p[1]
'''
ORDER = ("chain4.to_text", "chain4.digit_list", "chain4.ends", "chain4.pair_sum")


@functools.lru_cache(maxsize=1)
def chain4(tmp: str):
    lib = load([tmp])
    register(lib)
    return lib


@pytest.fixture(scope="module")
def chain_lib(tmp_path_factory):
    folder = tmp_path_factory.mktemp("chain4")
    (folder / "chain4.races").write_text(CHAIN)
    return chain4(str(folder))


def _sort_record(lib, x0: int, listing: list[int], k: int) -> dict:
    """A sort record of the four environments, listed in `listing` order, from x0."""
    value, trace = x0, []
    for q in ORDER:
        run = lib.run(lib.envs[q], value)
        assert run.ok, (q, value, run)
        value = run.value
        trace.append(canonical(value))
    cands = [ORDER[p] for p in listing]
    answer = ", ".join("ABCD"[cands.index(q)] for q in ORDER)
    extra = {"target": trace[-1], "candidates": [{"env": q, "settings": {}} for q in cands]}
    task = Task("sort", 4, ORDER, ({},) * 4, canonical(x0), tuple(trace), "(prompt)", answer, 0, 0, extra)
    return to_record(task, k, 0, lib.hash)


@given(st.integers(10, 50), st.permutations(range(4)), st.integers(0, 10_000))
@settings(max_examples=40, deadline=None)
def test_type_order_is_a_real_attack(chain_lib, x0, listing, k):
    """One order chains: type_order answers it, whatever the listing, and the reward gives 1."""
    rec = _sort_record(chain_lib, x0, list(listing), k)
    got = type_order(rec, {})
    assert got == rec["answer"]
    assert score(rec, _wrap(got)) == 1.0
    fit = type_fit(chain_lib, x0, [chain_lib.envs[c["env"]] for c in rec["extra"]["candidates"]],
                   int(rec["extra"]["target"]), shape_link)
    assert fit.fits(["ABCD".index(a) for a in got.split(", ")])
    assert sum(fit.fits(o) for o in itertools.permutations(range(4))) == 1


def test_type_order_only_picks_orders_that_type_check():
    """On stdlib sort and select records (of any shapes): every pick chains by declared types."""
    lib = stdlib()
    from racesl.audit.shortcuts import _link
    from racesl.rewards.parse import expected_value

    records = _compiled("sort=2-5,select=2-4", 90, 11)
    assert {r["operator"] for r in records} == {"sort", "select"}
    for r in records:
        envs = [lib.envs[c["env"]] for c in r["extra"]["candidates"]]
        fit = type_fit(lib, expected_value(r["input"]), envs, expected_value(r["extra"]["target"]), _link(lib))
        order = ["ABCDEFGHIJKLMNOPQRSTUVWXYZ".index(a) for a in type_order(r, {}).split(", ")]
        assert fit.fits(order) and len(set(order)) == len(order)
        # what compile writes: every order (sort) or at least 56 sequences (select) chain
        assert fit.all_fit() if r["operator"] == "sort" else True


@functools.lru_cache(maxsize=4)
def _compiled(ops: str, n: int, seed: int) -> list[dict]:
    lib = stdlib()
    tasks, _ = compile_tasks(lib, CompileConfig(n=n, seed=seed, operators=parse_operators(ops)))
    return [to_record(t, k, seed, lib.hash) for k, t in enumerate(tasks)]


def _at_chance(report, names=("type_order",)) -> None:
    assert report.missing_library == 0
    for c in report.cells:
        for name in names:
            r = c.results[name]
            assert r.mean <= c.chance + max(report.z * r.se, report.margin), (c.operator, c.size, name, r.mean, c.chance)


def test_regression_sort_3_to_5_seed_3():
    """The issue's case: `compile stdlib -n 120 --operators sort=3-5 --seed 3`. Before, the
    types alone solved 0.78, 0.81 and 0.63 of the size 3, 4 and 5 tasks (chance 0.17, 0.05,
    0.01); now every order of every task type-checks, so type_order is a uniform guess."""
    records = [dict(r) for r in _compiled("sort=3-5", 120, 3)]
    assert len(records) == 120
    report = audit_records(records)
    assert report.ok, report.verdict()
    assert {c.size for c in report.cells} == {3, 4, 5}
    _at_chance(report)


def test_mixed_shapes_would_be_caught():
    """Planted: the same tasks with their candidates swapped for a chain of four shapes (the
    old draw's kind): type_order is named."""
    records = _compiled("sort=3-5", 120, 3)
    lib = stdlib()
    rng = random.Random(0)
    # stdlib chains of four shapes in one order only, as the old sort drew them
    chains = [("matrices.square_matrix", "matrices.matrix_diagonal", "lists.prefix_sums_mod", "intervals.pairs_to_spans")]
    planted = []
    for k, r in enumerate(records[:60]):
        r = dict(r, extra=dict(r["extra"]))
        x0 = [[3, -3], [-1, 1]] if k % 2 else [[1, 2], [0, 1]]
        value = x0
        for q in chains[0]:
            value = lib.run(lib.envs[q], value).value
        listing = list(chains[0])
        rng.shuffle(listing)
        r.update(size=4, chain=list(chains[0]), input=canonical(x0), answer=", ".join("ABCD"[listing.index(q)] for q in chains[0]))
        r["extra"] = {"target": canonical(value), "candidates": [{"env": q, "settings": {}} for q in listing]}
        planted.append(r)
    report = audit_records(planted)
    assert "type_order" in report.cells[0].beaten
    assert report.cells[0].results["type_order"].mean == pytest.approx(1.0)


@given(st.sampled_from(["[[", "1e400", "'x", "", "[" * 300 + "]" * 300, "NaN"]),
       st.integers(1, 26))
@settings(max_examples=30, deadline=None)
def test_type_order_on_hostile_records(chain_lib, text, count):
    """An unreadable start or target, or up to 26 candidates (beyond exact counting): an answer
    of the right form or none, never an exception, in bounded time."""
    import time

    rec = _sort_record(chain_lib, 12, [0, 1, 2, 3], 0)
    rec["size"] = count
    rec["extra"]["candidates"] = [{"env": ORDER[k % 4], "settings": {}} for k in range(count)]
    for field in ("input", "target"):
        bad = dict(rec, extra=dict(rec["extra"]))
        if field == "input":
            bad["input"] = text
        else:
            bad["extra"]["target"] = text
        t0 = time.perf_counter()
        got = type_order(bad, {})
        assert time.perf_counter() - t0 < 10
        assert got is None or sorted(got.split(", ")) == sorted("ABCDEFGHIJKLMNOPQRSTUVWXYZ"[:count])
    unknown = dict(rec, extra=dict(rec["extra"], candidates=[{"env": "nowhere.nothing", "settings": {}}]))
    assert type_order(unknown, {}) is None
