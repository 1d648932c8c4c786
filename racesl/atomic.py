"""`atomic_write`: write a temporary file beside the target, then rename it into place, so
an interrupted writer leaves either the old file or the new one, never half of one.

`written_together()` does the same for files that belong together (`racesc compile`'s
output and its `OUT.library.json` sidecar): inside it, `atomic_write` only stages its
temporary file; when the block ends, the first file staged is the *commit point*:

1. the old first file is removed (if any),
2. every other file is renamed into place,
3. the first file is renamed into place, last.

So whenever the first file exists, the others exist beside it and are the ones written
with it; a process killed anywhere (even by SIGKILL) leaves the old set, or the first
file missing — never a new output beside an old or absent sidecar. Readers take "the
first file is present" as "the set is complete".

Temporary files are named `.NAME.PID.XXXXXXXX.part`. One left by a killed process (its
PID no longer running; or a name without a PID, from older versions) is removed by the
next write of the same target. (A PID is only checked on this machine: writers of one
target on several hosts of a shared file system must not overlap.)

What may be written over is the output policy (racesl.output): a symlink is written through
to its file (the temporary file beside that file; the link kept), an existing file keeps its
mode, and a folder, FIFO, device, socket or read-only file is refused (`OutputRefused`).
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import re
import signal
import tempfile
import threading
from pathlib import Path

from racesl.output import OutputRefused, keep_mode, target

__all__ = ["OutputRefused", "atomic_write", "target", "written_together"]

_STAGED: contextvars.ContextVar[list | None] = contextvars.ContextVar("racesl_staged", default=None)
_PART = re.compile(r"(?:(\d+)\.)?[A-Za-z0-9_]+")  # what lies between ".NAME." and ".part"


@contextlib.contextmanager
def _signals_interrupt():
    """While a temporary file exists, SIGTERM and SIGHUP unwind like Ctrl-C, so the file is
    removed. (Only then: outside, the default action must stay, since a process stuck in one
    long C call never runs a Python-level handler.)"""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, frame):
        raise KeyboardInterrupt

    saved = {}
    for sig in (signal.SIGTERM, signal.SIGHUP):
        saved[sig] = signal.signal(sig, stop)
    try:
        yield
    finally:
        for sig, old in saved.items():
            signal.signal(sig, old)


def _umask() -> int:
    mask = os.umask(0o022)  # (read it the only way there is: set, then restore)
    os.umask(mask)
    return mask


_FILE_MODE = 0o666 & ~_umask()  # what open() would give a new file (mkstemp's is 0o600)


def _running(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # (another user's process)
        return True
    return True


def _remove_stale_parts(path: Path) -> None:
    """Remove the temporary files of `path` whose writer is gone."""
    prefix = f".{path.name}."
    try:
        names = os.listdir(path.parent)
    except OSError:
        return
    for name in names:
        if not (name.startswith(prefix) and name.endswith(".part")):
            continue
        m = _PART.fullmatch(name[len(prefix):-len(".part")])
        if m is None:  # another target's (".out.jsonl.library.json.…" for ".out.jsonl.")
            continue
        if m.group(1) is None or not _running(int(m.group(1))):
            try:
                os.unlink(path.parent / name)
            except OSError:
                pass


def _unlink(tmp) -> None:
    try:
        os.unlink(tmp)
    except FileNotFoundError:
        pass


def atomic_write(path: str | Path, write, *, inside: str | Path | None = None) -> None:
    """Call write(tmp_path), then rename onto path (inside `written_together`: when the
    block ends). On any failure the tmp file goes. A new file gets the mode a plainly
    created one would (the umask applies), not mkstemp's private 0o600; a replaced one keeps
    its own. `path` is checked by the output policy first (OutputRefused: nothing written);
    `inside`: the file must lie in that folder, links followed."""
    path = target(path, inside=inside)
    path.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale_parts(path)
    staged = _STAGED.get()
    with _signals_interrupt():
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=".part", dir=path.parent)
        os.close(fd)
        try:
            write(tmp)
            keep_mode(tmp, path, _FILE_MODE)
            if staged is None:
                os.replace(tmp, path)
            else:
                staged.append((tmp, path))
        except BaseException:
            _unlink(tmp)
            raise


@contextlib.contextmanager
def written_together():
    """The `atomic_write`s inside appear together or not at all: see the module docstring."""
    staged: list = []
    with _signals_interrupt():
        token = _STAGED.set(staged)
        try:
            yield
            _STAGED.reset(token)
            token = None
            if staged:
                first_tmp, first = staged[0]
                if len(staged) > 1:
                    _unlink(first)
                while len(staged) > 1:
                    tmp, path = staged[1]
                    os.replace(tmp, path)
                    del staged[1]
                os.replace(first_tmp, first)
                staged.clear()
        finally:
            if token is not None:
                _STAGED.reset(token)
            for tmp, _ in staged:  # not committed: a failure or an interrupt
                _unlink(tmp)
