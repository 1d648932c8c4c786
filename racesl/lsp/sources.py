"""What the checker reads in the editor: open documents from memory (parsed
incrementally), files on disk parsed once per (mtime, size)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import attrs

from racesl.check.loader import Loader
from racesl.diagnostics import Diagnostic
from racesl.lsp.incremental import ParseResult
from racesl.syntax import ast as A
from racesl.syntax.parser import decode_source, parse_module


@attrs.define
class DocSource:
    """What the loader sees of an open document."""

    path: str
    text: str
    parsed: ParseResult


class DiskCache:
    """Parsed files on disk, by (mtime, size)."""

    def __init__(self):
        self._files: dict[str, tuple] = {}

    def get(self, path: str) -> tuple[str, A.Module, list[Diagnostic]]:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):  # (never opened: reading a FIFO would block the server)
            raise OSError(0, "not a regular file")
        key = (st.st_mtime_ns, st.st_size)
        hit = self._files.get(path)
        if hit is not None and hit[0] == key:
            return hit[1]
        with open(path, "rb") as f:
            data = f.read()
        text, diags = decode_source(data, path)
        mod, more = parse_module(text, path)
        val = (text, mod, diags + more)
        self._files[path] = (key, val)
        return val

    def text(self, path: str) -> str | None:
        try:
            return self.get(path)[0]
        except OSError:
            return None


class CachedLoader(Loader):
    """The checker's loader, reading open documents from memory and files through caches."""

    def __init__(self, include: list[Path], docs: dict[str, DocSource], disk: DiskCache):
        super().__init__(include, {p: d.text for p, d in docs.items()})
        self.docs = docs
        self.disk = disk

    def read_module(self, path: Path):
        key = str(path)
        doc = self.docs.get(key)
        if doc is not None:
            return doc.text, doc.parsed.module, list(doc.parsed.diagnostics)
        text, mod, diags = self.disk.get(key)
        return text, mod, list(diags)
