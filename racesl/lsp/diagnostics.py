"""racesl diagnostics → LSP diagnostics, through the negotiated position encoding.

Every compiler diagnostic of the document is published with its exact range: the span's
code-point columns are converted to the client's units (UTF-8 for Neovim, UTF-16 for
VS Code) on the actual line text, and clamped into the document, so a range never points
past the end of a line or of the file. Labels become related information; the hint is
appended to the message and kept in `data` for code actions.
"""

from __future__ import annotations

import re

from lsprotocol import types as L

from racesl.diagnostics import Diagnostic, Severity
from racesl.lsp.analysis import Analysis
from racesl.lsp.context import Positions

SOURCE = "racesc"

_SEVERITY = {
    Severity.ERROR: L.DiagnosticSeverity.Error,
    Severity.WARNING: L.DiagnosticSeverity.Warning,
    Severity.NOTE: L.DiagnosticSeverity.Information,
}
_UNNECESSARY = {"W601", "W602"}
DID_YOU_MEAN = re.compile(r"did you mean '([^']+)'\?")


def suggestion(hint: str | None) -> str | None:
    """The X of a `did you mean 'X'?` hint."""
    if not hint:
        return None
    m = DID_YOU_MEAN.search(hint)
    return m.group(1) if m else None


def to_lsp(d: Diagnostic, pos: Positions, source: str = SOURCE) -> L.Diagnostic | None:
    rng = pos.range(d.path, d.span)
    if rng is None:
        return None
    related = []
    for lab in d.labels:
        loc = pos.location(lab.path or d.path, lab.span)
        if loc is not None:
            related.append(L.DiagnosticRelatedInformation(loc, lab.message))
    message = d.message + (f"\nhint: {d.hint}" if d.hint else "")
    data = {"code": d.code, "hint": d.hint}
    fix = suggestion(d.hint)
    if fix is not None:
        data["replacement"] = fix
    return L.Diagnostic(
        range=rng,
        message=message,
        severity=_SEVERITY.get(d.severity, L.DiagnosticSeverity.Error),
        code=d.code,
        source=source,
        related_information=related or None,
        tags=[L.DiagnosticTag.Unnecessary] if d.code in _UNNECESSARY else None,
        data=data,
        code_description=None,
    )


def for_document(a: Analysis, pos: Positions, extra: dict[str, list[Diagnostic]] | None = None) -> list[L.Diagnostic]:
    """The analysis' diagnostics (source "racesc"), then each `extra` list under its own
    source (the sampler's, racesl.lsp.sampling)."""
    out = []
    for source, diags in [(SOURCE, a.diagnostics())] + list((extra or {}).items()):
        for d in diags:
            ld = to_lsp(d, pos, source)
            if ld is not None:
                out.append(ld)
    return out
