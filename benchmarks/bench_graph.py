"""How long the stdlib's drawings take, and how large they are: the by-type view (the default
drawing) beside the whole environment graph (`--by env`), in one run. Writes
benchmarks/results/graph.json.

    .venv/bin/python benchmarks/bench_graph.py [--env-limit SECONDS]

Each is `racesc graph stdlib ... --format svg` in a child process, timed on the wall clock;
the environment graph is given up after --env-limit seconds (its figure is then that bound).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, figure, write_result


def draw(args: list[str], out: Path, limit: float) -> tuple[float, float | None, bool]:
    """(wall seconds, picture height in points or None, finished)."""
    t0 = time.perf_counter()
    try:
        subprocess.run([sys.executable, "-m", "racesl", "graph", "stdlib", "--format", "svg", *args, "-o", str(out)],
                       check=True, capture_output=True, timeout=limit, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return limit, None, False
    took = time.perf_counter() - t0
    m = re.search(r'<svg width="[\d.]+pt" height="([\d.]+)pt"', out.read_text(encoding="utf-8"))
    return took, float(m.group(1)) if m else None, True


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--env-limit", type=float, default=600.0)
    args = p.parse_args()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        by_type = draw(["--by", "type"], Path(tmp) / "type.svg", 120)
        around = draw(["--around", "lists.sort_list"], Path(tmp) / "around.svg", 120)
        module = draw(["--module", "graphs"], Path(tmp) / "module.svg", 120)
        by_env = draw(["--by", "env"], Path(tmp) / "env.svg", args.env_limit)
    env_note = None if by_env[2] else f"not finished within {args.env_limit:.0f} s"
    figures = [
        figure("racesc graph stdlib --by type --format svg, wall", round(by_type[0], 2), "s", 10.0, "<="),
        figure("by-type picture height", round(by_type[1] or 0), "pt"),
        figure("--around lists.sort_list --format svg, wall", round(around[0], 2), "s"),
        figure("--module graphs --format svg, wall", round(module[0], 2), "s"),
        figure("--by env --format svg (every environment and edge), wall", round(by_env[0], 1), "s", note=env_note),
        figure("by-env picture height", round(by_env[1] or 0), "pt", note=env_note),
        figure("by env / by type, wall", round(by_env[0] / by_type[0], 1), "x", note=env_note),
    ]
    write_result("graph", figures, {"env_limit_s": args.env_limit}, started)
    for f in figures:
        print(f"{f['figure']}: {f['value']} {f['unit']}" + (f" ({f['note']})" if f["note"] else ""))


if __name__ == "__main__":
    main()
