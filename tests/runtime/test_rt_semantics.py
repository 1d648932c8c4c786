"""Instrumented bodies compute what CPython computes; failures map to statuses and lines."""

from __future__ import annotations

import ast
import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from racesl.lower.instrument import lower_to_source
from racesl.lower.program import load_program
from racesl.runtime import Program

from tests.support import typical_corpus as corpus
from tests.support.tricky import FAILING, TRICKY, TRICKY_CALLS

from .rtutil import plain, program, run

PLAIN = plain(corpus.SOURCE)
MODULE = ast.parse(corpus.SOURCE)
PROGRAMS = {
    "module": load_program(MODULE, "typical.races", int_params=corpus.int_params()),
    "source": Program.from_source(lower_to_source(MODULE, int_params=corpus.int_params()),
                                  "typical.races"),
    "no-int-params": load_program(MODULE, "typical.races"),
}


@pytest.mark.parametrize("route", sorted(PROGRAMS))
@pytest.mark.parametrize("name,args", [(n, a) for n, a, _ in corpus.CASES])
def test_typical_bodies_match_cpython(route, name, args):
    expected = PLAIN[name](*copy.deepcopy(args))
    kept = copy.deepcopy(args)
    out = PROGRAMS[route].call(name, args, fuel=100_000)
    assert out.status == "ok", out
    assert out.value == expected and type(out.value) is type(expected)
    assert args == kept  # the corpus does not mutate its inputs (the benchmark relies on it)


@pytest.mark.parametrize("name,args", [(n, a) for n, a, _ in corpus.CASES])
def test_typical_bodies_cut_exactly_at_their_steps(name, args):
    prog = PROGRAMS["module"]
    s = prog.call(name, args, fuel=100_000).steps
    assert prog.call(name, args, fuel=s).steps == s
    assert PROGRAMS["source"].call(name, args, fuel=s).steps == s
    assert PROGRAMS["no-int-params"].call(name, args, fuel=s).steps == s
    if s:
        assert prog.call(name, args, fuel=s - 1).status == "fuel"


def same(name, *args):
    try:
        expected = ("ok", PLAIN[name](*copy.deepcopy(args)))
    except Exception as exc:  # noqa: BLE001
        expected = ("error", type(exc).__name__)
    out = PROGRAMS["module"].call(name, args, fuel=10**6)
    got = ("ok", out.value) if out.status == "ok" else (out.status, (out.error or "").split(":")[0])
    assert got == expected, (name, args)


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="abcxyz AB,.:", max_size=40), st.integers(0, 30))
def test_string_bodies_on_random_input(s, k):
    for name in ("run_length", "vowel_count", "is_palindrome", "reverse_words", "count_chars",
                 "digit_sum_str", "sort_words"):
        same(name, s)
    same("caesar", s.lower().replace(" ", "").replace(",", "").replace(".", "").replace(":", ""), k)
    same("interleave", s, s[::-1])
    same("hamming", s, s.upper())


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-50, 50), max_size=25), st.integers(-5, 60))
def test_list_bodies_on_random_input(xs, k):
    for name in ("bubble_sort", "squares_of_evens", "prefix_sums", "max_subarray", "describe"):
        same(name, xs)
    same("rotate_left", xs, k)
    same("first_index_of", xs, k)
    same("primes_upto", abs(k))
    same("collatz_steps", abs(k) + 1)
    same("to_binary", abs(k) * 1000)
    same("gcd", abs(k), len(xs))


@pytest.mark.parametrize("via_source", [False, True])
@pytest.mark.parametrize("name,args", TRICKY_CALLS)
def test_tricky_bodies_match_cpython(name, args, via_source):
    expected = plain(TRICKY)[name](*copy.deepcopy(args))
    out = program(TRICKY, via_source=via_source).call(name, copy.deepcopy(args), fuel=100_000)
    assert out.status == "ok", out
    assert out.value == expected


@pytest.mark.parametrize("via_source", [False, True])
def test_failures_statuses_and_lines(via_source):
    prog = program(FAILING, via_source=via_source)
    cases = [
        ("index_error", ([1, 2],), "error", "IndexError", 4),
        ("key_error", ({"a": 1},), "error", "KeyError", 9),
        ("div_zero", (3,), "error", "ZeroDivisionError", 14),
        ("asserts", (-2,), "assert", "AssertionError: n must be positive, got -2", 17),
        ("type_error", ("x",), "error", "TypeError", 21),
        ("multi_line", ([1],), "error", "IndexError", 26),  # the line of `xs[5]`
        ("deep", (0,), "recursion", "RecursionCut", 30),
    ]
    for name, args, status, err, line in cases:
        out = prog.call(name, args, fuel=10_000)
        assert (out.status, out.line) == (status, line), (name, out)
        assert out.error.startswith(err), out
        assert out.value is None
    assert prog.call("deep_ok", (150,), fuel=10_000).value == 150
    assert prog.call("deep_ok", (250,), fuel=10_000).status == "recursion"
    assert prog.call("nope", ()).status == "error"
    assert prog.call("asserts", (1, 2)).status == "error"  # wrong arity: a TypeError, not a crash
    assert prog.call("asserts", (5,)).value == 5


def test_outcome_fields():
    out = run("def f(n):\n    for i in range(n):\n        pass\n    return n\n", "f", 3)
    assert (out.value, out.status, out.steps, out.error, out.line, out.ok) == (3, "ok", 3, None, None, True)
    cut = run("def f(n):\n    for i in range(n):\n        pass\n    return n\n", "f", 1000, fuel=10)
    assert (cut.status, cut.steps, cut.line, cut.ok) == ("fuel", 10, 2, False)


def test_deep_python_recursion_in_c_is_contained():
    # a value nested thousands deep makes CPython's own recursion guard fire inside C code
    out = run("def f(n):\n    a = []\n    for i in range(n):\n        a = [a]\n    return a == a[:]\n",
              "f", 50_000, fuel=10**6)
    assert out.status in ("recursion", "ok"), out
