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

With `--baseline DIR` (a checkout of an earlier commit, e.g. `git worktree add
/tmp/meter-base HEAD`), a third side runs in the same interleaved blocks: the library
instrumented by DIR's racesl/lower/instrument (this checkout's runtime, parser, checker and
lowering: only the instrumenter differs). Reported beside the figures: the baseline's
median and geometric mean, the per-environment ratio current / baseline, and the noise —
the median over environments of the spread (p25-p75, relative) of the per-round ratios.

    .venv/bin/python benchmarks/bench_fuel.py [--repeat 9] [--inputs 20] [--block 0.004] [--baseline DIR]
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
    times, number = measure_rounds(plain, variants, calls, mutates, repeat, min_block)
    return [median(t) for t in times], number


def measure_rounds(plain, variants, calls, mutates, repeat: int, min_block: float):
    """CPU seconds per call of `plain` and of each variant, one list of rounds each."""
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
    return times, number


def baseline_instrument(root: str):
    """`instrument` of the racesl/lower/instrument package under `root` (an earlier
    checkout), loaded beside this checkout's: its modules are imported under the package's
    own name while this one's are set aside, then this one's are put back (the loaded
    functions keep their own module globals)."""
    import importlib.util
    import sys
    from pathlib import Path

    import racesl.lower

    pkg = "racesl.lower.instrument"
    mine = {k: v for k, v in sys.modules.items() if k == pkg or k.startswith(pkg + ".")}
    where = Path(root).resolve() / "racesl" / "lower" / "instrument"
    if not (where / "__init__.py").is_file():
        raise SystemExit(f"--baseline {root}: no racesl/lower/instrument there")
    for k in mine:
        del sys.modules[k]
    try:
        spec = importlib.util.spec_from_file_location(pkg, where / "__init__.py",
                                                      submodule_search_locations=[str(where)])
        module = importlib.util.module_from_spec(spec)
        sys.modules[pkg] = module
        spec.loader.exec_module(module)
        return module.instrument
    finally:
        for k in [k for k in sys.modules if k == pkg or k.startswith(pkg + ".")]:
            del sys.modules[k]
        sys.modules.update(mine)
        racesl.lower.instrument = mine[pkg]


def baseline_program(lib, root: str):
    """The library's program instrumented by the instrumenter under `root`."""
    from racesl.runtime.execute import Program, compile_code

    tree = baseline_instrument(root)(lib.module, int_params=lib.param_facts)
    try:
        return Program(compile_code(tree, "<races-base>"), "<races-base>", budgets=lib.budgets)
    except TypeError:  # (a runtime without `@fuel` budgets)
        return Program(compile_code(tree, "<races-base>"), "<races-base>")


def spread(rounds_a, rounds_b) -> float:
    """The relative p25-p75 spread of the per-round ratios a / b."""
    rs = sorted(a / b for a, b in zip(rounds_a, rounds_b))
    q = len(rs) // 4
    return (rs[-1 - q] - rs[q]) / median(rs)


def parse_args(doc: str, repeat: int, inputs: int, block: float) -> argparse.Namespace:
    """The options of this script and of fuel_parts.py (defaults differ)."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=repeat)
    ap.add_argument("--inputs", type=int, default=inputs)
    ap.add_argument("--block", type=float, default=block, help="minimum CPU seconds of one timed block")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--baseline", metavar="DIR", default=None,
                    help="a checkout whose instrumenter runs as a third side (same-session A/B)")
    ap.add_argument("--only", default=None, help="only environments whose name contains this")
    return ap.parse_args()


def main() -> None:
    args = parse_args(__doc__, repeat=9, inputs=20, block=0.004)
    started = time.perf_counter()

    from racesl.runtime.watchdog import WATCHDOG

    lib = load_stdlib()
    ns = plain_namespace(lib)
    base_prog = baseline_program(lib, args.baseline) if args.baseline else None
    rows, skipped = [], {}
    with WATCHDOG.session():
        for q, env in sorted(lib.envs.items()):
            if args.only and args.only not in q:
                continue
            inst = lib.program.function(env.pyname, fuel=FUEL)
            plain = ns[env.pyname]
            calls, mutates, dropped = sample_calls(lib, env, plain, inst, args.inputs, args.seed)
            if len(calls) < 3:
                skipped[q] = dropped
                continue
            sides = [inst]
            if base_prog is not None:
                sides.append(base_prog.function(env.pyname, fuel=FUEL))
            times, number = measure_rounds(plain, sides, calls, mutates, args.repeat, args.block)
            p, i = median(times[0]), median(times[1])
            row = {"env": q, "inputs": len(calls), "mutates": mutates, "number": number,
                   "plain_us": round(p * 1e6, 3), "instrumented_us": round(i * 1e6, 3),
                   "ratio": round(i / p, 4), "spread": round(spread(times[1], times[0]), 4), "dropped": dropped}
            if base_prog is not None:
                b = median(times[2])
                row.update(baseline_us=round(b * 1e6, 3), baseline_ratio=round(b / p, 4),
                           vs_baseline=round(i / b, 4))
            rows.append(row)

    ratios = [r["ratio"] for r in rows]
    med, gm = median(ratios), geomean(ratios)
    worst = sorted(rows, key=lambda r: -r["ratio"])[:5]
    over3 = sorted((r for r in rows if r["ratio"] > 3.0), key=lambda r: -r["ratio"])
    figures = [
        figure("fuel overhead, median over stdlib envs (instrumented / plain CPU time)", round(med, 3), "x", 1.3, "<="),
        figure("fuel overhead, geometric mean over stdlib envs", round(gm, 3), "x"),
        figure("fuel overhead, worst stdlib env", round(max(ratios), 3), "x", 3.0, "<="),
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
        "over_3x": [(r["env"], r["ratio"]) for r in over3],
        "noise_median_spread": round(median(r["spread"] for r in rows), 4),
        "rows": rows,
    }
    ab = ""
    if base_prog is not None:
        base = [r["baseline_ratio"] for r in rows]
        details["baseline"] = {"dir": args.baseline, "median": round(median(base), 3),
                               "geomean": round(geomean(base), 3), "worst": round(max(base), 3),
                               "over_3x": sum(b > 3.0 for b in base),
                               "median_vs_baseline": round(median(r["vs_baseline"] for r in rows), 3)}
        d = details["baseline"]
        ab = (f"; baseline ({args.baseline}) median {d['median']:.3f}x, geomean {d['geomean']:.3f}x, "
              f"worst {d['worst']:.2f}x, {d['over_3x']} over 3x; current/baseline median {d['median_vs_baseline']:.3f}")
    path = write_result("fuel", figures, details, started)
    w = ", ".join(f"{r['env']} {r['ratio']:.2f}x" for r in worst)
    b = ", ".join(f"{k}: {v['median']:.2f}x ({v['envs']})" for k, v in bands.items())
    print(f"fuel: median {med:.3f}x, geomean {gm:.3f}x over {len(rows)} envs ({len(skipped)} "
          f"skipped), {len(over3)} over 3x, noise (median p25-p75 spread) {details['noise_median_spread']:.3f}; "
          f"by plain time: {b}; worst: {w}{ab}  [{time.perf_counter() - started:.0f}s] -> {path.name}")


if __name__ == "__main__":
    main()
