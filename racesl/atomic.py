"""`atomic_write`: write a temporary file beside the target, then rename it into place, so
an interrupted writer leaves either the old file or the new one, never half of one.
"""

from __future__ import annotations

import contextlib
import os
import signal
import tempfile
import threading
from pathlib import Path

__all__ = ["atomic_write"]


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


def atomic_write(path: str | Path, write) -> None:
    """Call write(tmp_path), then rename onto path. On any failure the tmp file goes. The
    file gets the mode a plainly created one would (the umask applies), not mkstemp's
    private 0o600."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with _signals_interrupt():
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
        os.close(fd)
        try:
            write(tmp)
            os.chmod(tmp, _FILE_MODE)
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
            raise
