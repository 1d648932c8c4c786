"""Edge classification: synthetic type pairs, and every shape-equal pair of the stdlib."""

from __future__ import annotations

import collections
import random
import time

import pytest

from racesl.graph.signature import SignatureGraph, syntactic_classify
from racesl.solver import GUARDED, PROVED, Solver
from racesl.types.types import ANY, BOOL, INT, STR, DictT, ListT, NewT, TupleT, erase
from .util import refined


@pytest.fixture(scope="module")
def solver():
    return Solver()


Nat99 = refined(INT, "0 <= it <= 99")
Graph = NewT("g.Graph", refined(ListT(refined(ListT(refined(INT, "0 <= it < 10")), "len(it) <= 9")),
                                "len(it) <= 10"))

CASES = [
    # (out, in, expected)
    (refined(INT, "0 <= it <= 54"), refined(INT, "0 <= it <= 999999"), PROVED),
    (refined(INT, "0 <= it <= 99"), refined(INT, "1 <= it <= 500"), GUARDED),
    (refined(INT, "it > 600"), refined(INT, "it <= 500"), None),
    (refined(INT, "it % 2 == 0"), refined(INT, "it % 2 == 1"), None),
    (INT, refined(INT, "it >= 0"), GUARDED),
    (refined(INT, "it >= 0"), INT, PROVED),
    (refined(INT, "it > 0", "it < 10"), refined(INT, "0 < it < 10"), PROVED),
    # elements: disjoint elements leave only the empty list
    (ListT(refined(INT, "it > 100")), ListT(refined(INT, "it < 50")), GUARDED),
    (refined(ListT(refined(INT, "it > 100")), "len(it) >= 1"), ListT(refined(INT, "it < 50")), None),
    (refined(ListT(refined(INT, "0 <= it <= 7")), "2 <= len(it) <= 8"),
     refined(ListT(Nat99), "len(it) <= 20"), PROVED),
    (refined(ListT(Nat99), "len(it) <= 20"), refined(ListT(Nat99), "1 <= len(it) <= 20"), GUARDED),
    (ListT(ListT(refined(INT, "0 <= it <= 3"))), ListT(ListT(refined(INT, "it < 9"))), PROVED),
    # all(...) at the top level is an element refinement
    (refined(ListT(INT), "all(0 <= x <= 9 for x in it)"), ListT(refined(INT, "0 <= it <= 20")), PROVED),
    (ListT(refined(INT, "0 <= it <= 5")), refined(ListT(INT), "all(x < 9 for x in it)"), PROVED),
    (refined(ListT(INT), "all(x > 9 for x in it)", "len(it) > 0"), ListT(refined(INT, "it < 5")), None),
    (refined(DictT(STR, INT), "all(v > 0 for v in it.values())"), DictT(STR, refined(INT, "it >= 1")), PROVED),
    (refined(DictT(refined(INT, "it < 0"), INT), "len(it) >= 1"), DictT(refined(INT, "it > 0"), INT), None),
    # tuples: components, and refinements across components
    (TupleT((refined(INT, "0 <= it <= 5"), refined(INT, "6 <= it <= 9"))),
     refined(TupleT((INT, INT)), "it[0] < it[1]"), PROVED),
    (TupleT((INT, INT)), refined(TupleT((INT, INT)), "it[0] < it[1]"), GUARDED),
    (refined(TupleT((INT, INT)), "it[0] > it[1]"), refined(TupleT((INT, INT)), "it[0] < it[1]"), None),
    (TupleT((refined(INT, "it > 3"), BOOL)), TupleT((refined(INT, "it < 2"), BOOL)), None),
    # strings: lengths exact, methods opaque
    (refined(STR, "1 <= len(it) <= 10 and it.isalpha() and it.islower()"),
     refined(STR, "1 <= len(it) <= 20 and it.isalpha() and it.islower()"), PROVED),
    (refined(STR, "len(it) <= 5"), refined(STR, "it.isalpha()"), GUARDED),
    (refined(STR, "it.isdigit()"), refined(STR, "len(it) > 0"), PROVED),
    (refined(STR, "len(it) == 0"), refined(STR, "it.isalpha()"), None),
    (refined(STR, "it.isalpha()"), refined(STR, "it.isalpha()"), PROVED),
    # newtypes: the representation's refinements are shared
    (Graph, Graph, PROVED),
    (refined(Graph, "len(it) <= 3"), Graph, PROVED),
    (Graph, refined(Graph, "len(it) <= 3"), GUARDED),
    (refined(Graph, "len(it) >= 11"), refined(Graph, "len(it) >= 5"), None),  # no Graph is that long
    (refined(Graph, "len(it) >= 11"), Graph, PROVED),  # syntactic: no Z3 asked (unsat_refinement reports it)
    # unknowns
    (refined(INT, "0 <= it <= 5"), ANY, PROVED),
    (refined(INT, "it >= 0"), STR, None),
]


