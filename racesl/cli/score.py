"""`racesc score TASKS COMPLETIONS [-o SCORES] [--json]`: score `{"id", "completion"}` rows.

COMPLETIONS is a JSONL file, or `-` for standard input. Each row gets `{"id", "score",
"status", "detail"}` (see `racesl.rewards.verdict`), written to SCORES with `-o` (`-o -`:
to stdout, the summary then to stderr). The summary gives the mean score by operator and
size and how many completions had each status: rich tables, or with `--json` one JSON
object (docs/compile.md). A line that cannot be read is reported by its line number on
stderr and counted; a completion that is not text still scores 0, with a status."""

from __future__ import annotations

import argparse

SHOWN_LINES = 5  # unreadable lines reported one by one; the rest are counted


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("tasks", metavar="TASKS", help="task records (.jsonl or .parquet)")
    p.add_argument("completions", metavar="COMPLETIONS",
                   help='JSONL of {"id": ..., "completion": ...}; - for standard input')
    p.add_argument("-o", "--output", metavar="SCORES",
                   help='write {"id", "score", "status", "detail"} rows here (JSONL; - for stdout)')
    p.add_argument("--library", action="append", default=[], metavar="FILE",
                   help="a library sidecar (default: TASKS.library.json when present)")
    p.add_argument("--json", action="store_true",
                   help="print the summary as one JSON object on stdout instead of tables")


def _read_line(raw: bytes):
    """(id, completion), None for a blank line, or a str saying why the line is unreadable."""
    import json

    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        return f"not UTF-8 (byte {e.start + 1})"
    if not line.strip():
        return None
    try:
        row = json.loads(line)
    except ValueError as e:
        return f"not JSON: {getattr(e, 'msg', str(e))} (column {getattr(e, 'colno', '?')})"
    if not isinstance(row, dict):
        return f"not a JSON object but {'an array' if isinstance(row, list) else type(row).__name__}"
    missing = [k for k in ("id", "completion") if k not in row]
    if missing:
        return "no " + " and no ".join(f'"{k}"' for k in missing)
    if not isinstance(row["id"], (str, int)) or isinstance(row["id"], bool):
        return f'"id" is {type(row["id"]).__name__}, not a string'
    return row["id"], row["completion"]  # any completion: verdict scores junk 0, with a status


def summary_json(rows: list[dict], records: dict, *, unknown: int, unreadable: list[int],
                 output: str | None) -> dict:
    """The `--json` summary of `racesc score` (its keys: docs/compile.md)."""
    from collections import defaultdict

    from racesl.rewards import STATUSES

    acc = defaultdict(list)
    for r in rows:
        rec = records[r["id"]]
        acc[(rec["operator"], rec["size"])].append(r["score"])
    statuses = dict.fromkeys(STATUSES, 0)
    for r in rows:
        statuses[r["status"]] += 1
    return {
        "command": "score",
        "n": len(rows),
        "mean": sum(r["score"] for r in rows) / len(rows) if rows else None,
        "cells": [{"operator": op, "size": size, "n": len(xs), "mean": sum(xs) / len(xs)}
                  for (op, size), xs in sorted(acc.items())],
        "statuses": statuses,
        "unknown_ids": unknown,
        "unreadable": len(unreadable),
        "unreadable_lines": unreadable,
        "output": output,
    }


def execute(args) -> int:
    import sys
    from pathlib import Path

    from rich.table import Table

    from rich.markup import escape

    from racesl.cli.common import fail, stderr_console, stdout_console
    from racesl.cli.summary import print_json
    from racesl.records import dumps, read_records, write_jsonl
    from racesl.rewards import load_sidecar, verdict
    from racesl.text import plural

    err = stderr_console()
    if args.json and args.output == "-":
        return fail("--json and -o - would both write to stdout: give -o a file")
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
    unknown = 0
    unreadable: list[int] = []
    name = "<stdin>" if args.completions == "-" else args.completions
    try:
        f = sys.stdin.buffer if args.completions == "-" else open(args.completions, "rb")
    except OSError as e:
        return fail(f"cannot read completions from {args.completions}: {e.strerror}")
    with f:
        for n, raw in enumerate(f, 1):
            got = _read_line(raw)
            if got is None:
                continue
            if isinstance(got, str):
                unreadable.append(n)
                if len(unreadable) <= SHOWN_LINES:
                    err.print(f"{name}:{n}: {got}", markup=False)
                continue
            rid, completion = got
            rec = records.get(rid)
            if rec is None:
                unknown += 1
                continue
            v = verdict(rec, completion)
            rows.append({"id": rid, "score": v.score, "status": v.status, "detail": v.detail})
    if len(unreadable) > SHOWN_LINES:
        err.print(f"{escape(name)}: and {plural(len(unreadable) - SHOWN_LINES, 'more unreadable line')}")
    if args.output == "-":
        for r in rows:
            print(dumps(r))
        sys.stdout.flush()
    elif args.output:
        write_jsonl(rows, args.output)
    summary = summary_json(rows, records, unknown=unknown, unreadable=unreadable, output=args.output)
    if args.json:
        print_json(summary)
    else:
        out = err if args.output == "-" else stdout_console()
        mean = "" if summary["mean"] is None else f": {summary['mean']:.3f}"
        t = Table(title=f"mean score of {plural(len(rows), 'completion')}{mean}")
        t.add_column("operator")
        t.add_column("size", justify="right")
        t.add_column("n", justify="right")
        t.add_column("mean", justify="right")
        for c in summary["cells"]:
            t.add_row(c["operator"], str(c["size"]), str(c["n"]), f"{c['mean']:.3f}")
        out.print(t)
        st = Table(title=f"status of {plural(len(rows), 'completion')}")
        st.add_column("status")
        st.add_column("n", justify="right")
        st.add_column("share", justify="right")
        for status, k in summary["statuses"].items():
            st.add_row(status, str(k), f"{k / len(rows):.3f}" if rows else "-")
        out.print(st)
    lost = summary["statuses"]["library_missing"]
    if lost:
        err.print(f"[yellow]warning:[/] {plural(lost, 'completion')} could not be judged: their library "
                  "was not found (pass --library FILE, or set RACESL_LIBRARY_PATH)")
    if unknown:
        err.print(f"[yellow]warning:[/] {plural(unknown, 'completion')} named no task in {escape(args.tasks)}",
                  highlight=False)
    if unreadable:
        err.print(f"[yellow]warning:[/] {plural(len(unreadable), 'line')} of {escape(name)} could not be read",
                  highlight=False)
    return 0
