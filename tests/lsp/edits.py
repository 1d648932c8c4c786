"""Applying an LSP WorkspaceEdit to texts, independently of the server's own position code,
and checking the result with the compiler: what the rename tests share."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlparse

from racesl.check import check_paths


def units_to_col(line: str, n: int, enc: str) -> int:
    """Client-unit column → code-point column."""
    acc = 0
    for i, c in enumerate(line):
        if acc >= n:
            return i
        acc += len(c.encode("utf-8")) if enc == "utf-8" else (2 if ord(c) > 0xFFFF else 1) if enc == "utf-16" else 1
    return len(line)


def offset(text: str, line: int, character: int, enc: str) -> int:
    lines = text.split("\n")
    return sum(len(x) + 1 for x in lines[:line]) + units_to_col(lines[line], character, enc)


def apply_text_edits(text: str, edits, enc: str) -> str:
    spans = sorted(((offset(text, e.range.start.line, e.range.start.character, enc),
                     offset(text, e.range.end.line, e.range.end.character, enc), e.new_text) for e in edits),
                   reverse=True)
    for a, b, new in spans:
        assert 0 <= a <= b <= len(text)
        text = text[:a] + new + text[b:]
    return text


def edits_by_uri(edit) -> dict[str, list]:
    """uri → text edits, from `documentChanges` or `changes` (whichever the server used)."""
    if edit.document_changes:
        assert not edit.changes
        return {dc.text_document.uri: list(dc.edits) for dc in edit.document_changes}
    return {uri: list(es) for uri, es in (edit.changes or {}).items()}


def uri_path(uri: str) -> str:
    return str(Path(unquote(urlparse(uri).path)))


def apply(texts: dict[str, str], edit, enc: str) -> dict[str, str]:
    """path → text after the edit (files the edit touches that `texts` lacks are read from disk)."""
    out = dict(texts)
    for uri, es in edits_by_uri(edit).items():
        path = uri_path(uri)
        if path not in out:
            out[path] = Path(path).read_text(encoding="utf-8")
        out[path] = apply_text_edits(out[path], es, enc)
    return out


def errors_after(texts: dict[str, str]) -> list[str]:
    """The compiler's errors for these files with these texts."""
    checked = check_paths(sorted(texts), overlay=dict(texts))
    return [f"{Path(d.path).name}:{d.span.line}: {d.code} {d.message}" for d in checked.diagnostics if d.is_error]
