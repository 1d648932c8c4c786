"""Document symbols: environments, helpers and types, with their parameters as children."""

from __future__ import annotations

from lsprotocol import types as L

from racesl.lsp import index as I
from racesl.lsp.context import View
from racesl.syntax import ast as A

S = L.SymbolKind


def document_symbols(view: View) -> list[L.DocumentSymbol]:
    out = []
    cm = view.a.module
    for it in view.a.ast.items:
        if isinstance(it, A.FuncDef):
            rng, sel = view.range(it.span), view.range(it.name_span)
            if rng is None or sel is None:
                continue
            children = []
            for p in it.params:
                pr = view.range(p.span)
                ps = view.range(I.name_span(p.span, p.name))
                if pr is None or ps is None:
                    continue
                detail = None
                if p.annotation is not None:
                    from racesl.lsp.hover import type_text

                    detail = type_text(p.annotation)
                children.append(L.DocumentSymbol(p.name, S.Variable, pr, ps, detail=detail))
            detail = None
            if it.is_env and cm is not None and it.name in cm.envs:
                sig = cm.envs[it.name]
                detail = f"{sig.input} -> {sig.output}"
            elif not it.is_env:
                detail = "helper"
            out.append(L.DocumentSymbol(it.name, S.Function if it.is_env else S.Method, _cover(rng, sel), sel,
                                        detail=detail, children=children))
        elif isinstance(it, A.TypeDecl):
            rng, sel = view.range(it.span), view.range(it.name_span)
            if rng is None or sel is None:
                continue
            out.append(L.DocumentSymbol(it.name, S.Struct if it.nominal else S.Class, _cover(rng, sel), sel,
                                        detail="newtype" if it.nominal else "type"))
        elif isinstance(it, A.ModuleDecl):
            rng = view.range(it.span)
            if rng is not None:
                out.append(L.DocumentSymbol(it.name, S.Module, rng, rng))
    return out


def _cover(rng: L.Range, sel: L.Range) -> L.Range:
    """The full range must contain the selection range (LSP requires it)."""
    start = min((rng.start.line, rng.start.character), (sel.start.line, sel.start.character))
    end = max((rng.end.line, rng.end.character), (sel.end.line, sel.end.character))
    return L.Range(L.Position(*start), L.Position(*end))
