"""`racesc doc PATHS... [-o FILE] [--add-examples]`: the catalogue page of a library.

The page is generated from the sources (racesl.catalogue.page): signatures with declared
type names, descriptions, tags and each description's example with the output computed
by running the environment. An example that does not hold is reported with its line and
nothing is written (exit 1). `--add-examples` first writes a sampled example into every
description that lacks one (an authoring aid: read what it wrote).
"""

from __future__ import annotations

import argparse
import sys

from racesl.cli.common import add_include
from racesl.text import plural


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="PATH")
    add_include(p)
    p.add_argument("-o", "--output", metavar="FILE", help="write the page here (default: standard output)")
    p.add_argument("--add-examples", action="store_true",
                   help="write a sampled `Example: INPUT -> OUTPUT.` into each description without one")


def _check(args):
    from racesl.check import check_paths
    from racesl.cli.common import show_diagnostics, stderr_console

    checked = check_paths(args.paths, args.include)
    if not checked.ok:
        show_diagnostics(checked, stderr_console())
        return None
    return checked


def execute(args) -> int:
    from pathlib import Path

    from racesl.atomic import atomic_write
    from racesl.catalogue.page import render
    from racesl.library import Library
    from racesl.runtime.watchdog import WATCHDOG

    from racesl.cli.common import fail
    from racesl.output import refusal

    why = refusal(args.output, stdout=True)  # (before any work)
    if why:
        return fail(why)
    checked = _check(args)
    if checked is None:
        return 2
    if args.add_examples:
        from racesl.catalogue.fill import add_examples

        with WATCHDOG.session():
            written, skipped = add_examples(Library(checked), checked.envs(only_roots=True))
        for path, n in written.items():
            print(f"racesc: {path}: {plural(n, 'example')} written", file=sys.stderr)
        for line in skipped:
            print(f"racesc: skipped {line}", file=sys.stderr)
        checked = _check(args)  # the sources changed: read them again
        if checked is None:
            return 2
    with WATCHDOG.session():
        text, problems = render(checked, Library(checked), paths=" ".join(args.paths), out=args.output or "-")
    if problems:
        envs = {e.qualname: e for e in checked.envs()}
        for r in problems:
            e = envs[r.env]
            print(f"{e.path}:{e.span.line}:{e.span.col}: {r.env}: {r.problem}", file=sys.stderr)
        print(f"racesc: {plural(len(problems), 'example')} to fix; nothing written "
              "(`--add-examples` writes one where a description has none)", file=sys.stderr)
        return 1
    if args.output and args.output != "-":
        atomic_write(args.output, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
    else:
        sys.stdout.write(text)
    return 0
