"""Go to definition and find references, across modules and into the stdlib."""

from __future__ import annotations

from lsprotocol import types as L

from racesl.lsp import index as I
from racesl.lsp.context import View
from racesl.syntax import ast as A


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


def known_modules(view: View) -> list[tuple[str, str, I.Namespace, A.Module]]:
    """(module name, path, namespace, AST) of every module the workspace knows (stdlib,
    workspace files, open documents), by name; the document's own from its analysis."""
    mods = dict(view.ws.all_modules())
    cm_self = view.module(view.a.module_name)
    if cm_self is not None:
        mods[view.a.module_name] = cm_self
    out = []
    for name, cm in sorted(mods.items()):
        if name == view.a.module_name:
            out.append((name, view.a.path, view.ns, view.a.ast))
        else:
            out.append((name, cm.path, view.namespace_of(name, cm.ast), cm.ast))
    return out


def occurrences_of(view: View, occ: I.Occ, modules=None) -> list[tuple[str, I.Occ]]:
    """(path, occurrence) of everything that refers to what `occ` does: in every known module
    (`modules`, from `known_modules`) for module-level names and modules, in its own item for
    locals, in the document otherwise."""
    target = occ.target
    found: list[tuple[str, I.Occ]] = []
    if target[0] in ("sym", "mod"):
        for _, path, ns, ast in (known_modules(view) if modules is None else modules):
            for o in view.indexer.module(ast, ns):
                if o.target == target:
                    found.append((path, o))
    else:
        items = [occ.item] if target[0] in ("local", "it") and occ.item is not None else list(view.a.ast.items)
        for it in items:
            for o in view.occurrences(it):
                if o.target == target:
                    found.append((view.a.path, o))
    return found


def references(view: View, p: L.Position, include_declaration: bool) -> list[L.Location]:
    occ = view.occurrence_at(p)
    if occ is None:
        return []
    found = occurrences_of(view, occ)
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
