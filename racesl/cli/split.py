"""`racesc split check TRAIN TEST`: verify that two task files are the two parts of one
held-out split (racesl.search.holdout): both sidecars record the same SPEC, seed and held-out
environments and pairs, no train task shows anything held out, every test task does, and no
task is in both. Exit 0 with a one-line summary, 1 with one line per problem."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

SHOWN = 20  # problems listed before the count of the rest


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    c = sub.add_parser("check", help="verify that TRAIN and TEST are the two parts of one --holdout split")
    c.add_argument("train", metavar="TRAIN", help="the task file compiled with --part train")
    c.add_argument("test", metavar="TEST", help="the task file compiled with --part test")


def _split(path: str):
    """The Split recorded in a task file's sidecar, or a one-line reason why there is none."""
    from racesl.search.config import ConfigError
    from racesl.search.holdout import Split

    side = Path(path + ".library.json")
    try:
        data = json.loads(side.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return f"{path}: no sidecar {side.name} beside it (compile writes one)"
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        return f"{side}: not readable ({getattr(e, 'strerror', None) or e})"
    if not isinstance(data, dict) or "split" not in data:
        return f"{path}: no split recorded (compile it with --holdout SPEC --part train|test)"
    try:
        return Split.from_json(data["split"])
    except ConfigError as e:
        return f"{side}: {e}"


def execute(args) -> int:
    from racesl.records import RecordError, read_task_records
    from racesl.search.holdout import verify

    splits, rows = [], []
    for path in (args.train, args.test):
        try:
            rows.append(read_task_records(path, prompts=True))
        except (OSError, RecordError) as e:
            print(f"racesc: error: {getattr(e, 'strerror', None) and f'{path}: {e.strerror}' or e}", file=sys.stderr)
            return 2
        s = _split(path)
        if isinstance(s, str):
            print(f"racesc: error: {s}", file=sys.stderr)
            return 2
        splits.append(s)
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
