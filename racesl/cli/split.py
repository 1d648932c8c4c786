"""`racesc split check TRAIN TEST`: verify that two task files are the two parts of one
held-out split (racesl.search.holdout): both sidecars record the same SPEC, seed and held-out
environments and pairs, no train task shows anything held out, every test task does, and no
task is in both. Exit 0 with a one-line summary, 1 with one line per problem, 2 with one
`racesc: error: FILE: …` line for a file that cannot be read (no split recorded, a sidecar
or record of the wrong shape, a FIFO or folder where a file belongs).

TRAIN and TEST may be JSONL or Parquet task files (sidecar `FILE.library.json`) or `--format
hf` folders (sidecar `DIR/library.json`, rows read with `datasets`, the hf extra). Every
sidecar is read by racesl.userfiles and schema-checked (`holdout.recorded`)."""

from __future__ import annotations

import argparse
import os
import sys

SHOWN = 20  # problems listed before the count of the rest


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    c = sub.add_parser("check", help="verify that TRAIN and TEST are the two parts of one --holdout split")
    c.add_argument("train", metavar="TRAIN", help="the task file (or --format hf folder) compiled with --part train")
    c.add_argument("test", metavar="TEST", help="the task file (or --format hf folder) compiled with --part test")


class _Unreadable(ValueError):
    """A TRAIN or TEST that cannot be read: one line, `FILE: why`."""


def _hf_rows(path: str) -> list[dict]:
    """The records of a `--format hf` folder (racesl.integrations.hf: `save_to_disk` files
    and library.json). Every entry must be a regular file first: `datasets` would open a
    FIFO and wait on it forever."""
    from racesl.cli.common import need
    from racesl.records import record_problem
    from racesl.userfiles import regular

    try:
        entries = sorted(os.listdir(path))
    except OSError as e:
        raise _Unreadable(f"{path}: {e.strerror or e}") from None
    for entry in entries:
        regular(os.path.join(path, entry), what="file of an hf dataset folder")
    missing = need(f"racesc split check {path} (a --format hf folder)", "hf")
    if missing:
        raise _Unreadable(missing)
    import datasets

    from racesl.integrations.hf import to_record

    datasets.disable_progress_bars()
    try:
        ds = datasets.load_from_disk(path)
        rows = [to_record(row) for row in ds]
    except Exception as e:  # noqa: BLE001 - datasets and pyarrow raise many kinds; a user's folder is one line
        why = " ".join(str(e).split())[:200] or type(e).__name__
        raise _Unreadable(f"{path}: not a task dataset folder: {why}") from None
    for n, r in enumerate(rows, 1):
        why = record_problem(r)
        if why:
            raise _Unreadable(f"{path}:{n}: {why}")
    return rows


def _rows(path: str) -> list[dict]:
    from racesl.records import RecordError, read_task_records

    if os.path.isdir(path):
        return _hf_rows(path)
    try:
        return read_task_records(path, prompts=True)
    except RecordError as e:
        raise _Unreadable(str(e)) from None
    except OSError as e:
        raise _Unreadable(f"{path}: {e.strerror or e}") from None


def _read(path: str):
    """(Split, rows) of one side, every row's split fields checked; _Unreadable otherwise."""
    from racesl.search.holdout import RecordShapeError, recorded
    from racesl.userfiles import UserFileError

    try:
        rows = _rows(path)  # (a FIFO, a device or a folder that is no dataset: refused, never opened)
        split = recorded(path)
    except UserFileError as e:
        raise _Unreadable(str(e)) from None
    for n, r in enumerate(rows, 1):
        try:
            split.held(r)
        except RecordShapeError as e:
            raise _Unreadable(f"{path}:{n}: {e}") from None
    return split, rows


def execute(args) -> int:
    from racesl.search.holdout import verify

    splits, rows = [], []
    for path in (args.train, args.test):
        try:
            s, r = _read(path)
        except _Unreadable as e:
            print(f"racesc: error: {e}", file=sys.stderr)
            return 2
        splits.append(s)
        rows.append(r)
    problems = verify(splits[0], splits[1], rows[0], rows[1], names=(args.train, args.test))
    if problems:
        for line in problems[:SHOWN]:
            print(line)
        if len(problems) > SHOWN:
            print(f"... and {len(problems) - SHOWN} more")
        print(f"racesc: not a split: {len(problems)} problem{'s' if len(problems) != 1 else ''}", file=sys.stderr)
        return 1
    s = splits[0]
    print(f"ok: {len(rows[0])} train and {len(rows[1])} test tasks are the two parts of holdout {s.spec} "
          f"(seed {s.seed}: {len(s.envs)} environments, {len(s.pairs)} pairs held out)")
    return 0
