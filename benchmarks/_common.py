"""Shared helpers for the benchmark scripts: results files, statistics, environment info.

Every script writes `benchmarks/results/<name>.json` with this shape:

    {"name": ..., "figures": [{"figure", "value", "unit", "goal", "op", "met"}],
     "details": {...}, "machine": {...}, "script_seconds": ...}

`op` is "<=" or ">=" (how `value` must compare with `goal`), or null for a figure
reported without a goal; `benchmarks/table.py` renders the figures of every file.
"""

from __future__ import annotations

import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

median = statistics.median


def geomean(xs) -> float:
    xs = list(xs)
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def figure(name: str, value: float, unit: str, goal: float | None = None, op: str | None = None,
           note: str | None = None) -> dict:
    met = None
    if goal is not None and op is not None:
        met = value <= goal if op == "<=" else value >= goal
    return {"figure": name, "value": value, "unit": unit, "goal": goal, "op": op, "met": met, "note": note}


def machine() -> dict:
    try:
        commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True, timeout=10).stdout.strip()
        dirty = bool(subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--", "racesl", "stdlib"],
                                    capture_output=True, text=True, timeout=10).stdout.strip())
    except (OSError, subprocess.SubprocessError):
        commit, dirty = None, None
    try:
        load = os.getloadavg()
    except OSError:
        load = None
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "loadavg_at_end": load,
        "git_commit": commit,
        "racesl_tree_dirty": dirty,
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }


def write_result(name: str, figures: list[dict], details: dict, started: float) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = {"name": name, "figures": figures, "details": details, "machine": machine(),
           "script_seconds": round(time.perf_counter() - started, 2)}
    path = RESULTS / f"{name}.json"
    tmp = path.with_suffix(".json.part")
    tmp.write_text(json.dumps(out, indent=1, sort_keys=False, default=str) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


def load_stdlib():
    from racesl.library import load

    return load([str(ROOT / "stdlib")])
