"""`racesc score TASKS COMPLETIONS [-o SCORES]`: score `{"id", "completion"}` rows."""

from __future__ import annotations

import argparse


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("tasks", metavar="TASKS", help="task records (.jsonl or .parquet)")
    p.add_argument("completions", metavar="COMPLETIONS", help='JSONL of {"id": ..., "completion": ...}')
    p.add_argument("-o", "--output", metavar="SCORES", help='write {"id", "score"} rows here (JSONL)')
    p.add_argument("--library", action="append", default=[], metavar="FILE",
                   help="a library sidecar (default: TASKS.library.json when present)")


def execute(args) -> int:
    import json
    from collections import defaultdict
    from pathlib import Path

    from rich.table import Table

    from racesl.cli.common import fail, stderr_console, stdout_console
    from racesl.records import dumps, read_records, write_jsonl
    from racesl.rewards import load_sidecar, score

    err = stderr_console()
    try:
        records = {r["id"]: r for r in read_records(args.tasks)}
    except (OSError, ValueError, KeyError) as e:
        return fail(f"cannot read tasks from {args.tasks}: {e}")
    sidecars = list(args.library) or ([args.tasks + ".library.json"] if Path(args.tasks + ".library.json").exists() else [])
    for s in sidecars:
        try:
            load_sidecar(s)
        except (OSError, ValueError, KeyError) as e:
            return fail(f"cannot load library {s}: {e}")
    rows = []
    missing = bad = 0
    try:
        f = open(args.completions, "rb")
    except OSError as e:
        return fail(f"cannot read completions from {args.completions}: {e.strerror}")
    with f:
        for n, raw in enumerate(f, 1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                bad += 1
                continue
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                rid, completion = row["id"], row["completion"]
            except (ValueError, KeyError, TypeError):
                bad += 1
                continue
            rec = records.get(rid)
            if rec is None:
                missing += 1
                continue
            rows.append({"id": rid, "score": score(rec, completion)})
    if args.output:
        write_jsonl(rows, args.output)
    else:
        for r in rows:
            print(dumps(r))
    acc = defaultdict(list)
    for r in rows:
        rec = records[r["id"]]
        acc[(rec["operator"], rec["size"])].append(r["score"])
    t = Table(title=f"mean score of {len(rows)} completions")
    t.add_column("operator")
    t.add_column("size", justify="right")
    t.add_column("n", justify="right")
    t.add_column("mean", justify="right")
    for (op, size), xs in sorted(acc.items()):
        t.add_row(op, str(size), str(len(xs)), f"{sum(xs) / len(xs):.3f}")
    (stdout_console() if args.output else err).print(t)
    if missing or bad:
        err.print(f"[yellow]warning:[/] {missing} completions name unknown tasks, {bad} lines were unreadable")
    return 0
