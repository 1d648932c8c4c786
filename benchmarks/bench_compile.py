"""Composite-task generation and scoring throughput, against Reasoning Gym and a minimal loop.

All figures that are compared come from ONE run: `--rounds` rounds, each running every job
below once (in forward order on even rounds, reversed on odd ones, so that drifts in
machine load hit both sides of each ratio alike); a ratio is computed per round, and the
median over rounds is reported. CPU seconds are `time.process_time()` (plus, for worker
pools, the children's CPU, which `compile_tasks` adds to `summary.cpu_seconds`).

Jobs:
  (a) racesl: `compile_tasks(lib, CompileConfig(n, seed, operators=(("sequential", 2, 6),)))`
      on the stdlib, one worker: tasks (prompts included) per CPU second. A fresh `Library`
      per run (its build is not timed), so no run profits from the caches of an earlier one.
      (a) and (c) run back to back, `--gen-pairs` pairs a round (order alternating); the
      round's racesl/minimal ratio is the median of its pairs (runs of ~1 s CPU: single
      pairs of identical code gave 0.40 to 0.72 on this machine).
  (b) Reasoning Gym 0.1.25: items per CPU second of iterating
      `reasoning_gym.create_dataset(name, size, seed)` for 12 simple datasets (dataset
      construction timed apart, not in the rate: it is paid once per dataset); each dataset
      gets at most `--rg-budget` CPU seconds a round (an ITIMER_PROF alarm stops one that
      hangs on a single item; the time spent on the unfinished item still counts). Figure:
      the median rate over the datasets.
  (c) minimal loop: the same compiled bodies (hot path `lib.program.function`) along random
      chains of the signature graph, length 2-6, sampled inputs and settings, input checks on
      guarded edges, the paper's filters inline (`value_filter`, repeated states), restart
      from scratch on any failure; no quotas, expansions, dedup, prompts or records.
  (d) scoring: `racesl.rewards.score.score(record, completion)` on records of a compile
      like (a) (sequential 2-6, to_record), one correct and one wrong completion per record, each ~200 characters of
      reasoning before `<answer>..</answer>` (wrong: one step of the trace replaced by another
      record's value, so prefix credit is computed); beside Reasoning Gym's
      `extract_answer(completion)` + `dataset.score_answer(answer, entry)` on its own items
      with the same shape of completions (wrong: another item's answer). 15 passes, each
      timing racesl's calls (parse caches cleared first) and then one pass over each RG
      dataset back to back: one pass of an RG dataset is ~1 ms of CPU, which a drift of this
      shared machine would swing by half if the sides were timed apart. Figure: the median
      over passes of racesl calls/CPU-s over RG's median per-dataset calls/CPU-s; the rates
      shown come from each side's median pass.
  (e) workers: `compile_tasks(..., workers=2)` against `workers=1`: tasks per WALL second,
      at `--workers-n` tasks (default 12,800, the paper's main-run size: the goal's figure;
      `--workers-pairs` 1-and-2-worker pairs a round, order alternating, the round's ratio
      their median: adjacent runs of identical code on this machine gave ratios from 1.2 to
      2.2) and at `--n` (a ~1 s compile, where the serial start-up -- graph, warm-up, fork
      -- weighs; shown without a goal). After each pair, the machine's own 2/1: two units of
      a pure-Python loop (`--spin-seconds` CPU each) in one process against one unit in each
      of two processes, wall time. Nothing is shared, pickled or copied on write there, so
      it is the ceiling the workers figure can reach in those minutes (shown without a goal).

  (f) cold and warm, `--cold-warm` (a run of its own, results in compile_cold_warm.json): a
      default compile of the stdlib (`CompileConfig(n=--cold-n, seed)`: every operator, as
      `racesc compile stdlib -n N` runs), each in a fresh process. Cold: `RACESL_NO_CACHE=1`
      (no solver edge cache, no answer profiles on disk: what a first compile pays); warm: the
      same compile again with a cache folder an untimed run filled (what every later compile
      of that library pays). Each run reports the CPU of checking the sources, of building the
      `Library`, of `compile_tasks` (its search, the answer profiles it asks, the tasks) and a
      digest of the tasks it wrote (`--tree DIR` times another tree than this checkout). `--baseline DIR` (a copy of an older tree: its `racesl/`
      and `stdlib/`) runs the same jobs from that tree, alternated with this one in every
      round, so before/after figures share the machine's load; the digests say whether both
      trees wrote the same tasks.

    .venv/bin/python benchmarks/bench_compile.py [--n 3000] [--workers-n 12800] [--rounds 3]
        [--gen-pairs 2] [--workers-pairs 3]
    .venv/bin/python benchmarks/bench_compile.py --cold-warm [--cold-n 1000] [--rounds 3] [--baseline DIR]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, figure, median, write_result

RG_DATASETS = ("basic_arithmetic caesar_cipher letter_counting spell_backward word_sorting number_sorting gcd "
               "number_sequence string_manipulation list_functions chain_sum countdown").split()
SEQUENTIAL = (("sequential", 2, 6),)


# ---------------------------------------------------------------- (a), (e) racesl compile

def races_compile(checked, n: int, seed: int, workers: int):
    from racesl.compile import compile_tasks
    from racesl.library import Library
    from racesl.search.config import CompileConfig

    lib = Library(checked)
    t0 = os.times()
    tasks, s = compile_tasks(lib, CompileConfig(n=n, seed=seed, operators=SEQUENTIAL), workers=workers)
    t1 = os.times()
    # own and reaped children's CPU over this call only (summary.cpu_seconds adds the
    # children's CPU since the process started, so it is only right for the first pool)
    own = (t1[0] - t0[0]) + (t1[1] - t0[1])
    children = (t1[2] - t0[2]) + (t1[3] - t0[3])
    cpu = s.cpu_seconds if workers == 1 else own + children
    return {"tasks": s.tasks, "attempts": s.attempts, "failed": s.failed, "duplicates": s.duplicates,
            "cpu_s": cpu, "summary_cpu_s": s.cpu_seconds, "parent_cpu_s": own, "children_cpu_s": children,
            "wall_s": s.seconds, "cores_used": cpu / s.seconds, "per_cpu_s": s.tasks / cpu,
            "per_wall_s": s.tasks / s.seconds,
            # present in newer drivers: environment executions, Z3 classification/pruning
            "executions": getattr(s, "executions", None), "solver": getattr(s, "solver", None),
            "rejections": dict(s.rejections)}, (lib, tasks)


# ---------------------------------------------------------------- (b) Reasoning Gym

class _Stop(Exception):
    pass


def _on_prof(signum, frame):
    raise _Stop


def rg_generate(seed: int, size: int, budget: float, keep: int = 0):
    import reasoning_gym

    rates, out, kept = {}, {}, {}
    old = signal.signal(signal.SIGPROF, _on_prof)
    try:
        for name in RG_DATASETS:
            c0 = time.process_time()
            ds = reasoning_gym.create_dataset(name, size=size, seed=seed)
            c1 = time.process_time()
            items, stopped = [], False
            signal.setitimer(signal.ITIMER_PROF, budget)
            try:
                it = iter(ds)
                while True:
                    try:
                        items.append(next(it))
                    except StopIteration:
                        break
                    if time.process_time() - c1 >= budget:
                        stopped = True
                        break
            except _Stop:
                stopped = True
            finally:
                signal.setitimer(signal.ITIMER_PROF, 0)
            c2 = time.process_time()
            rates[name] = len(items) / max(c2 - c1, 1e-6)  # a tiny dataset can take < 1 clock tick
            out[name] = {"items": len(items), "construct_cpu_s": round(c1 - c0, 4),
                         "iterate_cpu_s": round(c2 - c1, 4), "stopped_by_budget": stopped}
            if keep:
                kept[name] = (ds, items[:keep])
    finally:
        signal.signal(signal.SIGPROF, old)
    return rates, out, kept


# ---------------------------------------------------------------- (c) minimal loop

def minimal_loop(lib, n: int, seed: int) -> dict:
    """Plain composite generation: random type-compatible chains, filters inline."""
    from racesl.graph.signature import GUARDED, SignatureGraph
    from racesl.runtime.contract import canonical
    from racesl.runtime.limits import Cutoff
    from racesl.runtime.watchdog import WATCHDOG
    from racesl.sample.default import NoSample
    from racesl.search.config import Filters
    from racesl.search.filters import value_filter

    c0 = time.process_time()
    f = Filters()
    graph = SignatureGraph(lib.envs.values())
    envs = graph.envs
    fns = {q: lib.program.function(e.pyname, fuel=f.max_steps, wall=f.wall) for q, e in envs.items()}
    succ = {q: graph.successors(q) for q in envs}
    starts = [q for q in sorted(envs) if succ[q]]
    rng = random.Random(seed)
    tasks, attempts = [], 0
    with WATCHDOG.session():
        while len(tasks) < n:
            attempts += 1
            size, level, q = rng.randint(2, 6), rng.randint(0, 2), rng.choice(starts)
            try:
                x = lib.sample_input(envs[q], rng, level)
            except NoSample:
                continue
            cur, kind, seen, chain = x, None, {canonical(x)}, []
            while len(chain) < size:
                env = envs[q]
                if kind == GUARDED and lib.conforms(cur, env.input) is not None:
                    break
                try:
                    st = lib.sample_settings(env, rng, level)
                    cur = fns[q](cur, *st)
                except (Exception, Cutoff):
                    break
                text = canonical(cur)
                if value_filter(f, cur, text) or text in seen:
                    break
                seen.add(text)
                chain.append((q, st, text))
                if len(chain) < size:
                    if not succ[q]:
                        break
                    q, kind = rng.choice(succ[q])
            if len(chain) == size:
                tasks.append((canonical(x), chain))
    cpu = time.process_time() - c0
    return {"tasks": len(tasks), "attempts": attempts, "cpu_s": cpu, "per_cpu_s": len(tasks) / cpu}


# ---------------------------------------------------------------- (e) beside it: the machine's own 2/1

def _spin(n: int) -> int:
    """A pure-Python unit of work: integer arithmetic and a small dict, no allocation growth."""
    d, s = {}, 0
    for i in range(n):
        s += i * i % 7
        d[i & 1023] = s
    return s


def spin_size(seconds: float) -> int:
    """Iterations of `_spin` that take about `seconds` of CPU here."""
    n = 200_000
    c0 = time.process_time()
    _spin(n)
    return max(n, int(n * seconds / max(time.process_time() - c0, 1e-3)))


def machine_scaling(n: int, serial_first: bool = True) -> float:
    """Wall time of two units of `_spin` in one process over that of one unit in each of two
    (the second forked): what two processes gain on this machine when nothing is shared,
    pickled or faulted in, so the ceiling of the workers figure in the same minutes."""

    def serial() -> float:
        t0 = time.perf_counter()
        _spin(n)
        _spin(n)
        return time.perf_counter() - t0

    def parallel() -> float:
        t0 = time.perf_counter()
        child = mp.get_context("fork").Process(target=_spin, args=(n,))
        child.start()
        _spin(n)
        child.join()
        return time.perf_counter() - t0

    if serial_first:
        one, two = serial(), parallel()
    else:
        two, one = parallel(), serial()
    return one / two


# ---------------------------------------------------------------- (d) scoring

REASONING = ("Let me work through this step by step. First I look at the input and apply the first "
             "operation carefully, keeping track of every intermediate value. Then I carry that result "
             "into the next operation and check it. ")  # ~200 characters


def races_completions(records, seed: int):
    rng = random.Random(seed)
    traces = [t for r in records for t in r["trace"]]
    out = []
    for r in records:
        out.append((r, f"{REASONING}<answer>{r['answer']}</answer>"))
        trace = list(r["trace"])
        k = rng.randrange(len(trace))
        wrong = rng.choice(traces)
        trace[k] = wrong if wrong != trace[k] else trace[k] + "0"
        out.append((r, f"{REASONING}<answer>[{', '.join(trace)}]</answer>"))
    return out


def rg_completions(kept, seed: int):
    rng = random.Random(seed)
    out = {}
    for name, (ds, items) in kept.items():
        answers = [str(it["answer"]) for it in items]
        rows = []
        for it in items:
            rows.append((it, f"{REASONING}<answer>{it['answer']}</answer>"))
            wrong = rng.choice(answers)
            if wrong == str(it["answer"]):
                wrong = wrong + "1"
            rows.append((it, f"{REASONING}<answer>{wrong}</answer>"))
        out[name] = (ds, rows)
    return out


SCORE_PASSES = 15  # interleaved passes over the same calls; each gives a ratio, the median is reported


def _races_pass(pairs, score, caches) -> tuple[float, float]:
    for fn in caches:
        fn.cache_clear()  # every pass starts cold
    total = 0.0
    c0 = time.process_time()
    for rec, comp in pairs:
        total += score(rec, comp)
    return time.process_time() - c0, total


def _rg_pass(ds, rows, extract_answer) -> tuple[float, float, int]:
    total, err = 0.0, 0
    c0 = time.process_time()
    for it, comp in rows:
        try:
            total += ds.score_answer(extract_answer(comp), it)
        except Exception:
            err += 1
    return time.process_time() - c0, total, err


def score_both(pairs, groups, passes: int = SCORE_PASSES) -> dict:
    """Scoring rates of both sides, measured pass by pass: a pass times racesl's calls, then
    one pass over each RG dataset, and gives the ratio of racesl's rate to RG's median
    dataset rate in that pass. One pass of an RG dataset is ~1 ms of CPU, so the machine's
    drifts (on this shared VM, up to half within a minute) would swing ratios taken from
    separately timed sides; back to back, they hit both alike."""
    from reasoning_gym.utils import extract_answer

    from racesl.rewards import parse
    from racesl.rewards.score import score

    caches = [fn for fn in (getattr(parse, "expected_value", None), getattr(parse, "_parse", None))
              if fn is not None and hasattr(fn, "cache_clear")]
    races_times, ratios, rg_times = [], [], {name: [] for name in groups}
    errors, mean = dict.fromkeys(groups, 0), {}
    races_total = 0.0
    for _ in range(passes):
        cpu, races_total = _races_pass(pairs, score, caches)
        races_times.append(cpu)
        rates = []
        for name, (ds, rows) in groups.items():
            cpu_rg, total, err = _rg_pass(ds, rows, extract_answer)
            rg_times[name].append(cpu_rg)
            rates.append(len(rows) / cpu_rg)
            errors[name], mean[name] = err, total / len(rows)
        ratios.append(len(pairs) / cpu / median(rates))
    rg_rates = {name: len(groups[name][1]) / median(times) for name, times in rg_times.items()}
    return {"races": {"calls": len(pairs), "passes": passes, "cpu_s": median(races_times),
                      "per_cpu_s": len(pairs) / median(races_times), "mean_reward": races_total / len(pairs)},
            "rg": {"per_dataset": rg_rates, "median_per_cpu_s": median(rg_rates.values()),
                   "aggregate_per_cpu_s": sum(len(rows) for _, rows in groups.values())
                   / sum(median(times) for times in rg_times.values()),
                   "calls": sum(len(rows) for _, rows in groups.values()), "passes": passes, "errors": errors,
                   "mean_reward": mean},
            "ratio": median(ratios), "pass_ratios": ratios}


# ---------------------------------------------------------------- (f) cold and warm

_CHILD = r"""
import hashlib, json, sys, time
tree, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
sys.path.insert(0, tree)
from racesl.check import check_paths
from racesl.compile import compile_tasks
from racesl.library import Library
from racesl.records import to_record
from racesl.search.config import CompileConfig
import racesl
assert racesl.__file__.startswith(tree), racesl.__file__
c0 = time.process_time()
checked = check_paths([tree + "/stdlib"])
c1 = time.process_time()
lib = Library(checked)
c2 = time.process_time()
tasks, s = compile_tasks(lib, CompileConfig(n=n, seed=seed))
c3 = time.process_time()
h = hashlib.sha256()
for i, t in enumerate(tasks):
    h.update(json.dumps(to_record(t, i, seed, lib.hash), sort_keys=True).encode() + b"\n")
