"""Document formatting: `racesc fmt`'s layout, sent as the few line edits that turn the
client's text into it (a whole-document replacement would move the cursor and the folds of
every client). Nothing when the document has syntax errors: the formatter refuses them."""

from __future__ import annotations

import difflib

from lsprotocol import types as L

from racesl.format import format_source
from racesl.lsp.documents import LINE_BREAK, units


def format_document(text: str, path: str, enc: str) -> list[L.TextEdit] | None:
    """Edits from `text` to its formatted text, or None when it cannot be formatted."""
    result = format_source(text, path)
    if not result.ok:
        return None
    if result.text == text:
        return []
    old, new = _lines(text), _lines(result.text)
    if not text.endswith(("\n", "\r")):  # no line break at the end to anchor line edits on
        last = LINE_BREAK.split(text)[-1]
        end = L.Position(len(old) - 1, units(last, enc))
        return [L.TextEdit(L.Range(L.Position(0, 0), end), result.text)]
    edits = []
    for op, a1, a2, b1, b2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if op != "equal":
            edits.append(L.TextEdit(L.Range(L.Position(a1, 0), L.Position(a2, 0)), "".join(new[b1:b2])))
    return edits


def _lines(text: str) -> list[str]:
    """Lines with their breaks, split where LSP splits them."""
    out, start = [], 0
    for m in LINE_BREAK.finditer(text):
        out.append(text[start:m.end()])
        start = m.end()
    if start < len(text):
        out.append(text[start:])
    return out
