"""`racesc audit TASKS [--model PATH] [--n N] [--json]`: can a task set be gamed?

Per operator × size: the mean reward of strategies that skip solving (racesl.audit.shortcuts)
beside the chance of a uniform guess, the answers' entropy, the share of order-insensitive
sort tasks, and, with `--model`, a real model's accuracy. Exit 1 when a shortcut beats
chance by more than the margin, naming the environments (value answers) or chains (sort,
select) that carry it: the same verdict and exit code as `racesc compile`.
"""

from __future__ import annotations

import argparse


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("tasks", metavar="TASKS", help="task records (.jsonl or .parquet) from racesc compile")
    p.add_argument("--library", action="append", default=[], metavar="FILE",
                   help="a library sidecar (default: TASKS.library.json when present)")
    p.add_argument("--margin", type=float, default=0.05,
                   help="how far above chance a shortcut may score before it counts (default 0.05; "
                        "3 standard errors when larger)")
    p.add_argument("--model", metavar="PATH", help="a local transformers model to evaluate beside the shortcuts")
    p.add_argument("--n", type=int, default=300, help="tasks given to --model (default 300, drawn by --seed)")
    p.add_argument("--seed", type=int, default=0, help="which tasks --model gets")
    p.add_argument("--max-new-tokens", type=int, default=256, help="--model's completion length (default 256)")
    p.add_argument("--batch-size", type=int, default=8, help="--model's batch size (default 8)")
    p.add_argument("--json", action="store_true", help="print the table as one JSON object")


def model_sample(records: list[dict], n: int, seed: int) -> list[dict]:
    """n records drawn without replacement, the same for the same seed in every process."""
    from racesl.sample.seeding import item_rng

    picked = list(records)
    item_rng(seed, "audit-model").shuffle(picked)
    return picked[:n]


def execute(args) -> int:
    import json

    from racesl.audit import audit_records
    from racesl.cli.common import fail, need, stdout_console

    missing = args.model and need("racesc audit --model", "train", ("torch", "transformers"))
    if missing:
        return fail(missing)
    from racesl.records import RecordError, read_task_records
    from racesl.rewards.libraries import load_for_tasks

    if not 0 <= args.margin <= 1:
        return fail("--margin must be between 0 and 1")
    if args.n < 1 or args.max_new_tokens < 1 or args.batch_size < 1:
        return fail("--n, --max-new-tokens and --batch-size must be at least 1")
    try:  # every record checked as every reader of task files checks it: `FILE:N: why`
        records = read_task_records(args.tasks, prompts=bool(args.model))
    except RecordError as e:
        return fail(str(e))
    except OSError as e:
        return fail(f"cannot read tasks from {args.tasks}: {e.strerror or e}")
    if not records:
        return fail(f"{args.tasks} holds no task records")
    try:  # (--library, else TASKS.library.json beside the file a link names: one line for a bad one)
        load_for_tasks(args.tasks, args.library)
    except ValueError as e:
        return fail(str(e))
    answers = None
    if args.model:
        from racesl.audit.model import generate

        picked = model_sample(records, args.n, args.seed)
        completions = generate(args.model, [r["prompt"] for r in picked], max_new_tokens=args.max_new_tokens,
                               batch_size=args.batch_size)
        answers = {r["id"]: c for r, c in zip(picked, completions)}
    report = audit_records(records, args.margin, answers)
    if args.json:
        print(json.dumps(report.to_json(), ensure_ascii=False, indent=1))
    else:
        print_report(report, stdout_console())
    return 0 if report.ok else 1


def print_report(report, console) -> None:
    from rich.table import Table

    from racesl.audit.shortcuts import STRATEGIES

    names = [n for n in STRATEGIES if any(n in c.results for c in report.cells)]
    t = Table(title="mean reward of strategies that skip solving (! beats chance)")
    for col in ("operator", "size", "n", "chance", *names, "entropy", "orders>½"):
        t.add_column(col, justify="left" if col == "operator" else "right")
    with_model = any(c.model is not None for c in report.cells)
    if with_model:
        t.add_column("model", justify="right")
    for c in report.cells:
        row = [c.operator, str(c.size), str(c.n), f"{c.chance:.3f}"]
        for name in names:
            r = c.results.get(name)
            row.append("" if r is None else (f"[red]{r.mean:.3f}![/]" if r.beats else f"{r.mean:.3f}"))
        row.append(f"{c.entropy:.1f}/{c.max_entropy:.1f}")
        row.append("" if c.order_insensitive is None else f"{c.order_insensitive:.2f}")
        if with_model:
            row.append("" if c.model is None else f"{c.model:.3f}")
        t.add_row(*row)
    console.print(t)
    for c in report.cells:  # where each shortcut's reward comes from: environments, or chains for sort/select
        for name in c.beaten:
            carriers = ", ".join(f"{k.name} (in {k.n}, +{k.excess:.2f} tasks)" for k in c.results[name].carriers)
            console.print(f"{c.operator} {c.size} {name}: carried by {carriers or 'no one environment'}",
                          markup=False, highlight=False)
    console.print(report.verdict())
