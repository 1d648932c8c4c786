"""Compiling on Ray beside forked workers: `--ray local` with 1 and 2 actors against
`--workers 1` and `--workers 2`, in one run (the stdlib, 20,000 tasks, seed 7, `--no-audit`).
Writes benchmarks/results/ray.json.

    .venv/bin/python benchmarks/bench_ray.py [-n 20000]

Each is a `racesc compile` child timed on the wall clock, Ray's start and stop included
(`--ray local` starts a Ray for the one compile). Every output is compared byte for byte
with `--workers 1`'s: a figure of a run that wrote something else would be meaningless.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, figure, write_result

SETUPS = {"workers 1": ["--workers", "1"], "workers 2": ["--workers", "2"],
          "ray 1": ["--ray", "local", "--workers", "1"], "ray 2": ["--ray", "local", "--workers", "2"]}


def compile_once(n: int, extra: list[str], out: Path) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "racesl", "compile", "stdlib", "-n", str(n), "--seed", "7", "--no-audit",
                    "-q", "-o", str(out), *extra], cwd=ROOT, check=True, capture_output=True,
                   env=dict(os.environ, OMP_NUM_THREADS="1"))
    return time.perf_counter() - t0


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("-n", type=int, default=20_000)
    args = p.parse_args()
    started = time.perf_counter()
    wall, same = {}, {}
    with tempfile.TemporaryDirectory(dir=ROOT / "benchmarks") as tmp:
        ref = None
        for name, extra in SETUPS.items():
            out = Path(tmp) / f"{name.replace(' ', '-')}.jsonl"
            wall[name] = compile_once(args.n, extra, out)
            data = out.read_bytes()
            ref = data if ref is None else ref
            same[name] = data == ref
            print(f"{name}: {wall[name]:.1f} s, {args.n / wall[name]:,.0f} tasks/s, output same: {same[name]}")
    assert all(same.values()), same
    figures = [
        figure("ray 1 actor / workers 1 (wall)", round(wall["ray 1"] / wall["workers 1"], 3), "x"),
        figure("ray 2 actors / workers 2 (wall)", round(wall["ray 2"] / wall["workers 2"], 3), "x"),
        figure("ray: 2 actors / 1 actor (speed-up)", round(wall["ray 1"] / wall["ray 2"], 3), "x"),
        figure("forked: 2 workers / 1 (speed-up)", round(wall["workers 1"] / wall["workers 2"], 3), "x"),
    ]
    print(write_result("ray", figures, {"n": args.n, "wall_seconds": wall, "cpus": os.cpu_count()}, started))


if __name__ == "__main__":
    main()
