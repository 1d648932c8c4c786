"""Go to definition and find references, across modules and into the stdlib."""

from __future__ import annotations

from lsprotocol import types as L

from racesl.lsp import index as I
from racesl.lsp.context import View


def definition(view: View, p: L.Position) -> list[L.Location]:
    occ = view.occurrence_at(p)
    if occ is None:
        # the item under the cursor does not parse: look the word up at module level
        word, _, _ = view.word_at(p)
        hit = view.ns.get(word) if word else None
        if hit is None:
            return []
        occ = I.Occ(I.Span(1, 1, 1, 1), word, hit[0], hit[1])
    d = view.definition(occ)
    if d is None:
        return []
    loc = view.pos.location(*d)
    return [loc] if loc is not None else []


def references(view: View, p: L.Position, include_declaration: bool) -> list[L.Location]:
    occ = view.occurrence_at(p)
    if occ is None:
        return []
    target = occ.target
    found: list[tuple[str, I.Occ]] = []
    if target[0] in ("sym", "mod"):
        mods = dict(view.ws.all_modules())
        cm_self = view.module(view.a.module_name)
        if cm_self is not None:
            mods[view.a.module_name] = cm_self
        for name, cm in sorted(mods.items()):
            if name == view.a.module_name:
                ns, ast = view.ns, view.a.ast
            else:
                ns, ast = view.namespace_of(name, cm.ast), cm.ast
            for o in view.indexer.module(ast, ns):
                if o.target == target:
                    found.append((cm.path if name != view.a.module_name else view.a.path, o))
    else:
        items = [occ.item] if target[0] in ("local", "it") and occ.item is not None else list(view.a.ast.items)
        for it in items:
            for o in view.occurrences(it):
                if o.target == target:
                    found.append((view.a.path, o))
    out = []
    seen = set()
    for path, o in found:
        if o.is_def and not include_declaration:
            continue
        loc = view.pos.location(path, o.span)
        if loc is None:
            continue
        key = (loc.uri, loc.range.start.line, loc.range.start.character)
        if key not in seen:
            seen.add(key)
            out.append(loc)
    return out
