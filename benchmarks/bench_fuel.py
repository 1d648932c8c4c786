"""Fuel overhead against plain CPython, on the bodies of the standard library.

For every stdlib environment: sample up to 20 inputs (and settings) with the library's own
samplers at levels 0..2, keep those that run to completion under the search's default budget
(fuel 400, the `max_steps` filter), and time

- instrumented: the hot path `lib.program.function(env.pyname, fuel=400)` — fuel, size
  guards, depth limit, watchdog registration — called as `run(x, *settings)` (the fuel left
  in `run.meter`) inside one `WATCHDOG.session()`;
- plain: the same environment compiled from its uninstrumented lowering
  (`racesl.lower.module.Lowered(cm).module`, every module of the library in one namespace)
  with CPython's real builtins, called as `f(x, *settings)`.

Both run over the same flat list of argument tuples (fresh deep copies when a body mutates
its input), called the same way, in blocks of at least ~4 ms CPU, alternating which goes
first, `--repeat` rounds; gc is off inside blocks. Per environment: ratio = median
instrumented CPU time per call / median plain. Reported: median and geometric mean of the
ratios over environments (goal from the issue: median <= 1.3x), the medians by how long the
plain body runs, and the five worst.

    .venv/bin/python benchmarks/bench_fuel.py [--repeat 9] [--inputs 20] [--block 0.004]
"""

from __future__ import annotations

import argparse
import ast
import builtins
import copy
import gc
import random
import time

from _common import figure, geomean, load_stdlib, median, write_result

FUEL = 400
BANDS = ((0.0, 0.5), (0.5, 1.0), (1.0, 2.0), (2.0, 5.0), (5.0, float("inf")))  # plain µs a call


def plain_namespace(lib) -> dict:
    from racesl.lower.module import Lowered

    body = []
    for cm in lib.checked.modules.values():
        body.extend(Lowered(cm).module.body)
    module = ast.fix_missing_locations(ast.Module(body=body, type_ignores=[]))
    ns = {"__builtins__": builtins}
    exec(compile(module, "<plain>", "exec"), ns)
    return ns


def sample_calls(lib, env, plain, inst, n_inputs: int, seed: int):
    """[(args)], whether the body mutates its arguments, and why inputs were dropped."""
    from racesl.runtime.execute import classify
    from racesl.runtime.limits import Cutoff
    from racesl.sample.default import NoSample

    rng = random.Random(f"{seed}:{env.qualname}")
    calls, dropped, mutates = [], {}, False
    for k in range(n_inputs * 3):
        if len(calls) >= n_inputs:
            break
        level = k % 3
        try:
            x = lib.sample_input(env, rng, level)
            st = lib.sample_settings(env, rng, level)
        except NoSample:
            dropped["nosample"] = dropped.get("nosample", 0) + 1
            continue
        args = (x, *st)
        try:
            a = copy.deepcopy(args)
            v_inst = inst(*a)
        except (Exception, Cutoff) as exc:
            why = classify(exc)
            dropped[why] = dropped.get(why, 0) + 1
            continue
        mutates |= a != args
        try:
            a = copy.deepcopy(args)
            v_plain = plain(*a)
        except Exception:
            dropped["plain_error"] = dropped.get("plain_error", 0) + 1
            continue
        mutates |= a != args
        if v_plain != v_inst or type(v_plain) is not type(v_inst):
            dropped["mismatch"] = dropped.get("mismatch", 0) + 1
            continue
        calls.append(args)
    return calls, mutates, dropped


def block(fn, flat) -> float:
    gc.disable()
    try:
        t = time.process_time()
        for a in flat:
            fn(*a)
        return time.process_time() - t
    finally:
        gc.enable()


def flat_args(calls, number: int, mutates: bool):
    if mutates:
        return [copy.deepcopy(a) for _ in range(number) for a in calls]
    return [a for _ in range(number) for a in calls]


