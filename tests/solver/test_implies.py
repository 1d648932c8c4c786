"""Implication and satisfiability on a table of refinement pairs; budget and caching."""

from __future__ import annotations

import time

import pytest

from racesl.solver import Solver
from .util import py_holds

YES, NO, UNKNOWN = "yes", "no", "unknown"

# (out predicates, in predicates, subject, expected)
TABLE = [
    # ranges and chained comparisons
    (["0 <= it <= 10"], ["it < 20"], "int", YES),
    (["0 <= it <= 10"], ["it < 10"], "int", NO),
    (["0 <= it <= 30"], ["-5 <= it", "it <= 30"], "int", YES),
    (["it > 5", "it < 9"], ["6 <= it <= 8"], "int", YES),
    (["1 < it < 4 < 10"], ["it in (2, 3)"], "int", YES),
    (["it >= 0"], ["it >= 1"], "int", NO),
    ([], ["it == it"], "int", YES),
    ([], ["it > 0"], "int", NO),
    # modulus and floor division
    (["it % 2 == 0"], ["it % 4 == 0"], "int", NO),
    (["it % 4 == 0"], ["it % 2 == 0"], "int", YES),
    (["it % 6 == 3"], ["it % 3 == 0 and it % 2 == 1"], "int", YES),
    (["(it + 1) % 4 == 0"], ["it % 2 == 1"], "int", YES),
    (["it // 10 == 3"], ["30 <= it <= 39"], "int", YES),
    (["30 <= it <= 39"], ["it // 10 == 3"], "int", YES),
    (["it // 10 == 3"], ["it <= 38"], "int", NO),
    (["-9 <= it <= -1"], ["it // 10 == -1", "it % 10 >= 1"], "int", YES),  # Python floors
    (["it % -3 == -1"], ["it % 3 == 2"], "int", YES),
    # lengths
    (["1 <= len(it) <= 5"], ["len(it) <= 10"], "str", YES),
    (["1 <= len(it) <= 5"], ["len(it) <= 10"], "list", YES),
    (["len(it) <= 5"], ["len(it) >= 1"], "list", NO),
    (["len(it) <= 5"], ["len(it) >= 0"], "dict", YES),
    (["bool(it)"], ["len(it) >= 1"], "list", YES),
    (["len(it) >= 1"], ["bool(it)"], "list", YES),
    (["len(it) >= 1"], ["it"], "list", NO),  # a list is never `True`: the runtime wants `is True`
    (["len(it) == 0"], ["it == ''"], "str", YES),
    (["it == ''"], ["not it"], "str", YES),
    (["len(it) >= 2"], ["it != 'a'"], "str", YES),
    (["1 <= len(it) <= 20 and it.isalpha() and it.islower()"],
     ["1 <= len(it) <= 20 and it.isalpha()"], "str", YES),
    (["2 <= len(it) <= 20 and it.isalpha()"], ["1 <= len(it) <= 20 and it.isalpha() and it.islower()"],
     "str", NO),  # character classes are exact (racesl.solver.chars): "AB" is a counterexample
    (["len(it) % 2 == 0", "len(it) > 0"], ["len(it) >= 2"], "list", YES),
    # in range / in {..}
    (["it in range(2, 20, 3)"], ["it % 3 == 2 and 2 <= it <= 17"], "int", YES),
    (["it in range(10, 0, -2)"], ["it in {2, 4, 6, 8, 10}"], "int", YES),
    (["it in {1, 2, 3}"], ["it in range(1, 4)"], "int", YES),
    (["it in {1, 2, 3}"], ["it in range(1, 3)"], "int", NO),
    (["it not in range(0, 100)"], ["it < 0 or it >= 100"], "int", YES),
    (["abs(it) <= 3"], ["min(it, 3) >= -3", "max(it, -3) <= 3"], "int", YES),
    (["it > 0"], ["(it if it > 5 else 5) >= 5"], "int", YES),
    # booleans
    (["it"], ["it == 1"], "bool", YES),
    ([], ["it in (0, 1)"], "bool", YES),
    ([], ["it"], "bool", NO),
    # opaque: never "yes" unless the same text is on both sides
    (["it.isalnum()"], ["it.isascii()"], "str", UNKNOWN),  # (not the language's methods: opaque)
    (["it.isalpha()"], ["it.isalpha()"], "str", YES),
    (["all(0 <= x <= 9 for x in it)"], ["all(0 <= x <= 20 for x in it)"], "list", UNKNOWN),
    (["0 <= it <= 3"], ["it * it >= 0"], "int", UNKNOWN),
    (["it * it <= 10"], ["it <= 3"], "int", UNKNOWN),
    (["helper(it)"], ["it > 0"], "int", UNKNOWN),
    (["len(it) <= 3"], ["sorted(it) == it"], "list", UNKNOWN),
]


