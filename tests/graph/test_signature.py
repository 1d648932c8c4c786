"""The signature graph: edges only between equal shapes, nominal newtypes, proved vs
guarded classification, and its drawings."""

from __future__ import annotations

import json

import pytest

from racesl.graph import views
from racesl.graph.signature import GUARDED, PROVED, SignatureGraph, refinements_implied, syntactic_classify
from racesl.types import types as T
from tests.support.signatures import signature_graph, write_modules
from tests.support.tasks import stdlib


@pytest.fixture(scope="module")
def geo(tmp_path_factory):
    return signature_graph(write_modules(tmp_path_factory.mktemp("graph")))


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
    dot = views.env_dot(g)
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
