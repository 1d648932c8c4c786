"""`racesc lsp`: the language server over stdio (pygls). Editors start it themselves;
see editors/vscode and editors/nvim."""

from __future__ import annotations

import argparse


def add_arguments(p: argparse.ArgumentParser) -> None:
    from racesl.cli.common import add_include

    p.add_argument("--stdio", action="store_true", help="talk over stdin/stdout (the default and only transport)")
    add_include(p)
    p.add_argument("--debounce-ms", type=float, default=75.0, metavar="MS",
                   help="wait this long after a burst of edits before re-checking (default 75)")
    p.add_argument("--log-file", metavar="PATH", help="write the server's log here (default: stderr, warnings only)")
    p.add_argument("-v", "--verbose", action="store_true", help="log at debug level")


def execute(args) -> int:
    import logging
    import sys

    handler: logging.Handler = (logging.FileHandler(args.log_file, encoding="utf-8") if args.log_file
                                else logging.StreamHandler(sys.stderr))
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.DEBUG if args.verbose else logging.WARNING)
    from racesl.cli.common import fail, need

    missing = need("racesc lsp", "lsp")
    if missing:
        return fail(missing)
    from racesl.lsp.server import serve  # imports pygls: only here
    serve(args.include, max(0.0, args.debounce_ms) / 1000)
    return 0
