"""Overhead of fuel + size guards + watchdog on typical bodies.

For every body of tests/support/typical_corpus.py: time plain CPython (the same source,
exec'd with the real builtins) against the instrumented program called through
`Program.function` inside one `WATCHDOG.session()` (the hot-loop form), and print the
ratio per body, its geometric mean and median.

    .venv/bin/python benchmarks/bench_fuel_micro.py [--rounds 41] [--block 0.002]
"""

from __future__ import annotations

import argparse
import ast
import gc
import importlib.util
import math
import statistics
import sys
import time
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from racesl.lower.program import load_program  # noqa: E402
from racesl.runtime import WATCHDOG  # noqa: E402


def load_corpus():
    spec = importlib.util.spec_from_file_location(
        "typical_corpus", ROOT / "tests" / "support" / "typical_corpus.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def measure(rounds: int, block_s: float, fuel: int = 10**6):
    """[(body, plain µs, instrumented µs, ratio)].

    The corpus bodies do not mutate their arguments (tests/runtime check that), so both
    variants share one argument tuple. Each round times a block of plain calls and a block of
    instrumented calls back to back (CPU time, ~`block_s` each, order alternating), so both
    see the same load; the ratio of a body is the median of its per-round ratios, which
    stays put on a shared, busy machine where absolute times move ±30-50%."""
    corpus = load_corpus()
    plain: dict = {}
    exec(compile(corpus.SOURCE, "plain", "exec"), plain)
    prog = load_program(ast.parse(corpus.SOURCE), "bench.races",
                        int_params=corpus.int_params())
    rows = []
    clock = time.process_time
    with WATCHDOG.session():
        for name, args, _ in corpus.CASES:
            f = plain[name]
            g = prog.function(name, fuel=fuel)
            once = timeit.timeit(lambda: f(*args), number=50) / 50
            n = max(10, int(block_s / max(once, 1e-8)))
            loop = range(n)

            def run_plain():
                t = clock()
                for _ in loop:
                    f(*args)
                return clock() - t

            def run_inst():
                t = clock()
                for _ in loop:
                    g(*args)
                return clock() - t

            gc.disable()
            try:
                tp, ti, ratios = [], [], []
                for r in range(rounds):
                    if r % 2:
                        a, b = run_plain(), run_inst()
                    else:
                        b, a = run_inst(), run_plain()
                    tp.append(a / n)
                    ti.append(b / n)
                    if a > 0:
                        ratios.append(b / a)
            finally:
                gc.enable()
            rows.append((name, statistics.median(tp) * 1e6, statistics.median(ti) * 1e6,
                         statistics.median(ratios)))
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=41)
    ap.add_argument("--block", type=float, default=0.002, help="CPU seconds of one timed block")
    a = ap.parse_args(argv)
    rows = measure(a.rounds, a.block)
    print(f"{'body':<18} {'plain µs':>9} {'instr µs':>9} {'ratio':>6}")
    for name, p, i, r in rows:
        print(f"{name:<18} {p:9.2f} {i:9.2f} {r:6.2f}")
    ratios = [r for *_, r in rows]
    gm = math.exp(sum(map(math.log, ratios)) / len(ratios))
    print(f"geometric mean {gm:.3f}   median {statistics.median(ratios):.3f}   "
          f"min {min(ratios):.2f}   max {max(ratios):.2f}   ({len(ratios)} bodies)")


if __name__ == "__main__":
    main()
