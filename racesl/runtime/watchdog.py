"""The wall-clock watchdog: one periodic `setitimer` for many calls.

A *session* (`with WATCHDOG.session(): ...`, reentrant) installs a SIGALRM handler; each
call then only stores its deadline (`begin(wall)` / `end()`: ~0.2 µs) and the timer fires
every `interval` seconds (0.05 by default) while calls run. When the handler finds the
running call past its deadline it raises `Timeout` — a `BaseException` — in the main
thread, at the next bytecode boundary: that really stops `while True: pass`. (It cannot
stop one long C call, which is what the size guards are for.) A handler firing between
calls disarms the timer; the next call re-arms it, so code running outside calls sees at
most one stray SIGALRM after the last call, which Python's EINTR retry absorbs.

Leaving the outermost session disarms the timer and restores the previous SIGALRM handler
and the previous `ITIMER_REAL` (less the time spent inside, fired at once when it expired
meanwhile). While a session is open it owns SIGALRM: a previous user of it is delayed.

Signals reach only the main thread, so sessions open only there: `session()` elsewhere is a
no-op, and calls made off the main thread run with fuel as their only limit.
`Program.call` opens a one-call session by itself when none is open (a few µs more a
call); hot loops should open one around the whole loop.
"""

from __future__ import annotations

import signal
import threading
import time
from _thread import get_ident

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

    def __init__(self, interval: float = 0.05):
        self.interval = interval
        self.deadline = 0.0  # 0.0: no call running
        self.owner = None  # thread ident of the open session
        self._depth = 0
        self._armed = False
        self._prev_handler = None
        self._prev_timer = (0.0, 0.0)
        self._opened_at = 0.0

    # ------------------------------------------------------------ sessions

    def session(self) -> _Session:
        """Context manager: the watchdog is active inside (main thread only; elsewhere a
        no-op whose `as` value is False)."""
        return _Session(self)

    def active_here(self) -> bool:
        """Whether a session is open and owned by the calling thread."""
        return self.owner == get_ident()

    def _open(self) -> bool:
        if threading.current_thread() is not threading.main_thread():
            return False
        if self._depth == 0:
            self._prev_handler = signal.signal(signal.SIGALRM, self._handler)
            self._prev_timer = signal.setitimer(signal.ITIMER_REAL, 0.0, 0.0)
            self._opened_at = _monotonic()
            self._armed = False
            self.deadline = 0.0
            self.owner = get_ident()
        self._depth += 1
        return True

    def _close(self) -> None:
        self._depth -= 1
        if self._depth:
            return
        self.deadline = 0.0
        signal.setitimer(signal.ITIMER_REAL, 0.0, 0.0)
        self._armed = False
        self.owner = None
        prev = self._prev_handler
        signal.signal(signal.SIGALRM, prev if prev is not None else signal.SIG_DFL)
        delay, interval = self._prev_timer
        if delay > 0.0:
            left = delay - (_monotonic() - self._opened_at)
            signal.setitimer(signal.ITIMER_REAL, max(left, 1e-6), interval)

    # ------------------------------------------------------------ calls

    def begin(self, wall: float) -> None:
        """A call starts (inside a session, in its thread): it may run `wall` seconds."""
        self.deadline = _monotonic() + wall
        if not self._armed:
            self._armed = True
            signal.setitimer(signal.ITIMER_REAL, self.interval, self.interval)

    def end(self) -> None:
        self.deadline = 0.0

    def _handler(self, signum, frame):
        d = self.deadline
        if d:
            if _monotonic() >= d:
                self.deadline = 0.0  # at most one Timeout per call
                raise Timeout("wall-clock limit passed")
        else:  # idle: stop ticking until the next call
            signal.setitimer(signal.ITIMER_REAL, 0.0, 0.0)
            self._armed = False


WATCHDOG = Watchdog()
