"""`racesc admit` over the stdlib itself: its modules as candidates into an empty pool, then a
perturbed copy of each (every environment and helper renamed, comments dropped) against
the pool they built. Reports the funnel of each round and seconds per candidate. Writes
benchmarks/results/admit.json.

    .venv/bin/python benchmarks/bench_admit.py

The stdlib modules go in their import order (numbers first), so each finds what it imports
already admitted. Every module of the first round should be admitted, every copy of the
second rejected — at novelty, or earlier where renaming alone broke something.
"""

from __future__ import annotations

import re
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


def main() -> None:
    started = time.perf_counter()
    from racesl import resources
    from racesl.admit.context import AdmitConfig, Context
    from racesl.admit.gates import GATES
    from racesl.admit.run import admit_files
    from racesl.pool import Pool

    stdlib = resources.stdlib_dir()
    rounds = {}
    with tempfile.TemporaryDirectory() as tmp:
        pool = Pool.open(Path(tmp) / "pool", seeds=())
        ctx = Context(pool, AdmitConfig())
        try:
            first = admit_files([str(stdlib / f"{m}.races") for m in ORDER], ctx)
            copies = Path(tmp) / "copies"
            copies.mkdir()
            for m in ORDER:
                (copies / f"{m}_copy.races").write_text(perturbed((stdlib / f"{m}.races").read_text()))
            second = admit_files([str(copies / f"{m}_copy.races") for m in ORDER], ctx)
        finally:
            ctx.close()
    figures = []
    for name, verdicts in (("stdlib", first), ("perturbed copy", second)):
        funnel = Counter(v.gate or "admitted" for v in verdicts)
        rounds[name] = {"funnel": {g: funnel[g] for g in (*GATES, "admitted") if funnel[g]},
                        "verdicts": [v.to_json() for v in verdicts]}
        seconds = sum(v.seconds for v in verdicts) / len(verdicts)
        figures.append(figure(f"admit, {name}: seconds per candidate module", round(seconds, 2), "s"))
        figures.append(figure(f"admit, {name}: admitted", funnel["admitted"], f"of {len(verdicts)}",
                              goal=len(verdicts) if name == "stdlib" else 0,
                              op=">=" if name == "stdlib" else "<="))
        for v in verdicts:
            print(f"{name:15} {Path(v.file).name:22} {v.gate or 'admitted':12} {v.seconds:6.1f} s  {v.reason[:110]}")
    write_result("admit", figures, {"rounds": rounds}, started)


if __name__ == "__main__":
    main()
