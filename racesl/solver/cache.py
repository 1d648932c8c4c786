"""A persistent cache of edge classifications, so the solver is paid once per pair of
refinements — not once per compile.

Answers are deterministic (Z3 runs under an `rlimit`, not a clock), so a cached answer is
exactly what a fresh query would say; the file is keyed by racesl's version, the
encoder's fragment (racesl.solver.encode.FRAGMENT: what it reads, and the Unicode tables
its character classes come from) and the rlimit. `RACESL_CACHE_DIR` moves it; `RACESL_NO_CACHE=1` turns it off.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from racesl import __version__
from racesl.atomic import atomic_write
from racesl.solver.encode import FRAGMENT


def cache_dir() -> Path | None:
    if os.environ.get("RACESL_NO_CACHE"):
        return None
    base = os.environ.get("RACESL_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "racesl")
    return Path(base)


class CachedClassifier:
    """`classify(out, in)` through an on-disk table keyed by the types' full text."""

    def __init__(self, solver):
        self.solver = solver
        d = cache_dir()
        self.path = None if d is None else d / f"edges-{__version__}-{FRAGMENT}-r{solver.rlimit}.json"
        self.table: dict[str, str | None] = {}
        self.dirty = False
        self.hits = 0
        self._texts: dict[int, tuple[object, str]] = {}  # id(type) -> (type, repr)
        if self.path is not None:
            try:
                self.table = json.loads(self.path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                self.table = {}

    def _text(self, t) -> str:
        hit = self._texts.get(id(t))
        if hit is None or hit[0] is not t:
            hit = self._texts[id(t)] = (t, repr(t))
        return hit[1]

    def classify(self, out_t, in_t):
        key = f"{self._text(out_t)}\x00{self._text(in_t)}"
        if key in self.table:
            self.hits += 1
            return self.table[key]
        res = self.solver.classify(out_t, in_t)
        self.table[key] = res
        self.dirty = True
        return res

    def degenerate(self, t, filters) -> str | None:
        """`prune.always_degenerate`, through the same table."""
        key = f"deg\x00{filters!r}\x00{self._text(t)}"
        if key in self.table:
            self.hits += 1
            return self.table[key]
        from racesl.solver.prune import always_degenerate

        res = always_degenerate(t, filters, self.solver)
        self.table[key] = res
        self.dirty = True
        return res

    def save(self) -> None:
        if not self.dirty or self.path is None:
            return
        try:
            text = json.dumps(self.table, sort_keys=True)
            atomic_write(self.path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
            self.dirty = False
        except (OSError, ValueError):  # (ValueError: racesl.atomic.OutputRefused, e.g. a read-only cache file)
            pass  # a cache that cannot be written is only a missed speed-up
