"""The solver's cost and payoff on the stdlib, measured in one run.

Compiles the same tasks with the solver off, on with a cold edge cache, and on with the
warm cache, alternating the three over several rounds (medians). Reports tasks per
CPU-second of each against solver-off, executions saved, and the solver's share of the
compile. Goals (issue 4): tasks/CPU-s with solver ≥ 1.0× without; solver share ≤ 5%.
"""

from __future__ import annotations

import os
import tempfile
import time

from _common import figure, load_stdlib, median, write_result

N = 2000
ROUNDS = 3


def compile_once(lib, solver: bool, cache_dir: str) -> dict:
    from racesl.compile import compile_tasks
    from racesl.search.config import CompileConfig

    os.environ["RACESL_CACHE_DIR"] = cache_dir
    c0 = time.process_time()
    tasks, s = compile_tasks(lib, CompileConfig(n=N, seed=0, solver=solver))
    cpu = time.process_time() - c0
    return {"tasks": s.tasks, "cpu": cpu, "executions": s.executions,
            "solver_s": s.solver.get("seconds", 0.0), "pruned": len(s.solver.get("pruned", {})),
            "edges": s.edges}


def main() -> None:
    started = time.perf_counter()
    lib = load_stdlib()
    warm_dir = tempfile.mkdtemp(prefix="racesl-bench-warm-")
    compile_once(lib, True, warm_dir)  # fill the warm cache once
    runs = {"off": [], "cold": [], "warm": []}
    for _ in range(ROUNDS):
        runs["off"].append(compile_once(lib, False, tempfile.mkdtemp(prefix="racesl-bench-off-")))
        runs["cold"].append(compile_once(lib, True, tempfile.mkdtemp(prefix="racesl-bench-cold-")))
        runs["warm"].append(compile_once(lib, True, warm_dir))
    rate = {k: median(r["tasks"] / r["cpu"] for r in v) for k, v in runs.items()}
    execs = {k: median(r["executions"] for r in v) for k, v in runs.items()}
    share = {k: median(r["solver_s"] / r["cpu"] for r in v) for k, v in runs.items() if k != "off"}
    saved = 1 - execs["cold"] / execs["off"]
    figs = [
        figure("tasks per CPU-s, solver on (cold cache) / off", rate["cold"] / rate["off"], "x", 1.0, ">="),
        figure("tasks per CPU-s, solver on (warm cache) / off", rate["warm"] / rate["off"], "x", 1.0, ">="),
        figure("executions saved by the solver", 100 * saved, "%"),
        figure("solver share of compile CPU, cold cache", 100 * share["cold"], "%", 5.0, "<="),
        figure("solver share of compile CPU, warm cache", 100 * share["warm"], "%", 5.0, "<="),
    ]
    details = {"n": N, "rounds": ROUNDS, "rates": rate, "executions": execs, "runs": runs}
    path = write_result("solver", figs, details, started)
    print(f"solver: cold {figs[0]['value']:.2f}x, warm {figs[1]['value']:.2f}x, saved {100 * saved:.1f}% "
          f"executions, share cold {100 * share['cold']:.1f}% / warm {100 * share['warm']:.1f}% -> {path.name}")


if __name__ == "__main__":
    main()
