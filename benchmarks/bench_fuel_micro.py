"""Overhead of fuel + size guards + watchdog on typical bodies.

For every body of tests/runtime/typical_corpus.py: time plain CPython (the same source,
exec'd with the real builtins) against the instrumented program called through
`Program.function` inside one `WATCHDOG.session()` (the hot-loop form), and print the
ratio per body, its geometric mean and median.

    .venv/bin/python benchmarks/bench_fuel_micro.py [--repeat 7] [--number 2000]
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import math
import statistics
import sys
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from racesl.runtime import WATCHDOG, Program  # noqa: E402


def load_corpus():
    spec = importlib.util.spec_from_file_location(
        "typical_corpus", ROOT / "tests" / "runtime" / "typical_corpus.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _best(fn, number: int, repeat: int) -> float:
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number


def measure(repeat: int, number: int, fuel: int = 10**6):
    """[(body, plain µs, instrumented µs, ratio)]. The corpus bodies do not mutate their
    arguments (tests/runtime check that), so both variants share one argument tuple.
    Plain and instrumented timings alternate, and each keeps its best of `repeat` rounds,
    so that load from other processes hurts both alike."""
    corpus = load_corpus()
    plain: dict = {}
    exec(compile(corpus.SOURCE, "plain", "exec"), plain)
    prog = Program.from_module(ast.parse(corpus.SOURCE), "bench.races",
                               int_params=corpus.int_params())
    rows = []
    with WATCHDOG.session():
        for name, args, _ in corpus.CASES:
            f = plain[name]
            g = prog.function(name)
            p = i = float("inf")
            for _ in range(repeat):
                p = min(p, _best(lambda: f(*args), number, 1))
                i = min(i, _best(lambda: g(fuel, *args), number, 1))
            rows.append((name, p * 1e6, i * 1e6, i / p))
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--number", type=int, default=2000)
    a = ap.parse_args(argv)
    rows = measure(a.repeat, a.number)
    print(f"{'body':<18} {'plain µs':>9} {'instr µs':>9} {'ratio':>6}")
    for name, p, i, r in rows:
        print(f"{name:<18} {p:9.2f} {i:9.2f} {r:6.2f}")
    ratios = [r for *_, r in rows]
    gm = math.exp(sum(map(math.log, ratios)) / len(ratios))
    print(f"geometric mean {gm:.3f}   median {statistics.median(ratios):.3f}   "
          f"min {min(ratios):.2f}   max {max(ratios):.2f}   ({len(ratios)} bodies)")


if __name__ == "__main__":
    main()
