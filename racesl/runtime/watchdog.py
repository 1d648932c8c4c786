"""The wall-clock watchdog: one periodic `setitimer` for many calls, at no cost a call.

A *session* (`with WATCHDOG.session(): ...`, reentrant) installs a SIGALRM handler and runs
an `ITIMER_REAL` every `interval` seconds (0.05) for its whole duration. A call does nothing
at all: every 50 ms the handler walks the main thread's stack from the interrupted frame to
the outermost frame of an instrumented function (recognised by its first parameter,
`_races_fuel`) and reads that call's fuel box, whose element 1 is the call's wall limit.
The first tick that sees a box records the time; once the same box has been running for
its wall limit the handler raises `Timeout` — a `BaseException` — right there, at the next
bytecode boundary of the body, which really stops `while True: pass` (but not one long C
call: that is what the size guards are for). A call is stopped between `wall` and
`wall + 2 * interval` seconds after it started. A tick that finds no instrumented frame
does nothing, so code running outside calls is never interrupted by an exception (its
blocking system calls see EINTR, which Python retries).

Leaving the outermost session disarms the timer and restores the previous SIGALRM handler
and the previous `ITIMER_REAL` (less the time spent inside; fired at once if it expired
meanwhile). While a session is open it owns SIGALRM: a previous user of it is delayed.

Signals reach only the main thread, so sessions open only there: `session()` elsewhere is a
no-op, and calls made off the main thread run with fuel as their only limit (the handler
only ever looks at the main thread's stack). `Program.call` opens a one-call session by
itself when none is open (some µs a call); hot loops should open one around the loop.
"""

from __future__ import annotations

import signal
import threading
import time

from racesl.runtime.limits import Timeout

__all__ = ["Watchdog", "WATCHDOG"]

_monotonic = time.monotonic


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

    BOX = "_races_fuel"

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
            self._prev_handler = signal.signal(signal.SIGALRM, self._handler)
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
        signal.signal(signal.SIGALRM, prev if prev is not None else signal.SIG_DFL)
        delay, interval = self._prev_timer
        if delay > 0.0:
            left = delay - (_monotonic() - self._opened_at)
            signal.setitimer(signal.ITIMER_REAL, max(left, 1e-6), interval)

    # ------------------------------------------------------------ the tick

    def running_box(self, frame):
        """The fuel box of the outermost instrumented call on `frame`'s stack, or None."""
        box = None
        name = self.BOX
        while frame is not None:
            code = frame.f_code
            if code.co_argcount and code.co_varnames[0] == name:
                box = frame
            frame = frame.f_back
        if box is None:
            return None
        return box.f_locals.get(name)

    def _handler(self, signum, frame):
        box = self.running_box(frame)
        if box is None:
            return
        now = _monotonic()
        if box is not self._seen:  # first tick of this call: it started at most one interval ago
            self._seen = box
            self._seen_at = now
        elif now - self._seen_at >= box[1]:
            self._seen = None
            self._seen_at = now
            raise Timeout("wall-clock limit passed")


WATCHDOG = Watchdog()
