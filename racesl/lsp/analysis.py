"""The workspace: open documents, their analyses (the last one and the last good one),
and the library of every module the editor knows.

Checking goes through `CheckDriver` (driver.py), which caches parses and replays what did
not change; its result is the same `Checked` value `check_paths` returns.
"""

from __future__ import annotations

import os
import threading
import time
import tomllib
from pathlib import Path
from typing import Callable, Iterable

import attrs

from racesl import resources
from racesl.check import Checked
from racesl.check.model import CheckedModule
from racesl.diagnostics import Diagnostic
from racesl.lsp.documents import Document, LineIndex
from racesl.lsp.driver import CheckDriver
from racesl.lsp.incremental import IncrementalParser, ParseResult, Placement
from racesl.lsp.sources import DocSource
from racesl.syntax import ast as A

SYNTAX_CODES = frozenset(f"E1{i:02d}" for i in range(100))
MAX_WORKSPACE_FILES = 2000
MAX_WORKSPACE_DIRS = 5000  # (a workspace opened at a home folder must not stall the server)
_SKIP_DIRS = frozenset({"node_modules", "__pycache__", "build", "dist", "venv", "env", "site-packages"})


@attrs.define(eq=False)
class Analysis:
    """One version of one open document, analysed."""

    uri: str
    path: str
    version: int | None
    text: str
    index: LineIndex
    parsed: ParseResult
    checked: Checked
    module_name: str
    elapsed: float
    docs_state: dict = attrs.Factory(dict)  # path → text of every open document it saw

    @property
    def placement(self) -> Placement:
        return self.parsed.placement

    @property
    def module(self) -> CheckedModule | None:
        return self.checked.modules.get(self.module_name)

    @property
    def ast(self) -> A.Module:
        return self.parsed.module

    def diagnostics(self) -> list[Diagnostic]:
        return [d for d in self.checked.diagnostics if d.path == self.path]

    @property
    def syntax_ok(self) -> bool:
        return not any(d.code in SYNTAX_CODES and d.is_error for d in self.diagnostics())


@attrs.define(eq=False)
class Library:
    """Every module the editor knows (stdlib, workspace, open documents), checked together."""

    checked: Checked
    key: tuple
    _envs: list | None = None

    def envs(self) -> list:
        """Every environment of the library (one per qualified name)."""
        if self._envs is None:
            seen: dict = {}
            for e in self.checked.envs():
                seen.setdefault(e.qualname, e)
            self._envs = list(seen.values())
        return self._envs

    def graph(self):
        from racesl.graph.signature import SignatureGraph

        return SignatureGraph(self.envs())


class LibraryPending(Exception):
    """The library is out of date and checking it is long work, not for the server's event
    loop (`Workspace.large_chars`): the caller goes without it; a background job makes it."""


