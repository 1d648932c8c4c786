"""The reward server under load: `racesc serve` on the stdlib's tasks (2,000, seed 7) with 2
workers, 32 concurrent clients posting single `{"id", "completion"}` requests (a third each
reference, corrupted and junk completions), beside in-process `verdict` on the same
completions. Writes benchmarks/results/serve.json.

    .venv/bin/python benchmarks/bench_serve.py [--requests 6000] [--clients 32]

The clients run in this process, on the same 2 cores as the server and its workers: the
requests per second are a floor for a server with the machine to itself. Every reply is
checked against the in-process verdict; a run with a wrong answer writes no figures.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

from _common import ROOT, figure, write_result


def completions(records, n: int, rng: random.Random) -> list[tuple[dict, str]]:
    out = []
    for k in range(n):
        r = rng.choice(records)
        a = r["answer"]
        junk = rng.choice(["no idea", "<answer>?</answer>"])
        c = [f"<answer>{a}</answer>", f"<answer>{a[:-1]}0</answer>", junk][k % 3]
        out.append((r, c))
    return out


async def drive(url: str, work, clients: int) -> tuple[float, list[float], list[dict]]:
    sem = asyncio.Semaphore(clients)
    latencies = [0.0] * len(work)
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=clients)) as session:
        async def one(k, r, c):
            async with sem:
                t0 = time.perf_counter()
                async with session.post(url + "/score", json={"id": r["id"], "completion": c}) as resp:
                    body = await resp.json()
                latencies[k] = time.perf_counter() - t0
                return body

        t0 = time.perf_counter()
        replies = await asyncio.gather(*(one(k, r, c) for k, (r, c) in enumerate(work)))
        return time.perf_counter() - t0, latencies, replies


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--requests", type=int, default=6000)
    p.add_argument("--clients", type=int, default=32)
    p.add_argument("--workers", type=int, default=2)
    args = p.parse_args()
    started = time.perf_counter()
    env = dict(os.environ, OMP_NUM_THREADS="1", NO_COLOR="1")
    with tempfile.TemporaryDirectory(dir=ROOT / "benchmarks") as tmp:
        tasks = Path(tmp) / "tasks.jsonl"
        subprocess.run([sys.executable, "-m", "racesl", "compile", "stdlib", "-n", "2000", "--seed", "7", "--no-audit",
                        "-q", "-o", str(tasks)], cwd=ROOT, check=True, capture_output=True, env=env)
        sys.path.insert(0, str(ROOT))
        from racesl.rewards import verdict
        from racesl.rewards.libraries import read_tasks

        records = read_tasks(tasks)
        work = completions(records, args.requests, random.Random(7))
        t0 = time.process_time()
        want = [verdict(r, c) for r, c in work]
        in_process = len(work) / (time.process_time() - t0)

        proc = subprocess.Popen([sys.executable, "-m", "racesl", "serve", str(tasks), "--port", "0",
                                 "--workers", str(args.workers)], stderr=subprocess.PIPE, text=True, env=env,
                                start_new_session=True)
        try:
            line = ""
            while "listening on" not in line:
                line = proc.stderr.readline()
                if not line and proc.poll() is not None:
                    raise SystemExit(f"racesc serve exited {proc.returncode}")
            url = re.search(r"http://[\d.]+:\d+", line).group(0)
            asyncio.run(drive(url, work[:200], args.clients))  # warm: connections, worker caches
            wall, latencies, replies = asyncio.run(drive(url, work, args.clients))
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(60)
    wrong = sum((x["score"], x["status"]) != (v.score, v.status) for x, v in zip(replies, want))
    assert wrong == 0, f"{wrong} replies differ from the in-process verdict"
    rps = len(work) / wall
    q = statistics.quantiles(latencies, n=100)
    print(f"{rps:,.0f} requests/s, p50 {q[49] * 1e3:.1f} ms, p99 {q[98] * 1e3:.1f} ms; "
          f"in process {in_process:,.0f} verdicts/CPU-s")
    figures = [
        figure(f"requests per second, {args.clients} clients, {args.workers} workers (clients on the same 2 cores)",
               round(rps), "req/s"),
        figure("latency p50", round(q[49] * 1e3, 2), "ms"),
        figure("latency p99", round(q[98] * 1e3, 2), "ms"),
        figure("in-process verdict calls per CPU-s (one core)", round(in_process), "calls/CPU-s"),
        figure("served requests/s / in-process verdicts per CPU-s", round(rps / in_process, 4), "x"),
    ]
    print(write_result("serve", figures, {"requests": len(work), "clients": args.clients, "workers": args.workers,
                                          "wall_seconds": wall}, started))


if __name__ == "__main__":
    main()
