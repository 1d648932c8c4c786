"""Workspace symbols: the environments, helpers and types of every module the server knows
(open documents, workspace files, the stdlib), matched against the query.

Matching is case-insensitive and ranked: the exact name, then names that start with the
query, then names that contain it, then names that contain its letters in order (a
subsequence: "adn" finds "add_one"). Within a rank: the user's modules before the stdlib,
shorter names first, then by name and module. An empty query lists everything. At most
MAX_RESULTS symbols are returned (editors filter further as the user types).

Kinds: Function for environments and helpers (both are called; an environment's detail is
in its hover), Class for `type` and `newtype` declarations. The container is the module.
"""

from __future__ import annotations

import os

from lsprotocol import types as L

from racesl.lsp.analysis import Workspace
from racesl.lsp.context import Positions
from racesl.syntax import ast as A

MAX_RESULTS = 200
EXACT, PREFIX, SUBSTRING, SUBSEQUENCE = range(4)


def rank(name: str, query: str) -> int | None:
    """How well `name` matches `query` (lower is better), or None when it does not."""
    n, q = name.lower(), query.lower()
    if n == q:
        return EXACT
    if n.startswith(q):
        return PREFIX
    if q in n:
        return SUBSTRING
    it = iter(n)
    return SUBSEQUENCE if all(c in it for c in q) else None


def workspace_symbols(ws: Workspace, query: str, enc: str, limit: int = MAX_RESULTS) -> list[L.WorkspaceSymbol]:
    query = query.strip()
    stdlib = {os.path.realpath(f) for f in ws.stdlib_files()}
    found = []
    for module, cm in ws.all_modules().items():
        in_stdlib = os.path.realpath(cm.path) in stdlib
        for it in cm.ast.items:
            if isinstance(it, (A.FuncDef, A.TypeDecl)):
                r = rank(it.name, query)
                if r is not None:
                    found.append(((r, in_stdlib, len(it.name), it.name, module), cm.path, it))
    found.sort(key=lambda f: f[0])
    pos = Positions(ws, enc)
    out: list[L.WorkspaceSymbol] = []
    for (_, _, _, name, module), path, it in found:
        loc = pos.location(path, it.name_span)
        if loc is None:
            continue
        kind = L.SymbolKind.Class if isinstance(it, A.TypeDecl) else L.SymbolKind.Function
        out.append(L.WorkspaceSymbol(location=loc, name=name, kind=kind, container_name=module))
        if len(out) >= limit:
            break
    return out
