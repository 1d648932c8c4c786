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
