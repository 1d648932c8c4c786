"""`run_limited` (racesl.runtime.children): one function in a limited child process."""

from __future__ import annotations

import os

import pytest

from racesl.runtime.children import ChildFailed, run_limited


def test_the_result_comes_back_from_another_process():
    pid, value = run_limited(lambda: (os.getpid(), sorted({3, 1, 2})))
    assert pid != os.getpid() and value == [1, 2, 3]


def test_an_exception_in_the_child_is_reported_by_its_text():
    with pytest.raises(ChildFailed, match="ZeroDivisionError"):
        run_limited(lambda: 1 // 0)


def test_the_address_space_limit_holds():
    def hog():
        return len(bytearray(400 << 20))  # 400 MiB against a 64 MiB allowance

    with pytest.raises(ChildFailed, match="MemoryError"):
        run_limited(hog, memory_mb=64)
    assert run_limited(hog, memory_mb=1024) == 400 << 20


def test_a_child_that_dies_is_reported_with_its_signal():
    def die():
        os.kill(os.getpid(), 9)

    with pytest.raises(ChildFailed, match="killed by signal 9"):
        run_limited(die)


def test_the_cpu_limit_holds():
    def spin():
        while True:
            pass

    with pytest.raises(ChildFailed, match="signal"):  # SIGXCPU past one CPU second
        run_limited(spin, cpu_s=1)


def test_a_child_past_its_wall_limit_is_killed():
    import time

    t0 = time.monotonic()
    with pytest.raises(ChildFailed, match="no result within 0.5 s"):
        run_limited(lambda: time.sleep(30), wall_s=0.5)
    assert time.monotonic() - t0 < 10


def test_ctrl_c_in_the_parent_kills_the_child_at_once():
    """KeyboardInterrupt while waiting for a child (Ctrl-C during `evolve`'s gates) ends the
    child instead of waiting for its work: the command stops within seconds (issue 47)."""
    import signal
    import time

    caught = []

    def interrupt(*_):
        if not caught:  # (repeated: one that lands in a gc callback is only printed, not raised)
            raise KeyboardInterrupt

    old = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 0.5, 0.5)
    began = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            run_limited(lambda: time.sleep(60), wall_s=120, daemon=False)
        caught.append(True)
    finally:
        caught.append(True)
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert time.monotonic() - began < 5
