"""`racesc score TASKS COMPLETIONS [-o SCORES] [--json]`: score `{"id", "completion"}` rows.

COMPLETIONS is a JSONL file, or `-` for standard input. Each non-blank line gets one row
`{"id", "score", "status", "detail"}` (see `racesl.rewards.verdict`), in order, written to
SCORES with `-o` (`-o -`: to stdout, the summary then to stderr). The summary gives the
mean score by operator and size and how many completions had each status: rich tables, or
with `--json` one JSON object (docs/compile.md). A line that cannot be read (or names no
task) is reported by its line number on stderr and gets a row with score 0 and status
`error`, which the summary counts like every row it writes (its mean and status table are
those of the rows); a completion that is not text still scores 0, with a status. No input
line can stop the command: the process may be part of a training pipeline."""

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


MAX_LINE = 16 << 20  # bytes of one COMPLETIONS line; a longer one is unreadable, skipped without being held


def _lines(f):
    """(line number, bytes) of each line of f; None for the bytes of a line over MAX_LINE,
    which is read past in pieces (so a line without end cannot fill the memory)."""
    n = 0
    while True:
        raw = f.readline(MAX_LINE + 1)
        if not raw:
            return
        n += 1
        if len(raw) > MAX_LINE:
            while raw and not raw.endswith(b"\n"):
                raw = f.readline(1 << 20)
            yield n, None
        else:
            yield n, raw


class Unreadable(tuple):
    """(id or None, why) of a line that cannot be scored."""

    def __new__(cls, rid, why: str):
        return super().__new__(cls, (rid, why))


def _read_line(raw: bytes | None):
    """(id, completion), None for a blank line, or Unreadable(id or None, why): the id
    when the line names one that can be written back."""
    import json

    from racesl.userfiles import no_constant

    if raw is None:
        return Unreadable(None, f"line over {MAX_LINE >> 20} MiB")
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        return Unreadable(None, f"not UTF-8 (byte {e.start + 1})")
    if not line.strip():
        return None
    try:
        row = json.loads(line, parse_constant=no_constant)
    except RecursionError:
        return Unreadable(None, "not JSON: nested too deeply")
    except ValueError as e:  # (a JSONDecodeError, NaN or Infinity, an int past the digit limit)
        if isinstance(e, json.JSONDecodeError):
            return Unreadable(None, f"not JSON: {e.msg} (column {e.colno})")
        why = "a number with too many digits" if "digits" in str(e) else _short(str(e))
        return Unreadable(None, f"not JSON: {why}")
    if not isinstance(row, dict):
        return Unreadable(None, f"not a JSON object but {_JSON_NAMES.get(type(row), 'a value')}")
    rid = row.get("id")
    good_id = isinstance(rid, (str, int)) and not isinstance(rid, bool)
    missing = [k for k in ("id", "completion") if k not in row]
    if missing:
        return Unreadable(rid if good_id else None, "no " + " and no ".join(f'"{k}"' for k in missing))
    if not good_id:
        return Unreadable(None, f'"id" is {_JSON_NAMES.get(type(rid), "a value")}, not a string')
    return rid, row["completion"]  # any completion: verdict scores junk 0, with a status


_JSON_NAMES = {dict: "an object", list: "an array", str: "a string", int: "a number", float: "a number",
               bool: "a boolean", type(None): "null"}


