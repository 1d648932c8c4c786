"""A time limit per completion (issue 44): one slow completion in a batch gets `timeout`,
its neighbours score as if alone, and the request returns within about one time limit.

Over HTTP against a real library whose @verify checker (`@fuel(1000000)`) is slow only on
wrong answers; and in process, with a worker whose `judge` is replaced (the worker is a
fork of this process, so it runs the replacement) to sleep or die on chosen completions.
"""

from __future__ import annotations

import asyncio
import os
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from racesl.serve import Pool, TaskIndex
from racesl.serve import workers as W
from tests.serve.conftest import serving
from tests.support.tasks import run_racesc, wrap

# A checker that says yes or no at once for an answer of 0 or more, and for a negative one
# spends its whole step budget (and more than any time limit here) before it says no.
SLOW_CHECKER = '''\
module slowcheck

type Nat = Int where 0 <= it <= 300

def pick_n(rng, level) -> Int:
    return rng.randint(2, 90)

@fuel(1000000)
def check(n: Nat, y: Int) -> Bool:
    if y >= 0:
        return y == n + 1
    s = "ab" * 20000
    k = 0
    for i in range(999000):
        k = k + s.count("ba")
    return k < 0

@verify(check)
@sample(n=pick_n)
env succ(n: Nat) -> Int:
    """Add one to n."""
    return n + 1
'''


@pytest.fixture(scope="module")
def slow_tasks(tmp_path_factory):
    d = tmp_path_factory.mktemp("slowcheck")
    (d / "slowcheck.races").write_text(SLOW_CHECKER, encoding="utf-8")
    run_racesc("compile", d / "slowcheck.races", "-n", 10, "--operators", "individual", "-o", d / "tasks.jsonl",
               "-q", cwd=d)
    from racesl.rewards.libraries import read_tasks

    records = read_tasks(d / "tasks.jsonl")
    assert len(records) == 10 and all(r["extra"] == {"verify": True} for r in records)
    return d / "tasks.jsonl", records


def test_one_slow_completion_does_not_hold_nine_right_ones(slow_tasks):
    path, records = slow_tasks
    limit = 3
    body = [{"id": r["id"], "completion": wrap(r["answer"])} for r in records[:9]]
    body.insert(2, {"id": records[9]["id"], "completion": wrap("-5")})  # not last: some follow it in its batch
    with serving([path], "--workers", 2, "--timeout", limit) as server:
        t0 = time.monotonic()
        code, replies = server.post("/score", body)
        took = time.monotonic() - t0
        assert code == 200 and len(replies) == 10
        assert replies[2]["status"] == "timeout" and replies[2]["score"] == 0.0
        rest = replies[:2] + replies[3:]
        assert [(x["id"], x["score"], x["status"]) for x in rest] == [(b["id"], 1.0, "ok") for b in body[:2] + body[3:]]
        assert limit * 0.9 < took < limit + 15, took  # one time limit, plus a replacement's fork (a loaded machine)
        health = server.get("/health")
        assert health["workers"]["alive"] == 2 and health["workers"]["replaced"] == 1
        # a right answer that is not the recorded text goes through the checker too, and is right
        r = records[0]
        code, reply = server.post("/score", {"id": r["id"], "completion": wrap(f" {r['answer']} ")})
        assert (code, reply["score"], reply["status"]) == (200, 1.0, "ok")


# ---------------------------------------------------------------- in process, a stand-in judge

def _fake_judge(index, task_id, completion):
    """`slow`: more than any time limit here; `die`: the worker dies; else (1.0, ok, text)."""
    if completion == "slow":
        time.sleep(120)
    if completion == "die":
        os._exit(3)
    return 1.0, "ok", completion


def _run(fn, size=2, timeout=0.5):
    async def main():
        pool = Pool(TaskIndex({}), size, timeout=timeout)
        pool.start()
        try:
            return await fn(pool)
        finally:
            pool.close()
    return asyncio.run(main())


@pytest.fixture
def fake_judge(monkeypatch):
    monkeypatch.setattr(W, "judge", _fake_judge)  # (before the fork: the workers run it)


def test_each_slow_completion_gets_its_own_limit(fake_judge):
    items = [("t", f"c{k}") for k in range(12)]
    for k in (0, 5, 11):
        items[k] = ("t", "slow")
    t0 = time.monotonic()
    got = _run(lambda pool: pool.score(items))
    took = time.monotonic() - t0
    assert [s for _, s, _ in got] == ["timeout" if c == "slow" else "ok" for _, c in items]
    assert [d for _, s, d in got if s == "ok"] == [c for _, c in items if c != "slow"]
    assert took < 3 * 0.5 + 10, took  # at most the slow ones' limits one after another


def test_a_completion_that_kills_its_worker_is_retried_once_then_error(fake_judge):
    items = [("t", "a"), ("t", "die"), ("t", "b"), ("t", "c")]
    got = _run(lambda pool: pool.score(items), size=1)
    assert got == [(1.0, "ok", "a"), (0.0, "error", "the scoring worker died twice on this completion"),
                   (1.0, "ok", "b"), (1.0, "ok", "c")]


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(kinds=st.lists(st.sampled_from(["ok", "ok", "ok", "slow", "die"]), min_size=1, max_size=9),
       size=st.integers(1, 3))
def test_any_mix_of_slow_and_dying_completions(kinds, size):
    """Whatever the mix and the worker count: every completion gets its own status, the
    right ones score as if alone, and the request ends in about its slow ones' limits."""
    W.judge, real = _fake_judge, W.judge  # (hypothesis and function-scoped fixtures do not mix)
    try:
        items = [("t", f"{k}:{kind}" if kind == "ok" else kind) for k, kind in enumerate(kinds)]
        t0 = time.monotonic()
        got = _run(lambda pool: pool.score(items), size=size, timeout=0.3)
        took = time.monotonic() - t0
    finally:
        W.judge = real
    want = {"ok": "ok", "slow": "timeout", "die": "error"}
    assert [s for _, s, _ in got] == [want[k] for k in kinds]
    assert [d for _, s, d in got if s == "ok"] == [c for _, c in items if ":" in c]
    assert took < 0.3 * kinds.count("slow") + 10, took
