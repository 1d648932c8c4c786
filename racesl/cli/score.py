"""`racesc score TASKS COMPLETIONS [-o SCORES]`: score `{"id", "completion"}` rows.

Each row gets `{"id", "score", "status", "detail"}` (see `racesl.rewards.verdict`); the
summary gives the mean score by operator and size, and how many completions had each
status."""

from __future__ import annotations

import argparse


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("tasks", metavar="TASKS", help="task records (.jsonl or .parquet)")
    p.add_argument("completions", metavar="COMPLETIONS", help='JSONL of {"id": ..., "completion": ...}')
    p.add_argument("-o", "--output", metavar="SCORES",
                   help='write {"id", "score", "status", "detail"} rows here (JSONL)')
    p.add_argument("--library", action="append", default=[], metavar="FILE",
                   help="a library sidecar (default: TASKS.library.json when present)")


def execute(args) -> int:
    import json
    from collections import defaultdict
    from pathlib import Path

    from rich.table import Table

    from racesl.cli.common import fail, stderr_console, stdout_console
    from racesl.records import dumps, read_records, write_jsonl
    from racesl.rewards import STATUSES, load_sidecar, verdict

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
            v = verdict(rec, completion)
            rows.append({"id": rid, "score": v.score, "status": v.status, "detail": v.detail})
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
    out = stdout_console() if args.output else err
    out.print(t)
    counts = dict.fromkeys(STATUSES, 0)
    for r in rows:
        counts[r["status"]] += 1
    st = Table(title=f"status of {len(rows)} completions")
    st.add_column("status")
    st.add_column("n", justify="right")
    st.add_column("share", justify="right")
    for status, n in counts.items():
        st.add_row(status, str(n), f"{n / len(rows):.3f}" if rows else "-")
    out.print(st)
    if counts["library_missing"]:
        err.print(f"[yellow]warning:[/] {counts['library_missing']} completions could not be judged: their library "
                  "was not found (pass --library FILE, or set RACESL_LIBRARY_PATH)")
    if missing or bad:
        err.print(f"[yellow]warning:[/] {missing} completions name unknown tasks, {bad} lines were unreadable")
    return 0