def _short(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _writable(value):
    """value, or a str UTF-8 cannot encode (a lone surrogate, from a JSON escape) written
    with backslash escapes instead: every row can be written."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return value.encode("utf-8", "backslashreplace").decode("utf-8")
    return value


def summary_json(rows: list[dict], records: dict, *, unknown: int, unreadable: list[int],
                 output: str | None, written: list[dict] | None = None) -> dict:
    """The `--json` summary of `racesc score` (its keys: docs/compile.md). `rows`: the
    judged completions (the cells); `written`: every row the command writes, in order (the
    count, the mean and the statuses: a line naming no task, or unreadable, is a row with
    score 0 and status `error`, so the summary says what the rows say)."""
    from collections import defaultdict

    from racesl.rewards import STATUSES

    acc = defaultdict(list)
    for r in rows:
        rec = records[r["id"]]
        size = rec.get("size")
        size = size if isinstance(size, (int, str)) else repr(size)  # (an edited record's size: any JSON)
        acc[(str(rec.get("operator")), size)].append(r["score"])
    every = rows if written is None else written
    statuses = dict.fromkeys(STATUSES, 0)
    for r in every:
        statuses[r["status"]] += 1
    return {
        "command": "score",
        "n": len(every),
        "judged": len(rows),
        "mean": sum(r["score"] for r in every) / len(every) if every else None,
        "cells": [{"operator": op, "size": size, "n": len(xs), "mean": sum(xs) / len(xs)}
                  for (op, size), xs in sorted(acc.items(), key=_cell_order)],
        "statuses": statuses,
        "unknown_ids": unknown,
        "unreadable": len(unreadable),
        "unreadable_lines": unreadable,
        "output": output,
    }


def _cell_order(item):
    """Cells by operator, then size (a size that is no int, from an edited record, last)."""
    (op, size), _ = item
    if isinstance(size, int) and not isinstance(size, bool):
        return op, 0, size, ""
    return op, 1, 0, repr(size)


def _tasks(path: str) -> dict:
    """{id: record} of the tasks file; RecordError (`FILE:N: why`, as every reader of task
    files says it: racesl.records.read_task_records) or OSError."""
    from racesl.records import read_task_records

    return {r["id"]: r for r in read_task_records(path, prompts=False)}  # (no model reads the prompts)


def execute(args) -> int:
    import sys

    from rich.table import Table

    from rich.markup import escape

    from racesl.cli.common import fail, stderr_console, stdout_console
    from racesl.cli.summary import print_json
    from racesl.records import dumps, write_jsonl
    from racesl.rewards import verdict
    from racesl.rewards.libraries import load_for_tasks
    from racesl.text import plural

    err = stderr_console()
    if args.json and args.output == "-":
        return fail("--json and -o - would both write to stdout: give -o a file")
    from racesl.output import refusal, sidecars

    why = refusal(args.output, stdout=True,  # (before any work: a folder, a FIFO, a read-only file, an input)
                  inputs=[args.tasks, args.completions, *args.library, *sidecars(args.tasks)])
    if why:
        return fail(why)
    from racesl.records import RecordError

    try:
        records = _tasks(args.tasks)
    except RecordError as e:
        return fail(str(e))
    except OSError as e:
        return fail(f"cannot read tasks from {args.tasks}: {e.strerror or e}")
    try:  # (--library, else TASKS.library.json beside the file a link names: one line for a bad one)
        load_for_tasks(args.tasks, args.library)
    except ValueError as e:
        return fail(str(e))
    rows = []  # the judged completions
    out_rows = []  # one per non-blank line, in order: what -o writes
    unknown = 0
    unreadable: list[int] = []
    name = "<stdin>" if args.completions == "-" else args.completions
    try:
        f = sys.stdin.buffer if args.completions == "-" else open(args.completions, "rb")
    except OSError as e:
        return fail(f"cannot read completions from {args.completions}: {e.strerror}")

    def bad(n: int, rid, why: str) -> None:
        if len(unreadable) <= SHOWN_LINES:
            err.print(f"{name}:{n}: {why}", markup=False, highlight=False)
        out_rows.append({"id": rid, "score": 0.0, "status": "error", "detail": f"line {n}: {why}"})

    with f:
        for n, raw in _lines(f):
            got = _read_line(raw)
            if got is None:
                continue
            rid, completion = got
            if isinstance(got, Unreadable):
                unreadable.append(n)
                bad(n, _writable(rid), completion)
                continue
            rec = records.get(rid)
            if rec is None:
                unknown += 1
                out_rows.append({"id": _writable(rid), "score": 0.0, "status": "error",
                                 "detail": _writable(f"line {n}: no task with this id in {args.tasks}")})
                continue
            v = verdict(rec, completion)
            row = {"id": rid, "score": v.score, "status": v.status, "detail": _writable(v.detail)}
            rows.append(row)
            out_rows.append(row)
    if len(unreadable) > SHOWN_LINES:
        err.print(f"{escape(name)}: and {plural(len(unreadable) - SHOWN_LINES, 'more unreadable line')}")
    if args.output == "-":
        for r in out_rows:
            print(dumps(r))
        sys.stdout.flush()
    elif args.output:
        write_jsonl(out_rows, args.output)
    summary = summary_json(rows, records, unknown=unknown, unreadable=unreadable, output=args.output,
                           written=out_rows)
    if args.json:
        print_json(summary)
    else:
        out = err if args.output == "-" else stdout_console()
        mean = "" if summary["mean"] is None else f": {summary['mean']:.3f}"
        n = summary["n"]
        apart = n - summary["judged"]  # rows of lines naming no task, or unreadable: error, 0
        t = Table(title=f"mean score of {plural(n, 'completion')}{mean}"
                        + (f" ({apart} not judged: error, scored 0)" if apart else ""))
        t.add_column("operator")
        t.add_column("size", justify="right")
        t.add_column("n", justify="right")
        t.add_column("mean", justify="right")
        for c in summary["cells"]:
            t.add_row(c["operator"], str(c["size"]), str(c["n"]), f"{c['mean']:.3f}")
        out.print(t)
        st = Table(title=f"status of {plural(n, 'completion')}")
        st.add_column("status")
        st.add_column("n", justify="right")
        st.add_column("share", justify="right")
        for status, k in summary["statuses"].items():
            st.add_row(status, str(k), f"{k / n:.3f}" if n else "-")
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