print(json.dumps({"check_cpu_s": c1 - c0, "library_cpu_s": c2 - c1, "compile_cpu_s": c3 - c2,
                  "total_cpu_s": c3 - c0, "tasks": len(tasks), "digest": h.hexdigest()[:16]}))
"""


def one_compile(tree: Path, n: int, seed: int, cache: str | None) -> dict:
    """A default stdlib compile from `tree` in a fresh process: cold (`cache` None: no cache
    at all) or with the cache folder `cache`."""
    env = {k: v for k, v in os.environ.items() if k not in ("RACESL_NO_CACHE", "RACESL_CACHE_DIR")}
    env.update(OMP_NUM_THREADS="1", PYTHONHASHSEED="0")
    if cache is None:
        env["RACESL_NO_CACHE"] = "1"
    else:
        env["RACESL_CACHE_DIR"] = cache
    out = subprocess.run([sys.executable, "-c", _CHILD, str(tree), str(n), str(seed)], env=env, cwd=str(tree),
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def cold_warm(args, started: float) -> None:
    """Job (f): cold and warm compiles of this tree (and of `--baseline`, alternated)."""
    trees = {"this": Path(args.tree).resolve() if args.tree else ROOT}
    if args.baseline:
        trees["baseline"] = Path(args.baseline).resolve()
    with tempfile.TemporaryDirectory(prefix="races-bench-cache.") as tmp:
        caches = {name: f"{tmp}/{name}" for name in trees}
        for name, tree in trees.items():  # fill each tree's cache (untimed)
            one_compile(tree, args.cold_n, args.seed, caches[name])
        runs: dict[str, dict[str, list]] = {name: {"cold": [], "warm": []} for name in trees}
        for r in range(args.rounds):
            order = list(trees) if r % 2 == 0 else list(trees)[::-1]
            for name in order:
                for kind in (("cold", "warm") if r % 2 == 0 else ("warm", "cold")):
                    got = one_compile(trees[name], args.cold_n, args.seed, None if kind == "cold" else caches[name])
                    runs[name][kind].append(got)
            print(f"  round {r}: " + "; ".join(
                f"{name} cold {runs[name]['cold'][-1]['compile_cpu_s']:.1f} s, warm {runs[name]['warm'][-1]['compile_cpu_s']:.1f} s"
                for name in trees), flush=True)

    def med(name, kind, key):
        return median(x[key] for x in runs[name][kind])

    figures, summary = [], {}
    for name in trees:
        for kind in ("cold", "warm"):
            for key, what in (("compile_cpu_s", "compile_tasks"), ("total_cpu_s", "check + Library + compile_tasks")):
                figures.append(figure(f"{name} tree, {kind}: {what} CPU, stdlib n = {args.cold_n:,}",
                                      round(med(name, kind, key), 2), "CPU-s"))
        summary[name] = {kind: {"compile_cpu_s": med(name, kind, "compile_cpu_s"), "digests": sorted(
            {x["digest"] for x in runs[name][kind]}), "tasks": runs[name][kind][0]["tasks"]} for kind in ("cold", "warm")}
    if args.baseline:
        for kind in ("cold", "warm"):  # per round (each pair ran back to back), then the median
            ratios = [a["compile_cpu_s"] / b["compile_cpu_s"] for a, b in zip(runs["this"][kind], runs["baseline"][kind])]
            figures.append(figure(f"{kind}: this tree / baseline, compile_tasks CPU", round(median(ratios), 3), "x"))
        same = summary["this"]["cold"]["digests"] == summary["baseline"]["cold"]["digests"]
        figures.append(figure("same tasks as the baseline (digest of the records)", int(same), "bool"))
    details = {"n": args.cold_n, "seed": args.seed, "rounds": args.rounds, "trees": {k: str(v) for k, v in trees.items()},
               "summary": summary, "runs": runs}
    path = write_result("compile_cold_warm", figures, details, started)
    for f in figures:
        print(f"  {f['figure']}: {f['value']} {f['unit']}")
    print(f"compile cold/warm [{time.perf_counter() - started:.0f}s] -> {path.name}")


# ---------------------------------------------------------------- main

def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=3000, help="tasks per racesl compile and per minimal-loop run")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--rg-size", type=int, default=2000)
    ap.add_argument("--rg-budget", type=float, default=0.5, help="CPU seconds per RG dataset per round")
    ap.add_argument("--score-records", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--gen-pairs", type=int, default=2,
                    help="racesl and minimal-loop runs at --n back to back per round (the round's ratio: their median)")
    ap.add_argument("--workers-pairs", type=int, default=3,
                    help="1- and 2-worker runs at --workers-n per round (the round's ratio: their median)")
    ap.add_argument("--workers-n", type=int, default=12800,
                    help="tasks per compile for the 2-vs-1-worker figure (the paper's main-run size)")
    ap.add_argument("--spin-seconds", type=float, default=1.0,
                    help="CPU seconds of one unit of the machine-scaling loop (run after every workers pair)")
    ap.add_argument("--cold-warm", action="store_true",
                    help="only job (f): cold and warm default stdlib compiles, each in a fresh process")
    ap.add_argument("--cold-n", type=int, default=1000, help="tasks per compile of --cold-warm")
    ap.add_argument("--baseline", help="with --cold-warm: an older tree (its racesl/ and stdlib/) to alternate with")
    ap.add_argument("--tree", help="with --cold-warm: the tree to time instead of this checkout (its racesl/ and stdlib/)")
    args = ap.parse_args()
    started = time.perf_counter()
    if args.cold_warm:
        cold_warm(args, started)
        return

    from racesl.check import check_paths
    from racesl.records import to_record
    from racesl.rewards.libraries import register

    import reasoning_gym  # noqa: F401  (import cost kept out of every timed job)

    checked = check_paths([str(ROOT / "stdlib")])
    # warm-up, outside the rounds: imports, word lists; also the scoring inputs
    _, (lib0, tasks0) = races_compile(checked, min(args.n, args.score_records), 10_000 + args.seed, 1)
    register(lib0)
    records = [to_record(t, i, 10_000 + args.seed, lib0.hash) for i, t in enumerate(tasks0)]
    rpairs = races_completions(records, args.seed)
    _, _, kept = rg_generate(10_000 + args.seed, 200, 0.5, keep=max(1, args.score_records // len(RG_DATASETS)))
    rgroups = rg_completions(kept, args.seed)

    spin = spin_size(args.spin_seconds)
    rounds = []
    for r in range(args.rounds):
        seed = args.seed + r
        res: dict = {}

        def j_gen():  # racesl and the minimal loop back to back, in pairs (the order alternates)
            from racesl.library import Library

            races, minimal = [], []
            for k in range(args.gen_pairs):
                for side in (("races", "minimal") if (r + k) % 2 == 0 else ("minimal", "races")):
                    if side == "races":
                        races.append(races_compile(checked, args.n, seed + 100 * k, 1)[0])
                    else:
                        minimal.append(minimal_loop(Library(checked), args.n, seed + 100 * k))
            res["races_w1"], res["minimal"] = races[0], minimal[0]
            res["gen"] = {"races_per_cpu_s": median(x["per_cpu_s"] for x in races),
                          "races_per_wall_s": median(x["per_wall_s"] for x in races),
                          "minimal_per_cpu_s": median(x["per_cpu_s"] for x in minimal),
                          "pairs": [a["per_cpu_s"] / b["per_cpu_s"] for a, b in zip(races, minimal)]}

        def j_w2():
            res["races_w2"], _ = races_compile(checked, args.n, seed, 2)

        def j_big():  # pairs of 1 and 2 workers at the paper's size (the order alternates),
            # each followed by the machine's own 2/1 on a pure-Python loop
            pairs, machine = [], []
            for k in range(args.workers_pairs):
                for w in ((1, 2) if (r + k) % 2 == 0 else (2, 1)):
                    res[f"big_w{w}"], _ = races_compile(checked, args.workers_n, seed + k, w)
                pairs.append(res["big_w2"]["per_wall_s"] / res["big_w1"]["per_wall_s"])
                machine.append(machine_scaling(spin, serial_first=(r + k) % 2 == 0))
            res["big_pairs"], res["machine_pairs"] = pairs, machine

        def j_rg():
            rates, info, _ = rg_generate(seed, args.rg_size, args.rg_budget)
            res["rg"] = {"rates": rates, "median": median(rates.values()), "info": info}

        def j_score():
            both = score_both(rpairs, rgroups)
            res["score_races"], res["score_rg"], res["score_ratio"] = both["races"], both["rg"], both["ratio"]
            res["score_pass_ratios"] = both["pass_ratios"]

        jobs = [j_gen, j_rg, j_score, j_w2, j_big]
        for job in (jobs if r % 2 == 0 else jobs[::-1]):
            job()
        res["ratios"] = {
            "races_over_rg": res["gen"]["races_per_cpu_s"] / res["rg"]["median"],
            "races_over_minimal": median(res["gen"]["pairs"]),
            "scoring_races_over_rg": res["score_ratio"],
            "workers2_over_1": res["races_w2"]["per_wall_s"] / res["gen"]["races_per_wall_s"],
            "workers2_over_1_big": median(res["big_pairs"]),
            "machine2_over_1": median(res["machine_pairs"]),
        }
        rounds.append(res)
        print(f"  round {r}: racesl {res['gen']['races_per_cpu_s']:.0f}/CPU-s, RG median {res['rg']['median']:.0f}, "
              f"minimal {res['gen']['minimal_per_cpu_s']:.0f} "
              f"(pairs {', '.join(f'{x:.2f}' for x in res['gen']['pairs'])}), score {res['score_races']['per_cpu_s']:.0f} vs "
              f"{res['score_rg']['median_per_cpu_s']:.0f}, wall/s w1 {res['gen']['races_per_wall_s']:.0f} "
              f"w2 {res['races_w2']['per_wall_s']:.0f} (cores {res['races_w1']['cores_used']:.2f} / "
              f"{res['races_w2']['cores_used']:.2f}); n={args.workers_n}: w2/w1 {res['ratios']['workers2_over_1_big']:.2f} "
              f"(cores {res['big_w2']['cores_used']:.2f}; machine 2/1 {res['ratios']['machine2_over_1']:.2f})", flush=True)

    def med(path):
        vals = [rd for rd in rounds]
        for key in path:
            vals = [v[key] for v in vals]
        return median(vals)

    ratios = {k: med(("ratios", k)) for k in rounds[0]["ratios"]}
    w2_cores = med(("races_w2", "cores_used"))
    big_cores = med(("big_w2", "cores_used"))
    figures = [
        figure("racesl sequential 2-6 tasks per CPU-s", round(med(("gen", "races_per_cpu_s"))), "tasks/CPU-s"),
        figure("Reasoning Gym median items per CPU-s (12 datasets)", round(med(("rg", "median"))), "items/CPU-s"),
        figure("minimal loop tasks per CPU-s", round(med(("gen", "minimal_per_cpu_s"))), "tasks/CPU-s"),
        figure("generation ratio racesl / RG median", round(ratios["races_over_rg"], 3), "x", 1.0, ">="),
        figure("generation ratio racesl / minimal loop", round(ratios["races_over_minimal"], 3), "x", 0.5, ">="),
        figure("racesl score calls per CPU-s", round(med(("score_races", "per_cpu_s"))), "calls/CPU-s"),
        figure("RG extract+score median calls per CPU-s", round(med(("score_rg", "median_per_cpu_s"))), "calls/CPU-s"),
        figure("scoring ratio racesl / RG median", round(ratios["scoring_races_over_rg"], 3), "x", 2.0, ">="),
        figure(f"workers 2 / 1, tasks per wall second, n = {args.workers_n:,}", round(ratios["workers2_over_1_big"], 3),
               "x", 1.8, ">=", note=None if big_cores >= 1.6 else
               f"inconclusive: the machine was busy, the 2-worker runs got {big_cores:.2f} cores"),
        figure("machine 2 / 1: two processes of a pure-Python loop against one (the workers figure's ceiling)",
               round(ratios["machine2_over_1"], 3), "x"),
        figure(f"workers 2 / 1, tasks per wall second, n = {args.n:,} (~1 s: start-up weighs)",
               round(ratios["workers2_over_1"], 3), "x"),
        figure("cores used by workers=1 run (CPU / wall; < 1 = machine busy)", round(med(("races_w1", "cores_used")), 2), "cores"),
        figure(f"cores used by workers=2 run, n = {args.workers_n:,} (CPU / wall)", round(big_cores, 2), "cores"),
        figure(f"cores used by workers=2 run, n = {args.n:,}", round(w2_cores, 2), "cores"),
    ]
    details = {"n": args.n, "workers_n": args.workers_n, "rounds": args.rounds, "rg_size": args.rg_size, "rg_budget_cpu_s": args.rg_budget,
               "rg_datasets": RG_DATASETS, "score_calls_races": len(rpairs),
               "score_calls_rg": sum(len(rows) for _, rows in rgroups.values()),
               "ratios_per_round": [rd["ratios"] for rd in rounds], "rounds_data": rounds}
    path = write_result("compile", figures, details, started)
    print(f"compile: racesl/RG {ratios['races_over_rg']:.3f}x (goal >= 1), racesl/minimal "
          f"{ratios['races_over_minimal']:.3f}x (>= 0.5), scoring racesl/RG {ratios['scoring_races_over_rg']:.2f}x "
          f"(>= 2), workers 2/1 {ratios['workers2_over_1_big']:.2f}x at n={args.workers_n} (>= 1.8), "
          f"{ratios['workers2_over_1']:.2f}x at n={args.n}  "
          f"[{time.perf_counter() - started:.0f}s] -> {path.name}")


if __name__ == "__main__":
    main()
