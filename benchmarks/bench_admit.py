"""`racesc admit` over the stdlib itself: its modules as candidates into an empty pool, then a
perturbed copy of each (every environment and helper renamed, comments dropped) against
the pool they built, then (round "leave one out") every stdlib module against a pool whose
seeds are the other stdlib modules: the new gates must refuse none that today's admit.
Reports the funnel of each round and seconds per candidate. Writes
benchmarks/results/admit.json.

    .venv/bin/python benchmarks/bench_admit.py [--only-loo] [--modules a,b,...]
    .venv/bin/python benchmarks/bench_admit.py --growth [--extra 0,100,1000] [--candidates N]

`--growth` (issue 47) measures instead seconds per candidate against the pool's size: the
stdlib, then the stdlib plus 100 and 1,000 synthesised environments (`synthetic_modules`:
stdlib-like environments with varied constants, ten to a module, every one distinct), the
same few candidates judged (not admitted: the pool keeps its size) against each. The pool's
one-time cost (check, lower, the novelty index) is reported apart from the per-candidate
seconds, with each gate's share. Writes benchmarks/results/admit_growth.json.

The stdlib modules go in their import order (numbers first), so each finds what it imports
already admitted. Every module of the first round should be admitted, every copy of the
second rejected — at novelty, or earlier where renaming alone broke something.
"""

from __future__ import annotations

import argparse
import re
import shutil
import tempfile
import time
from collections import Counter
from pathlib import Path

from _common import ROOT, figure, write_result

ORDER = ("numbers", "lists", "sequences", "strings", "records", "grids", "graphs")


def perturbed(text: str) -> str:
    """The module with its `module` line dropped, its comments gone and every environment and
    helper renamed (`name` → `name_v2`, calls too): a copy that says nothing new."""
    names = set(re.findall(r"^(?:env|def)\s+(\w+)", text, flags=re.M))
    body = "\n".join(line for line in text.splitlines()
                     if not line.lstrip().startswith("#") and not line.startswith("module "))
    return re.sub(r"(?<!\.)\b(" + "|".join(map(re.escape, sorted(names, key=len, reverse=True))) + r")\b",
                  lambda m: m.group(1) + "_v2", body) + "\n"


def importers(stdlib: Path) -> dict[str, set[str]]:
    """module → the stdlib modules that import it, directly or not."""
    from racesl.pool.pool import imports_of

    direct = {p.stem: imports_of(p.read_text(encoding="utf-8")) for p in stdlib.glob("*.races")}
    out: dict[str, set[str]] = {}
    for m in direct:
        seen, todo = set(), [m]
        while todo:
            x = todo.pop()
            for user, deps in direct.items():
                if x in deps and user not in seen:
                    seen.add(user)
                    todo.append(user)
        out[m] = seen
    return out


def leave_one_out(stdlib: Path, modules: list[str], tmp: Path) -> list:
    """Each stdlib module admitted into its own pool seeded by a folder of the other modules
    (less those that import it: they would bring it back in)."""
    from racesl.admit.context import AdmitConfig, Context
    from racesl.admit.run import admit_files
    from racesl.pool import Pool

    users = importers(stdlib)
    verdicts = []
    for m in modules:
        base = tmp / f"loo_{m}"
        others = base / "others"
        others.mkdir(parents=True)
        for p in sorted(stdlib.glob("*.races")):
            if p.stem != m and p.stem not in users[m]:
                shutil.copy(p, others / p.name)
        cand = base / "cand"
        cand.mkdir()
        shutil.copy(stdlib / f"{m}.races", cand / f"{m}.races")
        ctx = Context(Pool.open(base / "pool", seeds=(str(others),)), AdmitConfig())
        try:
            verdicts.extend(admit_files([str(cand / f"{m}.races")], ctx))
        finally:
            ctx.close()
        v = verdicts[-1]
        print(f"{'leave one out':15} {m + '.races':22} {v.gate or 'admitted':12} {v.seconds:6.1f} s  {v.reason[:110]}",
              flush=True)
    return verdicts


