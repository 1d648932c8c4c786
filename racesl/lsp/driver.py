"""`check_paths` with caches, for the editor, which checks on each keystroke.

- open documents are parsed by `IncrementalParser` (only changed top-level items), files
  on disk once per (mtime, size) (`sources.py`);
- a module whose AST and imported modules are unchanged is not checked again;
- a module that is checked again replays the checks whose inputs did not change
  (`replay.py`).

The result is the same `Checked` value `check_paths` returns; the tests compare the two.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from racesl.check import Checked, check_loaded
from racesl.check.loader import Source
from racesl.check.model import CheckedModule
from racesl.cache import SizedLRU
from racesl.lsp.replay import CachingChecker, CheckCache
from racesl.lsp.sources import CachedLoader, DiskCache, DocSource


MODULES_BUDGET = 16_000_000  # characters of source behind each cache below (the stdlib has 75,000)


class CheckDriver:
    """`check_paths` with caches; one per workspace."""

    def __init__(self):
        self.disk = DiskCache()
        # both bounded by the characters of the sources they stand for (see lru.py)
        self._modules = SizedLRU(MODULES_BUDGET, 96)  # key → (AST, CheckedModule, imported modules)
        self._caches = SizedLRU(MODULES_BUDGET, 256)  # (path, context) → CheckCache
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
            self.stats["modules_reused"] += 1
            return hit[1]
        cache = self._caches.get((src.path, context))
        if cache is None:
            cache = CheckCache()
        dep_objs = tuple(checked[m] for m, _ in deps)
        cache.keep = dep_objs
        cm = CachingChecker(src, checked, broken, cache, (src.name, deps, mine)).run()
        self._caches.put((src.path, context), cache, len(src.text))
        self.stats["modules_checked"] += 1
        # keep the AST and the imported modules alive while their ids are part of the key
        self._modules.put(key, (src.ast, cm, dep_objs), len(src.text))
        return cm