@pytest.fixture(scope="module")
def solver():
    return Solver()


@pytest.mark.parametrize("out,inp,subject,expected", TABLE)
def test_implication_table(solver, out, inp, subject, expected):
    assert solver.implies(out, inp, subject) == expected


def test_answers_agree_with_python_on_ints(solver):
    """Every "yes" holds on a window of ints; every "no" has a witness there (checked by eval)."""
    for out, inp, subject, expected in TABLE:
        if subject != "int":
            continue
        r = solver.implies(out, inp, subject)
        counter = [v for v in range(-120, 121)
                   if all(py_holds(p, v) for p in out) and not all(py_holds(p, v) for p in inp)]
        if r == YES:
            assert not counter, (out, inp, counter[:3])
        if r == NO:
            assert counter, (out, inp)


@pytest.mark.parametrize("preds,subject,expected", [
    (["it > 5", "it < 3"], "int", "unsat"),
    (["it > 5 and it < 7"], "int", "sat"),
    (["it % 2 == 0", "it % 2 == 1"], "int", "unsat"),
    (["it % 4 == 1", "it % 6 == 4"], "int", "unsat"),
    (["it in range(0, 10, 3)", "it in {1, 2, 4, 5}"], "int", "unsat"),
    (["len(it) < 0"], "str", "unsat"),
    (["len(it) == 0", "it.isalpha()"], "str", "unsat"),
    (["len(it) <= 5", "it.isalnum()"], "str", "unknown"),  # a model exists, but an atom chose it
    (["len(it) <= 5", "it.isalpha()"], "str", "sat"),  # character classes are exact
    (["it", "not it"], "bool", "unsat"),
    (["len(it) >= 3"], "set", "sat"),
])
def test_satisfiable(solver, preds, subject, expected):
    assert solver.satisfiable(preds, subject) == expected


def test_finite_key_sets_are_not_claimed_satisfiable(solver):
    from racesl.types.types import BOOL, SetT

    assert solver.satisfiable(["len(it) >= 3"], SetT(BOOL)) == "unknown"  # only 2 bools exist
    assert solver.satisfiable(["len(it) < 0"], SetT(BOOL)) == "unsat"


def test_tiny_rlimit_gives_unknown_deterministically():
    s = Solver(rlimit=1)
    for _ in range(3):
        assert s.implies(["it % 2 == 0", "it > 7"], ["it % 4 == 0"], "int") == UNKNOWN
        s._results.clear()
    assert s.unknown == 3
    # a generous budget settles it
    assert Solver().implies(["it % 2 == 0", "it > 7"], ["it % 4 == 0"], "int") == NO


def test_nonlinear_is_unknown_not_wrong(solver):
    assert solver.implies(["it * it == 49"], ["it == 7"], "int") == UNKNOWN
    assert solver.implies(["it * it == 49"], ["it * it == 49"], "int") == YES


def test_second_query_is_a_cache_hit():
    s = Solver()
    out, inp = ["0 <= it <= 99", "it % 3 == 0"], ["it < 200", "it % 3 != 1"]
    s.implies(["it > 0"], ["it > -1"], "int")  # warm up: z3 import, context
    t = time.perf_counter()
    assert s.implies(out, inp, "int") == YES
    cold = time.perf_counter() - t
    q, h = s.queries, s.cache_hits
    t = time.perf_counter()
    assert s.implies(out, inp, "int") == YES
    warm = time.perf_counter() - t
    assert s.queries == q and s.cache_hits == h + 1
    assert warm * 5 < cold, (cold, warm)
    # order and repetition of the predicates do not matter: keys are normalized texts
    assert s.implies(list(reversed(out)) + out[:1], inp, "int") == YES
    assert s.queries == q


def test_importing_the_package_does_not_import_z3():
    import subprocess
    import sys

    code = "import sys, racesl.solver; assert 'z3' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_stats_fields():
    s = Solver()
    s.implies(["it > 1"], ["it > 0"], "int")
    st = s.stats()
    assert set(st) >= {"queries", "cache_hits", "time", "z3_time", "unknown", "proved", "guarded", "dropped"}
    assert st["queries"] == 1 and st["time"] > 0
