"""Files shipped with racesl: the grammar and the stdlib.

In a wheel they live under `racesl/_data/`; in a source checkout at the repository root.
"""

from __future__ import annotations

import functools
from pathlib import Path

_PKG = Path(__file__).resolve().parent


def _find(name: str) -> Path:
    for candidate in (_PKG / "_data" / name, _PKG.parent / name):
        if candidate.exists():
            return candidate
    raise FileNotFoundError(f"racesl resource {name!r} is missing from the installation")


@functools.lru_cache(maxsize=1)
def grammar_text() -> str:
    return (_find("grammar") / "races.lark").read_text(encoding="utf-8")


def stdlib_dir() -> Path:
    return _find("stdlib")
