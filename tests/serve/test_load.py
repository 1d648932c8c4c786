"""The load test of issue 20: thousands of requests from 32 concurrent clients against a real
`racesc serve` on 127.0.0.1 (reference, corrupted and junk completions, unknown ids, lists,
two of 5 MB), every answer equal to the in-process verdict, none failed, the server healthy
afterwards."""

from __future__ import annotations

import asyncio
import random

import aiohttp

from racesl.rewards import verdict
from tests.serve.conftest import serving
from tests.support.tasks import wrap

REQUESTS = 3000
CLIENTS = 32
BIG = 5 << 20


def _corrupted(r: dict, rng: random.Random) -> str:
    a = r["answer"]
    if r["operator"] in ("sort", "select"):
        labels = a.split(", ")
        rng.shuffle(labels)
        return wrap(" ".join(labels[:-1] if len(labels) > 1 and rng.random() < 0.5 else labels))
    return wrap(a[:-1] + ("7" if a[-1:] != "7" else "3"))


JUNK = ["", "I give up.", "<answer></answer>", "<answer>", "</answer><answer>", "<answer>[[[[</answer>",
        "<answer>None</answer>", "<answer>\x00\ud7ff</answer>", "answer: 42", "<answer>" + "9" * 5000 + "</answer>"]


def _workload(records, rng: random.Random):
    """(request body, the (record or None, completion) pairs it holds): singles and lists."""
    out = []
    for k in range(REQUESTS):
        r = rng.choice(records)
        kind = k % 5
        if kind <= 1:
            c = wrap(r["answer"])
        elif kind == 2:
            c = _corrupted(r, rng)
        elif kind == 3:
            c = rng.choice(JUNK)
        else:
            pairs = [(q, wrap(q["answer"]) if rng.random() < 0.5 else _corrupted(q, rng))
                     for q in rng.sample(records, 20)]
            pairs.append((None, "<answer>1</answer>"))
            out.append(([{"id": q["id"] if q else "no-such-task", "completion": c} for q, c in pairs], pairs))
            continue
        out.append(({"id": r["id"], "completion": c}, [(r, c)]))
    r = records[0]
    out.append(({"id": r["id"], "completion": "x" * BIG + wrap(r["answer"])}, [(r, "x" * BIG + wrap(r["answer"]))]))
    out.append(({"id": r["id"], "completion": wrap("1" * BIG)}, [(r, wrap("1" * BIG))]))
    return out


def _expected(pairs) -> list[tuple]:
    return [(0.0, "unknown_id") if r is None else (lambda v: (v.score, v.status))(verdict(r, c)) for r, c in pairs]


async def _drive(url: str, work) -> list:
    sem = asyncio.Semaphore(CLIENTS)
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=CLIENTS),
                                     timeout=aiohttp.ClientTimeout(total=120)) as session:
        async def one(body):
            async with sem:
                async with session.post(url + "/score", json=body) as resp:
                    return resp.status, await resp.json()

        return await asyncio.gather(*(one(body) for body, _ in work))


def test_thousands_of_concurrent_requests_all_answered_right(tasks_file, records):
    work = _workload(records, random.Random(20))
    assert sum(len(p) for _, p in work) > 10_000
    with serving([tasks_file], "--workers", 2) as server:
        replies = asyncio.run(_drive(server.url, work))
        health = server.get("/health")
        code, err = server.stop()
    assert [s for s, _ in replies] == [200] * len(work)
    seen = 0
    statuses = set()
    for (body, pairs), (_, reply) in zip(work, replies):
        rows = reply if isinstance(body, list) else [reply]
        got = [(row["score"], row["status"]) for row in rows]
        assert got == _expected(pairs), body if len(str(body)) < 2000 else "a 5 MB completion"
        assert [row["id"] for row in rows] == [b["id"] for b in (body if isinstance(body, list) else [body])]
        statuses.update(st for _, st in got)
        seen += len(rows)
    assert {"ok", "no_answer", "unparsable", "unknown_id"} <= statuses
    assert health["status"] == "ok" and health["workers"]["alive"] == 2 and health["workers"]["replaced"] == 0
    assert health["requests"] == len(work) and health["completions"] == seen
    assert code == 0 and "stopped" in err
