"""The signature graph: environments as nodes, an edge A → B when A's output flows into
B's input. Shapes must be equal (constructors and newtype names); refinements decide the
edge's kind:

- proved: every value A may return satisfies B's input refinement (no run-time check);
- guarded: the two may overlap; each value is checked against B's input at run time;
- (no edge): they cannot overlap.

A guarded edge that never passed in `racesc check`'s sampling (racesl.passing) is left out
of `composing(...)`, the graph the views and counts show; the search keeps the whole graph.

Without a solver, an edge is proved only when B's input refinements are, position by
position, among A's output refinements; everything else with equal shapes is guarded.
A solver (`classify=`) can prove more edges and remove impossible ones.
"""

from __future__ import annotations

import json
from typing import Callable, Iterable

import attrs
import networkx as nx

from racesl.check.model import EnvSig, declared_types
from racesl.types import types as T

PROVED, GUARDED = "proved", "guarded"


@attrs.frozen
class Edge:
    src: str
    dst: str
    kind: str


def refinements_implied(out: T.Type, inp: T.Type) -> bool:
    """Syntactic implication: every predicate of `inp`, at every position, is in `out`."""
    if isinstance(T.shape(inp), T.AnyT):
        return True
    if not set(T.preds(inp)) <= set(T.preds(out)):
        return False
    so, si = T.shape(out), T.shape(inp)
    if isinstance(si, T.NewT):
        return isinstance(so, T.NewT) and so.name == si.name
    if isinstance(si, (T.ListT, T.SetT)):
        return refinements_implied(so.elem, si.elem)
    if isinstance(si, T.TupleT):
        return all(refinements_implied(a, b) for a, b in zip(so.elems, si.elems))
    if isinstance(si, T.DictT):
        return refinements_implied(so.key, si.key) and refinements_implied(so.value, si.value)
    return True


def syntactic_classify(out: T.Type, inp: T.Type) -> str | None:
    return PROVED if refinements_implied(out, inp) else GUARDED


def build_graph(envs, use_solver: bool = True):
    """The signature graph, with edges classified by Z3 when `use_solver`. Returns the
    graph and the solver (None without one), whose statistics the summaries report."""
    if not use_solver:
        return SignatureGraph(envs), None
    from racesl.solver import Solver
    from racesl.solver.cache import CachedClassifier

    solver = Solver()
    cached = CachedClassifier(solver)
    graph = SignatureGraph(envs, classify=cached.classify)
    cached.save()
    graph.cache_hits = cached.hits
    solver.cached = cached  # the search prunes through the same persistent table
    return graph, solver


class SignatureGraph:
    def __init__(self, envs: Iterable[EnvSig], classify: Callable[[T.Type, T.Type], str | None] | None = None):
        classify = classify or syntactic_classify
        self.envs: dict[str, EnvSig] = {e.qualname: e for e in sorted(envs, key=lambda e: e.qualname)}
        g = nx.DiGraph()
        for q, e in self.envs.items():
            g.add_node(q, module=e.module, input=str(e.input), output=str(e.output), terminal=e.terminal,
                       **({"source": True} if e.source else {}))
        by_input: dict[T.Type, list[EnvSig]] = {}
        for e in self.envs.values():
            if not e.source:  # a generator environment only starts chains: no edge enters it
                by_input.setdefault(T.erase(e.input), []).append(e)
        self.dropped = 0  # same shape, but the solver showed no value can flow
        for a in self.envs.values():
            if a.terminal:
                continue  # a terminal environment only ends chains
            for b in by_input.get(T.erase(a.output), []):
                kind = classify(a.output, b.input)
                if kind is None:
                    self.dropped += 1
                    continue
                g.add_edge(a.qualname, b.qualname, kind=kind)
        self.g = g
        self._succ = {q: tuple((d, g.edges[q, d]["kind"]) for d in sorted(g.successors(q))) for q in self.envs}
        self.never_passed: dict[tuple[str, str], str] = {}  # edges left out by `composing`

    def composing(self, never_passed: dict[tuple[str, str], str]) -> "SignatureGraph":
        """This graph without the guarded edges that never passed in check's sampling
        (racesl.passing): what the views, hover and counts show. The search keeps using the
        whole graph (other inputs may pass such an edge)."""
        out = object.__new__(SignatureGraph)
        out.__dict__.update(self.__dict__)
        gone = {e: k for e, k in never_passed.items() if k == GUARDED and self.g.has_edge(*e)
                and self.g.edges[e]["kind"] == GUARDED}
        g = self.g.copy()
        g.remove_edges_from(gone)
        out.g = g
        out.never_passed = {**self.never_passed, **gone}
        out._succ = {q: tuple((d, k) for d, k in ds if (q, d) not in gone) for q, ds in self._succ.items()}
        return out

    def successors(self, qualname: str) -> tuple[tuple[str, str], ...]:
        return self._succ[qualname]

    def predecessors(self, qualname: str) -> list[tuple[str, str]]:
        return [(s, self.g.edges[s, qualname]["kind"]) for s in sorted(self.g.predecessors(qualname))]

    def edges(self) -> list[Edge]:
        return [Edge(a, b, d["kind"]) for a, b, d in sorted(self.g.edges(data=True))]

    def counts(self) -> dict[str, int]:
        out = {PROVED: 0, GUARDED: 0}
        for _, _, d in self.g.edges(data=True):
            out[d["kind"]] += 1
        out["dropped"] = self.dropped
        out["never_passed"] = len(self.never_passed)
        out["isolated"] = sum(1 for q in self.envs if self.g.degree(q) == 0)
        return out

    # ------------------------------------------------------------ drawing

    def to_json(self) -> str:
        nodes = [{"id": q, "module": e.module, "input": str(e.input), "output": str(e.output),
                  "input_shape": T.shape_name(e.input), "output_shape": T.shape_name(e.output),
                  **dict(zip(("input_declared", "output_declared"), declared_types(e))),
                  "settings": [s.name for s in e.settings], "tags": list(e.tags), "description": e.description,
                  **({"source": True} if e.source else {})}
                 for q, e in self.envs.items()]
        edges = [{"source": e.src, "target": e.dst, "kind": e.kind} for e in self.edges()]
        data = {"nodes": nodes, "edges": edges, "counts": self.counts()}
        if self.never_passed:
            data["never_passed"] = [{"source": a, "target": b, "kind": k}
                                    for (a, b), k in sorted(self.never_passed.items())]
        return json.dumps(data, indent=1, sort_keys=True)
