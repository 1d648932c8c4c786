"""The signature graph: edges only between equal shapes, nominal newtypes, proved vs
guarded classification, and its drawings."""

from __future__ import annotations

import json

import pytest

from racesl.graph.signature import GUARDED, PROVED, SignatureGraph, refinements_implied, syntactic_classify
from racesl.library import load
from racesl.types import types as T
from tests.search.taskutil import stdlib

GEO = '''\
module geo

type Nat = Int where 0 <= it <= 100
type Digit = Int where 0 <= it <= 9
newtype Grid = List[List[Digit]] where 1 <= len(it) <= 4
newtype Board = List[List[Digit]] where 1 <= len(it) <= 4

def grid_ok(n: Int, g: Grid) -> Bool:
    return len(g) >= 1

env inc(n: Nat) -> Nat:
    """Add one to n, wrapping at 100."""
    return (n + 1) % 101

env make_grid(n: Nat) -> Grid:
    """Make a one-row grid holding the last digit of n."""
    return [[n % 10]]

env rows(g: Grid) -> Nat:
    """Count the rows of g."""
    return len(g)

env flip(g: Grid) -> Grid:
    """Reverse the row order of g."""
    return g[::-1]

env plain(g: List[List[Int]]) -> List[List[Int]]:
    """Reverse the row order of g."""
    return g[::-1]

env plain_rows(g: List[List[Int]]) -> Nat:
    """Count the rows of g, at most 100."""
    return min(len(g), 100)

env board(b: Board) -> Board:
    """Reverse the row order of b."""
    return b[::-1]

env evens(n: Nat) -> Nat where it % 2 == 0:
    """Round n down to an even number."""
    return n - n % 2

env anyint(n: Int) -> Int:
    """Return n plus one."""
    return n + 1

env small(n: Nat) -> Int where 0 <= it <= 5:
    """Return n modulo 6."""
    return n % 6

env high(n: Nat) -> Int where 200 <= it <= 300:
    """Return 200 plus n."""
    return 200 + n

env digits(n: Nat) -> List[Digit]:
    """The decimal digits of n."""
    return [int(c) for c in str(n)]

env sum_digits(xs: List[Digit]) -> Nat:
    """The sum of the list xs."""
    return sum(xs)

env plain_list(n: Nat) -> List[Int]:
    """The list holding n."""
    return [n]

env word(n: Nat) -> Str where it.isalpha():
    """The letter a repeated n % 5 + 1 times."""
    return "a" * (n % 5 + 1)

env lower(s: Str where it.islower()) -> Nat:
    """The length of s, at most 100."""
    return min(len(s), 100)

@verify(grid_ok)
env any_grid(n: Nat) -> Grid:
    """Give any grid with at least one row."""
    return [[0]]
'''

OTHER = '''\
module other

newtype Grid = List[List[Int where 0 <= it <= 9]] where 1 <= len(it) <= 4

env other_rows(g: Grid) -> Tuple[Int, Int]:
    """Count the rows of g; pair the count with 0."""
    return (len(g), 0)
'''


@pytest.fixture(scope="module")
def geo(tmp_path_factory):
    d = tmp_path_factory.mktemp("graph")
    (d / "geo.races").write_text(GEO, encoding="utf-8")
    (d / "other.races").write_text(OTHER, encoding="utf-8")
    lib = load([d])
    return lib, SignatureGraph(lib.envs.values())


def kinds(g) -> dict:
    return {(e.src, e.dst): e.kind for e in g.edges()}


def test_edges_only_between_equal_shapes(geo):
    lib, g = geo
    for a in lib.envs.values():
        for b in lib.envs.values():
            has = g.g.has_edge(a.qualname, b.qualname)
            same = T.erase(a.output) == T.erase(b.input)
            if has:
                assert same, (a.qualname, b.qualname)
            elif same and not a.terminal:
                pytest.fail(f"no edge {a.qualname} -> {b.qualname} although the shapes match (no solver)")


def test_newtypes_are_nominal(geo):
    _, g = geo
    k = kinds(g)
    assert ("geo.make_grid", "geo.rows") in k and ("geo.make_grid", "geo.flip") in k
    for src in ("geo.make_grid", "geo.flip"):  # a Grid never flows into List[List[Int]] ...
        assert (src, "geo.plain") not in k and (src, "geo.plain_rows") not in k
        assert (src, "geo.board") not in k  # ... nor into another newtype over the same shape
        assert (src, "other.other_rows") not in k  # ... nor into another module's Grid
    assert ("geo.plain", "geo.rows") not in k and ("geo.plain", "geo.flip") not in k  # and back
    assert ("geo.board", "geo.rows") not in k
    assert ("geo.plain", "geo.plain_rows") in k and ("geo.board", "geo.board") in k


def test_terminal_environments_only_end_chains(geo):
    lib, g = geo
    assert lib.envs["geo.any_grid"].terminal
    assert g.successors("geo.any_grid") == ()
    assert ("geo.inc", "geo.any_grid") in kinds(g)


