"""Analysis of open documents: incremental parse, cached checking, the last good result.

`check_paths` parses every module from scratch and checks every body. The editor calls
this on each keystroke, so here:

- open documents are parsed by `IncrementalParser` (only changed top-level items);
- files on disk (the stdlib, imported modules) are parsed once per (mtime, size);
- a module whose AST and imported modules are unchanged is not checked again;
- in a module that is checked again, type expressions and bodies whose inputs did not
  change (same AST node, same module-level signatures) replay their earlier results.

The result is the same `Checked` value `check_paths` returns; the tests compare the two.
"""

from __future__ import annotations

import logging
import os
import time
import tomllib
from collections import OrderedDict
from pathlib import Path
from typing import Iterable

import attrs

from racesl import resources
from racesl.check import Checked
from racesl.check.checker import ModuleChecker
from racesl.check.loader import Loader, Source, module_imports
from racesl.check.model import CheckedModule
from racesl.diagnostics import Diagnostic, Span
from racesl.lsp.documents import Document, LineIndex
from racesl.lsp.incremental import IncrementalParser, ParseResult, Placement
from racesl.syntax import ast as A
from racesl.syntax.parser import decode_source, parse_module
from racesl.types import types as T

log = logging.getLogger("racesl.lsp")

SYNTAX_CODES = frozenset(f"E1{i:02d}" for i in range(100))
MAX_WORKSPACE_FILES = 2000


# ---------------------------------------------------------------- type keys


def tkey(t) -> tuple:
    """A value that changes whenever anything a body checker may read from a type changes."""
    if t is None:
        return ("none",)
    if isinstance(t, T.Refined):
        return ("ref", tkey(t.base), tuple(p.text for p in t.preds))
    if isinstance(t, T.NewT):
        return ("new", t.name, tkey(t.underlying))
    if isinstance(t, (T.ListT, T.SetT)):
        return (type(t).__name__, tkey(t.elem))
    if isinstance(t, T.TupleT):
        return ("tuple",) + tuple(tkey(e) for e in t.elems)
    if isinstance(t, T.DictT):
        return ("dict", tkey(t.key), tkey(t.value))
    return (type(t).__name__,)


# ---------------------------------------------------------------- checking with replay


_ALL = object()  # "read the whole table" (iteration, for suggestions)


class _Reads:
    """The reads of module-level tables made by the call being recorded."""

    __slots__ = ("log",)

    def __init__(self):
        self.log: list | None = None


def _symstate(sym) -> tuple | None:
    if sym is None:
        return None
    return (sym.kind, sym.qualname, sym.pyname, sym.nparams, sym.params, tkey(sym.returns), tkey(sym.type),
            sym.imported, sym.span, sym.path)


def _nodestate(node) -> int | None:
    return None if node is None else id(node)


class RecDict(dict):
    """A dict that logs what is read from it while a `_Reads` log is open."""

    def __init__(self, reads: _Reads, state):
        super().__init__()
        self._reads = reads
        self._state = state

    def _log(self, key) -> None:
        log = self._reads.log
        if log is not None:
            log.append((self, key, self.state_of(key)))

    def state_of(self, key):
        if key is _ALL:
            return tuple(sorted((k, self._state(v)) for k, v in dict.items(self)))
        return self._state(dict.get(self, key))

    def get(self, key, default=None):
        self._log(key)
        return dict.get(self, key, default)

    def __getitem__(self, key):
        self._log(key)
        return dict.__getitem__(self, key)

    def __contains__(self, key):
        self._log(key)
        return dict.__contains__(self, key)

    def __iter__(self):
        self._log(_ALL)
        return dict.__iter__(self)

    def keys(self):
        self._log(_ALL)
        return dict.keys(self)

    def values(self):
        self._log(_ALL)
        return dict.values(self)

    def items(self):
        self._log(_ALL)
        return dict.items(self)

    def __len__(self):
        self._log(_ALL)
        return dict.__len__(self)


class RecSet(frozenset):
    """A frozenset that logs membership tests while a `_Reads` log is open."""

    def __new__(cls, items, reads: _Reads):
        obj = super().__new__(cls, items)
        obj._reads = reads
        return obj

    def state_of(self, key):
        return frozenset.__contains__(self, key)

    def __contains__(self, key):
        log = self._reads.log
        if log is not None:
            log.append((self, key, frozenset.__contains__(self, key)))
        return frozenset.__contains__(self, key)

    def __iter__(self):
        log = self._reads.log
        if log is not None:
            log.append((self, _ALL, frozenset(frozenset.__iter__(self))))
        return frozenset.__iter__(self)


