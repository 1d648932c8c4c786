"""Static pruning (always-degenerate outputs), Optimize bounds, unsatisfiable refinements."""

from __future__ import annotations

import random

import attrs
import pytest

from racesl.search.config import Filters
from racesl.search.filters import value_filter
from racesl.solver import EMPTY_BOUNDS, Solver, always_degenerate, int_bounds, min_repr_len
from racesl.types.types import BOOL, INT, STR, DictT, ListT, Refined, TupleT
from .util import py_holds, refined

F = Filters()

PRUNE = [
    (refined(INT, "0 <= it <= 1"), "value"),
    (refined(INT, "it in (0, 1)"), "value"),
    (refined(INT, "0 <= it <= 2"), None),
    (refined(INT, "it > 500"), "big_int"),
    (refined(INT, "it < -500"), "big_int"),
    (refined(INT, "abs(it) > 600 and it % 2 == 0"), "big_int"),
    (refined(INT, "it <= 1 or it > 500"), None),  # -3 passes every filter
    (refined(INT, "0 <= it <= 1 or it > 500"), "value"),  # together, and "value" fires on some
    (INT, None),
    (BOOL, None),  # Bool is its own type: True is not the drop value 1
    (refined(STR, "len(it) > 100"), "long_text"),
    (refined(STR, "len(it) >= 99"), "long_text"),  # 99 characters + 2 quotes
    (refined(STR, "len(it) >= 98"), None),
    (refined(STR, "len(it) <= 1"), "repeated_char"),
    (refined(STR, "len(set(it)) == 1"), "repeated_char"),
    (refined(STR, "it.isalpha() and len(it) <= 3"), None),
    (refined(ListT(INT), "len(it) > 60"), "long_text"),
    (refined(ListT(INT), "len(it) >= 34"), "long_text"),  # 34 one-char elements: 34 * 3 = 102
    (refined(ListT(INT), "len(it) >= 33"), None),  # '[0, 0, ...]' of 33 elements: 99 characters
    (refined(ListT(refined(INT, "it >= 10")), "len(it) >= 26"), "long_text"),
    (refined(ListT(refined(INT, "it >= 10")), "len(it) >= 25"), None),
    (refined(ListT(refined(STR, "len(it) >= 3")), "len(it) >= 15"), "long_text"),
    (refined(DictT(INT, INT), "len(it) >= 17"), "long_text"),
    (refined(DictT(INT, INT), "len(it) >= 16"), None),
    (TupleT(tuple(refined(INT, "it >= 10 ** 9") for _ in range(10))), "long_text"),
    (refined(ListT(refined(ListT(INT), "len(it) >= 10")), "len(it) >= 4"), "long_text"),
    (refined(ListT(INT), "len(it) <= 20"), None),
]


@pytest.mark.parametrize("t,expected", PRUNE, ids=[str(t) for t, _ in PRUNE])
def test_always_degenerate(t, expected):
    assert always_degenerate(t, F) == expected


def test_filters_are_read_by_attribute():
    @attrs.frozen
    class Loose:
        drop_values: tuple = ()
        max_int: int = 10**6
        max_text: int = 1000
        repeated_char: bool = False

    assert always_degenerate(refined(INT, "0 <= it <= 1"), Loose()) is None
    assert always_degenerate(refined(INT, "it > 500"), Loose()) is None
    assert always_degenerate(refined(STR, "len(it) <= 1"), Loose()) is None
    assert always_degenerate(refined(INT, "it > 10 ** 6"), Loose()) == "big_int"
    assert always_degenerate(refined(STR, "len(it) == 0"), Filters(drop_values=("",))) == "value"
    assert always_degenerate(refined(ListT(INT), "not it"), Filters(drop_values=([],))) == "value"
    assert always_degenerate(refined(INT, "it > 10"), object()) is None  # nothing configured
    assert always_degenerate(refined(BOOL, "it"), Filters(drop_values=(True,))) == "value"
    assert always_degenerate(refined(BOOL, "it"), Filters(drop_values=(1,))) is None
    assert always_degenerate(refined(INT, "it == 1"), Filters(drop_values=(True,))) is None