@pytest.mark.parametrize("src, dst, kind", [
    ("geo.inc", "geo.inc", PROVED),  # the same alias on both sides
    ("geo.evens", "geo.inc", PROVED),  # more conjuncts than needed
    ("geo.inc", "geo.anyint", PROVED),  # the input is unrefined
    ("geo.digits", "geo.sum_digits", PROVED),  # refinements inside a List
    ("geo.make_grid", "geo.rows", PROVED),  # a newtype into itself
    ("geo.anyint", "geo.inc", GUARDED),  # an unrefined Int into Nat
    ("geo.inc", "geo.evens", PROVED),
    ("geo.plain_list", "geo.sum_digits", GUARDED),  # List[Int] into List[Digit]: element check
    ("geo.word", "geo.lower", GUARDED),  # opaque predicates: checked at run time
])
def test_proved_and_guarded(geo, src, dst, kind):
    _, g = geo
    assert kinds(g)[src, dst] == kind


def test_syntactic_classifier_directly(geo):
    lib, _ = geo
    e = lib.envs
    assert refinements_implied(e["geo.evens"].output, e["geo.inc"].input)
    assert not refinements_implied(e["geo.anyint"].output, e["geo.inc"].input)
    assert not refinements_implied(e["geo.plain_list"].output, e["geo.sum_digits"].input)
    assert syntactic_classify(e["geo.small"].output, e["geo.inc"].input) == GUARDED  # no solver: not proved
    assert syntactic_classify(T.INT, T.ANY) == PROVED


def test_custom_classifier_drops_edges(geo):
    lib, g = geo
    calls = []

    def no_guards(out, inp):
        calls.append((out, inp))
        k = syntactic_classify(out, inp)
        return k if k == PROVED else None

    g2 = SignatureGraph(lib.envs.values(), classify=no_guards)
    assert calls
    counts = g2.counts()
    assert counts[GUARDED] == 0
    assert counts[PROVED] == g.counts()[PROVED]
    assert counts["dropped"] == g.counts()[GUARDED]
    assert all(e.kind == PROVED for e in g2.edges())


def test_successors_predecessors_counts(geo):
    lib, g = geo
    edges = g.edges()
    assert edges == sorted(edges, key=lambda e: (e.src, e.dst))
    for q in lib.envs:
        succ = g.successors(q)
        assert list(succ) == sorted(succ)
        assert set(succ) == {(e.dst, e.kind) for e in edges if e.src == q}
        assert set(g.predecessors(q)) == {(e.src, e.kind) for e in edges if e.dst == q}
    c = g.counts()
    assert c[PROVED] + c[GUARDED] == len(edges)
    assert c["dropped"] == 0
    isolated = {q for q in lib.envs if not any(q in (e.src, e.dst) for e in edges)}
    assert c["isolated"] == len(isolated)
    assert "other.other_rows" in isolated  # nothing makes other.Grid, nothing takes a Tuple


def test_json_and_dot(geo):
    lib, g = geo
    data = json.loads(g.to_json())
    assert {n["id"] for n in data["nodes"]} == set(lib.envs)
    assert {(e["source"], e["target"], e["kind"]) for e in data["edges"]} == {(e.src, e.dst, e.kind) for e in g.edges()}
    assert data["counts"] == g.counts()
    node = next(n for n in data["nodes"] if n["id"] == "geo.inc")
    assert node["module"] == "geo" and "0 <= it <= 100" in node["input"] and node["description"]
    dot = g.to_dot()
    assert dot.startswith("digraph") and dot.rstrip().endswith("}")
    assert '"geo.make_grid" -> "geo.rows" [style=solid];' in dot
    assert '"geo.anyint" -> "geo.inc" [style=dashed];' in dot
    assert sum(1 for line in dot.splitlines() if " -> " in line) == len(g.edges())  # one line per edge
    assert 'subgraph "cluster_geo"' in dot and 'subgraph "cluster_other"' in dot


def test_stdlib_graph_shape_invariant():
    lib = stdlib()
    g = SignatureGraph(lib.envs.values())
    assert g.counts()[PROVED] > 0 and g.counts()[GUARDED] > 0
    for e in g.edges():
        a, b = lib.envs[e.src], lib.envs[e.dst]
        assert T.erase(a.output) == T.erase(b.input), e
        assert not a.terminal
        if e.kind == PROVED:
            assert refinements_implied(a.output, b.input)


# ------------------------------------------------------------ with the solver (LANGUAGE §5)


@pytest.fixture(scope="module")
def solved(geo):
    solver = pytest.importorskip("racesl.solver")
    lib, _ = geo
    return SignatureGraph(lib.envs.values(), classify=solver.classify)


def test_solver_proves_implied_refinements(solved):
    k = kinds(solved)
    assert k["geo.small", "geo.inc"] == PROVED  # 0..5 implies 0..100
    assert k["geo.evens", "geo.inc"] == PROVED
    assert k["geo.anyint", "geo.inc"] == GUARDED


def test_solver_removes_impossible_edges(solved):
    k = kinds(solved)
    assert ("geo.high", "geo.inc") not in k  # 200..300 never meets 0..100
    assert ("geo.high", "geo.anyint") in k
    assert solved.counts()["dropped"] >= 1


def test_solver_keeps_opaque_predicates_guarded(solved):
    assert kinds(solved)["geo.word", "geo.lower"] == GUARDED
