"""Quick fixes: "did you mean X" for unknown names (E200), names missing from a module
(E204), unknown types (E300) and unknown methods (E503)."""

from __future__ import annotations

from lsprotocol import types as L

from racesl.lsp.diagnostics import SOURCE, suggestion

FIXABLE = frozenset({"E200", "E204", "E300", "E503"})


def _replacement(d: L.Diagnostic) -> str | None:
    data = d.data if isinstance(d.data, dict) else {}
    if data.get("replacement"):
        return str(data["replacement"])
    hint = data.get("hint") or d.message
    return suggestion(hint)


def code_actions(uri: str, params: L.CodeActionParams) -> list[L.CodeAction]:
    only = params.context.only
    if only and not any(str(k).startswith(str(L.CodeActionKind.QuickFix)) or k == L.CodeActionKind.QuickFix
                        for k in only):
        return []
    out = []
    for d in params.context.diagnostics:
        if d.source not in (None, SOURCE) or str(d.code) not in FIXABLE:
            continue
        new = _replacement(d)
        if not new:
            continue
        out.append(L.CodeAction(
            title=f"Replace with '{new}'",
            kind=L.CodeActionKind.QuickFix,
            diagnostics=[d],
            is_preferred=True,
            edit=L.WorkspaceEdit(changes={uri: [L.TextEdit(d.range, new)]}),
        ))
    return out
