"""Bounds extraction on a table of predicates."""

from __future__ import annotations

import string

import pytest

from racesl.types.refine import EMPTY_RANGE, Bounds, IntRange, analyze, extract
from .sample_testutil import pred


def b(src: str) -> Bounds:
    return analyze(pred(src).expr)


def v(lo=None, hi=None, **kw) -> IntRange:
    return IntRange(lo=lo, hi=hi, **kw)


VALUE_TABLE = [
    ("0 <= it <= 30", v(0, 30)),
    ("it > 3", v(4)),
    ("10 >= it", v(hi=10)),
    ("it < -2", v(hi=-3)),
    ("-5 <= it", v(-5)),
    ("it != 5", v(excluded=frozenset({5}))),
    ("it == 12", v(12, 12)),
    ("12 == it", v(12, 12)),
    ("3 <= it and it % 2 == 1 and it < 40", v(3, 39, modulus=2, residue=1)),
    ("it % 2 == 1 and 3 <= it < 40", v(3, 39, modulus=2, residue=1)),
    ("it % 3 != 0", v(excluded_residues=frozenset({(3, 0)}))),
    ("it % 10 < 3", v(excluded_residues=frozenset((10, r) for r in range(3, 10)))),
    ("(it + 1) % 4 == 0", v(modulus=4, residue=3)),
    ("it in range(10)", v(0, 9)),
    ("it in range(2, 20, 3)", v(2, 17, modulus=3, residue=2)),
    ("it in range(10, 0, -2)", v(2, 10, modulus=2, residue=0)),
    ("it in {1, 2, 3}", v(1, 3, choices=(1, 2, 3))),
    ("it in (4, 2)", v(2, 4, choices=(2, 4))),
    ("it in [7]", v(7, 7, choices=(7,))),
    ("it in {1, 2, 3} and it != 2", v(1, 3, excluded=frozenset({2}), choices=(1, 3))),
    ("2 * it + 1 <= 30", v(hi=14)),
    ("30 >= 3 * it - 3", v(hi=11)),
    ("-it < 3", v(-2)),
    ("it - 1 > 2 * it - 10", v(hi=8)),
    ("abs(it) <= 4", v(-4, 4)),
    ("abs(it) < 4", v(-3, 3)),
    ("it // 10 == 3", v(30, 39)),
    ("it // 2 < 5", v(hi=9)),
    ("not (it < 3)", v(3)),
    ("not it >= 3", v(hi=2)),
    ("it not in {0, 1}", v(excluded=frozenset({0, 1}))),
    ("it not in range(3)", v(excluded=frozenset({0, 1, 2}))),
    ("0 <= it <= 100 and it % 7 == 3", v(3, 94, modulus=7, residue=3)),
    ("it % 2 == 0 and it % 3 == 0", v(modulus=6, residue=0)),
]


@pytest.mark.parametrize("src,expected", VALUE_TABLE, ids=[s for s, _ in VALUE_TABLE])
def test_value_bounds(src, expected):
    got = b(src)
    assert got.value == expected.normalized(), got
    assert not got.opaque


LENGTH_TABLE = [
    ("len(it) <= 5 and len(it) >= 2", v(2, 5)),
    ("2 <= len(it) <= 8", v(2, 8)),
    ("len(it) == 3", v(3, 3)),
    ("len(it) > 0", v(1)),
    ("len(it) % 2 == 0", v(modulus=2, residue=0)),
    ("len(it) in range(1, 4)", v(1, 3)),
    ("2 * len(it) <= 9", v(hi=4)),
    ("it", v(1)),
    ("not it", v(0, 0)),
]


@pytest.mark.parametrize("src,expected", LENGTH_TABLE, ids=[s for s, _ in LENGTH_TABLE])
def test_length_bounds(src, expected):
    assert b(src).length == expected.normalized()


EMPTY_TABLE = ["0 <= it and it < 0", "it % 2 == 0 and it % 4 == 1", "it == 3 and it == 4",
               "5 < it < 6", "it in {1, 2} and it > 2", "it % 3 == 5", "2 * it == 3", "False"]


@pytest.mark.parametrize("src", EMPTY_TABLE)
def test_empty_value_ranges(src):
    got = b(src)
    assert got.value.empty or got.empty


def test_empty_length():
    assert b("len(it) < 0").empty
    assert b("len(it) == 2 and len(it) == 3").empty


def test_string_alphabets():
    assert b("it.isalpha()").alphabet == frozenset(string.ascii_letters)
    assert b("it.isalpha()").length.lo == 1
    assert b("it.isalpha() and it.islower()").alphabet == frozenset(string.ascii_lowercase)
    assert b("it.isupper()").alphabet == frozenset(string.ascii_uppercase)
    assert b("it.isdigit()").alphabet == frozenset(string.digits)
    assert b("it.isascii()").length.lo is None  # "" is ascii
    e = b('all(c in "abc" for c in it)').elem
    assert {"a", "b", "c"} <= set(e.choices)
    assert b('set(it) <= set("xy")').elem.choices == ("x", "y")
    assert b('set(it).issubset("xy")').elem.choices == ("x", "y")
    assert b("all(c.isdigit() for c in it)").elem.alphabet == frozenset(string.digits)
    assert b('all("a" <= c <= "e" for c in it)').elem.alphabet == frozenset("abcde")
    assert b('all(c not in "aeiou" for c in it)').elem.excluded[:1] == ("",)