class Workspace:
    """Open documents, their analyses, and the library around them."""

    large_chars: int | None = None  # the server sets it: see `library` and `long_work`

    def __init__(self, include: Iterable[str | Path] = (), roots: Iterable[str | Path] = ()):
        self.include = [Path(p).absolute() for p in include]
        self.roots = [Path(r) for r in roots]
        self.docs: dict[str, Document] = {}
        self.parsers: dict[str, IncrementalParser] = {}
        self.parsed: dict[str, tuple[str, ParseResult]] = {}  # uri → (text, parse) of the latest text
        self.analyses: dict[str, Analysis] = {}
        self.last_good: dict[str, Analysis] = {}
        self.driver = CheckDriver()
        self._library: Library | None = None
        self._workspace_files: list[str] | None = None
        self.skipped_files: list[Diagnostic] = []  # W202: FIFOs, sockets, devices named *.races (never opened)
        # the guarded edges that never passed in the sampler's latest runs (racesl.passing):
        # the server points this at its sampler; hover and code lens leave those edges out
        self.never_passed: Callable[[], dict[tuple[str, str], str]] = dict
        self._read_config()

    # ------------------------------------------------------------ configuration

    def _read_config(self) -> None:
        """`include` folders from the nearest races.toml's [compile] table, if any."""
        for root in self.roots:
            cfg = root / "races.toml"
            if cfg.is_file():
                try:
                    data = tomllib.loads(cfg.read_text(encoding="utf-8"))
                except (OSError, tomllib.TOMLDecodeError):
                    continue
                for p in (data.get("compile") or {}).get("include", []) or []:
                    q = (root / str(p)).absolute()
                    if q not in self.include:
                        self.include.append(q)

    def workspace_files(self) -> list[str]:
        if self._workspace_files is None:
            from racesl.check.loader import irregular, skipped_warning

            files: list[str] = []
            skipped: list[Diagnostic] = []
            dirs = 0
            for root in self.roots:
                if not root.is_dir():
                    continue
                for dirpath, dirnames, filenames in os.walk(root):
                    dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in _SKIP_DIRS)
                    for f in sorted(filenames):
                        if f.endswith(".races"):
                            path = Path(dirpath, f).absolute()
                            what = irregular(path)  # a FIFO named x.races would block the server: never opened
                            if what is None:
                                files.append(str(path))
                            elif what != "a folder":
                                skipped.append(skipped_warning(path, what))
                    dirs += 1
                    if len(files) >= MAX_WORKSPACE_FILES or dirs >= MAX_WORKSPACE_DIRS:
                        break
            self._workspace_files = files[:MAX_WORKSPACE_FILES]
            self.skipped_files = skipped  # (W202 warnings: what the scan left unopened)
        return self._workspace_files

    def forget_workspace_files(self) -> None:
        self._workspace_files = None
        self._library = None

    def stdlib_files(self) -> list[str]:
        try:
            return [str(p) for p in sorted(resources.stdlib_dir().glob("*.races"))]
        except FileNotFoundError:
            return []

    # ------------------------------------------------------------ documents

    def open(self, uri: str, text: str, version: int | None = None) -> Document:
        doc = Document(uri, text, version)
        self.docs[uri] = doc
        self.parsers.setdefault(doc.path, IncrementalParser(doc.path))
        return doc

    def close(self, uri: str) -> None:
        doc = self.docs.pop(uri, None)
        self.analyses.pop(uri, None)
        self.last_good.pop(uri, None)
        self.parsed.pop(uri, None)
        if doc is not None:
            self.parsers.pop(doc.path, None)
        self._library = None

    def doc_by_path(self, path: str) -> Document | None:
        for d in self.docs.values():
            if d.path == path:
                return d
        return None

    def _parse(self, doc: Document) -> ParseResult:
        cached = self.parsed.get(doc.uri)
        if cached is not None and cached[0] is doc.text:
            return cached[1]
        parser = self.parsers.setdefault(doc.path, IncrementalParser(doc.path))
        res = parser.parse(doc.text)
        self.parsed[doc.uri] = (doc.text, res)
        return res

    def doc_sources(self) -> dict[str, DocSource]:
        out = {}
        for doc in self.docs.values():
            out[doc.path] = DocSource(doc.path, doc.text, self._parse(doc))
        return out

    def placement_for(self, path: str) -> Placement | None:
        doc = self.doc_by_path(path)
        if doc is None:
            return None
        return self._parse(doc).placement

    def text_for(self, path: str) -> str | None:
        doc = self.doc_by_path(path)
        if doc is not None:
            return doc.text
        return self.driver.disk.text(path)

    # ------------------------------------------------------------ analysis

    def is_current(self, uri: str) -> bool:
        """The last analysis of `uri` saw the text of every open document as it is now."""
        doc, prev = self.docs.get(uri), self.analyses.get(uri)
        if doc is None or prev is None or prev.text is not doc.text:
            return False
        state = {d.path: d.text for d in self.docs.values()}
        return prev.docs_state.keys() == state.keys() and all(state[p] is t for p, t in prev.docs_state.items())

    def long_work(self, uri: str) -> bool:
        """Analysing `uri` now would parse or check a document over `large_chars` characters
        (its own text, or another open document's text not parsed yet)."""
        if self.large_chars is None or self.is_current(uri):
            return False
        for d in list(self.docs.values()):
            if len(d.text) > self.large_chars:
                cached = self.parsed.get(d.uri)
                if d.uri == uri or cached is None or cached[0] is not d.text:
                    return True
        return False

    def analyze(self, uri: str) -> Analysis:
        doc = self.docs[uri]
        prev = self.analyses.get(uri)
        state = {d.path: d.text for d in self.docs.values()}
        if self.is_current(uri):
            return prev  # neither this document nor any other open one changed
        t0 = time.perf_counter()
        docs = self.doc_sources()
        parsed = docs[doc.path].parsed
        checked = self.driver.check([doc.path], self.include, docs, "doc")
        a = Analysis(doc.uri, doc.path, doc.version, doc.text, doc.index, parsed, checked, Path(doc.path).stem,
                     time.perf_counter() - t0, state)
        self.analyses[uri] = a
        if a.syntax_ok:
            self.last_good[uri] = a
        self._library = None
        return a

    def dependents(self, uri: str) -> list[str]:
        """Other open documents whose last analysis loaded this document's module."""
        doc = self.docs.get(uri)
        if doc is None:
            return []
        out = []
        for other, a in self.analyses.items():
            if other != uri and other in self.docs and any(m.path == doc.path for m in a.checked.modules.values()):
                out.append(other)
        return out

    def library(self) -> Library:
        """Stdlib + workspace files + open documents, checked together (for the graph and references)."""
        inline = self.large_chars is None or threading.current_thread() is not threading.main_thread() \
            or all(len(d.text) <= self.large_chars for d in self.docs.values())
        if not inline and any(self.long_work(uri) for uri in list(self.docs)):
            raise LibraryPending()  # (a large document's text is not parsed yet)
        docs = self.doc_sources()
        key = tuple(sorted((p, id(d.parsed)) for p, d in docs.items()))
        if self._library is not None and self._library.key == key:
            return self._library
        if not inline:
            raise LibraryPending()
        paths = list(docs) + [p for p in self.workspace_files() if p not in docs] + \
            [p for p in self.stdlib_files() if p not in docs]
        checked = self.driver.check(paths, self.include, docs, "library")
        self._library = Library(checked, key)
        return self._library

    def all_modules(self) -> dict[str, CheckedModule]:
        """Every module known: the library's, overridden by the open documents' own analyses."""
        try:
            mods = dict(self.library().checked.modules)
        except LibraryPending:  # (the open documents' own modules are enough meanwhile)
            mods = {}
        for a in self.analyses.values():
            for name, cm in a.checked.modules.items():
                mods.setdefault(name, cm)
            if a.module is not None:
                mods[a.module_name] = a.module
        return mods