# Synthesised pool environments: (input type, output type, body with {a} {b} {m}) — shapes the
# stdlib has (Int, Str, List[Int]), constants varied per environment so no two are alike.
TEMPLATES = (
    ("Int where 0 <= it <= 500", "Int where 0 <= it <= {m1}", "return (n * {a} + {b}) % {m}",
     "Multiply n by {a}, add {b} and return the remainder of the result divided by {m}."),
    ("Int where 0 <= it <= 500", "Int where 0 <= it <= {m1}", "return (n // {a} + n % {a} * {b}) % {m}",
     "Split n into n // {a} and n % {a}; return (n // {a} + {b} times n % {a}) modulo {m}."),
    ("List[Int where 0 <= it <= 9] where 1 <= len(it) <= 8", "Int where 0 <= it <= {m1}",
     "return sum(x * {a} + {b} for x in n) % {m}",
     "Replace every number x of the list n by {a}x + {b}, add them up and return the sum modulo {m}."),
    ("List[Int where 0 <= it <= 9] where 1 <= len(it) <= 8", "List[Int where 0 <= it <= {m1}]",
     "return [(x * {a} + {b}) % {m} for x in n]",
     "Map every number x of the list n to ({a}x + {b}) modulo {m}, keeping the order."),
    ("Str where 1 <= len(it) <= 10 and it.isalpha() and it.islower()",
     "Str where 1 <= len(it) <= 10 and it.isalpha() and it.islower()",
     "return \"\".join(chr((ord(c) - 97 + {a} * i + {b}) % 26 + 97) for i, c in enumerate(n))",
     "Shift the letter at position i (from 0) of the word n forward by {a}i + {b} places, wrapping z to a."),
)


