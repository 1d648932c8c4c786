"""`racesc graph PATHS... [--format json|dot|svg|html]`: the signature graph, for people."""

from __future__ import annotations

import argparse

from racesl.cli.common import add_include


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="PATH")
    add_include(p)
    p.add_argument("--solver", action=argparse.BooleanOptionalAction, default=None,
                   help="prove edges and prune with Z3 (default: on)")
    p.add_argument("--format", choices=("json", "dot", "svg", "html"), default="json")
    p.add_argument("-o", "--output", metavar="FILE", help="write here instead of standard output")


def execute(args) -> int:
    import shutil
    import subprocess
    import sys

    from racesl.atomic import atomic_write
    from racesl.check import check_paths
    from racesl.cli.common import fail, show_diagnostics, show_notes, stderr_console
    from racesl.graph.signature import build_graph

    checked = check_paths(args.paths, args.include)
    if not checked.ok:
        show_diagnostics(checked, stderr_console())
        return 1
    show_notes(checked)
    graph, _ = build_graph(checked.envs(), args.solver is not False)
    if args.format == "json":
        text = graph.to_json()
    elif args.format == "dot":
        text = graph.to_dot()
    elif args.format == "html":
        from racesl.graph.html import to_html

        text = to_html(graph)
    else:
        dot = shutil.which("dot")
        if dot is None:
            return fail("--format svg needs Graphviz's `dot` (apt-get install graphviz); "
                        "or use --format dot / html")
        text = subprocess.run([dot, "-Tsvg"], input=graph.to_dot(), capture_output=True, text=True, check=True).stdout
    if args.output:
        atomic_write(args.output, lambda tmp: open(tmp, "w", encoding="utf-8").write(text))
    else:
        sys.stdout.write(text)
    return 0
