"""The pool's manifest: one `Entry` per admitted module (active or retired), in a JSON file
whose bytes depend only on its content (fixed key order, entries sorted), so two runs that
admit the same modules write the same manifest.

    {"version": 1, "seeds": [...], "step": N, "entries": [{"module": ..., ...}, ...]}

`entries` is a list sorted by module (then retired before active, by retirement step), not
an object keyed by module: a name retired and admitted again keeps both records.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from pathlib import Path

import attrs

from racesl.atomic import atomic_write

VERSION = 1
MANIFEST = "manifest.json"
ORIGINS = ("admitted", "generated", "recovered")  # racesc admit, racesc evolve, adopted on open
MODULE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class PoolError(ValueError):
    """A pool that cannot be opened or changed, said in one line with what to do about it."""


def _int(inst, attr, value) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{attr.name} must be an integer, not {value!r}")
    if value < 0:
        raise ValueError(f"{attr.name} must be a non-negative integer, not {value!r}")


def _maybe_int(inst, attr, value) -> None:
    if value is not None:
        _int(inst, attr, value)


def _module(inst, attr, value) -> None:
    if not isinstance(value, str) or not MODULE_NAME.fullmatch(value):
        raise ValueError(f"{value!r} is not a module name (letters, digits and _, not starting with a digit)")


def _texts(value) -> tuple[str, ...]:
    if isinstance(value, str):
        raise TypeError(f"expected a list of names, not the string {value!r}")
    out = tuple(value)
    if not all(isinstance(v, str) for v in out):
        raise TypeError(f"expected names (strings), got {out!r}")
    return out


def _dict(value) -> dict:
    if not isinstance(value, dict):
        raise TypeError(f"expected an object, not {value!r}")
    return dict(value)


@attrs.frozen
class Entry:
    """Where one pool module came from and how it fared. `scores` and `fingerprints` are the
    gates' own JSON (opaque here); `file` is relative to the pool folder."""

    module: str = attrs.field(validator=_module)
    file: str = attrs.field(validator=attrs.validators.instance_of(str))
    sha256: str = attrs.field(validator=attrs.validators.instance_of(str))
    origin: str = attrs.field(validator=attrs.validators.in_(ORIGINS))
    generator: str | None = attrs.field(default=None, validator=attrs.validators.optional(
        attrs.validators.instance_of(str)))
    step: int = attrs.field(default=0, validator=_int)
    scores: dict = attrs.field(factory=dict, converter=_dict)
    fingerprints: dict = attrs.field(factory=dict, converter=_dict)
    parents: tuple[str, ...] = attrs.field(default=(), converter=_texts)
    envs: tuple[str, ...] = attrs.field(default=(), converter=_texts)
    retired: bool = attrs.field(default=False, validator=attrs.validators.instance_of(bool))
    retired_step: int | None = attrs.field(default=None, validator=_maybe_int)
    reason: str | None = attrs.field(default=None, validator=attrs.validators.optional(
        attrs.validators.instance_of(str)))

    def to_json(self) -> dict:
        """Fields in declaration order; nested objects with sorted keys (stable bytes)."""
        d = attrs.asdict(self, recurse=False)
        d["scores"], d["fingerprints"] = _sorted(self.scores), _sorted(self.fingerprints)
        d["parents"], d["envs"] = list(self.parents), list(self.envs)
        return d


RETIRED_FILE = re.compile(r"retired/[A-Za-z_][A-Za-z0-9_]*(?:\.[0-9]+)?\.races\.retired")


def file_problem(e: Entry) -> str | None:
    """Why an entry's `file` may not be used (None: fine). A manifest is data anyone can edit,
    and the pool moves and writes the files it names: an active module lives at
    `<module>.races`, a retired one at `retired/<module>[.N].races.retired`, both relative to
    the pool folder — never an absolute path, a `..`, or another folder."""
    want = f"{e.module}.races"
    if e.retired:
        if RETIRED_FILE.fullmatch(e.file) and e.file.split("/", 1)[1].split(".", 1)[0] == e.module:
            return None
        return f"a retired module's file must be retired/{e.module}.races.retired (or .N.races.retired)"
    return None if e.file == want else f"an active module's file must be {want!r}"


def order_key(e: Entry) -> tuple:
    """The manifest's order: by module; a module's retired records (oldest first) before its active one."""
    return (e.module, not e.retired, e.retired_step if e.retired_step is not None else -1, e.file)