def synthetic_modules(count: int) -> dict[str, str]:
    """`count` distinct stdlib-like environments as modules of ten: name → text."""
    out: dict[str, str] = {}
    k = 0
    while k < count:
        mod = f"synth_{k // 10:04d}"
        parts = [f"module {mod}\n"]
        for _ in range(min(10, count - k)):
            t_in, t_out, body, doc = TEMPLATES[k % len(TEMPLATES)]
            a, b, m = 2 + k % 7, 1 + (k // 7) % 11, 13 + k // 77
            fill = {"a": a, "b": b, "m": m, "m1": m - 1}
            parts.append(f"env synth_{k:04d}(n: {t_in}) -> {t_out.format(**fill)}:\n"
                         f"    \"\"\"{doc.format(**fill)}\"\"\"\n    {body.format(**fill)}\n")
            k += 1
        out[mod] = "\n".join(parts)
    return out


GROWTH_CANDIDATES = ("valid_alternating", "valid_weighted_digits", "valid_unscramble")


def growth(extras: list[int], n_cands: int, tmp: Path) -> tuple[list, dict]:
    """Seconds per candidate (and per gate) against the stdlib plus each of `extras` synthesised
    environments; the same candidates each time, judged without being admitted. Every pool
    is opened and warmed first, then each candidate is judged against the pools in turn, so a
    change in the machine's load falls on every size alike."""
    from racesl.admit.context import AdmitConfig, Context
    from racesl.admit.run import admit_text
    from racesl.pool import Pool

    cands = [ROOT / "tests" / "admit" / "candidates" / f"{c}.races" for c in GROWTH_CANDIDATES[:n_cands]]
    ctxs, rows = {}, {}
    try:
        for extra in extras:
            seeds: list = ["stdlib"]
            if extra:
                folder = tmp / f"synth_{extra}"
                folder.mkdir()
                for mod, text in synthetic_modules(extra).items():
                    (folder / f"{mod}.races").write_text(text, encoding="utf-8")
                seeds.append(str(folder))
            ctx = ctxs[extra] = Context(Pool.open(tmp / f"pool_{extra}", seeds=tuple(seeds)), AdmitConfig())
            t = time.perf_counter()
            ctx.warm()
            warm = time.perf_counter() - t
            rows[extra] = {"extra": extra, "pool_envs": len(ctx.pool_envs()), "warm_seconds": round(warm, 2),
                           "candidates": []}
            print(f"growth +{extra:5d}: {rows[extra]['pool_envs']} pool environments, warm {warm:.1f} s", flush=True)
        for c in cands:
            for extra in extras:
                v, out = admit_text(c.read_text(encoding="utf-8"), str(c), ctxs[extra])
                rows[extra]["candidates"].append({"candidate": c.stem, "gate": v.gate or "admitted",
                                                  "seconds": round(v.seconds, 3), "gates": out.timing})
                print(f"growth +{extra:5d} {c.stem:24} {v.gate or 'admitted':11} {v.seconds:6.1f} s  {out.timing}",
                      flush=True)
    finally:
        for ctx in ctxs.values():
            ctx.close()
    figures = []
    for extra in extras:
        r = rows[extra]
        r["seconds_per_candidate"] = round(sum(x["seconds"] for x in r["candidates"]) / len(r["candidates"]), 3)
        figures.append(figure(f"admit, pool of {r['pool_envs']} environments (stdlib + {extra}): seconds per "
                              "candidate", r["seconds_per_candidate"], "s"))
    base, last = rows[extras[0]]["seconds_per_candidate"], rows[extras[-1]]
    ratio = last["seconds_per_candidate"] / base if base else float("nan")
    figures.append(figure(f"admit, seconds per candidate at stdlib + {extras[-1]} over stdlib + {extras[0]}",
                          round(ratio, 2), "×", goal=2.0, op="<="))
    return figures, {"growth": [rows[e] for e in extras]}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only-loo", action="store_true", help="run only the leave-one-out round")
    ap.add_argument("--modules", default="", help="comma-separated stdlib modules for leave-one-out (default all)")
    ap.add_argument("--out", default=None, help="results name (benchmarks/results/NAME.json)")
    ap.add_argument("--growth", action="store_true", help="seconds per candidate against the pool's size")
    ap.add_argument("--extra", default="0,100,1000", help="--growth: synthesised environments added to the stdlib")
    ap.add_argument("--candidates", type=int, default=3, help="--growth: candidates judged at each size")
    args = ap.parse_args()
    started = time.perf_counter()
    if args.growth:
        with tempfile.TemporaryDirectory() as tmp:
            figures, details = growth([int(x) for x in args.extra.split(",")], args.candidates, Path(tmp))
        write_result(args.out or "admit_growth", figures, details, started)
        return
    args.out = args.out or "admit"
    from racesl import resources
    from racesl.admit.context import AdmitConfig, Context
    from racesl.admit.gates import GATES
    from racesl.admit.run import admit_files
    from racesl.pool import Pool

    stdlib = resources.stdlib_dir()
    modules = [m for m in args.modules.split(",") if m] or sorted(p.stem for p in stdlib.glob("*.races"))
    rounds, results = {}, []
    with tempfile.TemporaryDirectory() as tmp:
        results.append(("leave one out", leave_one_out(stdlib, modules, Path(tmp))))
        if args.only_loo:
            first = second = None
        else:
            first, second = _rounds(stdlib, Path(tmp), AdmitConfig, Context, admit_files, Pool)
            results += [("stdlib", first), ("perturbed copy", second)]
    figures = []
    for name, verdicts in results:
        funnel = Counter(v.gate or "admitted" for v in verdicts)
        rounds[name] = {"funnel": {g: funnel[g] for g in (*GATES, "admitted") if funnel[g]},
                        "verdicts": [v.to_json() for v in verdicts]}
        seconds = sum(v.seconds for v in verdicts) / len(verdicts)
        figures.append(figure(f"admit, {name}: seconds per candidate module", round(seconds, 2), "s"))
        figures.append(figure(f"admit, {name}: admitted", funnel["admitted"], f"of {len(verdicts)}",
                              goal=0 if name == "perturbed copy" else len(verdicts),
                              op="<=" if name == "perturbed copy" else ">="))
        if name != "leave one out":
            for v in verdicts:
                print(f"{name:15} {Path(v.file).name:22} {v.gate or 'admitted':12} {v.seconds:6.1f} s  "
                      f"{v.reason[:110]}")
    write_result(args.out, figures, {"rounds": rounds}, started)


def _rounds(stdlib: Path, tmp: Path, AdmitConfig, Context, admit_files, Pool):
    """The stdlib in import order into an empty pool, then the perturbed copies against it."""
    pool = Pool.open(tmp / "pool", seeds=())
    ctx = Context(pool, AdmitConfig())
    try:
        first = admit_files([str(stdlib / f"{m}.races") for m in ORDER], ctx)
        copies = tmp / "copies"
        copies.mkdir()
        for m in ORDER:
            (copies / f"{m}_copy.races").write_text(perturbed((stdlib / f"{m}.races").read_text()))
        second = admit_files([str(copies / f"{m}_copy.races") for m in ORDER], ctx)
    finally:
        ctx.close()
    return first, second


if __name__ == "__main__":
    main()