def _still_valid(reads: list, tables: dict[str, object]) -> bool:
    for name, key, state in reads:
        table = tables[name]
        if key is _ALL and isinstance(table, RecSet):
            if frozenset(frozenset.__iter__(table)) != state:
                return False
        elif table.state_of(key) != state:
            return False
    return True


@attrs.define
class CheckCache:
    """Per module (and context): results of type expressions and bodies, keyed by AST node."""

    types: dict = attrs.Factory(dict)  # (TypeExpr, resolving) → entry
    bodies: dict = attrs.Factory(dict)  # FuncDef → entry
    hits: int = 0
    misses: int = 0
    keep: tuple = ()  # the imported modules whose ids are in the fingerprints


@attrs.define(eq=False)
class _Entry:
    deps: tuple
    reads: list  # (table name, key, state)
    value: object
    diags: tuple
    resolved: dict
    used: set


class CachingChecker(ModuleChecker):
    """`ModuleChecker` that replays type resolutions and body checks whose inputs are unchanged.

    Each recorded call logs what it read from the module's tables (symbols, type
    declarations, names skipped by syntax recovery); a later call on the same AST node is
    replayed only when every one of those reads gives the same answer now. Only two
    methods are wrapped, each calling the original on a miss, so a change in the checker
    changes what is replayed, never what is computed.
    """

    def __init__(self, src: Source, checked: dict[str, CheckedModule], broken: set, cache: CheckCache,
                 deps: tuple):
        super().__init__(src, checked, broken)
        self._reads = _Reads()
        self.symbols = RecDict(self._reads, _symstate)
        self.type_items = RecDict(self._reads, _nodestate)
        self.scope.symbols = self.symbols
        self.scope.skipped = RecSet(src.ast.skipped_names, self._reads)
        self._tables = {"symbols": self.symbols, "types": self.type_items, "skipped": self.scope.skipped}
        self._names = {id(t): n for n, t in self._tables.items()}
        self._cache = cache
        self._deps = deps
        self._depth = 0
        self._new_types: dict = {}
        self._new_bodies: dict = {}

    def _valid(self, e: _Entry | None) -> bool:
        return e is not None and e.deps == self._deps and _still_valid(e.reads, self._tables)

    def _record(self, fn, *args) -> _Entry:
        n0 = len(self.diags)
        saved_r, saved_u = self.resolved, self.scope.used
        self.resolved, self.scope.used = {}, set()
        log: list = []
        self._reads.log = log
        self._depth += 1
        try:
            value = fn(*args)
        finally:
            self._depth -= 1
            self._reads.log = None
            r, u = self.resolved, self.scope.used
            saved_r.update(r)
            saved_u.update(u)
            self.resolved, self.scope.used = saved_r, saved_u
        names = self._names
        reads = [(names[id(t)], k, st) for t, k, st in log]
        self._cache.misses += 1
        return _Entry(self._deps, reads, value, tuple(self.diags[n0:]), r, u)

    def _replay(self, e: _Entry) -> None:
        self.diags.extend(e.diags)
        self.resolved.update(e.resolved)
        self.scope.used.update(e.used)
        self._cache.hits += 1

    def resolve_type(self, te):
        if self._depth or te is None:
            return super().resolve_type(te)
        key = (te, frozenset(self._resolving))
        e = self._cache.types.get(key)
        if self._valid(e):
            self._replay(e)
        else:
            e = self._record(super().resolve_type, te)
        self._new_types[key] = e
        return e.value

    def _body(self, fn) -> None:
        e = self._cache.bodies.get(fn)
        if self._valid(e):
            self._replay(e)
            self.local_types[fn.name] = e.value
        else:
            self.local_types.pop(fn.name, None)
            e = self._record(super()._body, fn)
            e.value = self.local_types.get(fn.name, {})
        self._new_bodies[fn] = e

    def run(self) -> CheckedModule:
        out = super().run()
        self._cache.types = self._new_types
        self._cache.bodies = self._new_bodies
        # a replayed type resolution may repeat what a nested one already reported
        out.diagnostics[:] = list(dict.fromkeys(out.diagnostics))
        return out


# ---------------------------------------------------------------- sources


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

    def load_file(self, path: Path) -> Source | None:  # mirrors Loader.load_file
        name = path.stem
        if name in self.sources:
            existing = self.sources[name]
            if Path(existing.path).resolve() != path.resolve():
                self.diagnostics.append(Diagnostic(
                    "E201", f"two modules are named '{name}': {existing.path} and {path}",
                    Span(1, 1, 1, 1), str(path), hint="rename the one of the files"))
            return existing
        key = str(path)
        doc = self.docs.get(key)
        if doc is not None:
            text, mod, diags = doc.text, doc.parsed.module, list(doc.parsed.diagnostics)
        else:
            try:
                text, mod, diags = self.disk.get(key)
            except OSError as e:
                self.diagnostics.append(Diagnostic("E202", f"cannot read {path}: {e.strerror}", Span(1, 1, 1, 1), key))
                return None
            diags = list(diags)
        src = Source(name, key, text, mod, diags, module_imports(mod))
        self.sources[name] = src
        for modname, node in src.imports:
            self._resolve_import(src, modname, node)
        return src


