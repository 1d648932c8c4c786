"""Helpers shared by subcommands: consoles, include paths, printing diagnostics."""

from __future__ import annotations

import argparse
import os
import sys

from rich.console import Console

from racesl.check import Checked
from racesl.render import print_diagnostics


LOG_WIDTH = 1000  # columns of a console that is no terminal: tables keep their natural width


def _unclipped(console: Console) -> Console:
    """Rich cuts tables to 80 columns when it writes to a file or a pipe; a training log
    wants them whole."""
    if not console.is_terminal:
        console.width = LOG_WIDTH
    return console


def stderr_console() -> Console:
    return _unclipped(Console(stderr=True, highlight=False, soft_wrap=True,
                              force_terminal=False if os.environ.get("NO_COLOR") else None))


def stdout_console() -> Console:
    return _unclipped(Console(highlight=False, soft_wrap=True))


def count(lo: int, hi: int | None = None):
    """An argparse type: an integer in lo..hi, else a usage error (exit 2) that says the range.
    A count outside it would run forever (`compile -n 0`) or do nothing and report success."""
    def parse(text: str) -> int:
        try:
            n = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if n < lo or (hi is not None and n > hi):
            raise argparse.ArgumentTypeError(
                f"must be at least {lo}" + (f" and at most {hi}" if hi is not None else "") + f", not {n}")
        return n
    parse.__name__ = "count"  # argparse names the type in its messages
    return parse


def add_include(p: argparse.ArgumentParser) -> None:
    p.add_argument("-I", "--include", action="append", default=[], metavar="DIR",
                   help="add a folder to the module search path")


def show_notes(checked: Checked, console: Console | None = None) -> None:
    """Which copy a path named `stdlib` read (see check.loader.locate), to stderr."""
    for note in checked.notes:
        (console or stderr_console()).print(f"[dim]{note}[/dim]", highlight=False)


def show_diagnostics(checked: Checked, console: Console | None = None) -> None:
    console = console or stderr_console()
    show_notes(checked, console)
    sources = {cm.path: cm.text for cm in checked.modules.values()}
    print_diagnostics(checked.diagnostics, sources, console)


def fail(msg: str, code: int = 2) -> int:
    print(f"racesc: error: {msg}", file=sys.stderr)
    return code
