"""`racesc graph PATHS... [--format json|dot|svg|html] [--by env|type] [--around ENV] [--module M]`:
the signature graph, for people.

A drawing (dot, svg) of a whole library is by type unless asked otherwise: at hundreds of
environments the environment graph has thousands of edges and no one can read it, so
`--by env` draws it only on request, and `--around` / `--module` draw readable parts of it.
JSON is the data (every environment and edge; `--by type` the shape view's); HTML lists
the environments with links to their neighbours and filters by module and tag.

Every view leaves out the guarded edges that never passed in `racesc check`'s sampling
(racesl.passing: check's record is reused, or the same sampling runs here); the JSON lists
them under "never_passed". `--samples 0` keeps them.
"""

from __future__ import annotations

import argparse

from racesl.cli.common import add_include, count


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="PATH")
    add_include(p)
    p.add_argument("--solver", action=argparse.BooleanOptionalAction, default=None,
                   help="prove edges and prune with Z3 (default: on)")
    p.add_argument("--format", choices=("json", "dot", "svg", "html"), default="json")
    p.add_argument("--by", choices=("env", "type"), default=None,
                   help="nodes are environments, or type shapes with environments as edges "
                        "(default: type for a drawing of a whole library, env otherwise)")
    p.add_argument("--around", metavar="ENV", help="only this environment's neighbourhood")
    p.add_argument("--depth", type=count(1, 10), default=1, help="with --around: how many edges out (default 1)")
    p.add_argument("--module", metavar="M", help="only this module's environments (others as one node each)")
    p.add_argument("--samples", type=count(0), default=50, metavar="N",
                   help="leave out the guarded edges that never passed in check's sampling of N inputs per "
                        "environment (default 50, as `racesc check`; its record is reused; 0: keep them)")
    p.add_argument("--seed", type=int, default=0, help="the sampling's seed (default 0, as `racesc check`)")
    p.add_argument("-o", "--output", metavar="FILE", help="write here instead of standard output")


def _find(graph, name: str) -> str | None:
    if name in graph.envs:
        return name
    hits = [q for q in graph.envs if q.split(".", 1)[1] == name]
    return hits[0] if len(hits) == 1 else None


def execute(args) -> int:
    import json
    import shutil
    from pathlib import Path
    import subprocess
    import sys

    from racesl.atomic import atomic_write
    from racesl.check import check_paths
    from racesl.check.names import suggest
    from racesl.cli.common import fail, show_diagnostics, show_notes, stderr_console
    from racesl.graph import views
    from racesl.graph.signature import build_graph

    from racesl.output import refusal

    why = refusal(args.output, stdout=True,  # (before any work: a folder, a FIFO, a read-only file, an input)
                  inputs=[*args.paths, *args.include])
    if why:
        return fail(why)
    if args.around and args.module:
        return fail("give --around or --module, not both")
    if args.by and args.around:
        return fail("--around draws one environment's neighbourhood; leave out --by")
    checked = check_paths(args.paths, args.include)
    if not checked.ok:
        show_diagnostics(checked, stderr_console())
        return 1
    show_notes(checked)
    graph, _ = build_graph(checked.envs(), args.solver is not False)
    drawing = args.format in ("dot", "svg")
    by = args.by or ("type" if drawing else "env")
    # the by-type views (and a module's drawing) show no edge between environments
    edges_shown = args.format == "html" or bool(args.around) or not (by == "type" or (drawing and args.module))
    if args.samples and edges_shown:
        from racesl.library import Library
        from racesl.passing import sample_marks

        graph = graph.composing(sample_marks(Library(checked), graph, args.samples, args.seed))
    keep, focus = None, None
    if args.around:
        focus = _find(graph, args.around)
        if focus is None:
            close = suggest(args.around, [q.split(".", 1)[1] for q in graph.envs] + list(graph.envs))
            return fail(f"no environment '{args.around}'" + (f"; did you mean '{close}'?" if close else "")
                        + " (write module.name when two modules share a name)")
        keep = set(views.around(graph, focus, args.depth))
    if args.module and args.module not in {e.module for e in graph.envs.values()}:
        close = suggest(args.module, sorted({e.module for e in graph.envs.values()}))
        return fail(f"no module '{args.module}'" + (f"; did you mean '{close}'?" if close else ""))
    wanted = keep if keep is not None else (  # the environments a listing keeps (None: all)
        {q for q, e in graph.envs.items() if e.module == args.module} if args.module else None)

    if args.format == "json":
        if by == "type":
            text = json.dumps(views.type_json(graph), indent=1, sort_keys=True)
        else:
            data = json.loads(graph.to_json())
            if wanted is not None:
                data["nodes"] = [n for n in data["nodes"] if n["id"] in wanted]
                data["edges"] = [e for e in data["edges"] if e["source"] in wanted and e["target"] in wanted]
            text = json.dumps(data, indent=1, sort_keys=True)
    elif args.format == "html":
        from racesl.graph.html import to_html

        text = to_html(graph, wanted)
    else:
        if focus is not None:
            text = views.around_dot(graph, focus, args.depth)
        elif by == "type" or args.module:
            text = views.type_dot(graph, args.module)
        else:
            text = views.env_dot(graph)
        if args.format == "svg":
            dot = shutil.which("dot")
            if dot is None:
                return fail("--format svg needs Graphviz's `dot` (apt-get install graphviz); "
                            "or use --format dot / html")
            text = subprocess.run([dot, "-Tsvg"], input=text, capture_output=True, text=True, check=True).stdout
    if args.output and args.output != "-":
        atomic_write(args.output, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
    else:
        sys.stdout.write(text)
    return 0
