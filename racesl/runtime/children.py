"""Forked workers that die with their parent.

A worker blocked in `conn.recv()` learns of its parent's death only when every copy of the
parent's pipe end is closed, and a worker stuck in one long C call learns nothing at all:
after a SIGKILL of `racesc compile` such workers lived on for minutes. Two measures:

- `die_with_parent(ppid)`, first thing in a worker: the kernel sends it SIGKILL when its
  parent dies (Linux `prctl(PR_SET_PDEATHSIG)`; elsewhere a no-op, and the pipes below
  are what is left). The signal comes when the *thread* that forked exits: fork workers
  from a thread that lives as long as they should (the CLI's main thread).
- `close_in_forks(conn)`: the parent's end of a worker's pipe, closed in every process
  forked afterwards (siblings, grandchildren), so that the worker sees EOF when the parent
  goes.
"""

from __future__ import annotations

import os
import sys
import weakref

__all__ = ["die_with_parent", "close_in_forks"]

_PR_SET_PDEATHSIG = 1
_SIGKILL = 9


def die_with_parent(ppid: int) -> None:
    """Ask for SIGKILL when the parent dies; exit now if `ppid`, the pid the parent had when
    it forked us, is no longer our parent (it died before the request took effect)."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, _SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != ppid:
        os._exit(1)


_TO_CLOSE: "weakref.WeakSet" = weakref.WeakSet()


def close_in_forks(conn) -> None:
    """Close `conn` (a multiprocessing Connection) in every child forked from now on."""
    _TO_CLOSE.add(conn)


def _after_fork() -> None:
    for conn in list(_TO_CLOSE):
        try:
            conn.close()
        except OSError:
            pass
    _TO_CLOSE.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)
