"""Finding the compiled library a record names.

Scoring `sort` and `select` re-executes chains, so the scorer needs the exact library
that made the record. `racesc compile` writes a sidecar (`OUT.library.json`) holding the
sources; a scorer registers it, or finds it through `RACESL_LIBRARY_PATH` (`:`-separated:
sidecars, task files with their sidecar beside them, folders of either, `--format hf`
folders). The bundled stdlib is always findable.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

from racesl.atomic import atomic_write

FORMAT = "racesl-library/1"
# The registry. Readers look a hash up without the lock (a dict read is atomic, and a library
# is put here only once it is whole); everything that builds or scans holds _LOCK, so
# concurrent first calls wait for one load instead of seeing a half-scanned state (a lookup
# that found the path "scanned" before its load finished scored right answers 0).
_LIBS: dict = {}
_LOCK = threading.RLock()
_SCANNED: set[str] = set()  # sidecars loaded (or refused for their content), and "stdlib" once built


def register(lib) -> None:
    with _LOCK:
        _LIBS[lib.hash] = lib


def write_sidecar(lib, path: str | Path, extra: dict | None = None) -> None:
    """The library's sources, to build it again where tasks are scored; `extra`: more
    top-level keys about the compile (e.g. "environments": the subset and weights used)."""
    data = {"format": FORMAT, "library": lib.hash, "modules": lib.sources(), **(extra or {})}
    atomic_write(path, lambda tmp: Path(tmp).write_text(json.dumps(data, ensure_ascii=False, indent=1), "utf-8"))


def load_sidecar(path: str | Path):
    """Build (and register) the library stored in a sidecar file."""
    from racesl.library import Library

    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{path}: not a racesl library file")
    with _LOCK:
        lib = _LIBS.get(data["library"])
        if lib is not None:
            return lib
        try:
            lib = Library.from_sources(data["modules"], data["library"])
        except ValueError as e:
            raise ValueError(f"{path}: {e}") from None
        register(lib)
    return lib


def sidecars_at(entry: str | Path) -> list[Path]:
    """The sidecars one entry of RACESL_LIBRARY_PATH names: a task file's `FILE.library.json`
    where there is one, else the file itself (a sidecar of any name); in a folder, its
    `*.library.json` and `library.json`, and those of its `data/` folder (`--format hf`)."""
    p = Path(entry)
    if p.is_dir():
        found: list[Path] = []
        for d in (p, p / "data"):
            if d.is_dir():
                found += sorted(f for f in d.glob("*.library.json") if f.is_file())
                if (d / "library.json").is_file():
                    found.append(d / "library.json")
        return found
    side = Path(str(p) + ".library.json")
    return [side] if side.is_file() else [p]


def scan(*entries) -> None:
    """Load every sidecar the entries name (each read as an entry of RACESL_LIBRARY_PATH,
    see `sidecars_at`) that was not loaded yet, under the lock. A file that is missing now
    is looked for again next time; one whose content is no library is not."""
    with _LOCK:
        for entry in entries:
            for f in sidecars_at(entry):
                key = str(f)
                if key in _SCANNED:
                    continue
                try:
                    load_sidecar(f)
                except OSError:
                    continue
                except (ValueError, KeyError, TypeError, RecursionError):
                    pass
                _SCANNED.add(key)


def library_for(hash_: str):
    """The library with this hash, or None when it cannot be found. Safe from any number of
    threads: a miss takes the lock, and scans and builds only what is still missing."""
    lib = _LIBS.get(hash_)
    if lib is not None:
        return lib
    with _LOCK:
        lib = _LIBS.get(hash_)
        if lib is not None:
            return lib
        scan(*filter(None, os.environ.get("RACESL_LIBRARY_PATH", "").split(os.pathsep)))
        lib = _LIBS.get(hash_)
        if lib is None and "stdlib" not in _SCANNED:
            from racesl import resources
            from racesl.library import Library

            std, _ = Library.from_paths([resources.stdlib_dir()])
            if std is not None:
                register(std)
            _SCANNED.add("stdlib")  # only once the stdlib is registered (or known not to build)
            lib = _LIBS.get(hash_)
    return lib


def read_tasks(path: str | Path) -> list[dict]:
    """Task records, with their library registered from the sidecar beside them (so
    `sort`/`select` answers can be re-executed). Raises ValueError with a message that
    names the file; never returns an empty list."""
    from racesl.records import RecordError, read_task_records

    p = Path(path)
    if not p.exists():
        raise ValueError(f"tasks file {p} does not exist")
    sidecar = Path(str(p) + ".library.json")
    if sidecar.is_file():  # (a regular file: a FIFO is never opened)
        try:
            load_sidecar(sidecar)
        except (OSError, ValueError, KeyError) as e:
            raise ValueError(f"{sidecar}: {e}") from None
    try:  # every record checked in one place (racesl.records.record_problem): `FILE:N: why`
        records = read_task_records(p)
    except RecordError:
        raise
    except OSError as e:
        raise ValueError(f"cannot read {p}: {e.strerror or e}") from None
    if not records:
        raise ValueError(f"{p} holds no tasks")
    return records
