"""The encoding means what CPython computes: exact predicates agree with `eval` value by value."""

from __future__ import annotations

import pytest

from racesl.solver import Solver
from .util import encodings, py_holds, z3_holds

EXACT_INT = [
    "0 <= it <= 30", "it > 3", "10 >= it", "it != 5", "it == 12",
    "it % 3 == 1", "it % 2 == 0 and it % 5 != 0", "(it + 1) % 4 == 0",
    # Python's floor semantics, also for negative operands and divisors
    "it // 4 == -2", "it % 4 == 3", "it % -4 == -1", "it // -3 == 2", "(2 * it - 7) // 5 >= -3",
    "-it > 3", "~it == 4", "+it == 4", "abs(it - 3) <= 2", "min(it, 5) == it", "max(it, 2, -1) == 2",
    "it in range(10)", "it in range(2, 20, 3)", "it in range(10, 0, -2)", "it not in range(-5, 5)",
    "it in {1, 2, 3}", "it not in (4, True)", "it in [7, -7]", "it in {1: 'a', 9: 'b'}",
    "it == 'a'", "it != 'a'",
    "it < 2 ** 4", "(it if it > 0 else -it) < 5", "bool(it % 2)", "not it", "it and it > 3",
    "it > 3 or it < -3", "it << 2 == 8", "it >> 1 == -3", "(it > 2) + (it > 4) == 1", "True", "False",
    "it % 7 in range(3)", "3 * (it + 1) - 2 * it == 7", "int(it > 5) == 1", "len('abc') == it",
    "it in range(5) and it != 2", "0 < it < 5 < 7", "it == True", "1 if it else 0", "it or 0",
    "(it or 5) == 5", "-3 <= it * 2 - 1 < 9",
]


@pytest.fixture(scope="module")
def solver():
    return Solver()


@pytest.mark.parametrize("src", EXACT_INT)
def test_int_predicates_are_exact_and_match_python(solver, src):
    if src in ("(it or 5) == 5",):  # `or` in value position: opaque (kept sound, not exact)
        assert not all(e.exact for e in encodings(solver, src, "int"))
        return
    assert all(e.exact for e in encodings(solver, src, "int")), src
    for v in range(-25, 26):
        assert z3_holds(solver, src, "int", v) == py_holds(src, v), (src, v)


@pytest.mark.parametrize("src", ["it", "not it", "it == 1", "it + 1 == 2", "it in (0,)", "it and True",
                                 "it or False", "it != False", "it < 1", "-it == -1"])
def test_bool_predicates_match_python(solver, src):
    for v in (True, False):
        assert z3_holds(solver, src, "bool", v) == py_holds(src, v), (src, v)


@pytest.mark.parametrize("src,subject", [
    ("it.isalnum()", "str"), ("it.count('a') >= 2", "str"), ("all(c in 'é' for c in it)", "str"),
    ("all(0 <= x <= 9 for x in it)", "list"),
    ("it * it <= 10", "int"), ("helper(it)", "int"), ("it ** 2 > 3", "int"), ("it // (it + 1) == 0", "int"),
    ("it is True", "bool"), ("it == 'abc'", "str"), ("sorted(it) == it", "list"), ("len(it) > 2", "int"),
])
def test_opaque_predicates_are_marked_inexact(solver, src, subject):
    assert not all(e.exact for e in encodings(solver, src, subject))


@pytest.mark.parametrize("src,subject", [
    ("len(it) <= 3", "str"), ("it == ''", "str"), ("it in ('', [])", "list"), ("it != []", "list"),
    ("len(it) in range(2, 5)", "dict"), ("it == 3", "str"), ("it", "list"), ("not it", "str"),
])
def test_length_predicates_are_exact(solver, src, subject):
    assert all(e.exact for e in encodings(solver, src, subject))


def test_same_opaque_text_is_one_atom(solver):
    assert solver.implies(["it.isalpha() and len(it) <= 3"], ["it.isalpha()"], "str") == "yes"
    assert solver.implies(["it.isalpha()"], ["it.isalpha() and len(it) >= 1"], "str") == "yes"  # axiom
    assert solver.implies(["it.isalnum()"], ["it.isascii()"], "str") == "unknown"
    assert solver.implies(["it.isalpha()"], ["it.islower()"], "str") == "no"  # exact: racesl.solver.chars


def test_helper_atoms_are_per_module(solver):
    from .util import pred

    a, b = pred("good(it)", "mod_a"), pred("good(it)", "mod_b")
    assert solver.implies([a], [a], "int") == "yes"
    assert solver.implies([a], [b], "int") == "unknown"  # same text, another module's helper


def test_raising_subexpression_is_not_assumed_false(solver):
    # Python: int('ab') raises, so the predicate rejects 'ab' although `len(it) >= 0` holds:
    # the first `or` operand may raise, so it must not become a free atom on its own.
    assert solver.implies(["len(it) <= 3"], ["int(it) > 5 or len(it) >= 0"], "str") != "yes"
    assert solver.implies(["len(it) <= 3"], ["not (it[5] == 'a')"], "str") != "yes"
    assert solver.implies(["0 <= it <= 3"], ["it in 'abc' or True"], "int") != "yes"  # TypeError
    # a comparison by `==` cannot raise: there it is fine
    assert solver.implies(["len(it) == 2"], ["not (it == 'abc')"], "str") == "yes"
    assert solver.implies(["it == 'abc'"], ["len(it) == 3"], "str") == "yes"


def test_tuple_components(solver):
    from racesl.types.types import INT, TupleT

    pair = TupleT((INT, INT))
    assert solver.implies(["it[0] < it[1] and it[1] < 5"], ["it[0] <= 3", "len(it) == 2"], pair) == "yes"
    assert solver.implies(["it[0] < it[1]"], ["it[0] < 0"], pair) == "no"
    assert solver.implies(["it == (1, 2)"], ["it[0] + it[1] == 3"], pair) == "yes"
