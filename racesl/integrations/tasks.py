"""What every hub integration needs from racesl: tasks from a compiled file, or streamed
from the compiler, and the completion that answers a record."""

from __future__ import annotations

import functools
import itertools
from pathlib import Path
from typing import Iterator

from racesl.search.config import CompileConfig, parse_operators


def gold(record: dict) -> str:
    """The reference completion of a record: its answer in an `<answer>` block (scores 1.0)."""
    return f"<answer>{record['answer']}</answer>"


def library(paths=None, include=()):
    """The compiled library of `paths` (default: the bundled stdlib); ValueError with the
    first diagnostic when the sources do not compile. The last few are kept: a hub builds
    one taskset or environment after another from the same sources."""
    return _library(tuple(str(p) for p in paths or ()), tuple(str(p) for p in include))


@functools.lru_cache(maxsize=4)
def _library(paths: tuple, include: tuple):
    from racesl import resources
    from racesl.check import check_paths
    from racesl.library import Library

    checked = check_paths(list(paths or [str(resources.stdlib_dir())]), list(include))
    if not checked.ok:
        first = next(d for d in checked.diagnostics if d.is_error)
        raise ValueError(f"the sources do not compile: {first.path}:{first.span.line}:{first.span.col}: "
                         f"{first.code} {first.message}")
    if not checked.modules:
        raise ValueError("no .races files found")
    from racesl.catalogue.diagnose import refusals
    from racesl.runtime.watchdog import WATCHDOG

    lib = Library(checked)
    with WATCHDOG.session():
        wrong = refusals(lib)  # prompts show the examples: refused as `racesc compile` refuses them
    if wrong:
        first = wrong[0]
        raise ValueError(f"a worked example does not hold: {first.path}:{first.span.line}:{first.span.col}: "
                         f"{first.code} {first.message}")
    return lib


def config(seed: int = 0, operators: str | None = None, level: int | None = None, **kw) -> CompileConfig:
    """A CompileConfig from the knobs hubs expose: seed, an operator spec such as
    "sequential=2-4,sort=2-3", and the highest level (None: the library's default)."""
    if operators:
        kw["operators"] = parse_operators(operators)
    if level is not None:
        kw["max_level"] = level
    return CompileConfig(seed=seed, **kw)


def stream(paths=None, *, seed: int = 0, operators: str | None = None, level: int | None = None,
           limit: int | None = None, include=()) -> Iterator[dict]:
    """Task records compiled on the fly, forever (or `limit` of them): the same records for
    the same arguments, every time (racesl.train.stream.TaskStream)."""
    from racesl.train.stream import TaskStream

    records = (r for r, _ in TaskStream(library(paths, include), config(seed, operators, level)).records())
    return records if limit is None else itertools.islice(records, limit)


def from_file(path: str | Path) -> list[dict]:
    """The records of a compiled file (JSONL or Parquet), its library sidecar registered."""
    from racesl.rewards.libraries import read_tasks

    return read_tasks(path)
