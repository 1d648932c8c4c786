"""Docstrings wrapped to the line width, words filled greedily, paragraphs kept.

The description a docstring gives is its lines stripped and joined by one space
(racesl.syntax.docstrings), so a break may replace any single space between two words
and the description stays what it was. Docstrings with a backslash (escapes), a prefix or
other than triple quotes are left as written.
"""

from __future__ import annotations

import re

from racesl.format.wrap import INDENT, WIDTH
from racesl.syntax.docstrings import description

_PLAIN = re.compile(r'(?s)("""|\'\'\')(.*)\1')
_BREAK = re.compile(r"(?<=\S) (?=\S)")  # a single space between two words


def wrap_docstring(text: str, depth: int) -> list[str] | None:
    """The docstring's lines at `depth`, or None to keep it as written."""
    m = _PLAIN.fullmatch(text)
    if m is None or "\\" in m.group(2):
        return None
    ind = INDENT * depth
    if "\n" not in text and "\r" not in text and len(ind) + len(text) <= WIDTH:
        return None
    quote, body = m.group(1), m.group(2)
    paragraphs = description(body).split("\n\n")  # (without a backslash, the text is the value)
    if paragraphs == [""]:
        return None
    lines: list[str] = []
    for k, para in enumerate(paragraphs):
        if k:
            lines.append("")
        lines.extend(_fill(_BREAK.split(para), WIDTH - len(ind), first=quote if k == 0 else ""))
    lines[0] = quote + lines[0]
    breaks = list(_BREAK.finditer(lines[-1]))
    if len(ind) + len(lines[-1]) + len(quote) > WIDTH and breaks:  # the closing quotes do not fit
        at = breaks[-1].start()
        lines[-1:] = [lines[-1][:at], lines[-1][at + 1:]]
    lines[-1] += quote
    return [ind + line if line else "" for line in lines]


def _fill(words: list[str], width: int, first: str) -> list[str]:
    """Greedy fill; the first line also holds the opening quotes."""
    lines, cur = [], ""
    room = width - len(first)
    for w in words:
        if cur and len(cur) + 1 + len(w) > room:
            lines.append(cur)
            cur, room = w, width
        else:
            cur = f"{cur} {w}" if cur else w
    lines.append(cur)
    return lines
