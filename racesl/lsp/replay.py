"""Checking a module again, replaying what did not change.

In a module that is checked again, type expressions, signatures, decorator checks and
bodies whose inputs did not change (the same AST node, and the same answers to every
lookup they made in the module's tables) replay their earlier results. This uses the
checker's extension points (see `ModuleChecker`): `use_tables`, `resolving`,
`resolve_type`, `check_signature`, `check_body` and `check_env_extras`.
"""

from __future__ import annotations

import attrs

from racesl.check.checker import ModuleChecker
from racesl.check.loader import Source
from racesl.check.model import CheckedModule
from racesl.lsp.recording import Reads, RecDict, RecSet, tkey


@attrs.define
class CheckCache:
    """Per module (and context): recorded calls, keyed by AST node."""

    entries: dict = attrs.Factory(dict)  # (method, node, extra) → Entry
    hits: int = 0
    misses: int = 0
    keep: tuple = ()  # the imported modules whose ids are in the fingerprints


@attrs.define(eq=False)
class Entry:
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
    re-applies the call's diagnostics and writes. Only the checker's four extension-point
    methods are wrapped, each calling the original on a miss, so a change in the checker
    changes what is replayed, never what is computed.
    """

    def __init__(self, src: Source, checked: dict[str, CheckedModule], broken: set, cache: CheckCache,
                 deps: tuple):
        super().__init__(src, checked, broken)
        self._reads = Reads()
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

        self.use_tables(RecDict("symbols", self._reads, symstate),
                        RecDict("types", self._reads, lambda n: None if n is None else id(n)),
                        RecSet(src.ast.skipped_names, "skipped", self._reads))
        self._tables = {"symbols": self.symbols, "types": self.type_items, "skipped": self.scope.skipped}
        self._cache = cache
        self._deps = deps
        self._type_depth = 0
        self._new: dict = {}

    # ------------------------------------------------------------ recording

    def _lookup(self, key) -> Entry | None:
        e = self._cache.entries.get(key)
        if e is None or e.deps != self._deps:
            return None
        tables = self._tables
        for (name, k), state in e.reads.items():
            if tables[name].state_of(k) != state:
                return None
        return e

    def _record(self, fn, *args) -> Entry:
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
        return Entry(self._deps, log, value, tuple(self.diags[n0:]), r, u)

    def _replay(self, e: Entry) -> None:
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
        key = ("type", te, self.resolving)
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

    def check_body(self, fn) -> None:
        key = ("body", fn)
        e = self._lookup(key)
        if e is not None:
            self._replay(e)
            self.local_types[fn.name] = e.value
        else:
            self.local_types.pop(fn.name, None)
            e = self._record(super().check_body, fn)
            e.value = self.local_types.get(fn.name, {})
        self._new[key] = e

    def check_signature(self, fn) -> None:
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
            e = self._record(super().check_signature, fn)
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

    def check_env_extras(self, fn) -> None:
        sig = self.out.envs.get(fn.name)
        key = ("extras", fn)
        e = self._lookup(key)
        if e is not None and e.keep is sig:
            self._replay(e)
            self.out.envs[fn.name] = e.value
        else:
            e = self._record(super().check_env_extras, fn)
            e.value = self.out.envs.get(fn.name)
            e.keep = sig
        self._new[key] = e

    def run(self) -> CheckedModule:
        out = super().run()
        self._cache.entries = self._new
        # a replayed type resolution may repeat what a nested one already reported
        out.diagnostics[:] = list(dict.fromkeys(out.diagnostics))
        return out