def _sorted(v):
    if isinstance(v, dict):
        return {str(k): _sorted(v[k]) for k in sorted(v, key=str)}
    if isinstance(v, (list, tuple)):
        return [_sorted(x) for x in v]
    return v


def sha256(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def dumps(seeds: tuple[str, ...], step: int, entries: list[Entry]) -> str:
    """The manifest text. Raises PoolError for content JSON cannot hold exactly (NaN, a set)."""
    data = {"version": VERSION, "seeds": list(seeds), "step": step,
            "entries": [e.to_json() for e in sorted(entries, key=order_key)]}
    try:
        return json.dumps(data, indent=1, ensure_ascii=False, allow_nan=False) + "\n"
    except (TypeError, ValueError) as e:
        raise PoolError(f"the pool manifest cannot hold this entry's data: {e}") from None


def check_json(what: str, value) -> None:
    """Refuse (before anything is written) scores or fingerprints the manifest cannot store."""
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise PoolError(f"{what} must be plain JSON (numbers, strings, lists, objects; no NaN): {e}") from None


def write(path: Path, text: str) -> None:
    """Replace the manifest atomically (racesl.atomic): a reader sees the old one or the new one."""

    def put(tmp):
        Path(tmp).write_text(text, encoding="utf-8")

    atomic_write(path, put)


MAX_MANIFEST = 64 << 20  # bytes: a manifest of a million entries is far below


def _read_regular(path: Path) -> str:
    """The manifest's text, read only from a regular file of sane size (a FIFO named
    manifest.json would block the reader forever; /dev/zero never ends)."""
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        raise OSError(f"{path.name} is not a regular file")
    if st.st_size > MAX_MANIFEST:
        raise OSError(f"{st.st_size} bytes, more than a manifest holds ({MAX_MANIFEST})")
    return path.read_text(encoding="utf-8")


def read(path: Path) -> tuple[tuple[str, ...], int, list[Entry]]:
    """(seeds, step, entries) from a manifest; PoolError naming the file and a fix otherwise."""
    fix = ("restore it (from a backup or version control), or move it away: opening the folder again "
           "adopts its .races files as 'recovered' entries, without their scores")
    try:
        data = json.loads(_read_regular(path))
    except RecursionError:
        raise PoolError(f"{path}: cannot read the pool manifest (nested too deeply to be one); {fix}") from None
    except (OSError, ValueError) as e:  # (JSONDecodeError, UnicodeDecodeError, an integer of 5,000 digits)
        raise PoolError(f"{path}: cannot read the pool manifest ({type(e).__name__}: {str(e)[:200]}); {fix}") \
            from None
    if not isinstance(data, dict) or "version" not in data:
        raise PoolError(f"{path}: not a pool manifest (no \"version\"); {fix}")
    if not isinstance(data["version"], int) or isinstance(data["version"], bool) or data["version"] != VERSION:
        raise PoolError(f"{path}: pool manifest version {data['version']!r}, this racesl reads version {VERSION}; "
                        "use the racesl that wrote it, or upgrade racesl")
    try:
        unknown = set(data) - {"version", "seeds", "step", "entries"}
        if unknown:
            raise ValueError(f"unknown keys {sorted(unknown)}")
        seeds, step = _texts(data["seeds"]), data["step"]
        _int(None, attrs.fields(Entry).step, step)
        if not isinstance(data["entries"], list):
            raise TypeError("\"entries\" must be a list")
        entries = []
        for i, e in enumerate(data["entries"]):
            if not isinstance(e, dict):
                raise TypeError(f"entry {i} is not an object")
            try:
                entries.append(Entry(**e))
                bad = file_problem(entries[-1])
                if bad:
                    raise ValueError(f"file {e['file']!r}: {bad}")
            except (TypeError, ValueError) as err:
                raise type(err)(f"entry {i} ({str(e.get('module'))[:60]!r}): {str(err)[:300]}") from None
    except RecursionError:
        raise PoolError(f"{path}: a malformed pool manifest (nested too deeply); {fix}") from None
    except (KeyError, TypeError, ValueError) as e:
        raise PoolError(f"{path}: a malformed pool manifest ({type(e).__name__}: {e}); {fix}") from None
    active = [e.module for e in entries if not e.retired]
    twice = sorted({m for m in active if active.count(m) > 1})
    if twice:
        raise PoolError(f"{path}: module(s) {', '.join(twice)} active twice in the manifest; {fix}")
    return seeds, step, entries
