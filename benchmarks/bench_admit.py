"""`racesc admit` over the stdlib itself: its modules as candidates into an empty pool, then a
perturbed copy of each (every environment and helper renamed, comments dropped) against
the pool they built, then (round "leave one out") every stdlib module against a pool whose
seeds are the other stdlib modules: the new gates must refuse none that today's admit.
Reports the funnel of each round and seconds per candidate. Writes
benchmarks/results/admit.json.

    .venv/bin/python benchmarks/bench_admit.py [--only-loo] [--modules a,b,...]

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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only-loo", action="store_true", help="run only the leave-one-out round")
    ap.add_argument("--modules", default="", help="comma-separated stdlib modules for leave-one-out (default all)")
    ap.add_argument("--out", default="admit", help="results name (benchmarks/results/NAME.json)")
    args = ap.parse_args()
    started = time.perf_counter()
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
