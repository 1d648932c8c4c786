"""Analysis of open documents: incremental parse, cached checking, the last good result.

`check_paths` parses every module from scratch and checks every body. The editor calls
this on each keystroke, so here:

- open documents are parsed by `IncrementalParser` (only changed top-level items);
- files on disk (the stdlib, imported modules) are parsed once per (mtime, size);
- a module whose AST and imported modules are unchanged is not checked again;
- in a module that is checked again, type expressions, signatures, decorator checks and
  bodies whose inputs did not change (the same AST node, and the same answers to every
  lookup they made in the module's tables) replay their earlier results.

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
from racesl.check import Checked, check_loaded
from racesl.check.checker import ModuleChecker
from racesl.check.loader import Loader, Source
from racesl.check.model import CheckedModule
from racesl.diagnostics import Diagnostic
from racesl.lsp.documents import Document, LineIndex
from racesl.lsp.incremental import IncrementalParser, ParseResult, Placement
from racesl.syntax import ast as A
from racesl.syntax.parser import decode_source, parse_module
from racesl.types import types as T

log = logging.getLogger("racesl.lsp")

SYNTAX_CODES = frozenset(f"E1{i:02d}" for i in range(100))
MAX_WORKSPACE_FILES = 2000
MAX_WORKSPACE_DIRS = 5000  # (a workspace opened at a home folder must not stall the server)
_SKIP_DIRS = frozenset({"node_modules", "__pycache__", "build", "dist", "venv", "env", "site-packages"})


# ---------------------------------------------------------------- type keys

_TKEYS: dict[int, tuple] = {}


def tkey(t) -> tuple:
    """A value that changes whenever anything a body checker may read from a type changes.

    Types are immutable, so keys are memoized by identity (the type is kept with its key).
    """
    if t is None:
        return ("none",)
    hit = _TKEYS.get(id(t))
    if hit is not None and hit[0] is t:
        return hit[1]
    if isinstance(t, T.Refined):
        k = ("ref", tkey(t.base), tuple(p.text for p in t.preds))
    elif isinstance(t, T.NewT):
        k = ("new", t.name, tkey(t.underlying))
    elif isinstance(t, (T.ListT, T.SetT)):
        k = (type(t).__name__, tkey(t.elem))
    elif isinstance(t, T.TupleT):
        k = ("tuple",) + tuple(tkey(e) for e in t.elems)
    elif isinstance(t, T.DictT):
        k = ("dict", tkey(t.key), tkey(t.value))
    else:
        k = (type(t).__name__,)
    if len(_TKEYS) > 200_000:
        _TKEYS.clear()
    _TKEYS[id(t)] = (t, k)
    return k


# ---------------------------------------------------------------- checking with replay


_ALL = object()  # "read the whole table" (iteration, for suggestions)


class _Reads:
    """The reads made by the call being recorded: {(table, key): state at the first read}.

    Only first reads matter: a call is deterministic given the state when it starts, and a
    later read of the same key sees either that state or what the call itself wrote.
    """

    __slots__ = ("log",)

    def __init__(self):
        self.log: dict | None = None


class RecDict(dict):
    """A dict that logs what is read from it while a `_Reads` log is open."""

    def __init__(self, name: str, reads: _Reads, state):
        super().__init__()
        self._name = name
        self._reads = reads
        self._state = state

    def _log(self, key) -> None:
        log = self._reads.log
        if log is not None and (self._name, key) not in log:
            log[(self._name, key)] = self.state_of(key)

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

    def __new__(cls, items, name: str, reads: _Reads):
        obj = super().__new__(cls, items)
        obj._name = name
        obj._reads = reads
        return obj

    def state_of(self, key):
        if key is _ALL:
            return frozenset(frozenset.__iter__(self))
        return frozenset.__contains__(self, key)

    def __contains__(self, key):
        log = self._reads.log
        if log is not None and (self._name, key) not in log:
            log[(self._name, key)] = frozenset.__contains__(self, key)
        return frozenset.__contains__(self, key)

    def __iter__(self):
        log = self._reads.log
        if log is not None and (self._name, _ALL) not in log:
            log[(self._name, _ALL)] = frozenset(frozenset.__iter__(self))
        return frozenset.__iter__(self)


@attrs.define
class CheckCache:
    """Per module (and context): recorded calls, keyed by AST node."""

    entries: dict = attrs.Factory(dict)  # (method, node, extra) → _Entry
    hits: int = 0
    misses: int = 0
    keep: tuple = ()  # the imported modules whose ids are in the fingerprints


@attrs.define(eq=False)
class _Entry:
    deps: tuple
    reads: dict  # (table, key) → state
    value: object
    diags: tuple
    resolved: dict
    used: set
    writes: tuple = ()  # (kind, name, value) to apply again on a replay
    keep: object = None  # objects whose identity is part of the key


class CachingChecker(ModuleChecker):
    """`ModuleChecker` that replays type resolutions, signatures, decorator checks and body
    checks whose inputs are unchanged.

    Each recorded call logs what it first read from the module's tables (symbols, type
    declarations, names skipped by syntax recovery); a later call on the same AST node is
    replayed only when every one of those reads gives the same answer now, and a replay
    re-applies the call's diagnostics and writes. Only four methods are wrapped, each
    calling the original on a miss, so a change in the checker changes what is replayed,
    never what is computed.
    """

    def __init__(self, src: Source, checked: dict[str, CheckedModule], broken: set, cache: CheckCache,
                 deps: tuple):
        super().__init__(src, checked, broken)
        self._reads = _Reads()
        memo: dict = {}

        def symstate(sym):
            if sym is None:
                return None
            k = (id(sym), id(sym.returns), id(sym.type))
            st = memo.get(k)
            if st is None:
                st = (sym.kind, sym.qualname, sym.pyname, sym.nparams, sym.params, tkey(sym.returns),
                      tkey(sym.type), sym.imported, sym.span, sym.path)
                memo[k] = st
            return st

        self.symbols = RecDict("symbols", self._reads, symstate)
        self.type_items = RecDict("types", self._reads, lambda n: None if n is None else id(n))
        self.scope.symbols = self.symbols
        self.scope.skipped = RecSet(src.ast.skipped_names, "skipped", self._reads)
        self._tables = {"symbols": self.symbols, "types": self.type_items, "skipped": self.scope.skipped}
        self._cache = cache
        self._deps = deps
        self._type_depth = 0
        self._new: dict = {}

    # ------------------------------------------------------------ recording

    def _lookup(self, key) -> _Entry | None:
        e = self._cache.entries.get(key)
        if e is None or e.deps != self._deps:
            return None
        tables = self._tables
        for (name, k), state in e.reads.items():
            if tables[name].state_of(k) != state:
                return None
        return e

    def _record(self, fn, *args) -> _Entry:
        n0 = len(self.diags)
        saved_r, saved_u, outer = self.resolved, self.scope.used, self._reads.log
        self.resolved, self.scope.used, self._reads.log = {}, set(), {}
        try:
            value = fn(*args)
        finally:
            r, u, log = self.resolved, self.scope.used, self._reads.log
            saved_r.update(r)
            saved_u.update(u)
            self.resolved, self.scope.used, self._reads.log = saved_r, saved_u, outer
            if outer is not None:
                for k, v in log.items():
                    outer.setdefault(k, v)
        self._cache.misses += 1
        return _Entry(self._deps, log, value, tuple(self.diags[n0:]), r, u)

    def _replay(self, e: _Entry) -> None:
        self.diags.extend(e.diags)
        self.resolved.update(e.resolved)
        self.scope.used.update(e.used)
        outer = self._reads.log
        if outer is not None:  # a replay inside a recording: its reads are the outer call's too
            for k, v in e.reads.items():
                outer.setdefault(k, v)
        self._cache.hits += 1

    # ------------------------------------------------------------ wrapped methods

    def resolve_type(self, te):
        if self._type_depth or te is None:
            return super().resolve_type(te)
        key = ("type", te, frozenset(self._resolving))
        e = self._lookup(key)
        if e is not None:
            self._replay(e)
        else:
            self._type_depth += 1
            try:
                e = self._record(super().resolve_type, te)
            finally:
                self._type_depth -= 1
        self._new[key] = e
        return e.value

    def _body(self, fn) -> None:
        key = ("body", fn)
        e = self._lookup(key)
        if e is not None:
            self._replay(e)
            self.local_types[fn.name] = e.value
        else:
            self.local_types.pop(fn.name, None)
            e = self._record(super()._body, fn)
            e.value = self.local_types.get(fn.name, {})
        self._new[key] = e

    def _signature(self, fn) -> None:
        key = ("signature", fn)
        e = self._lookup(key)
        sym = dict.get(self.symbols, fn.name)
        if e is not None:
            self._replay(e)
            for kind, value in e.writes:
                if kind == "returns" and sym is not None:
                    sym.returns = value
                elif kind == "env":
                    self.out.envs[fn.name] = value
                elif kind == "helper":
                    self.out.helpers[fn.name] = value
        else:
            env0, helper0, ret0 = self.out.envs.get(fn.name), self.out.helpers.get(fn.name), \
                (sym.returns if sym is not None else None)
            ntypes = len(self.out.types)
            e = self._record(super()._signature, fn)
            writes = []
            if sym is not None and sym.returns is not ret0:
                writes.append(("returns", sym.returns))
            if self.out.envs.get(fn.name) is not env0:
                writes.append(("env", self.out.envs.get(fn.name)))
            if self.out.helpers.get(fn.name) is not helper0:
                writes.append(("helper", self.out.helpers.get(fn.name)))
            e.writes = tuple(writes)
            if len(self.out.types) != ntypes:
                return  # it resolved a type declaration on the way: not replayable
        self._new[key] = e

    def _env_extras(self, fn) -> None:
        sig = self.out.envs.get(fn.name)
        key = ("extras", fn)
        e = self._lookup(key)
        if e is not None and e.keep is sig:
            self._replay(e)
            self.out.envs[fn.name] = e.value
        else:
            e = self._record(super()._env_extras, fn)
            e.value = self.out.envs.get(fn.name)
            e.keep = sig
        self._new[key] = e

    def run(self) -> CheckedModule:
        out = super().run()
        self._cache.entries = self._new
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

    def _parse(self, path: Path):
        key = str(path)
        doc = self.docs.get(key)
        if doc is not None:
            return doc.text, doc.parsed.module, list(doc.parsed.diagnostics)
        text, mod, diags = self.disk.get(key)
        return text, mod, list(diags)


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
        return check_loaded(loader, paths, lambda src, checked: self._check_one(src, checked, loader.broken, context))

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
            dirs = 0
            for root in self.roots:
                if not root.is_dir():
                    continue
                for dirpath, dirnames, filenames in os.walk(root):
                    dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in _SKIP_DIRS)
                    for f in sorted(filenames):
                        if f.endswith(".races"):
                            files.append(str(Path(dirpath, f).absolute()))
                    dirs += 1
                    if len(files) >= MAX_WORKSPACE_FILES or dirs >= MAX_WORKSPACE_DIRS:
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
        state = {d.path: d.text for d in self.docs.values()}
        if prev is not None and prev.text is doc.text and prev.docs_state.keys() == state.keys() \
                and all(state[p] is t for p, t in prev.docs_state.items()):
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
