"""The output policy: what a command may write over, decided in one place, before any work.

Every command that writes (compile in every format and its sidecar, graph, doc, score,
eval, fmt, admit, evolve, the pool) asks `target(path)` first and writes through
`racesl.atomic.atomic_write`, which asks it again. At the path:

- nothing: the file is created (its missing folders too), with the mode `open()` gives;
- a regular file: replaced atomically, keeping its mode (and, for root, its owner);
- a read-only file (no write bit, checked as bits because root passes every permission
  check; or not writable by this user): refused;
- a symlink: written through to the file it names (atomically there), the link kept;
  a link loop, or a link to anything but a file, is refused like that thing;
- a folder, FIFO, character or block device, or socket: refused (`-o /dev/null` would
  otherwise become a regular file, and a folder would fail after the whole compile).

`-` (standard output) is never a path here: the commands that support it test `is_stdout`
before asking. Outputs that are folders: `folder(path)` (eval's `-o DIR`: absent or a
folder) and `dataset_folder(path)` (compile `--format hf`: absent, or a dataset folder that
racesl saved, which is replaced atomically as a whole; any other folder is refused).
A refusal is an `OutputRefused`: one line, which the CLI prints with exit 2.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

__all__ = ["OutputRefused", "dataset_folder", "folder", "is_stdout", "keep_mode", "kind", "refusal", "target"]

STDOUT = "-"
DATASET_MARKERS = ("dataset_info.json", "state.json")  # what datasets' save_to_disk writes
DATASET_SIDECAR = "library.json"  # what racesl writes beside them (racesl.integrations.hf.SIDECAR)


class OutputRefused(ValueError):
    """A path no command may write to; the message is one line that names it."""


def is_stdout(path) -> bool:
    return isinstance(path, str) and path == STDOUT


_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def kind(mode: int) -> str | None:
    """What a file of this st_mode is, when it is not a regular file (None for one)."""
    for test, name in _KINDS:
        if test(mode):
            return name
    return None if stat.S_ISREG(mode) else "not a regular file"


def _text(path) -> str:
    text = os.fspath(path)
    if isinstance(text, bytes):
        text = os.fsdecode(text)
    if "\0" in text:
        raise OutputRefused(f"{text!r}: a path cannot hold a NUL character")
    if not text:
        raise OutputRefused("an empty path names no file")
    return text


def _real(text: str) -> Path:
    """The path a write lands at: symlinks followed (a dangling link: where it points)."""
    try:
        return Path(os.path.realpath(text, strict=True))
    except FileNotFoundError:
        return Path(os.path.realpath(text))
    except OSError as e:  # a link loop, a name too long, a file used as a folder
        raise OutputRefused(f"{text}: cannot write there: {e.strerror or e}") from None


def _check_parent(shown: str, real: Path) -> None:
    """The nearest existing folder above `real` must be a folder this process can write in."""
    for up in real.parents:
        try:
            st = os.stat(up)
        except FileNotFoundError:
            continue
        except OSError as e:
            raise OutputRefused(f"{shown}: cannot write there: {e.strerror or e}") from None
        if not stat.S_ISDIR(st.st_mode):
            raise OutputRefused(f"{shown}: {up} is {kind(st.st_mode) or 'a file'}, not a folder")
        if not os.access(up, os.W_OK | os.X_OK):
            raise OutputRefused(f"{shown}: the folder {up} is not writable")
        return


def _standing(shown: str, real: Path):
    """`os.stat` of what stands at `real`, or None where nothing does yet (then the folders
    above it must be able to hold it)."""
    try:
        return os.stat(real)
    except FileNotFoundError:
        _check_parent(shown, real)
        return None
    except OSError as e:
        raise OutputRefused(f"{shown}: cannot write there: {e.strerror or e}") from None


def target(path, *, inside: Path | str | None = None) -> Path:
    """The file a write to `path` lands in (symlinks followed), after the checks of the module
    docstring; OutputRefused otherwise. `inside`: the file must also lie in this folder (a
    pool's files: a link out of it is refused)."""
    shown = _text(path)
    real = _real(shown)
    if inside is not None:
        root = Path(os.path.realpath(inside))
        if real != root and root not in real.parents:
            raise OutputRefused(f"{shown} leads out of {inside} (to {real}): refused")
    st = _standing(shown, real)
    if st is None:
        return real
    what = kind(st.st_mode)
    if what is not None:
        via = f" ({real})" if str(real) != os.path.abspath(shown) else ""
        raise OutputRefused(f"{shown}{via} is {what}, not a file: give a file path (nothing was written)")
    if not st.st_mode & 0o222 or not os.access(real, os.W_OK):
        raise OutputRefused(f"{shown} is read-only: make it writable, or give another path (nothing was written)")
    _check_parent(shown, real)
    return real


def keep_mode(tmp, real: Path, new_mode: int) -> None:
    """Give the temporary file `tmp` the mode (and, as root, the owner) of the file it will
    replace, or `new_mode` when there is none."""
    try:
        st = os.stat(real)
    except FileNotFoundError:
        os.chmod(tmp, new_mode)
        return
    if hasattr(os, "geteuid") and os.geteuid() == 0 and (st.st_uid, st.st_gid) != (0, 0):
        try:
            os.chown(tmp, st.st_uid, st.st_gid)
        except OSError:
            pass
    os.chmod(tmp, stat.S_IMODE(st.st_mode))


def folder(path) -> Path:
    """A folder outputs go into (eval's `-o DIR`): absent (created later) or a folder (a link to
    one followed); anything else refused. The files inside go through `target`."""
    if is_stdout(path):
        raise OutputRefused("this output is a folder: standard output (-) cannot hold it; give a folder")
    shown = _text(path)
    real = _real(shown)
    st = _standing(shown, real)
    if st is None:
        return real
    if not stat.S_ISDIR(st.st_mode):
        raise OutputRefused(f"{shown} is {kind(st.st_mode) or 'a file'}, not a folder: give a folder "
                            "(it is created when missing)")
    if not os.access(real, os.W_OK | os.X_OK):
        raise OutputRefused(f"{shown}: the folder is not writable")
    return real


def dataset_folder(path) -> Path:
    """Where `racesc compile --format hf` may save its dataset folder: absent, or a folder that
    racesl saved before (datasets' files and racesl's `library.json`), which is then replaced
    as a whole (moved aside, the new one renamed in, the old removed). Any other folder is
    somebody's data and is refused, as is anything that is not a folder."""
    shown = _text(path)
    real = folder(shown)
    if real.exists():
        ours = (real / DATASET_SIDECAR).is_file() and any((real / m).is_file() for m in DATASET_MARKERS)
        if not ours:
            raise OutputRefused(f"{shown} exists and is not a saved dataset of racesl's: give --format hf a new "
                                "folder (or one it saved before, which is replaced)")
        _check_parent(shown, real)
    return real


def refusal(*paths, stdout: bool = False) -> str | None:
    """For a command's first lines: None when every path (None: not given) may be written,
    else the one line saying why not. `stdout`: the command writes `-` to standard output."""
    for p in paths:
        if p is None:
            continue
        if is_stdout(p):
            if stdout:
                continue
            return "this output cannot go to standard output (-): give a file path"
        try:
            target(p)
        except OutputRefused as e:
            return str(e)
    return None
