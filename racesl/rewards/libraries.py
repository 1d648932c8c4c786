"""Finding the compiled library a record names.

Scoring `sort` and `select` re-executes chains, so the scorer needs the exact library
that made the record. `racesc compile` writes a sidecar (`OUT.library.json`) holding the
sources; a scorer registers it, or finds it through `RACESL_LIBRARY_PATH` (files or
folders, `:`-separated). The bundled stdlib is always findable.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

from racesl.atomic import atomic_write

FORMAT = "racesl-library/1"
_LIBS: dict = {}
_LOCK = threading.Lock()
_SCANNED: set[str] = set()


def register(lib) -> None:
    with _LOCK:
        _LIBS[lib.hash] = lib


def write_sidecar(lib, path: str | Path) -> None:
    data = {"format": FORMAT, "library": lib.hash, "modules": lib.sources()}
    atomic_write(path, lambda tmp: Path(tmp).write_text(json.dumps(data, ensure_ascii=False, indent=1), "utf-8"))


def load_sidecar(path: str | Path):
    """Build (and register) the library stored in a sidecar file."""
    from racesl.library import Library

    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if data.get("format") != FORMAT:
        raise ValueError(f"{path}: not a racesl library file")
    if data["library"] in _LIBS:
        return _LIBS[data["library"]]
    try:
        lib = Library.from_sources(data["modules"], data["library"])
    except ValueError as e:
        raise ValueError(f"{path}: {e}") from None
    register(lib)
    return lib


def _scan_path() -> None:
    for entry in filter(None, os.environ.get("RACESL_LIBRARY_PATH", "").split(":")):
        p = Path(entry)
        files = sorted(p.glob("*.library.json")) if p.is_dir() else [p]
        for f in files:
            if str(f) in _SCANNED:
                continue
            _SCANNED.add(str(f))
            try:
                load_sidecar(f)
            except (OSError, ValueError, KeyError):
                continue


def library_for(hash_: str):
    """The library with this hash, or None when it cannot be found."""
    lib = _LIBS.get(hash_)
    if lib is not None:
        return lib
    _scan_path()
    lib = _LIBS.get(hash_)
    if lib is not None:
        return lib
    if "stdlib" not in _SCANNED:
        _SCANNED.add("stdlib")
        from racesl import resources
        from racesl.library import Library

        std, _ = Library.from_paths([resources.stdlib_dir()])
        if std is not None:
            register(std)
    return _LIBS.get(hash_)


def read_tasks(path: str | Path) -> list[dict]:
    """Task records, with their library registered from the sidecar beside them (so
    `sort`/`select` answers can be re-executed). Raises ValueError with a message that
    names the file; never returns an empty list."""
    from racesl.records import read_records

    p = Path(path)
    if not p.exists():
        raise ValueError(f"tasks file {p} does not exist")
    sidecar = Path(str(p) + ".library.json")
    if sidecar.exists():
        try:
            load_sidecar(sidecar)
        except (OSError, ValueError, KeyError) as e:
            raise ValueError(f"{sidecar}: {e}") from None
    try:
        records = read_records(p)
    except (OSError, ValueError) as e:
        raise ValueError(f"cannot read {p}: {e}") from None
    except RecursionError:
        raise ValueError(f"cannot read {p}: a record is nested too deeply") from None
    if not records:
        raise ValueError(f"{p} holds no tasks")
    for k, r in enumerate(records, 1):
        why = _not_a_task(r)
        if why:
            raise ValueError(f"{p}: record {k} {why}")
    return records


# what generating and scoring read of every task record, by field
_TASK_FIELDS = {"id": (str, int), "operator": (str,), "size": (int,), "prompt": (str,), "answer": (str,)}


def _not_a_task(r) -> str | None:
    """Why r cannot be a task record (None when it can): generation and scoring read these
    fields of every record, and a malformed one must stop the run with one line up front."""
    if not isinstance(r, dict):
        return "is not a JSON object"
    for field, types in _TASK_FIELDS.items():
        v = r.get(field)
        if not isinstance(v, types) or isinstance(v, bool):
            return f'has no {field!r} (a {" or ".join(t.__name__ for t in types)})'
    return None
