"""`racesc doc PATHS... [-o FILE] [--add-examples [--diff]]`: the catalogue page of a library.

The page is generated from the sources (racesl.catalogue.page): signatures with declared
type names, descriptions, tags and each description's example with the output computed
by running the environment. An example that does not hold is reported with its line and
nothing is written (exit 1); a description without one is a warning, and the page shows
its prose alone. `--add-examples` first writes a sampled example into every description
that lacks one: it rewrites the `.races` sources in place (an authoring aid), and shows
each change as a diff; with `--diff` it only shows them and changes no source.
"""

from __future__ import annotations

import argparse
import difflib
import sys

from racesl.cli.common import add_include
from racesl.text import plural


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="PATH")
    add_include(p)
    p.add_argument("-o", "--output", metavar="FILE", help="write the page here (default: standard output)")
    p.add_argument("--add-examples", action="store_true",
                   help="EDITS THE SOURCES: write a sampled `Example: INPUT -> OUTPUT.` into each description "
                        "without one, in the .races files themselves (the change is shown as a diff)")
    p.add_argument("--diff", action="store_true",
                   help="with --add-examples: show the examples it would write, as a diff, and change no file")


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
    from racesl.output import refusal, rewriting

    why = refusal(args.output, stdout=True, inputs=[*args.paths, *args.include])  # (before any work)
    if why:
        return fail(why)
    checked = _check(args)
    if checked is None:
        return 2
    if args.diff and not args.add_examples:
        return fail("--diff shows what --add-examples would write: give both")
    if args.add_examples:
        from racesl.catalogue.fill import add_examples

        with WATCHDOG.session(), rewriting():  # (it writes into the sources, by design)
            written, skipped, changes = add_examples(Library(checked), checked.envs(only_roots=True),
                                                     write=not args.diff)
        for path, (old, new) in changes.items():
            sys.stderr.writelines(difflib.unified_diff(old.splitlines(True), new.splitlines(True), path, path))
        for path, n in written.items():
            done = "would be written (nothing changed: --diff)" if args.diff else "written into the source"
            print(f"racesc: {path}: {plural(n, 'example')} {done}", file=sys.stderr)
        for line in skipped:
            print(f"racesc: skipped {line}", file=sys.stderr)
        if args.diff:
            return 0
        checked = _check(args)  # the sources changed: read them again
        if checked is None:
            return 2
    with WATCHDOG.session():
        text, problems, missing = render(checked, Library(checked), paths=" ".join(args.paths),
                                         out=args.output or "-")
    envs = {e.qualname: e for e in checked.envs()}
    for r, kind in [(r, "warning") for r in missing] + [(r, "error") for r in problems]:
        e = envs[r.env]
        print(f"{e.path}:{e.span.line}:{e.span.col}: {kind}: {r.env}: {r.problem}", file=sys.stderr)
    if missing:
        print(f"racesc: {plural(len(missing), 'description')} without a worked example, shown without one "
              "(`racesc doc --add-examples --diff` proposes them)", file=sys.stderr)
    if problems:
        print(f"racesc: {plural(len(problems), 'example')} to fix; nothing written", file=sys.stderr)
        return 1
    if args.output and args.output != "-":
        atomic_write(args.output, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
    else:
        sys.stdout.write(text)
    return 0
