"""Views of the signature graph a person can read at hundreds of environments.

The whole environment graph of a large library is a hairball (thousands of edges), so the
drawings are views of it:

- by type: the type shapes as nodes and each environment as a labelled edge from its input
  shape to its output shape (environments with the same pair share one edge);
- around an environment: its neighbourhood up to `depth` edges away, either direction;
- one module: the by-type view with only that module's environments on the edges.
"""

from __future__ import annotations

from collections import defaultdict

import networkx as nx

from racesl.graph.signature import PROVED, SignatureGraph
from racesl.text import plural
from racesl.types import types as T

LABEL_NAMES = 12  # environment names written on one shape edge before "+ N more"
PER_LINE = 3


def _q(text: str) -> str:
    """A DOT string: quoted, with escapes; a newline becomes a centred line break."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _head(title: str) -> list[str]:
    return ["digraph races {", f"  label={_q(title)}; labelloc=t; rankdir=LR;",
            '  node [shape=box, style=rounded, fontname="Helvetica", fontsize=11];',
            '  edge [fontname="Helvetica", fontsize=9];']


def by_type(graph: SignatureGraph) -> nx.MultiDiGraph:
    """Shapes as nodes; one edge per environment, input shape → output shape."""
    g = nx.MultiDiGraph()
    for q, e in graph.envs.items():
        g.add_edge(T.shape_name(e.input), T.shape_name(e.output), key=q, module=e.module, terminal=e.terminal)
    return g


def _names(qs: list[str]) -> str:
    shown = qs[:LABEL_NAMES]
    lines = [", ".join(shown[i:i + PER_LINE]) for i in range(0, len(shown), PER_LINE)]
    if len(qs) > LABEL_NAMES:
        lines.append(f"+ {len(qs) - LABEL_NAMES} more")
    return "\n".join(lines)


def _pairs(g: nx.MultiDiGraph, keep=None) -> dict[tuple[str, str], list[str]]:
    """{(input shape, output shape): environments}, of those in `keep` (all when None)."""
    pairs: dict[tuple[str, str], list[str]] = defaultdict(list)
    for a, b, q in g.edges(keys=True):
        if keep is None or q in keep:
            pairs[a, b].append(q)
    return dict(sorted(pairs.items()))


def _reads_returns(g: nx.MultiDiGraph, shape: str) -> tuple[int, int]:
    """How many environments read `shape` and how many return it."""
    return g.out_degree(shape), g.in_degree(shape)


def type_dot(graph: SignatureGraph, module: str | None = None) -> str:
    """The by-type drawing; with `module`, only that module's environments label the edges
    and each shape says how many environments elsewhere read and return it."""
    g = by_type(graph)
    mine = {q for q, e in graph.envs.items() if module is None or e.module == module}
    if module is None:
        title = (f"{plural(len(graph.envs), 'environment')} over {plural(g.number_of_nodes(), 'type shape')} "
                 "(an edge: the environments from one shape to another)")
    else:
        title = f"module {module}: {plural(len(mine), 'environment')} by type shape (counts: the whole library)"
    pairs = _pairs(g, mine)
    shown = {s for pair in pairs for s in pair}
    lines = _head(title)
    for s in sorted(shown):
        reads, returns = _reads_returns(g, s)
        lines.append(f"  {_q(s)} [label={_q(s + chr(10) + f'read by {reads}, returned by {returns}')}];")
    for (a, b), qs in pairs.items():
        width = min(4, 1 + len(qs) / 6)
        names = sorted(q.split(".", 1)[1] if module else q for q in qs)
        lines.append(f"  {_q(a)} -> {_q(b)} [label={_q(_names(names))}, penwidth={width:.1f}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def around(graph: SignatureGraph, qualname: str, depth: int = 1) -> dict[str, int]:
    """{environment: distance} for those at most `depth` edges from `qualname`, either way."""
    return dict(nx.single_source_shortest_path_length(graph.g.to_undirected(as_view=True), qualname, cutoff=depth))


def _clusters(graph: SignatureGraph, names, focus: str | None = None) -> list[str]:
    """The environments `names` as nodes in one box per module; `focus` highlighted."""
    modules: dict[str, list[str]] = defaultdict(list)
    for q in sorted(names):
        modules[graph.envs[q].module].append(q)
    lines = []
    for m, qs in sorted(modules.items()):
        lines.append(f"  subgraph {_q('cluster_' + m)} {{ label={_q(m)};")
        for q in qs:
            e = graph.envs[q]
            label = f"{e.name}\n{T.shape_name(e.input)} → {T.shape_name(e.output)}"
            extra = ", penwidth=2.5, style=\"rounded,filled\", fillcolor=\"#ffeeaa\"" if q == focus else ""
            lines.append(f"    {_q(q)} [label={_q(label)}{extra}];")
        lines.append("  }")
    return lines


def _edge(e) -> str:
    return f"  {_q(e.src)} -> {_q(e.dst)} [style={'solid' if e.kind == PROVED else 'dashed'}];"


def around_dot(graph: SignatureGraph, focus: str, depth: int = 1) -> str:
    """The neighbourhood as a tree of shortest ways out from `focus`: only the edges that
    step one distance further are drawn (the edges among neighbours would be thousands
    around a list-to-list environment), grouped by module."""
    dist = around(graph, focus, depth)
    title = f"{focus} and the environments up to {plural(depth, 'edge')} away ({len(dist) - 1})"
    lines = _head(title) + _clusters(graph, dist, focus)
    for e in graph.edges():
        a, b = dist.get(e.src), dist.get(e.dst)
        if a is not None and b is not None and abs(a - b) == 1:
            lines.append(_edge(e))
    lines.append("}")
    return "\n".join(lines) + "\n"


def env_dot(graph: SignatureGraph) -> str:
    """Every environment and every edge, grouped by module (`--by env`: large)."""
    lines = _head(f"{len(graph.envs)} environments, {graph.g.number_of_edges()} edges") + _clusters(graph, graph.envs)
    lines += [_edge(e) for e in graph.edges()]
    lines.append("}")
    return "\n".join(lines) + "\n"


def type_json(graph: SignatureGraph) -> dict:
    """The by-type view as data: shapes with how many environments read and return each,
    and one edge per (input shape, output shape) pair with its environments."""
    g = by_type(graph)
    shapes = [dict(zip(("shape", "read_by", "returned_by"), (s, *_reads_returns(g, s)))) for s in sorted(g.nodes)]
    return {"shapes": shapes,
            "edges": [{"source": a, "target": b, "envs": sorted(qs)} for (a, b), qs in _pairs(g).items()]}