def measure_env(plain, variants, calls, mutates, repeat: int, min_block: float):
    """Median CPU seconds per call of `plain` and of each variant."""
    number = 1  # calibrate: plain block of at least min_block CPU seconds
    while True:
        dt = block(plain, flat_args(calls, number, mutates))
        if dt >= min_block or number >= 1 << 16:
            break
        number *= 2 if dt <= 0 else max(2, min(16, int(min_block / dt * 1.2) + 1))
    per = len(calls) * number
    sides = [plain, *variants]
    times = [[] for _ in sides]
    for r in range(repeat):
        order = list(range(len(sides)))
        if r % 2:
            order.reverse()  # which side goes first alternates
        for k in order:
            times[k].append(block(sides[k], flat_args(calls, number, mutates)) / per)
    return [median(t) for t in times], number


def parse_args(doc: str, repeat: int, inputs: int, block: float) -> argparse.Namespace:
    """The options of this script and of fuel_parts.py (defaults differ)."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=repeat)
    ap.add_argument("--inputs", type=int, default=inputs)
    ap.add_argument("--block", type=float, default=block, help="minimum CPU seconds of one timed block")
    ap.add_argument("--seed", type=int, default=0)
    return ap.parse_args()


def main() -> None:
    args = parse_args(__doc__, repeat=9, inputs=20, block=0.004)
    started = time.perf_counter()

    from racesl.runtime.watchdog import WATCHDOG

    lib = load_stdlib()
    ns = plain_namespace(lib)
    rows, skipped = [], {}
    with WATCHDOG.session():
        for q, env in sorted(lib.envs.items()):
            inst = lib.program.function(env.pyname, fuel=FUEL)
            plain = ns[env.pyname]
            calls, mutates, dropped = sample_calls(lib, env, plain, inst, args.inputs, args.seed)
            if len(calls) < 3:
                skipped[q] = dropped
                continue
            (p, i), number = measure_env(plain, [inst], calls, mutates, args.repeat, args.block)
            rows.append({"env": q, "inputs": len(calls), "mutates": mutates, "number": number,
                         "plain_us": round(p * 1e6, 3), "instrumented_us": round(i * 1e6, 3),
                         "ratio": round(i / p, 4), "dropped": dropped})

    ratios = [r["ratio"] for r in rows]
    med, gm = median(ratios), geomean(ratios)
    worst = sorted(rows, key=lambda r: -r["ratio"])[:5]
    figures = [
        figure("fuel overhead, median over stdlib envs (instrumented / plain CPU time)", round(med, 3), "x", 1.3, "<="),
        figure("fuel overhead, geometric mean over stdlib envs", round(gm, 3), "x"),
    ]
    bands = {}
    for lo, hi in BANDS:
        band = [r["ratio"] for r in rows if lo <= r["plain_us"] < hi]
        if band:
            label = f"{lo:g}-{hi:g} us" if hi != float("inf") else f">= {lo:g} us"
            bands[label] = {"envs": len(band), "median": round(median(band), 3)}
    details = {
        "fuel": FUEL, "repeat": args.repeat, "inputs_per_env": args.inputs, "min_block_s": args.block,
        "envs_measured": len(rows), "envs_skipped": skipped,
        "ratio_p10_p90": [round(sorted(ratios)[len(ratios) // 10], 3), round(sorted(ratios)[len(ratios) * 9 // 10], 3)],
        "by_plain_time": bands,
        "worst5": [{k: r[k] for k in ("env", "ratio", "plain_us", "instrumented_us")} for r in worst],
        "rows": rows,
    }
    path = write_result("fuel", figures, details, started)
    w = ", ".join(f"{r['env']} {r['ratio']:.2f}x" for r in worst)
    b = ", ".join(f"{k}: {v['median']:.2f}x ({v['envs']})" for k, v in bands.items())
    print(f"fuel: median {med:.3f}x, geomean {gm:.3f}x over {len(rows)} envs ({len(skipped)} "
          f"skipped); by plain time: {b}; worst: {w}  [{time.perf_counter() - started:.0f}s] -> {path.name}")


if __name__ == "__main__":
    main()
