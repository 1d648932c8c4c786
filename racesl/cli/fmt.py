"""`racesc fmt PATHS... [--check] [--diff]`: rewrite `.races` files in the canonical layout.

Exit status: 0 when every file is formatted (or was rewritten); 1 with `--check` when some
file would change; 2 when a file cannot be read or has syntax errors (it is left as it is,
and its diagnostics are printed). `-` formats standard input to standard output, for editors.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="PATH", help=".races files or folders (- for standard input)")
    p.add_argument("--check", action="store_true",
                   help="write nothing; list the files that would change, exit 1 if any")
    p.add_argument("--diff", action="store_true", help="write nothing; print what would change as a unified diff")
    p.add_argument("--quiet", "-q", action="store_true", help="no summary line")


def files_of(paths: list[str]) -> tuple[list[Path], list[str], list[str]]:
    """The `.races` files the paths name (folders searched recursively, in sorted order),
    one line for each path that names nothing readable, and one warning for each FIFO,
    socket or device named `*.races` in a folder (skipped, never opened)."""
    from racesl.check.loader import irregular

    files, missing, skipped = [], [], []
    for p in map(Path, paths):
        if p.is_dir():
            for f in sorted(p.rglob("*.races")):
                what = irregular(f)
                if what is None:
                    files.append(f)
                elif what != "a folder":
                    skipped.append(f"skipped {f}: {what}, not a regular file")
        elif p.is_file():
            files.append(p)
        else:
            what = irregular(p)
            missing.append(f"{p}: {what}, not a file" if what else f"{p}: no such file or folder")
    return list(dict.fromkeys(files)), missing, skipped


def execute(args) -> int:
    from racesl.atomic import atomic_write
    from racesl.cli.common import stderr_console
    from racesl.output import refusal
    from racesl.format import MeaningChanged, format_source
    from racesl.render import print_diagnostics
    from racesl.syntax.parser import decode_source
    from racesl.text import plural

    err = stderr_console()
    if args.paths == ["-"]:
        text = sys.stdin.read()
        result = format_source(text, "<stdin>")
        if not result.ok:
            print_diagnostics(result.syntax_errors, {"<stdin>": text}, err)
            return 2
        sys.stdout.write(result.text)
        return 0
    files, missing, skipped = files_of(args.paths)
    for m in missing:
        err.print(f"racesc: error: {m}", highlight=False)
    for s in skipped:
        err.print(f"racesc: warning: {s}", highlight=False)
    changed, failed = [], 0
    writing = not (args.check or args.diff)
    for path in files:
        why = refusal(path) if writing else None  # a read-only file is not rewritten; a link's target is
        if why:
            err.print(f"racesc: error: {why}", highlight=False)
            failed += 1
            continue
        try:
            text, diags = decode_source(path.read_bytes(), str(path))
        except OSError as e:
            err.print(f"racesc: error: {path}: {e.strerror or e}", highlight=False)
            failed += 1
            continue
        try:
            result = format_source(text, str(path)) if not diags else None
        except MeaningChanged as e:
            err.print(f"racesc: internal error: {e}; {path} is left as it is (please report this file)",
                      highlight=False)
            failed += 1
            continue
        if result is None or not result.ok:
            shown = diags or result.syntax_errors
            print_diagnostics(shown, {str(path): text}, err)
            err.print(f"racesc: error: cannot format {path}: fix its syntax errors first", highlight=False)
            failed += 1
            continue
        if result.text == text:
            continue
        changed.append(path)
        if args.diff:
            sys.stdout.writelines(difflib.unified_diff(text.splitlines(keepends=True),
                                                       result.text.splitlines(keepends=True),
                                                       f"{path}", f"{path} (formatted)"))
        elif args.check:
            print(path)
        else:
            atomic_write(path, lambda tmp, body=result.text: Path(tmp).write_bytes(body.encode("utf-8")))
            if not args.quiet:
                err.print(f"reformatted {path}", highlight=False)
    if not args.quiet:
        verb = "would be reformatted" if args.check or args.diff else "reformatted"
        err.print(f"{plural(len(changed), 'file')} {verb}, {len(files) - len(changed) - failed} unchanged"
                  + (f", {plural(failed, 'file')} not formatted" if failed else ""), highlight=False)
    if failed or missing:
        return 2
    return 1 if changed and args.check else 0