class CheckDriver:
    """`check_paths` with caches; one per workspace."""

    def __init__(self):
        self.disk = DiskCache()
        self._modules: OrderedDict = OrderedDict()  # key → CheckedModule
        self._caches: dict[tuple[str, str], CheckCache] = {}
        self.stats = {"modules_checked": 0, "modules_reused": 0}

    def check(self, paths: Iterable[str | Path], include: list[Path], docs: dict[str, DocSource],
              context: str = "doc") -> Checked:
        loader = CachedLoader(include, docs, self.disk)
        roots = []
        for p in paths:
            src = loader.load_file(Path(p))
            if src is not None:
                roots.append(src.name)
        ordered = loader.order()
        checked: dict[str, CheckedModule] = {}
        diags = list(loader.diagnostics)
        for src in ordered:
            cm = self._check_one(src, checked, loader.broken, context)
            checked[src.name] = cm
            diags.extend(cm.diagnostics)
        return Checked(checked, list(dict.fromkeys(roots)), sorted(diags, key=Diagnostic.sort_key))

    def _check_one(self, src: Source, checked: dict[str, CheckedModule], broken: set, context: str) -> CheckedModule:
        deps = tuple(sorted({(m, id(checked[m])) for m, _ in src.imports if m in checked}))
        mine = tuple(sorted(b for b in broken if b[0] == src.name))
        key = (src.name, src.path, id(src.ast), deps, mine, tuple(src.diagnostics))
        hit = self._modules.get(key)
        if hit is not None and hit[0] is src.ast:
            self._modules.move_to_end(key)
            self.stats["modules_reused"] += 1
            return hit[1]
        cache = self._caches.setdefault((src.path, context), CheckCache())
        dep_objs = tuple(checked[m] for m, _ in deps)
        cache.keep = dep_objs
        cm = CachingChecker(src, checked, broken, cache, (src.name, deps, mine)).run()
        self.stats["modules_checked"] += 1
        # keep the AST and the imported modules alive while their ids are part of the key
        self._modules[key] = (src.ast, cm, dep_objs)
        while len(self._modules) > 96:
            self._modules.popitem(last=False)
        return cm


# ---------------------------------------------------------------- the workspace


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
    _graph: object = None

    def graph(self):
        if self._graph is None:
            from racesl.graph.signature import SignatureGraph

            self._graph = SignatureGraph(self.checked.envs())
        return self._graph


class Workspace:
    """Open documents, their analyses, and the library around them."""

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
            files: list[str] = []
            for root in self.roots:
                if not root.is_dir():
                    continue
                for dirpath, dirnames, filenames in os.walk(root):
                    dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in
                                         ("node_modules", "__pycache__", "build", "dist"))
                    for f in sorted(filenames):
                        if f.endswith(".races"):
                            files.append(str(Path(dirpath, f).absolute()))
                    if len(files) >= MAX_WORKSPACE_FILES:
                        break
            self._workspace_files = files[:MAX_WORKSPACE_FILES]
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

    def analyze(self, uri: str) -> Analysis:
        doc = self.docs[uri]
        prev = self.analyses.get(uri)
        if prev is not None and prev.text is doc.text:
            return prev
        t0 = time.perf_counter()
        docs = self.doc_sources()
        parsed = docs[doc.path].parsed
        checked = self.driver.check([doc.path], self.include, docs, "doc")
        a = Analysis(doc.uri, doc.path, doc.version, doc.text, doc.index, parsed, checked, Path(doc.path).stem,
                     time.perf_counter() - t0)
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
        docs = self.doc_sources()
        key = tuple(sorted((p, id(d.parsed)) for p, d in docs.items()))
        if self._library is not None and self._library.key == key:
            return self._library
        paths = list(docs) + [p for p in self.workspace_files() if p not in docs] + \
            [p for p in self.stdlib_files() if p not in docs]
        checked = self.driver.check(paths, self.include, docs, "library")
        self._library = Library(checked, key)
        return self._library

    def all_modules(self) -> dict[str, CheckedModule]:
        """Every module known: the library's, overridden by the open documents' own analyses."""
        mods = dict(self.library().checked.modules)
        for a in self.analyses.values():
            for name, cm in a.checked.modules.items():
                mods.setdefault(name, cm)
            if a.module is not None:
                mods[a.module_name] = a.module
        return mods
