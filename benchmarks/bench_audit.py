"""The shortcut audit of the stdlib tasks, with a real small model beside the shortcuts.

Compiles 6,000 stdlib tasks (seed 0), runs `racesc audit`'s shortcut strategies on all of
them, and gives SmolLM2-135M-Instruct (prepared offline by benchmarks/smollm2.py) the
prompts of 300 of them. Writes benchmarks/results/audit.json and the per-cell table as
benchmarks/results/audit.md.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/smollm2.py      # once: out/smollm2-135m
    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_audit.py [--model DIR] [--n 300] [--max-new-tokens 128]

About 6.5 s of one CPU thread per task at 128 new tokens (35 minutes for 300).
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
import time
from pathlib import Path

from _common import RESULTS, ROOT, figure, write_result


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default=str(ROOT / "out" / "smollm2-135m"))
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--tasks", type=int, default=6000)
    ap.add_argument("--max-new-tokens", type=int, default=128)
    ap.add_argument("--batch-size", type=int, default=8)
    args = ap.parse_args()
    started = time.perf_counter()

    from rich.console import Console

    from racesl.audit import audit_records
    from racesl.audit.model import generate
    from racesl.cli.audit import model_sample, print_report
    from racesl.cli.main import main as racesc
    from racesl.records import read_records
    from racesl.rewards import load_sidecar

    with tempfile.TemporaryDirectory() as tmp:
        out = str(Path(tmp) / "tasks.jsonl")
        rc = racesc(["compile", str(ROOT / "stdlib"), "-n", str(args.tasks), "--seed", "0", "-o", out, "-q"])
        if rc:
            sys.exit(f"compile failed ({rc})")
        records = read_records(out)
        load_sidecar(out + ".library.json")
    shortcuts = audit_records(records)
    picked = model_sample(records, args.n, 0)
    t0 = time.perf_counter()
    completions = generate(args.model, [r["prompt"] for r in picked], max_new_tokens=args.max_new_tokens,
                           batch_size=args.batch_size)
    gen_seconds = time.perf_counter() - t0
    answers = {r["id"]: c for r, c in zip(picked, completions)}
    report = audit_records(records, answers=answers)

    from racesl.rewards import score

    accuracy = sum(score(r, answers[r["id"]]) for r in picked) / len(picked)
    tagged = sum("<answer>" in c and "</answer>" in c for c in completions) / len(completions)
    excess = max(r.mean - c.chance for c in shortcuts.cells for r in c.results.values())
    buf = io.StringIO()
    print_report(report, Console(file=buf, width=1000, no_color=True, highlight=False))
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "audit.md").write_text(
        f"# Shortcut audit of {len(records)} stdlib tasks; SmolLM2-135M-Instruct on {len(picked)} of them\n\n"
        f"greedy, {args.max_new_tokens} new tokens, CPU; `model` is the mean reward in each cell "
        f"(empty where none of the {len(picked)} fell)\n\n```\n{buf.getvalue()}```\n", encoding="utf-8")
    figures = [
        figure("shortcut audit verdict, 6,000 stdlib tasks (1 = no shortcut beats chance)", float(shortcuts.ok), "",
               1.0, ">="),
        figure("largest shortcut mean minus chance in any operator x size cell", excess, "", 0.05, "<="),
        figure("sort tasks of size <= 4 that more than half of all orders solve",
               100 * (shortcuts.order_insensitive_share() or 0.0), "%", 5.0, "<="),
        figure(f"SmolLM2-135M-Instruct mean reward, {len(picked)} stdlib tasks ({args.max_new_tokens} new tokens)",
               accuracy, ""),
        figure("SmolLM2 completions with an `<answer>` block", 100 * tagged, "%"),
        figure("SmolLM2 generation, seconds per task (CPU, greedy)", gen_seconds / len(picked), "s"),
    ]
    details = {"verdict": shortcuts.verdict(), "report": report.to_json(),
               "samples": [{"id": r["id"], "operator": r["operator"], "size": r["size"],
                            "completion": answers[r["id"]][:400]} for r in picked[:12]]}
    print(write_result("audit", figures, details, started))


if __name__ == "__main__":
    main()
