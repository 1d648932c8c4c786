"""What every feature needs from an analysis: positions in client units, the item and the
name under the cursor, and where a resolved name is defined."""

from __future__ import annotations

from lsprotocol import types as L

from racesl.check.model import CheckedModule
from racesl.diagnostics import Span
from racesl.lsp import index as I
from racesl.lsp.analysis import Analysis, Workspace
from racesl.lsp.documents import LineIndex, path_to_uri
from racesl.syntax import ast as A


class Positions:
    """racesl spans (virtual in open documents, real elsewhere) → LSP ranges in client units."""

    def __init__(self, ws: Workspace, enc: str):
        self.ws = ws
        self.enc = enc
        self._indexes: dict[str, tuple[str, LineIndex]] = {}

    def line_index(self, path: str) -> LineIndex | None:
        doc = self.ws.doc_by_path(path)
        if doc is not None:
            return doc.index
        text = self.ws.text_for(path)
        if text is None:
            return None
        hit = self._indexes.get(path)
        if hit is None or hit[0] is not text:
            hit = (text, LineIndex(text))
            self._indexes[path] = hit
        return hit[1]

    def real(self, path: str, span: Span) -> tuple[int, int, int, int] | None:
        pl = self.ws.placement_for(path)
        if pl is not None:
            return pl.real_span(span)
        return span.line - 1, span.col - 1, span.end_line - 1, span.end_col - 1

    def range(self, path: str, span: Span) -> L.Range | None:
        r = self.real(path, span)
        idx = self.line_index(path)
        if r is None or idx is None:
            return None
        return self.range_of(idx, *r)

    def range_of(self, idx: LineIndex, l0: int, c0: int, l1: int, c1: int) -> L.Range:
        a = idx.to_client(l0, c0, self.enc)
        b = idx.to_client(l1, c1, self.enc)
        if b < a:
            b = a
        return L.Range(L.Position(*a), L.Position(*b))

    def location(self, path: str, span: Span) -> L.Location | None:
        rng = self.range(path, span)
        if rng is None:
            return None
        doc = self.ws.doc_by_path(path)
        return L.Location(doc.uri if doc is not None else path_to_uri(path), rng)


class View:
    """One analysed document, seen from a request."""

    def __init__(self, ws: Workspace, analysis: Analysis, enc: str, indexer: I.Indexer):
        self.ws = ws
        self.a = analysis
        self.enc = enc
        self.indexer = indexer
        self.pos = Positions(ws, enc)
        self._ns: I.Namespace | None = None
        self._modules: dict[str, CheckedModule] | None = None

    # ------------------------------------------------------------ modules

    @property
    def modules(self) -> dict[str, CheckedModule]:
        """The document's own check first, then everything the workspace knows."""
        if self._modules is None:
            mods = dict(self.a.checked.modules)
            self._modules = mods
        return self._modules

    def module(self, name: str) -> CheckedModule | None:
        cm = self.modules.get(name)
        if cm is None:
            cm = self.ws.all_modules().get(name)
        return cm

    def kind_of(self, module: str, name: str) -> str | None:
        cm = self.module(module)
        if cm is None:
            return None
        if name in cm.envs:
            return "env"
        if name in cm.helpers:
            return "helper"
        if name in cm.types:
            return "type"
        if name in cm.constants:
            return "constant"
        for it in cm.ast.items:
            if isinstance(it, A.ConstDef) and it.name == name:
                return "constant"
            if isinstance(it, A.FuncDef) and it.name == name:
                return "env" if it.is_env else "helper"
            if isinstance(it, A.TypeDecl) and it.name == name:
                return "type"
        return None

    def namespace_of(self, module_name: str, mod: A.Module) -> I.Namespace:
        return I.namespace(module_name, mod, self.kind_of)

    @property
    def ns(self) -> I.Namespace:
        if self._ns is None:
            self._ns = self.namespace_of(self.a.module_name, self.a.ast)
        return self._ns

    # ------------------------------------------------------------ positions

    def vpos(self, p: L.Position) -> tuple[int, int]:
        line, col = self.a.index.from_client(p.line, p.character, self.enc)
        return self.a.placement.virtual(line, col)

    def item_at(self, vline: int, vcol: int) -> A.Node | None:
        return I.item_at(self.a.ast.items, vline, vcol)

    def occurrences(self, item: A.Node) -> list[I.Occ]:
        return self.indexer.item(item, self.ns)

    def occurrence_at(self, p: L.Position) -> I.Occ | None:
        vl, vc = self.vpos(p)
        item = self.item_at(vl, vc)
        if item is None:
            return None
        return I.at(self.occurrences(item), vl, vc)

    def range(self, span: Span, path: str | None = None) -> L.Range | None:
        return self.pos.range(path or self.a.path, span)

    def word_at(self, p: L.Position) -> tuple[str, int, int]:
        """The identifier under or just before the cursor: (word, start col, end col) in code points."""
        line, col = self.a.index.from_client(p.line, p.character, self.enc)
        text = self.a.index.line(line)
        a = col
        while a > 0 and (text[a - 1].isalnum() or text[a - 1] == "_"):
            a -= 1
        b = col
        while b < len(text) and (text[b].isalnum() or text[b] == "_"):
            b += 1
        return text[a:b], a, b

    # ------------------------------------------------------------ definitions

    def definition(self, occ: I.Occ) -> tuple[str, Span] | None:
        t = occ.target
        if t[0] == "sym":
            return self.symbol_definition(t[1], t[2])
        if t[0] == "mod":
            cm = self.module(t[1])
            return (cm.path, Span(1, 1, 1, 1, 0, 0)) if cm is not None else None
        if t[0] == "local" and occ.item is not None:
            for o in self.occurrences(occ.item):
                if o.target == t and o.is_def:
                    return self.a.path, o.span
        return None

    def symbol_definition(self, module: str, name: str) -> tuple[str, Span] | None:
        cm = self.module(module)
        if cm is None:
            return None
        for it in cm.ast.items:
            if isinstance(it, (A.FuncDef, A.TypeDecl, A.ConstDef)) and it.name == name:
                return cm.path, it.name_span
        return None
