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
    """Which copy a path named `stdlib` read (see check.loader.locate), and the files a folder
    scan skipped (W202: a FIFO, socket or device named *.races, never opened), to stderr."""
    for note in checked.notes:
        (console or stderr_console()).print(f"[dim]{note}[/dim]", highlight=False)
    for d in checked.diagnostics:
        if d.code == "W202":
            (console or stderr_console()).print(f"racesc: warning: {d.message}", highlight=False, markup=False)


def show_diagnostics(checked: Checked, console: Console | None = None) -> None:
    console = console or stderr_console()
    show_notes(checked, console)
    sources = {cm.path: cm.text for cm in checked.modules.values()}
    print_diagnostics(checked.diagnostics, sources, console)


def fail(msg: str, code: int = 2) -> int:
    print(f"racesc: error: {msg}", file=sys.stderr)
    return code


# what each extra brings that a command imports: the one table `need` reads
EXTRAS = {
    "serve": ("aiohttp",),
    "lsp": ("pygls", "lsprotocol"),
    "train": ("torch", "transformers", "trl"),
    "hf": ("datasets",),
    "ray": ("ray",),
}


def install_hint(extra: str) -> str:
    """How to add an extra: racesl is installed from its checkout or a wheel built from it,
    not from a package index."""
    return f"pip install -e '.[{extra}]' in the racesl checkout (or pip install 'dist/racesl-*.whl[{extra}]')"


def need(what: str, extra: str, modules: tuple[str, ...] | None = None) -> str | None:
    """None when `modules` (default: the extra's, from EXTRAS) can be imported; else the one
    line saying that `what` needs `extra` and how to install it. Looked up before importing,
    so a missing package is this line, never a ModuleNotFoundError traceback."""
    import importlib.util

    for name in modules or EXTRAS[extra]:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):  # (a parent that fails to import; a module set to None)
            found = False
        if not found:
            return f"{what} needs the {extra} extra ({name} is not installed): {install_hint(extra)}"
    return None