def _draw(rng, t):
    """A random value of a (simple) type, by rejection on its predicates."""
    for _ in range(10_000):
        if t is INT or (isinstance(t, Refined) and t.base is INT):
            v = rng.choice([rng.randint(-3, 3), rng.randint(-700, 700), rng.randint(-10**6, 10**6)])
        elif isinstance(t, Refined) and t.base is STR:
            v = "".join(rng.choice("ab") for _ in range(rng.randint(0, 120)))
        elif isinstance(t, Refined) and isinstance(t.base, ListT) and t.base.elem is INT:
            v = [rng.randint(-20, 20) for _ in range(rng.randint(0, 70))]
        else:
            return None
        if all(py_holds(p.text, v) for p in getattr(t, "preds", ())):
            return v
    return None


@pytest.mark.parametrize("t,expected", [(t, e) for t, e in PRUNE if e is not None])
def test_pruned_types_really_are_degenerate(t, expected):
    """Whatever is claimed holds on random values of the type (the filters as the search runs them)."""
    rng = random.Random(3)
    for _ in range(60):
        v = _draw(rng, t)
        if v is None:
            return
        assert value_filter(F, v, repr(v)) is not None, (t, v)


def test_min_repr_len():
    assert min_repr_len(INT) == 1
    assert min_repr_len(refined(INT, "it < -99")) == 4
    assert min_repr_len(refined(INT, "it % 100 == 42 and it > 0")) == 2
    assert min_repr_len(BOOL) == 4 and min_repr_len(refined(BOOL, "not it")) == 5
    assert min_repr_len(refined(STR, "len(it) >= 3")) == 5
    assert min_repr_len(refined(ListT(INT), "len(it) == 2")) == len("[0, 0]")
    assert min_repr_len(TupleT((INT,))) == len("(0,)")
    assert min_repr_len(refined(DictT(STR, INT), "len(it) >= 1")) == len("{'': 0}")


# ---------------------------------------------------------------- bounds


@pytest.mark.parametrize("preds,subject,expected", [
    (["3 <= it and it % 2 == 1 and it < 40"], "int", (3, 39)),
    (["0 <= it <= 30"], "int", (0, 30)),
    (["it > 5"], "int", (6, None)),
    (["it < -5"], "int", (None, -6)),
    ([], "int", (None, None)),
    (["it > 5", "it < 3"], "int", EMPTY_BOUNDS),
    (["it in range(2, 20, 3)"], "int", (2, 17)),
    (["it in {7, -4, 12}"], "int", (-4, 12)),
    (["abs(it - 10) <= 3", "it % 5 != 0"], "int", (7, 13)),
    (["it // 10 == 4"], "int", (40, 49)),
    (["it * it < 10", "-100 < it < 100"], "int", (-99, 99)),  # opaque conjuncts are dropped: still sound
    (["1 <= len(it) <= 20 and it.isalpha()"], "str", (1, 20)),
    (["it.isalpha()"], "str", (1, None)),
    ([], "list", (0, None)),
    (["len(it) % 4 == 3", "len(it) < 30"], "list", (3, 27)),
    ([], "bool", (0, 1)),
])
def test_int_bounds(preds, subject, expected):
    assert int_bounds(preds, subject) == expected


def test_int_bounds_tiny_budget_is_unknown():
    assert int_bounds(["it % 7 == 3", "100 < it < 10000"], "int", Solver(rlimit=10)) == (None, None)


def test_int_bounds_cached():
    s = Solver()
    assert int_bounds(["0 <= it <= 9"], "int", s) == (0, 9)
    q = s.queries
    assert int_bounds(["0 <= it <= 9"], "int", s) == (0, 9)
    assert s.queries == q


# ---------------------------------------------------------------- diagnostics


def test_unsat_refinement():
    s = Solver()
    t = refined(INT, "it > 5", "it < 3")
    assert s.unsat_refinement(t).text == "it < 3"
    assert s.unsat_refinement(refined(INT, "it > 5 and it < 3")).text == "it > 5 and it < 3"
    assert s.unsat_refinement(refined(INT, "it % 2 == 0", "it % 4 == 1")).text == "it % 4 == 1"
    assert s.unsat_refinement(ListT(refined(INT, "it in range(3)", "it > 7"))).text == "it > 7"
    assert s.unsat_refinement(refined(STR, "len(it) == 0", "it.isalpha()")).text == "it.isalpha()"
    bad = refined(BOOL, "it and not it")
    assert s.unsat_refinement(TupleT((INT, bad))) is bad.preds[0]
    assert s.unsat_refinement(refined(INT, "it >= 0", "it * it == 2")) is None  # opaque: not provable
    assert s.unsat_refinement(refined(ListT(refined(INT, "it > 0")), "len(it) <= 3")) is None
