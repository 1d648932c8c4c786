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

`run_limited(fn)` runs one function in such a child, under an address-space and CPU limit,
and returns its result: work over untrusted code that is not a body call (the shortcut
audit of `racesc compile --untrusted` re-executes bodies through the rewards) without
running it in the parent.
"""

from __future__ import annotations

import os
import pickle
import sys
import weakref

__all__ = ["die_with_parent", "close_in_forks", "run_limited", "ChildFailed", "vsize", "limit_memory",
           "limit_cpu"]

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


class ChildFailed(Exception):
    """`run_limited`'s child died (memory, CPU time, a signal) or raised; the message says how."""


def vsize() -> int:
    """This process's virtual size in bytes (0 when unknown)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _soft(resource, which: int, soft: int) -> None:
    _, hard = resource.getrlimit(which)
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(which, (soft, hard))


def limit_memory(memory_mb: int) -> None:
    """Address space (RLIMIT_AS): this process's size now plus `memory_mb` (within the hard limit)."""
    import resource

    _soft(resource, resource.RLIMIT_AS, vsize() + memory_mb * (1 << 20))


def limit_cpu(seconds: int) -> None:
    """CPU time (RLIMIT_CPU): `seconds` more than this process has used (SIGXCPU past it)."""
    import math
    import resource

    used = resource.getrusage(resource.RUSAGE_SELF)
    _soft(resource, resource.RLIMIT_CPU, math.ceil(used.ru_utime + used.ru_stime) + seconds)


def run_limited(fn, *, memory_mb: int = 2048, cpu_s: int = 600, wall_s: float | None = None,
                daemon: bool = True):
    """`fn()` in a forked child that dies with this process, with `memory_mb` more address
    space than it starts with and `cpu_s` seconds of CPU; its result comes back pickled.
    Raises ChildFailed when the child dies, `fn` raises (its exception's text) or, with
    `wall_s`, no result came within that many seconds (the child is killed). A child that
    starts processes of its own (sandbox workers) must not be a `daemon`; it still dies
    with this process (die_with_parent)."""
    import multiprocessing as mp

    ctx = mp.get_context("fork")
    here, there = ctx.Pipe(duplex=False)
    ppid = os.getpid()

    def child():
        here.close()
        die_with_parent(ppid)
        limit_memory(memory_mb)
        limit_cpu(cpu_s)
        try:
            out = ("ok", fn())
        except BaseException as exc:  # noqa: BLE001 (reported to the parent, whatever it is)
            out = ("raised", f"{type(exc).__name__}: {exc}"[:500])
        try:
            there.send_bytes(pickle.dumps(out, protocol=pickle.HIGHEST_PROTOCOL))
        except BaseException as exc:  # noqa: BLE001
            there.send_bytes(pickle.dumps(("raised", f"result not transferable: {type(exc).__name__}")))
        there.close()

    proc = ctx.Process(target=child, daemon=daemon)
    proc.start()
    there.close()
    late = False
    try:
        late = wall_s is not None and not here.poll(wall_s)
        data = None if late else here.recv_bytes()
    except (EOFError, OSError):
        data = None
    except BaseException:  # Ctrl-C in the parent: the child's work is abandoned, not waited for
        proc.kill()
        raise
    finally:
        here.close()
        if late:
            proc.kill()
        proc.join()
    if late:
        raise ChildFailed(f"no result within {wall_s:g} s (killed)")
    if data is None:
        code = proc.exitcode
        how = f"killed by signal {-code}" if code is not None and code < 0 else f"exit code {code}"
        raise ChildFailed(f"the child process died ({how})")
    status, value = pickle.loads(data)
    if status != "ok":
        raise ChildFailed(value)
    return value
