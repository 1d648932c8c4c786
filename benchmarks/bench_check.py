"""Wall time of `racesc check stdlib`, and of its parse + type-check part alone.

- full: `racesc check stdlib` as a subprocess (interpreter start, imports, parse, check,
  lowering, and sampling + running every environment on its default number of samples),
  `--runs` times, median wall seconds;
- front end: `racesl.check.check_paths(["stdlib"])` in-process (after one warm-up call, so
  imports and lark's parser cache are excluded), `--runs` times, median wall and CPU seconds;
- lowering: `Library(checked)` (lowering + instrumentation + compile) in-process, median.

    .venv/bin/python benchmarks/bench_check.py [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

from _common import ROOT, figure, median, write_result


def racesc() -> list[str]:
    exe = Path(sys.executable).with_name("racesc")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "racesl"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    started = time.perf_counter()

    full, full_cpu, rcs = [], [], []
    for _ in range(args.runs):
        t, c = time.perf_counter(), os.times()
        p = subprocess.run([*racesc(), "check", "stdlib", "--quiet"], cwd=ROOT, capture_output=True, text=True)
        full.append(time.perf_counter() - t)
        c1 = os.times()
        full_cpu.append((c1[2] - c[2]) + (c1[3] - c[3]))
        rcs.append(p.returncode)
    tail = (p.stdout + p.stderr).strip().splitlines()[-3:]

    # interpreter + imports alone, for scale
    boot = []
    for _ in range(args.runs):
        t = time.perf_counter()
        subprocess.run([*racesc(), "--help"], cwd=ROOT, capture_output=True)
        boot.append(time.perf_counter() - t)

    from racesl.check import check_paths
    from racesl.library import Library

    checked = check_paths([str(ROOT / "stdlib")])  # warm-up: imports, grammar cache
    fe_wall, fe_cpu, low_wall, low_cpu = [], [], [], []
    for _ in range(args.runs):
        t, c = time.perf_counter(), time.process_time()
        checked = check_paths([str(ROOT / "stdlib")])
        fe_wall.append(time.perf_counter() - t)
        fe_cpu.append(time.process_time() - c)
        t, c = time.perf_counter(), time.process_time()
        Library(checked)
        low_wall.append(time.perf_counter() - t)
        low_cpu.append(time.process_time() - c)
    n_envs = len(checked.envs())
    n_lines = sum(m.text.count("\n") + 1 for m in checked.modules.values())

    figures = [
        figure("racesc check stdlib, wall (median of runs)", round(median(full), 3), "s"),
        figure("racesc check stdlib, CPU (child process)", round(median(full_cpu), 3), "s"),
        figure("parse + type-check stdlib in-process, wall", round(median(fe_wall), 3), "s"),
        figure("parse + type-check stdlib in-process, CPU", round(median(fe_cpu), 3), "s"),
        figure("lowering + instrumentation + compile, CPU", round(median(low_cpu), 3), "s"),
    ]
    details = {
        "runs": args.runs, "full_wall_s": [round(x, 3) for x in full], "returncodes": rcs,
        "racesc_help_wall_s": [round(x, 3) for x in boot],
        "frontend_wall_s": [round(x, 3) for x in fe_wall], "frontend_cpu_s": [round(x, 3) for x in fe_cpu],
        "full_cpu_s": [round(x, 3) for x in full_cpu],
        "lowering_wall_s": [round(x, 3) for x in low_wall], "lowering_cpu_s": [round(x, 3) for x in low_cpu],
        "modules": len(checked.modules), "envs": n_envs, "source_lines": n_lines, "check_ok": checked.ok,
        "last_output_lines": tail,
    }
    path = write_result("check", figures, details, started)
    print(f"check: racesc check stdlib {median(full):.2f}s wall / {median(full_cpu):.2f}s CPU (rc {rcs}), "
          f"startup {median(boot):.2f}s; parse+check {median(fe_wall) * 1000:.0f}ms wall / "
          f"{median(fe_cpu) * 1000:.0f}ms CPU, lowering {median(low_cpu) * 1000:.0f}ms CPU "
          f"({n_envs} envs, {n_lines} lines)  [{time.perf_counter() - started:.0f}s] -> {path.name}")


if __name__ == "__main__":
    main()
