"""A compile's peak memory and CPU per task at 10,000, 100,000 and 1,000,000 tasks (the
stdlib, default operators, seed 7, `--no-audit`, JSONL). Writes benchmarks/results/scale.json.

    .venv/bin/python benchmarks/bench_scale.py [--sizes 10000,100000,1000000]

Each size is one `racesc compile` in a child process that reports its own peak resident
memory (ru_maxrss) and CPU time. CPU per task is marginal: the CPU of a 100-task compile
(checking the sources, the solver, warming) is taken off before dividing, so that the
startup does not make small compiles look dearer per task than they are.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, figure, write_result

_CHILD = """\
import json, resource, sys
from racesl.cli.main import main
code = main(sys.argv[1:])
r = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"code": code, "peak_kib": r.ru_maxrss, "cpu": r.ru_utime + r.ru_stime}))
"""


def compile_once(n: int, folder: Path) -> dict:
    out = folder / f"tasks-{n}.jsonl"
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-c", _CHILD, "compile", "stdlib", "-n", str(n), "--seed", "7",
                        "--no-audit", "-q", "-o", str(out)], cwd=ROOT, capture_output=True, text=True, check=True,
                       env=dict(os.environ, OMP_NUM_THREADS="1"))
    got = json.loads(p.stdout.strip().splitlines()[-1])
    got.update(n=n, wall=time.perf_counter() - t0, bytes=out.stat().st_size)
    out.unlink()
    (folder / f"tasks-{n}.jsonl.library.json").unlink()
    return got


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--sizes", default="10000,100000,1000000")
    args = p.parse_args()
    started = time.perf_counter()
    sizes = [int(s) for s in args.sizes.split(",")]
    with tempfile.TemporaryDirectory(dir=ROOT / "benchmarks") as tmp:
        base = compile_once(100, Path(tmp))
        runs = [compile_once(n, Path(tmp)) for n in sizes]
    rows = []
    for r in runs:
        r["peak_mib"] = r["peak_kib"] / 1024
        r["cpu_ms_per_task"] = 1000 * (r["cpu"] - base["cpu"]) / (r["n"] - base["n"])
        rows.append(r)
        print(f"{r['n']:>9,} tasks: peak {r['peak_mib']:.0f} MiB, {r['cpu_ms_per_task']:.3f} ms CPU a task, "
              f"{r['wall']:.0f} s, {r['bytes'] / r['n']:.0f} B a task on disk")
    small, large = rows[0], rows[-1]
    figures = [
        figure(f"peak memory at {large['n']:,} tasks", round(large["peak_mib"], 1), "MiB", 400, "<="),
        figure(f"peak memory growth {small['n']:,} → {large['n']:,} tasks",
               round(large["peak_mib"] - small["peak_mib"], 1), "MiB"),
        figure(f"CPU per task at {large['n']:,} / at {small['n']:,}",
               round(large["cpu_ms_per_task"] / small["cpu_ms_per_task"], 3), "x", 1.2, "<="),
    ]
    details = {"startup": base, "runs": rows}
    print(write_result("scale", figures, details, started))


if __name__ == "__main__":
    main()
