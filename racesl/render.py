"""The one renderer of diagnostics for people: headline, source excerpt with carets, hint.

    stdlib/x.races:3:9: error[E505]: '/' is true division, which produces floats
       |
     3 |     return n / 2
       |              ^
       = hint: use '//' for integer division
"""

from __future__ import annotations

from typing import Iterable

from rich.console import Console
from rich.text import Text

from racesl.diagnostics import Diagnostic, Severity

_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "bold yellow", Severity.NOTE: "bold cyan"}


def _excerpt_lines(text: str | None, d: Diagnostic) -> list[tuple[int, str, int, int]]:
    """(line number, line text, caret start col, caret end col) for the primary span."""
    if text is None:
        return []
    lines = text.splitlines()
    s = d.span
    if not (1 <= s.line <= len(lines)):
        return []
    out = []
    last = min(s.end_line, s.line + 2, len(lines))
    for ln in range(s.line, last + 1):
        src = lines[ln - 1].replace("\t", " ")
        c0 = s.col if ln == s.line else 1 + (len(src) - len(src.lstrip()))
        c1 = s.end_col if ln == s.end_line else len(src) + 1
        if c1 <= c0:
            c1 = c0 + 1
        out.append((ln, src, c0, c1))
    return out


def render(d: Diagnostic, text: str | None = None) -> Text:
    t = Text()
    t.append(f"{d.path}:{d.span.line}:{d.span.col}: ", style="bold")
    t.append(f"{d.severity.value}[{d.code}]", style=_STYLE[d.severity])
    t.append(f": {d.message}\n", style="bold")
    rows = _excerpt_lines(text, d)
    if rows:
        width = len(str(rows[-1][0]))
        pad = " " * width
        t.append(f" {pad} |\n", style="blue")
        for ln, src, c0, c1 in rows:
            t.append(f" {ln:>{width}} | ", style="blue")
            t.append(src[:200] + "\n")
            t.append(f" {pad} | ", style="blue")
            t.append(" " * (c0 - 1) + "^" * max(1, min(c1, len(src) + 2) - c0) + "\n", style=_STYLE[d.severity])
    for lab in d.labels:
        t.append(f"  note: {lab.message} at {lab.path or d.path}:{lab.span.line}:{lab.span.col}\n", style="cyan")
    if d.hint:
        t.append("   = hint: ", style="bold cyan")
        t.append(d.hint + "\n")
    return t


def print_diagnostics(diags: Iterable[Diagnostic], sources: dict[str, str], console: Console) -> None:
    for d in sorted(diags, key=Diagnostic.sort_key):
        console.print(render(d, sources.get(d.path)), end="", soft_wrap=True, highlight=False)
