"""The wall-clock watchdog: stops runaway bodies, leaves everything else alone."""

from __future__ import annotations

import signal
import threading
import time

import pytest

from racesl.runtime import WATCHDOG, Timeout

from .rtutil import program

SPIN = """
def spin():
    while True:
        pass

def spin_c(n):
    s = 0
    while True:
        s = (s + sum(range(n))) % 7

def sleepy(n):
    t = 0
    for i in range(n):
        t = (t + i * i) % 1000003
    return t

def quick(x):
    return x + 1
"""


@pytest.fixture(scope="module")
def prog():
    return program(SPIN)


def test_while_true_stops_at_the_default_limit(prog):
    t = time.perf_counter()
    out = prog.call("spin", (), fuel=10**15)
    took = time.perf_counter() - t
    assert out.status == "timeout", out
    assert out.line in (3, 4)
    assert 1.9 <= took < 2.6, took


def test_short_limits_and_builtin_heavy_loops(prog):
    for name, args in (("spin", ()), ("spin_c", (10_000,))):
        t = time.perf_counter()
        out = prog.call(name, args, fuel=10**15, wall=0.3)
        took = time.perf_counter() - t
        assert out.status == "timeout", out
        assert 0.25 <= took < 0.8, took


def test_fast_path_raises_timeout_in_a_session(prog):
    run = prog.function("spin", fuel=10**15, wall=0.2)
    with WATCHDOG.session():
        with pytest.raises(Timeout):
            run()
        quick = prog.function("quick", fuel=10)
        assert (quick(1), quick.fuel - quick.meter[0]) == (2, 0)
    # and without a session it opens one for the call
    with pytest.raises(Timeout):
        run()


def test_each_call_gets_its_own_limit(prog):
    run = prog.function("sleepy", fuel=10**12, wall=1.0)
    fast = prog.function("quick", fuel=10)
    with WATCHDOG.session():
        n = 1024
        while True:  # a size taking ~0.1 s
            t0 = time.perf_counter()
            run(n)
            if time.perf_counter() - t0 > 0.1:
                break
            n *= 2
        for _ in range(12):  # together far more than 1 s, each well under it
            run(n)
        for i in range(1000):
            assert fast(i) == i + 1


def test_nothing_is_raised_outside_calls(prog):
    with WATCHDOG.session():
        prog.call("quick", (1,))
        time.sleep(0.3)  # several ticks with no call running
        x = sum(range(10**6))
        prog.call("quick", (1,))
    assert x == 499999500000


def test_previous_handler_and_timer_are_restored(prog):
    fired = []

    def mine(signum, frame):
        fired.append(signum)

    old = signal.signal(signal.SIGALRM, mine)
    try:
        signal.setitimer(signal.ITIMER_REAL, 30.0)
        out = prog.call("spin", (), fuel=10**15, wall=0.2)
        assert out.status == "timeout"
        assert signal.getsignal(signal.SIGALRM) is mine
        left, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 29.0 < left <= 30.0
        with WATCHDOG.session():
            with WATCHDOG.session():  # reentrant
                assert WATCHDOG.depth == 2
            assert signal.getsignal(signal.SIGALRM) is not mine
        assert WATCHDOG.depth == 0
        assert signal.getsignal(signal.SIGALRM) is mine
        # a timer that expired during a session fires right after it
        signal.setitimer(signal.ITIMER_REAL, 0.05)
        with WATCHDOG.session():
            time.sleep(0.1)
        time.sleep(0.05)
        assert fired == [signal.SIGALRM]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0.0)
        signal.signal(signal.SIGALRM, old)


def test_off_the_main_thread_fuel_is_the_only_limit(prog):
    before = signal.getsignal(signal.SIGALRM)
    got = []

    def work():
        with WATCHDOG.session() as active:
            got.append(active)
        got.append(prog.call("spin", (), fuel=100_000, wall=0.01))
        run = prog.function("sleepy", fuel=10**6, wall=0.01)
        got.append((run(1000), run.fuel - run.meter[0]))

    th = threading.Thread(target=work)
    th.start()
    th.join(10)
    assert got[0] is False
    assert got[1].status == "fuel"
    assert got[2][1] == 1000
    assert signal.getsignal(signal.SIGALRM) is before


def test_wall_none_means_fuel_only(prog):
    out = prog.call("spin", (), fuel=50_000, wall=None)
    assert out.status == "fuel"
    quick = prog.function("quick", fuel=5, wall=None)
    assert (quick(1), quick.fuel - quick.meter[0]) == (2, 0)
