"""The one reader of files a user hands us: task records' sidecars, library sidecars, split
sidecars, eval results, pool files, configs. Every such read goes through here, so every
reader refuses the same things the same way (`UserFileError`: one line, `FILE: why`).

What is refused, before the file is opened where it can be:

- anything but a regular file (a folder, FIFO, device, socket): a FIFO is never opened,
  so a reader can never block on one; a symlink is followed to what it names (a dangling
  link or a loop is refused like a missing file);
- a file over `max_bytes` (default 256 MiB; /dev/zero and a runaway file never end);
- text that is not UTF-8;
- JSON that RFC 8259 refuses (`NaN`, `Infinity`), a number a float cannot hold (`1e400`),
  an integer past Python's digit limit, a duplicate key in one object, nesting deeper than
  `max_depth` (default 200: task inputs are nested lists, never 200 deep).

Shapes are checked by the caller with `expect`, which names the field and what it must be,
so a `"modules": ["x"]` sidecar reads "FILE: \"modules\" must be an object of module name →
source text, not a list".
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

from racesl.output import kind as file_kind  # what a st_mode is, when no regular file

__all__ = ["MAX_BYTES", "MAX_DEPTH", "UserFileError", "describe", "expect", "load_json", "loads_json",
           "read_bytes", "read_text", "regular", "no_constant", "finite"]

MAX_BYTES = 256 * 2**20
MAX_DEPTH = 200


class UserFileError(ValueError):
    """A user's file that cannot be used; the message is one line that names the file."""


def regular(path, *, what: str = "file", max_bytes: int | None = MAX_BYTES) -> Path:
    """`path` with symlinks followed, once it is known to be a regular file of at most
    `max_bytes` (None: any size, for a file its reader takes in bounded pieces, as task files'
    lines); UserFileError otherwise (`what` names the file's role in the message)."""
    shown = os.fspath(path)
    try:
        st = os.stat(shown)  # follows links; never opens
    except FileNotFoundError:
        raise UserFileError(f"{shown}: no such {what}") from None
    except OSError as e:
        raise UserFileError(f"{shown}: cannot read the {what}: {e.strerror or e}") from None
    kind = file_kind(st.st_mode)
    if kind is not None:
        raise UserFileError(f"{shown} is {kind}, not a {what}")
    if max_bytes is not None and st.st_size > max_bytes:
        raise UserFileError(f"{shown}: {st.st_size:,} bytes, more than a {what} may hold ({max_bytes:,})")
    return Path(os.path.realpath(shown))


def read_bytes(path, *, what: str = "file", max_bytes: int = MAX_BYTES) -> bytes:
    real = regular(path, what=what, max_bytes=max_bytes)
    try:
        with open(real, "rb") as f:
            data = f.read(max_bytes + 1)  # the file may have grown since stat
    except OSError as e:
        raise UserFileError(f"{os.fspath(path)}: cannot read the {what}: {e.strerror or e}") from None
    if len(data) > max_bytes:
        raise UserFileError(f"{os.fspath(path)}: more than a {what} may hold ({max_bytes:,} bytes)")
    return data


def read_text(path, *, what: str = "file", max_bytes: int = MAX_BYTES) -> str:
    data = read_bytes(path, what=what, max_bytes=max_bytes)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise UserFileError(f"{os.fspath(path)}: the {what} is not UTF-8 (byte {e.start + 1})") from None


def no_constant(name: str):
    """json's `parse_constant`: NaN and Infinity are no JSON (RFC 8259)."""
    raise ValueError(f"{name} is no JSON value")


def finite(text: str) -> float:
    """json's `parse_float`: a number a float cannot hold (`1e400`) is refused, not read as inf."""
    x = float(text)
    if not math.isfinite(x):
        raise ValueError(f"the number {text[:40]} is out of range (it would be {x})")
    return x


def _unique(pairs):
    seen = {}
    for k, v in pairs:
        if k in seen:
            raise ValueError(f"the key {k[:60]!r} appears twice in one object")
        seen[k] = v
    return seen


def _too_deep(value, max_depth: int) -> bool:
    """Whether `value` nests deeper than `max_depth` (iteratively: no recursion to overflow)."""
    stack = [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict):
            v = v.values()
        elif not isinstance(v, list):
            continue
        if d > max_depth:
            return True
        stack.extend((x, d + 1) for x in v if isinstance(x, (dict, list)))
    return False


def loads_json(text: str | bytes, *, where: str, max_depth: int = MAX_DEPTH):
    """The JSON value of `text` under the rules of the module docstring; UserFileError
    starting with `where` (a file name, or `FILE:LINE`) otherwise."""
    try:
        value = json.loads(text, parse_constant=no_constant, parse_float=finite, object_pairs_hook=_unique)
    except RecursionError:
        raise UserFileError(f"{where}: not JSON: nested too deeply") from None
    except json.JSONDecodeError as e:
        raise UserFileError(f"{where}: not JSON: {e.msg} (line {e.lineno}, column {e.colno})") from None
    except UnicodeDecodeError as e:
        raise UserFileError(f"{where}: not UTF-8 (byte {e.start + 1})") from None
    except ValueError as e:  # a constant, an infinite float, an int past the digit limit, a duplicate key
        why = "a number with too many digits" if "digits" in str(e) else " ".join(str(e).split())[:200]
        raise UserFileError(f"{where}: not JSON we can read: {why}") from None
    if _too_deep(value, max_depth):
        raise UserFileError(f"{where}: nested more than {max_depth} levels deep")
    return value


def load_json(path, *, what: str = "file", max_bytes: int = MAX_BYTES, max_depth: int = MAX_DEPTH):
    """The JSON value of a user's file, read by `read_bytes` and `loads_json`."""
    return loads_json(read_bytes(path, what=what, max_bytes=max_bytes), where=os.fspath(path), max_depth=max_depth)


_TYPE_NAMES = {dict: "an object", list: "a list", str: "a string", int: "an integer", float: "a number",
               bool: "true or false", type(None): "null"}


def describe(value) -> str:
    """What a JSON value is, in words ("a list", "an integer")."""
    return _TYPE_NAMES.get(type(value), type(value).__name__)


def expect(value, kinds, *, where: str, field: str, want: str | None = None):
    """`value` when it is one of `kinds` (a type or tuple; `bool` is never an `int` here), else
    UserFileError: `WHERE: "FIELD" must be WANT, not <what it is>`."""
    kinds = kinds if isinstance(kinds, tuple) else (kinds,)
    ok = isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds)
    if not ok:
        want = want or " or ".join(_TYPE_NAMES.get(k, k.__name__) for k in kinds)
        raise UserFileError(f"{where}: \"{field}\" must be {want}, not {describe(value)}")
    return value
