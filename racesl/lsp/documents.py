"""Open documents: text, line index, edits, and position encodings.

LSP positions are (line, character) where a line ends at "\\r\\n", "\\r" or "\\n" (the same
three breaks racesl's lexer uses; *not* `str.splitlines`, which also breaks at U+2028 and
friends) and `character` counts code units of the negotiated encoding: UTF-8 for Neovim,
UTF-16 for VS Code, UTF-32 (code points) where a client asks. racesl spans count code points.
"""

from __future__ import annotations

import bisect
import re
from pathlib import Path
from urllib.parse import unquote, urlparse

LINE_BREAK = re.compile(r"\r\n|\r|\n")

UTF8, UTF16, UTF32 = "utf-8", "utf-16", "utf-32"


def units(s: str, enc: str) -> int:
    """Length of `s` in code units of `enc`."""
    if enc == UTF32 or s.isascii():
        return len(s)
    if enc == UTF16:
        return len(s) + sum(1 for c in s if ord(c) > 0xFFFF)
    return len(s.encode("utf-8", "surrogatepass"))


def char_units(c: str, enc: str) -> int:
    o = ord(c)
    if enc == UTF32 or o < 0x80:
        return 1
    if enc == UTF16:
        return 2 if o > 0xFFFF else 1
    return 2 if o < 0x800 else 3 if o < 0x10000 else 4


def units_to_cp(line: str, n: int, enc: str) -> int:
    """Code-point column of a column given in code units (clamped; mid-character rounds down)."""
    if n <= 0:
        return 0
    if enc == UTF32 or line.isascii():
        return min(n, len(line))
    acc = 0
    for i, c in enumerate(line):
        w = char_units(c, enc)
        if acc + w > n:
            return i
        acc += w
    return len(line)


class LineIndex:
    """Offsets of line starts; lines are 0-based here (LSP), code-point columns."""

    def __init__(self, text: str):
        self.text = text
        breaks = [m.span() for m in LINE_BREAK.finditer(text)]
        self.starts = [0] + [b for _, b in breaks]
        self.ends = [a for a, _ in breaks] + [len(text)]  # where each line's content ends

    @property
    def line_count(self) -> int:
        return len(self.starts)

    def line(self, i: int) -> str:
        if not 0 <= i < len(self.starts):
            return ""
        return self.text[self.starts[i]: self.ends[i]]

    def position(self, offset: int) -> tuple[int, int]:
        """Offset → (line, code-point column), clamped into the text."""
        offset = max(0, min(offset, len(self.text)))
        i = bisect.bisect_right(self.starts, offset) - 1
        return i, min(offset, self.ends[i]) - self.starts[i]

    def offset(self, line: int, col: int) -> int:
        """(line, code-point column) → offset, clamped to the line's content."""
        if line < 0:
            return 0
        if line >= len(self.starts):
            return len(self.text)
        return min(self.starts[line] + max(col, 0), self.ends[line])

    # ---- client units

    def to_client(self, line: int, col: int, enc: str) -> tuple[int, int]:
        """(line, code-point col) → (line, col in client units), clamped into the document."""
        if line < 0:
            return 0, 0
        if line >= len(self.starts):
            last = len(self.starts) - 1
            return last, units(self.line(last), enc)
        text = self.line(line)
        col = max(0, min(col, len(text)))
        return line, units(text[:col], enc)

    def from_client(self, line: int, character: int, enc: str) -> tuple[int, int]:
        """(line, client-unit col) → (line, code-point col), clamped."""
        if line < 0:
            return 0, 0
        if line >= len(self.starts):
            last = len(self.starts) - 1
            return last, len(self.line(last))
        return line, units_to_cp(self.line(line), character, enc)

    def client_offset(self, line: int, character: int, enc: str) -> int:
        l, c = self.from_client(line, character, enc)
        return self.offset(l, c)


class Document:
    """One open buffer. The text here is authoritative (pygls's own copy is not used)."""

    def __init__(self, uri: str, text: str, version: int | None = None):
        self.uri = uri
        self.path = uri_to_path(uri)
        self.version = version
        self._text = text
        self._index: LineIndex | None = None

    @property
    def text(self) -> str:
        return self._text

    @text.setter
    def text(self, value: str) -> None:
        self._text = value
        self._index = None

    @property
    def index(self) -> LineIndex:
        if self._index is None:
            self._index = LineIndex(self._text)
        return self._index

    def apply_change(self, start: tuple[int, int] | None, end: tuple[int, int] | None, new: str, enc: str) -> None:
        """Apply one content change; `start`/`end` are LSP (line, character) or None for full text."""
        if start is None or end is None:
            self.text = new
            return
        idx = self.index
        a = idx.client_offset(start[0], start[1], enc)
        b = idx.client_offset(end[0], end[1], enc)
        if b < a:
            a, b = b, a
        self.text = self._text[:a] + new + self._text[b:]


def uri_to_path(uri: str) -> str:
    """file:// URIs → an absolute path; anything else (untitled:...) → a stable fake path."""
    p = urlparse(uri)
    if p.scheme == "file":
        path = unquote(p.path)
        if re.match(r"^/[A-Za-z]:", path):  # file:///C:/x on Windows
            path = path[1:]
        return str(Path(path))
    name = re.sub(r"[^\w.-]+", "_", unquote(p.path or uri)).strip("_") or "untitled"
    if not name.endswith(".races"):
        name += ".races"
    return str(Path.cwd() / name)


def path_to_uri(path: str | Path) -> str:
    return Path(path).absolute().as_uri()
