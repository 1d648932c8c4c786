"""The wall-clock watchdog: one periodic `setitimer` for many calls, at no cost a call.

A *session* (`with WATCHDOG.session(): ...`, reentrant) installs a SIGALRM handler and runs
an `ITIMER_REAL` every `interval` seconds (0.05) for its whole duration. A call does nothing
at all: every 50 ms the handler walks the main thread's stack from the interrupted frame to
the outermost frame of an instrumented function (recognised by its first parameter,
`_races_fuel`, or its entry-function name) and reads that call's wall limit (its
`_races_wall`, or element 1 of its fuel box). The first tick that sees a call (frame)
records the time; once the same call has been running for its wall limit the handler
raises `Timeout` — a `BaseException` — right there, at the next bytecode boundary of the
body, which really stops `while True: pass` (but not one long C call: that is what the
size guards are for, and what only a worker process — `WorkerPool` — can be killed out
of). A call is stopped between `wall` and `wall + 2 * interval` seconds after it started.
A tick that finds no instrumented frame does nothing, so code running outside calls is
never interrupted by an exception (its blocking system calls see EINTR, which Python
retries).

Leaving the outermost session disarms the timer and restores the previous SIGALRM handler
and the previous `ITIMER_REAL` (less the time spent inside; fired at once if it expired
meanwhile). While a session is open it owns SIGALRM: a previous user of it is delayed.

Signals reach only the main thread, so sessions open only there: `session()` elsewhere is a
no-op, and calls made off the main thread run with fuel as their only limit (the handler
only ever looks at the main thread's stack). `Program.call` opens a one-call session by
itself when none is open (~4 µs a call), and so do `Library.run` and `Library.aux_call`
(refinements, samplers) — an entry without loops opens none itself (docs/fuel.md); hot loops
should open one around the loop.
"""

from __future__ import annotations

import os
import signal

import _signal  # signal.signal's C core: no enum conversions (~10 µs a session less)
import threading
import time

from racesl.runtime.limits import Timeout
from racesl.runtime.abi import BOX as _BOX, ENTRY as _ENTRY, WALL as _WALL

__all__ = ["Watchdog", "WATCHDOG"]

_monotonic = time.monotonic
_INF = float("inf")


class _Session:
    __slots__ = ("wd", "opened")

    def __init__(self, wd):
        self.wd = wd
        self.opened = False

    def __enter__(self):
        self.opened = self.wd._open()
        return self.opened

    def __exit__(self, *exc):
        if self.opened:
            self.wd._close()
        return False


class Watchdog:
    """See the module docstring. One instance, `WATCHDOG`, serves the process."""

    def __init__(self, interval: float = 0.05):
        self.interval = interval
        self.depth = 0  # open sessions (all in the main thread)
        self._seen = None  # the box seen by the last tick, and when it was first seen
        self._seen_at = 0.0
        self._prev_handler = None
        self._prev_timer = (0.0, 0.0)
        self._opened_at = 0.0

    # ------------------------------------------------------------ sessions

    def session(self) -> _Session:
        """Context manager: the watchdog is active inside (main thread only; elsewhere a
        no-op whose `as` value is False)."""
        return _Session(self)

    def _open(self) -> bool:
        if threading.current_thread() is not threading.main_thread():
            return False
        if self.depth == 0:
            self._seen = None
            self._prev_handler = _signal.signal(signal.SIGALRM, self._handler)
            self._opened_at = _monotonic()
            self._prev_timer = signal.setitimer(signal.ITIMER_REAL, self.interval, self.interval)
        self.depth += 1
        return True

    def _close(self) -> None:
        self.depth -= 1
        if self.depth:
            return
        signal.setitimer(signal.ITIMER_REAL, 0.0, 0.0)
        self._seen = None
        prev = self._prev_handler
        _signal.signal(signal.SIGALRM, prev if prev is not None else signal.SIG_DFL)
        delay, interval = self._prev_timer
        if delay > 0.0:
            left = delay - (_monotonic() - self._opened_at)
            signal.setitimer(signal.ITIMER_REAL, max(left, 1e-6), interval)

    # ------------------------------------------------------------ the tick

    def running_call(self, frame):
        """(token, wall) of the outermost instrumented call on `frame`'s stack, or None: the
        token is that call's frame; its wall limit is its `_races_wall` parameter (entry
        functions) or element 1 of its fuel box (functions called with a box)."""
        found = None
        while frame is not None:
            code = frame.f_code
            if code.co_argcount and (code.co_varnames[0] == _BOX or code.co_name.startswith(_ENTRY)):
                found = frame
            frame = frame.f_back
        if found is None:
            return None
        local = found.f_locals
        if found.f_code.co_varnames[0] != _BOX:
            wall = local.get(_WALL)
        else:
            box = local.get(_BOX)
            wall = box[1] if box is not None and len(box) > 1 else None
        return found, (_INF if wall is None else wall)

    def _handler(self, signum, frame):
        hit = self.running_call(frame)
        if hit is None:
            return
        token, wall = hit
        now = _monotonic()
        if token is not self._seen:  # first tick of this call: it started at most one interval ago
            self._seen = token
            self._seen_at = now
        elif now - self._seen_at >= wall:
            self._seen = None
            self._seen_at = now
            raise Timeout("wall-clock limit passed")

    def _after_fork(self) -> None:
        """In a forked child: timers are not inherited, so no session is open there."""
        if self.depth:
            prev = self._prev_handler
            _signal.signal(signal.SIGALRM, prev if prev is not None else signal.SIG_DFL)
        self.depth = 0
        self._seen = None


WATCHDOG = Watchdog()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=WATCHDOG._after_fork)
