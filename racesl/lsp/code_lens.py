"""Code lens: above each environment, how it composes with the loaded library,
"composes after 3 · before 5": the environments whose output feeds its input, and those
its output feeds. The rule and the library are hover's (racesl.lsp.hover
`composition_edges` over `library_envs`), so the two always agree.

codeLens answers at once with one unresolved lens per environment whose signature checks
(its range is the name); codeLens/resolve computes the counts, which need the library
(stdlib, workspace files, open documents) checked: the editor resolves only the lenses it
shows, and opening a file does not wait for the library to warm up.

The command, `racesl.showComposers`, is the client's to run (the VS Code extension and
editors/nvim/races.lua define it; the server does not advertise it, or
vscode-languageclient would register it a second time). Its arguments are
[uri, position of the name, locations] with the locations (LSP Location JSON) of the
composing environments, those it composes after first.
"""

from __future__ import annotations

import attrs
from lsprotocol import types as L

from racesl.check.model import EnvSig
from racesl.lsp import hover as HO
from racesl.lsp.context import View
from racesl.syntax import ast as A

COMMAND = "racesl.showComposers"


def code_lenses(view: View) -> list[L.CodeLens]:
    cm = view.a.module
    if cm is None:
        return []
    out = []
    seen: set[str] = set()
    for it in view.a.ast.items:
        if isinstance(it, A.FuncDef) and it.is_env and it.name in cm.envs and it.name not in seen:
            seen.add(it.name)
            rng = view.range(it.name_span)
            if rng is not None:
                out.append(L.CodeLens(rng, data={"uri": view.a.uri, "env": it.name}))
    return out


def title(before: int, after: int) -> str:
    return f"composes after {before} · before {after}"


def resolve(view: View | None, lens: L.CodeLens) -> L.CodeLens:
    data = lens.data if isinstance(lens.data, dict) else {}
    name = data.get("env")
    cm = view.a.module if view is not None else None
    sig = cm.envs.get(name) if cm is not None and isinstance(name, str) else None
    envs = HO.library_envs(view, sig) if sig is not None else None
    if sig is None or envs is None:
        return attrs.evolve(lens, command=L.Command(title="composes: not known yet (the file does not check)",
                                                    command=""))
    before, after = HO.composition_edges(envs, sig, HO.never_passed(view))
    rng = view.range(sig.node.name_span) or lens.range
    position = {"line": rng.start.line, "character": rng.start.character}
    args = [view.a.uri, position, locations(view, [e for e, _ in before] + [e for e, _ in after])]
    return attrs.evolve(lens, command=L.Command(title=title(len(before), len(after)), command=COMMAND,
                                                arguments=args))


def locations(view: View, envs: list[EnvSig]) -> list[dict]:
    """LSP Location JSON of each environment's name, once each, in order."""
    out, seen = [], set()
    for e in envs:
        loc = view.pos.location(e.path, e.node.name_span)
        if loc is None:
            continue
        r = loc.range
        key = (loc.uri, r.start.line, r.start.character)
        if key in seen:
            continue
        seen.add(key)
        out.append({"uri": loc.uri, "range": {"start": {"line": r.start.line, "character": r.start.character},
                                              "end": {"line": r.end.line, "character": r.end.character}}})
    return out
