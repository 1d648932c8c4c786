"""WorkerPool: chunked calls in forked workers with resource limits; stuck or dead workers
are killed and replaced, results come back in order."""

from __future__ import annotations

import ast
import os
import textwrap
import time

import pytest

from racesl.lower.instrument import lower_to_source
from racesl.runtime import Program, WorkerPool

SRC = textwrap.dedent('''
def double(n):
    return n * 2

def count(s):
    n = 0
    for c in s:
        if c in "aeiou":
            n += 1
    return n

def spin():
    while True:
        pass

def dag_equal(n):
    a = [1]
    b = [1]
    for i in range(n):
        a = [a, a]
        b = [b, b]
    [a].remove(b)  # compares a and b inside one C call: no signal reaches it (every walk a
    # body may make is measured first, test_sharing.py; `remove`, which the checker refuses,
    # stands for a guard that missed a case)
    return 1

def hog(n):
    out = []
    for i in range(n):
        out.append([i] * 100000)
    return len(out)

def boom(s):
    return s * 10**9

def fails(xs):
    return xs[10]
''')
SOURCE = lower_to_source(ast.parse(SRC))


def batch():
    calls = []
    for i in range(60):
        calls.append(("double", (i,), 400))
        calls.append(("count", ("education" * (i % 5),), 400))
    calls[17] = ("fails", ([1],), 400)
    calls[33] = ("boom", ("ab",), 400)
    calls[41] = ("count", ("a" * 500,), 400)  # out of fuel
    return calls


def test_results_in_order_and_equal_to_in_process():
    calls = batch()
    prog = Program.from_source(SOURCE, "gen.races")
    expected = [prog.call(n, a, fuel=f) for n, a, f in calls]
    with WorkerPool(SOURCE, "gen.races", workers=2, wall=1.0) as pool:
        got = pool.run_batch(calls)
        assert pool.run_batch([]) == []
        again = pool.run_batch(calls[:5])
    with WorkerPool(SOURCE, "gen.races", workers=1, wall=1.0) as pool:
        single = pool.run_batch(calls)
    assert got == expected == single
    assert again == expected[:5]
    assert [o.status for o in got[16:18]] == ["ok", "error"]
    assert got[33].status == "size" and got[41].status == "fuel"


def test_runaway_call_is_stopped_and_the_chunk_finishes():
    calls = [("double", (i,), 400) for i in range(40)]
    calls[5] = ("spin", (), 10**15)
    t = time.perf_counter()
    with WorkerPool(SOURCE, "gen.races", workers=2, wall=0.3) as pool:
        out = pool.run_batch(calls)
        assert pool.restarts == 0  # the worker's own watchdog stopped it
    assert time.perf_counter() - t < 6
    assert out[5].status == "timeout"
    assert [o.value for i, o in enumerate(out) if i != 5] == [2 * i for i in range(40) if i != 5]


def test_parent_kills_a_worker_without_watchdog():
    calls = [("double", (i,), 400) for i in range(40)]
    calls[7] = ("spin", (), 10**15)
    with WorkerPool(SOURCE, "gen.races", workers=1, wall=0.2, margin=0.3, watchdog=False) as pool:
        pids = [w.proc.pid for w in pool._workers]
        t = time.perf_counter()
        out = pool.run_batch(calls)
        took = time.perf_counter() - t
        assert pool.restarts == 1
        assert [w.proc.pid for w in pool._workers] != pids
        assert out[7].status == "timeout" and "killed" in out[7].error
        assert [o.value for i, o in enumerate(out) if i != 7] == [2 * i for i in range(40) if i != 7]
        assert 0.4 < took < 6
        with pytest.raises(ProcessLookupError):
            os.kill(pids[0], 0)  # killed, not abandoned
        assert pool.run_batch([("double", (4,), 400)])[0].value == 8


def test_uninterruptible_c_call_is_killed_by_the_parent():
    # comparing two 2**60-leaf shared structures is one C call: no watchdog can stop it
    calls = [("double", (1,), 400), ("dag_equal", (60,), 10_000), ("double", (2,), 400)]
    with WorkerPool(SOURCE, "gen.races", workers=1, wall=0.2, margin=0.3) as pool:
        out = pool.run_batch(calls)
        assert pool.restarts == 1
    assert [o.status for o in out] == ["ok", "timeout", "ok"]
    assert out[2].value == 4


def test_memory_limit_applies_in_the_worker():
    # the body allocates step by step (each step is within the size guards): RLIMIT_AS stops it
    with WorkerPool(SOURCE, "gen.races", workers=1, memory_mb=128, wall=5.0) as pool:
        out = pool.run_batch([("hog", (2000,), 10**6), ("double", (21,), 400)])
    assert out[0].status == "size" and "MemoryError" in out[0].error, out[0]
    assert out[1].value == 42


def test_cpu_limit_kills_and_reports_a_dead_worker():
    calls = [("double", (1,), 400), ("spin", (), 10**15), ("double", (3,), 400)]
    with WorkerPool(SOURCE, "gen.races", workers=1, wall=30.0, cpu_s=1, watchdog=False) as pool:
        out = pool.run_batch(calls)  # about one CPU second (longer under load)
        assert pool.restarts == 1
    assert out[1].status == "error" and out[1].error.startswith("worker died: SIGXCPU"), out[1]
    assert [out[0].value, out[2].value] == [2, 6]


def test_close():
    pool = WorkerPool(SOURCE, "gen.races", workers=2)
    procs = [w.proc for w in pool._workers]
    pool.close()
    pool.close()
    assert not any(p.is_alive() for p in procs)
    with pytest.raises(RuntimeError):
        pool.run_batch([("double", (1,), 400)])
    with pytest.raises(SyntaxError):
        WorkerPool("def (:", "bad.races", workers=1)


def test_a_call_can_carry_its_own_wall():
    calls = [("dag_equal", (60,), 10_000, 0.2), ("double", (5,), 400), ("spin", (), 10**15, 0.2)]
    with WorkerPool(SOURCE, "gen.races", workers=1, wall=30.0) as pool:
        t = time.perf_counter()
        out = pool.run_batch(calls)
        took = time.perf_counter() - t
    assert [o.status for o in out] == ["timeout", "ok", "timeout"]
    assert took < 5, took  # not the pool's 30 s