@pytest.mark.parametrize("out,inp,expected", CASES, ids=[f"{o}->{i}" for o, i, _ in CASES])
def test_classify_cases(solver, out, inp, expected):
    assert solver.classify(out, inp) == expected


def test_counters_and_classify_cache():
    s = Solver()
    a, b = refined(INT, "0 <= it <= 5"), refined(INT, "it < 9")
    assert s.classify(a, b) == PROVED
    q = s.queries
    assert s.classify(a, b) == PROVED
    assert s.queries == q and s.cache_hits >= 1
    assert s.classify(refined(INT, "it > 9"), b) is None
    assert s.classify(b, a) == GUARDED
    assert (s.proved, s.guarded, s.dropped) == (2, 1, 1)


# ---------------------------------------------------------------- the stdlib


@pytest.fixture(scope="module")
def stdlib():
    import racesl.library as L
    import racesl.resources as R

    return L.load([R.stdlib_dir()])


def _pairs(lib):
    envs = list(lib.envs.values())
    return [(a, b) for a in envs if not a.terminal for b in envs if erase(a.output) == erase(b.input)]


def test_stdlib_solver_proves_strictly_more_than_syntax(stdlib):
    pairs = _pairs(stdlib)
    s = Solver()
    t = time.perf_counter()
    got = collections.Counter(s.classify(a.output, b.input) for a, b in pairs)
    cold = time.perf_counter() - t
    t = time.perf_counter()
    again = collections.Counter(s.classify(a.output, b.input) for a, b in pairs)
    warm = time.perf_counter() - t
    syn = collections.Counter(syntactic_classify(a.output, b.input) for a, b in pairs)
    print(f"\n{len(pairs)} shape-equal pairs: solver {dict(got)} (cold {cold:.2f} s, warm {warm * 1e3:.1f} ms, "
          f"{s.queries} queries); syntactic {dict(syn)}")
    assert got == again
    assert got[PROVED] > syn[PROVED]
    assert got[PROVED] + got[GUARDED] + got[None] == len(pairs)
    for a, b in pairs:  # the solver never loses a syntactic proof
        if syntactic_classify(a.output, b.input) == PROVED:
            assert s.classify(a.output, b.input) == PROVED, (a.qualname, b.qualname)
    assert warm < cold
    assert s.unknown == 0  # the stdlib fits the fragment and the budget

    g = SignatureGraph(stdlib.envs.values(), classify=s.classify)
    c = g.counts()
    assert c[PROVED] > SignatureGraph(stdlib.envs.values()).counts()[PROVED]


def test_stdlib_proved_edges_hold_on_real_outputs(stdlib):
    """Outputs of real runs: along a proved edge they always conform to the next input; along
    a dropped one never."""
    s = Solver()
    rng = random.Random(7)
    envs = [e for e in stdlib.envs.values() if not e.terminal]
    by_shape = collections.defaultdict(list)
    for b in stdlib.envs.values():
        by_shape[erase(b.input)].append(b)
    checked = 0
    for a in envs:
        for level in (0, 2):
            try:
                x = stdlib.sample_input(a, rng, level)
                settings = stdlib.sample_settings(a, rng, level)
            except Exception:
                continue
            r = stdlib.run(a, x, settings)
            if not r.ok:
                continue
            for b in by_shape[erase(a.output)]:
                kind = s.classify(a.output, b.input)
                if kind == GUARDED:
                    continue
                why = stdlib.conforms(r.value, b.input)
                if kind == PROVED:
                    assert why is None, (a.qualname, b.qualname, r.value, why)
                    checked += 1
                elif kind is None:
                    assert why is not None, (a.qualname, b.qualname, r.value)
    assert checked > 500
