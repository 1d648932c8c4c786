"""Finding the compiled library a record names.

Scoring `sort` and `select` re-executes chains, so the scorer needs the exact library
that made the record. `racesc compile` writes a sidecar (`OUT.library.json`) holding the
sources; a scorer registers it, finds it beside the data file it is given (`load_beside`:
JSONL, Parquet, `--format hf` folders; a symlinked data file's sidecar is looked for beside
the file the link names first), or through `RACESL_LIBRARY_PATH` (`:`-separated: sidecars,
task files with their sidecar beside them, folders of either, `--format hf` folders). The
bundled stdlib is always findable.

Every sidecar is read by `read_sidecar`, through racesl.userfiles (a regular file, bounded
JSON, every field checked): a caller that was handed the file (`load_sidecar`,
`load_beside`, `read_tasks`) gets one line, `FILE: why`; the library path's scan skips a
bad neighbour with one warning and reads the rest. A library that cannot be found is said
once per hash on the `racesl.rewards` logger (stderr when no one configured logging), with
how to register it: a reward is right or loud, never a silent 0.
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
from pathlib import Path

from racesl.atomic import atomic_write
from racesl.userfiles import UserFileError, describe, expect, load_json

FORMAT = "racesl-library/1"
SUFFIX = ".library.json"  # a task file's sidecar: TASKS.library.json
FOLDER_SIDECAR = "library.json"  # inside a `--format hf` folder (racesl.integrations.hf.SIDECAR)
LOG = logging.getLogger("racesl.rewards")
MAX_WARNED = 100  # distinct missing libraries said before going quiet (a stream of junk hashes)
_HASH = re.compile(r"sha256:[0-9a-f]{64}\Z")
# The registry. Readers look a hash up without the lock (a dict read is atomic, and a library
# is put here only once it is whole); everything that builds or scans holds _LOCK, so
# concurrent first calls wait for one load instead of seeing a half-scanned state (a lookup
# that found the path "scanned" before its load finished scored right answers 0).
_LIBS: dict = {}
_LOCK = threading.RLock()
_SCANNED: set[str] = set()  # sidecars loaded (or refused for their content), and "stdlib" once built
_WARNED: set[str] = set()  # missing library hashes already said


def register(lib) -> None:
    with _LOCK:
        _LIBS[lib.hash] = lib


def write_sidecar(lib, path: str | Path, extra: dict | None = None) -> None:
    """The library's sources, to build it again where tasks are scored; `extra`: more
    top-level keys about the compile (e.g. "environments": the subset and weights used).
    The racesl version is recorded so a reader can tell a sidecar of another version (its
    hash can never match here) from one whose modules were edited."""
    from racesl import __version__

    data = {"format": FORMAT, "library": lib.hash, "racesl": __version__, "modules": lib.sources(),
            **(extra or {})}
    atomic_write(path, lambda tmp: Path(tmp).write_text(json.dumps(data, ensure_ascii=False, indent=1), "utf-8"))


def _module_name(name: str) -> bool:
    """Whether `name` can be a module's name: a file's stem (any name a file may have), so
    never a path (a `/`), a control character, `.` or `..`, or longer than a file name."""
    return (0 < len(name) <= 255 and name not in (".", "..") and "/" not in name and "\\" not in name
            and all(c.isprintable() for c in name))


def read_sidecar(path: str | Path) -> dict:
    """The checked content of a sidecar: `format`, `library` (a sha256 hash), `modules`
    ({module name: source text}) and whatever else it holds. UserFileError (one line,
    `FILE: why`) for anything else: a file that is not regular (a FIFO is never opened),
    JSON that racesl.userfiles refuses, a field of the wrong shape."""
    where = os.fspath(path)
    data = load_json(path, what="library sidecar")
    expect(data, dict, where=where, field="(the whole file)", want="an object")
    if data.get("format") != FORMAT:
        raise UserFileError(f"{where}: not a racesl library file (\"format\" is not {FORMAT!r})")
    h = expect(data.get("library"), str, where=where, field="library", want='a hash "sha256:<64 hex digits>"')
    if not _HASH.match(h):
        raise UserFileError(f"{where}: \"library\" must be a hash \"sha256:<64 hex digits>\", not {h[:80]!r}")
    modules = expect(data.get("modules"), dict, where=where, field="modules",
                     want="an object of module name → source text")
    if not modules:
        raise UserFileError(f"{where}: \"modules\" is empty: a library has at least one module")
    for name, text in modules.items():
        if not _module_name(name):
            raise UserFileError(f"{where}: \"modules\" has a key {name[:80]!r} that is no module name")
        if not isinstance(text, str):
            raise UserFileError(f"{where}: \"modules\".{name} must be the module's source text, not {describe(text)}")
    version = data.get("racesl")
    if version is not None:
        expect(version, str, where=where, field="racesl", want="a version string")
    return data


def _registered(h: str, modules: dict, where: str):
    """The library registered under `h`, once the sidecar's modules are its sources (an
    edited sidecar is refused even when its library is at hand); None when none is."""
    lib = _LIBS.get(h)
    if lib is not None and lib.sources() != modules:
        raise UserFileError(f"{where}: its modules do not match its library {h} (registered here from other "
                            "sources): they were edited after compile")
    return lib


def load_sidecar(path: str | Path):
    """Build (and register) the library stored in a sidecar file; UserFileError (one line,
    `FILE: why`) when it cannot be read or is not the library it names."""
    from racesl import __version__
    from racesl.library import Library

    where = os.fspath(path)
    data = read_sidecar(path)
    h, modules, version = data["library"], data["modules"], data.get("racesl")
    lib = _registered(h, modules, where)
    if lib is not None:
        return lib
    if version is not None and version != __version__:
        raise UserFileError(f"{where}: written by racesl {version[:40]}, and this is racesl {__version__}: its "
                            f"library {h} cannot be rebuilt here (compile the tasks again with this racesl)")
    with _LOCK:
        lib = _registered(h, modules, where)
        if lib is not None:
            return lib
        try:
            lib = Library.from_sources(modules, h)
        except (ValueError, TypeError, RecursionError) as e:  # (sources are a user's text: any of these)
            why = " ".join(str(e).split())[:300] or type(e).__name__
            if version is None and "hash mismatch" in why:  # (an older sidecar: no version recorded)
                why = why[:-1] + f", or it was written by a racesl other than {__version__})"
            raise UserFileError(f"{where}: {why}") from None
        register(lib)
    return lib


def _beside(path: str | Path) -> list[str]:
    """Where the sidecar of a task file may be (racesl.output.sidecar_places: beside the file a
    link names first, where `racesc compile` writes it, then beside the link)."""
    from racesl.output import sidecar_places

    return sidecar_places(path, SUFFIX)


def sidecar_beside(path: str | Path) -> Path | None:
    """The sidecar of a task file (`FILE.library.json`, links resolved: see `_beside`), or
    None when there is none. Anything present counts, so a FIFO or a folder under that name
    is refused by `load_sidecar` instead of passed over."""
    for cand in _beside(path):
        if os.path.exists(cand):  # (a dangling link: absent, as a missing file)
            return Path(cand)
    return None


def sidecars_at(entry: str | Path) -> list[Path]:
    """The sidecars one entry of RACESL_LIBRARY_PATH (or one data path) names: a task file's
    `FILE.library.json` where there is one, else the file itself (a sidecar of any name); in
    a folder, its `*.library.json` and `library.json`, and those of its `data/` folder
    (`--format hf`). Entries of any kind are listed: `load_sidecar` refuses what is no file."""
    p = Path(entry)
    if p.is_dir():
        found: list[Path] = []
        for d in (p, p / "data"):
            if d.is_dir():
                found += sorted(d.glob("*" + SUFFIX))
                if os.path.lexists(d / FOLDER_SIDECAR):
                    found.append(d / FOLDER_SIDECAR)
        return found
    side = sidecar_beside(p)
    return [side] if side is not None else [p]


def load_beside(*data) -> list:
    """The libraries of data files (JSONL, Parquet, verl Parquet) or dataset folders
    (`--format hf`), read from the sidecars beside them and registered: what an adapter
    given its data calls, so no RACESL_LIBRARY_PATH is needed. UserFileError (one line)
    for a data path that is missing or a sidecar that cannot be used; a data file with no
    sidecar adds nothing (its records' library is said missing when it is needed)."""
    libs = []
    for d in data:
        shown = os.fspath(d)
        if not os.path.exists(shown):
            raise UserFileError(f"{shown}: no such data file or folder")
        sides = sidecars_at(shown) if os.path.isdir(shown) else [s for s in [sidecar_beside(shown)] if s]
        libs += [load_sidecar(s) for s in sides]
    return libs


_BOUND: set[tuple[str, ...]] = set()  # data paths `bind_data` registered in this process


def bind_data(data) -> None:
    """`load_beside` for a data path or a list of them, once per process per list (an
    adapter given its data calls this on every call: the sidecars are read the first time)."""
    if data is None:
        return
    try:  # (verl hands a ListConfig: any iterable of paths will do)
        paths = [data] if isinstance(data, (str, os.PathLike)) else list(data)
    except TypeError:
        paths = [data]
    if not all(isinstance(p, (str, os.PathLike)) for p in paths):
        raise UserFileError(f"data must be a path or a list of paths, not {describe(data)}")
    key = tuple(os.fspath(p) for p in paths)
    if key in _BOUND:
        return
    load_beside(*paths)
    with _LOCK:
        _BOUND.add(key)


def load_for_tasks(tasks: str | Path, sidecars=()) -> list:
    """The libraries a command reading TASKS registers: the `--library` sidecars it was
    given, else the one beside TASKS when there is one (`sidecar_beside`). UserFileError
    (one line, `FILE: why`) for one that cannot be used."""
    chosen = list(sidecars) or [s for s in [sidecar_beside(tasks)] if s is not None]
    return [load_sidecar(s) for s in chosen]


def scan(*entries) -> None:
    """Load every sidecar the entries name (each read as an entry of RACESL_LIBRARY_PATH,
    see `sidecars_at`) that was not loaded yet, under the lock. A file that is missing now
    is looked for again next time; one that cannot be used (not a regular file, not a
    sidecar, not the library it names) is said once on the logger and skipped, and the
    scan goes on: a bad neighbour never hides a good sidecar."""
    with _LOCK:
        for entry in entries:
            for f in sidecars_at(entry):
                key = str(f)
                if key in _SCANNED:
                    continue
                if not os.path.exists(f):
                    continue  # (missing, or a dangling link: perhaps there next time)
                try:
                    load_sidecar(f)
                except UserFileError as e:
                    LOG.warning("racesl: skipping a library sidecar on the library path: %s", e)
                _SCANNED.add(key)


def _warn_missing(hash_) -> None:
    """Say once per hash that a library cannot be found, and how to register it."""
    key = str(hash_)[:100]
    with _LOCK:
        if key in _WARNED or len(_WARNED) > MAX_WARNED:
            return
        _WARNED.add(key)
        last = len(_WARNED) > MAX_WARNED
    where = os.environ.get("RACESL_LIBRARY_PATH")
    LOG.warning("racesl: library %s is not registered: its records' sort, select and @verify answers score 0 "
                "(status library_missing). Register it: keep its sidecar beside the data file "
                "(DATA.library.json, as racesc compile writes it) and pass the data file to the adapter "
                "(racesl.rewards.load_beside), add the sidecar, task file or folder to RACESL_LIBRARY_PATH "
                "(now %s), or call racesl.rewards.load_sidecar(PATH) / racesl.rewards.register(library)%s",
                key, repr(where) if where else "unset",
                f"; more than {MAX_WARNED} libraries are missing: no more of these warnings" if last else "")


def library_for(hash_: str):
    """The library with this hash, or None when it cannot be found (said once per hash:
    `_warn_missing`). Safe from any number of threads: a miss takes the lock, and scans
    and builds only what is still missing."""
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
    if lib is None:
        _warn_missing(hash_)
    return lib


def read_tasks(path: str | Path) -> list[dict]:
    """Task records, with their library registered from the sidecar beside them (so
    `sort`/`select` answers can be re-executed; a link's sidecar: see `sidecar_beside`).
    Raises ValueError (RecordError, UserFileError) with one line that names the file;
    never returns an empty list."""
    from racesl.records import RecordError, read_task_records

    p = Path(path)
    if not p.exists():
        raise ValueError(f"tasks file {p} does not exist")
    try:  # every record checked in one place (racesl.records.record_problem): `FILE:N: why`
        records = read_task_records(p)
    except RecordError:
        raise
    except OSError as e:
        raise ValueError(f"cannot read {p}: {e.strerror or e}") from None
    if not records:
        raise ValueError(f"{p} holds no tasks")
    side = sidecar_beside(p)
    if side is not None:
        load_sidecar(side)  # (UserFileError: `SIDECAR: why`)
    return records