def test_literal_choices():
    assert b('it == "abc"').choices == ("abc",)
    assert b('it in {"ab", "cd"}').choices == ("ab", "cd")
    assert set(b('it in "abc"').choices) == {"", "a", "b", "c", "ab", "bc", "abc"}
    assert b("it in [(1, 2), (3, -4)]").choices == ((1, 2), (3, -4))
    assert b("it == [1, 2]").choices == ([1, 2],)
    assert b('it != "x"').excluded == ("x",)


def test_list_element_bounds_and_order():
    assert b("all(0 <= x <= 9 for x in it)").elem.value == v(0, 9)
    assert b("all(len(row) == 3 for row in it)").elem.length == v(3, 3)
    assert b("all(all(0 <= x < 5 for x in row) for row in it)").elem.elem.value == v(0, 4)
    assert b("set(it).issubset({1, 2})").elem.choices == (1, 2)
    assert b("all(v > 0 for v in it.values())").values.value == v(1)
    assert b("all(0 <= k < 3 for k in it.keys())").elem.value == v(0, 2)
    assert b("len(set(it)) == len(it)").distinct
    assert b("len(it) == len(set(it))").distinct
    assert b("it == sorted(it)").order == "asc"
    assert b("list(it) == sorted(it)").order == "asc"
    assert b("sorted(it, reverse=True) == it").order == "desc"
    assert b('"".join(sorted(it)) == it').order == "asc"
    got = b("all(it[i] < it[i + 1] for i in range(len(it) - 1))")
    assert (got.order, got.distinct) == ("asc", True)
    got = b("all(it[i - 1] >= it[i] for i in range(1, len(it)))")
    assert (got.order, got.distinct) == ("desc", False)
    got = b("all(it[i - 1] <= it[i] for i in range(1, len(it)))")
    assert (got.order, got.distinct) == ("asc", False)
    got = b("all(it[i + 1] > it[i] for i in range(0, len(it) - 1))")
    assert (got.order, got.distinct) == ("asc", True)
    got = b("all(a >= b for a, b in zip(it, it[1:]))")
    assert (got.order, got.distinct) == ("desc", False)
    got = b("all(b > a for a, b in zip(it, it[1:]))")
    assert (got.order, got.distinct) == ("asc", True)


OPAQUE = ["all(it[i] <= it[i + 1] for i in range(2))",
          "all(it[i] <= it[i + 1] for i in range(1, len(it) - 1))",
          "all(it[i] <= it[i + 2] for i in range(len(it) - 2))",
          "foo(it)", "it * it < 50", "it < 10 or it > 20", "it.startswith('a')",
          "any(x > 3 for x in it)", "all(x > 0 for x in it if x != 3)", "it[0] < it[1]",
          "sum(it) == 10", "'a' in it"]


@pytest.mark.parametrize("src", OPAQUE)
def test_opaque_predicates_are_recorded_not_guessed(src):
    got = b(src)
    assert got.opaque
    assert got.value == IntRange() and got.length == IntRange() and not got.empty


def test_partly_understood_conjuncts_keep_what_is_known():
    got = b("foo(it) and 0 <= it <= 9")
    assert got.value == v(0, 9)
    assert got.opaque == ("foo(it)",)
    got = b("0 <= it < f(3)")
    assert got.value == v(0) and got.opaque


def test_extract_merges_preds_and_splits_and():
    got = extract([pred("0 <= it"), pred("it < 40 and it % 2 == 1"), pred("it >= 3")])
    assert got.value == v(3, 39, modulus=2, residue=1).normalized()
    got = extract([pred("len(it) >= 2"), pred("len(it) <= 8 and it.islower()")])
    assert got.length == v(2, 8) and got.alphabet == frozenset(string.ascii_lowercase)


def test_int_range_meet_and_pick():
    import random

    r = v(0, 100, modulus=3, residue=1).normalized().meet(v(modulus=5, residue=2))
    assert (r.modulus, r.residue) == (15, 7)
    rng = random.Random(0)
    for _ in range(50):
        x = r.pick(rng, 0, 100)
        assert x % 15 == 7 and 0 <= x <= 100
    assert v(0, 10).meet(v(20, 30)) == EMPTY_RANGE
    assert v(0, 3, excluded=frozenset({0, 1, 2, 3})).normalized().empty
    assert v(excluded_residues=frozenset({(2, 0), (2, 1)})).normalized().empty


def test_literal_sets_use_python_equality():
    # 1 == True: `it in {1, 2} and it in {True}` still allows 1
    got = b("it in {1, 2} and it in {True}")
    assert not got.empty and got.value.choices == (1,)
    assert b("it in {(1, 2)} and it in {(1, 2), (3, 4)}").choices == ((1, 2),)
