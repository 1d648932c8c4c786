"""The scoring pool without HTTP: answers in order across batches, a cancelled request's
worker replaced (its late answer can never reach the next request), dead idle workers reaped."""

from __future__ import annotations

import asyncio
import os
import signal

from racesl.rewards import verdict
from racesl.serve import Pool, TaskIndex
from racesl.serve.workers import CHUNK, judge
from tests.support.tasks import wrap


def _run(index, fn, size=2, timeout=10.0):
    async def main():
        pool = Pool(index, size, timeout=timeout)
        pool.start()
        try:
            return await fn(pool)
        finally:
            pool.close()
    return asyncio.run(main())


def test_long_lists_are_split_and_answered_in_order(tasks_file, records):
    index = TaskIndex.load([tasks_file])
    items = [(r["id"], wrap(r["answer"]) if k % 3 else "junk") for k, r in enumerate(records * 3)]
    assert len(items) > 4 * CHUNK
    got = _run(index, lambda pool: pool.score(items))
    assert got == [judge(index, tid, c) for tid, c in items]
    assert [s for s, _, _ in got] == [verdict(index.get(t), c).score for t, c in items]


def test_a_cancelled_request_replaces_its_worker(tasks_file, records):
    index = TaskIndex.load([tasks_file])
    r = records[0]

    async def fn(pool):
        (pid,) = pool.pids
        os.kill(pid, signal.SIGSTOP)
        task = asyncio.ensure_future(pool.score([(r["id"], "late")]))
        await asyncio.sleep(0.2)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        assert pool.pids != [pid] and pool.replaced == 1
        return await pool.score([(r["id"], wrap(r["answer"]))])

    assert _run(index, fn, size=1) == [(1.0, "ok", "right")]


def test_dead_idle_workers_are_reaped(tasks_file):
    index = TaskIndex.load([tasks_file])

    async def fn(pool):
        first = pool.pids
        os.kill(first[0], signal.SIGKILL)
        for _ in range(100):
            if pool.alive() == 1:
                break
            await asyncio.sleep(0.02)
        assert pool.reap() == 1 and pool.alive() == 2 and pool.pids[1] == first[1]
        return pool.reap()

    assert _run(index, fn) == 0


def test_index_ids_and_duplicates(tasks_file, tmp_path, records):
    index = TaskIndex.load([tasks_file, tasks_file])  # the same file twice: the same records
    assert len(index) == len(records) and index.get(records[0]["id"]) == records[0]
    assert index.get(True) is None and index.get(["x"]) is None and index.get("nope") is None
    other = tmp_path / "other.jsonl"
    changed = dict(records[0], answer="0")
    import json

    other.write_text(json.dumps(changed) + "\n")
    try:
        TaskIndex.load([tasks_file, other])
    except ValueError as e:
        assert "also a different task" in str(e) and str(tasks_file) in str(e)
    else:
        raise AssertionError("two different records with one id were accepted")
