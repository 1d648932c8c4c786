"""Checked-argument variants and row facts (passing.py, issue 38): a helper called with a
parameter its caller holds checked trusts it; nothing unchecked is trusted so.

Each hostile environment below gets a wrong-typed value into a checked parameter (or one of
its rows) before passing it on, then grows it by operations the trusted facts would leave
unguarded: a regression fails with a size cut-off missing instead of taking the machine down.
"""

from __future__ import annotations

import ast

import pytest

from racesl.library import load
from racesl.lower.instrument import instrument
from racesl.lower.instrument.passing import keeping
from racesl.runtime.watchdog import WATCHDOG

HOSTILE = '''
def ident(x):
    return x

def poke(zs: List[Int]) -> Int:
    zs[0] = ident("ab")
    return 0

def grow_first(xs: List[Int where 0 <= it <= 9] where 1 <= len(it) <= 5) -> Int:
    t = xs[0]
    for i in range(17):
        t = t + t
    return len(str(t))

def sum_first(xs: List[Int where 0 <= it <= 9] where 1 <= len(it) <= 5) -> Int:
    return xs[0] * 3

env poked(xs: List[Int where 0 <= it <= 9] where 1 <= len(it) <= 5) -> Int:
    """Use xs."""
    poke(xs)
    return grow_first(xs)

env passed(xs: List[Int where 0 <= it <= 9] where 1 <= len(it) <= 5) -> Int:
    """Use xs."""
    return sum_first(xs)

env row_poked(g: List[List[Int where 0 <= it <= 9] where 1 <= len(it) <= 3] where 1 <= len(it) <= 3) -> Int:
    """Use g."""
    for r in g:
        r[0] = ident("ab")
    t = 0
    for r in g:
        t = r[0]
        for i in range(17):
            t = t + t
    return len(str(t))

def poke_row(rs):
    rs[0] = ident("ab")
    return 0

env row_by_callee(g: List[List[Int where 0 <= it <= 9] where 1 <= len(it) <= 3] where 1 <= len(it) <= 3) -> Int:
    """Use g."""
    poke_row(g[0])
    t = g[0][0]
    for i in range(17):
        t = t + t
    return len(str(t))

env cells(g: List[List[Int where 0 <= it <= 9] where 1 <= len(it) <= 3] where 1 <= len(it) <= 3) -> Int:
    """Use g."""
    return sorted(g, key=lambda r: (r[0] * 7, r[0]))[0][0] + g[0][0] * g[0][-1]

env row_aliased(g: List[List[Int where 0 <= it <= 9] where 1 <= len(it) <= 3] where 1 <= len(it) <= 3) -> Int:
    """Use g."""
    r = g[0]
    r.append(ident("ab"))
    t = 0
    for v in g[0]:
        t = v
    for i in range(17):
        t = t + t
    return len(str(t))
'''


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    p = tmp_path_factory.mktemp("passing") / "passing.races"
    p.write_text("module passing\n" + HOSTILE, encoding="utf-8")
    return load([p])


@pytest.mark.parametrize("name,x", [("poked", [1, 2]), ("row_poked", [[1, 2], [3, 4]]),
                                    ("row_aliased", [[1, 2]]), ("row_by_callee", [[1, 2]])])
def test_values_changed_before_they_are_passed_meet_guards(hostile, name, x):
    with WATCHDOG.session():
        run = hostile.run(hostile.envs[f"passing.{name}"], x, (), wall=2.0)
    assert run.status == "size", (run.status, run.detail)


def _text(lib) -> str:
    return ast.unparse(instrument(lib.module, int_params=lib.param_facts))


def test_a_held_parameter_passed_on_reaches_a_trusting_variant(hostile):
    text = _text(hostile)
    (variant,) = [ln for ln in text.splitlines() if ln.startswith("def _races_v") and "sum_first" in ln]
    body = text.split(variant, 1)[1].split("\ndef ", 1)[0]
    assert "_races_g_mul" not in body  # xs[0] * 3 of a word element: no guard
    assert "_races_g_mul" in text.split("def passing__sum_first(", 1)[1].split("\ndef ", 1)[0]
    with WATCHDOG.session():
        run = hostile.run(hostile.envs["passing.passed"], [4, 2], ())
    plain = hostile.program.call("passing__passed", ([4, 2],))  # (the ordinary variants)
    assert (run.value, run.status) == (12, "ok") and run.steps == plain.steps


def test_the_reference_meter_makes_no_variant(hostile):
    tree = instrument(hostile.module, int_params=hostile.param_facts, optimize=False)
    assert not any(f.name.startswith("_races_v") for f in tree.body)


def test_keeping_drops_what_is_changed_returned_or_passed_to_what_changes_it():
    src = ("def keep(xs):\n    return len(xs)\n"
           "def chg(xs):\n    xs.append(1)\n    return 0\n"
           "def ret(xs):\n    return xs\n"
           "def via(xs):\n    return chg(xs)\n"
           "def via_keep(xs):\n    return keep(xs)\n")
    keeps = keeping(ast.parse(src).body)
    assert ("keep", 0) in keeps and ("via_keep", 0) in keeps
    assert not {("chg", 0), ("ret", 0), ("via", 0)} & keeps


def test_rows_of_words_need_no_guard_where_nothing_changes_a_row(hostile):
    text = _text(hostile)
    body = text.split("def _races_entry__passing__cells(", 1)[1].split("\ndef ", 1)[0]
    assert "_races_g_mul" not in body and "_races_g_deep" not in body  # (cells, key tuples)
    with WATCHDOG.session():
        run = hostile.run(hostile.envs["passing.cells"], [[3, 1], [2, 5]], ())
    assert (run.value, run.status) == (5, "ok")
