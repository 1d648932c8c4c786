"""`racesc compile PATHS... -n N -o OUT`: search composite tasks and write task records."""

from __future__ import annotations

import argparse

from racesl.cli.common import add_include, count

FORMATS = ("jsonl", "parquet", "verl")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="*", metavar="PATH", help=".races files or folders (default: races.toml's)")
    add_include(p)
    p.add_argument("--solver", action=argparse.BooleanOptionalAction, default=None,
                   help="prove edges and prune with Z3 (default: on)")
    p.add_argument("-n", type=count(1), default=None, help="number of tasks, at least 1 (default 1000)")
    p.add_argument("-o", "--output", metavar="OUT", help="output file (default tasks.jsonl)")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--workers", type=count(1, 256), default=1,
                   help="worker processes, 1 to 256 (output does not depend on it)")
    p.add_argument("--untrusted", action="store_true",
                   help="run the environments in sandbox worker processes with resource limits, one per "
                        "compile process (with --workers W: W more processes); the output is the same")
    p.add_argument("--operators", metavar="SPEC",
                   help="operators and sizes, e.g. sequential=2-12,parallel=2-12,sort=2-6,select=2-6,branch,loop")
    p.add_argument("--config", metavar="TOML", help="a races.toml (default: ./races.toml when present)")
    p.add_argument("--format", choices=FORMATS, default=None, help="jsonl (default), parquet, or verl's parquet")
    p.add_argument("--filter", action="append", default=[], metavar="NAME=VALUE",
                   help="override a filter, e.g. max_int=1000, repeated_char=false, drop_values=[0,1]")
    p.add_argument("--no-audit", dest="audit", action="store_false",
                   help="skip the shortcut audit of the written tasks (its one-line verdict ends the summary)")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar and no summary")
    p.add_argument("--json", action="store_true",
                   help="print the summary as one JSON object on stdout instead of tables (docs/compile.md)")


def _filter_value(lit: str):
    """`--filter` text as a value: a literal (`[0, 1]`, `true`), else a number, else the
    text itself, for Filters to accept or refuse like any other value."""
    from racesl.runtime.contract import parse_literal

    text = {"true": "True", "false": "False"}.get(lit.strip().lower(), lit)
    try:
        return parse_literal(text)
    except ValueError:
        pass
    try:
        return float(text)  # shares and the wall limit (the language itself has no floats)
    except ValueError:
        return lit


def _filters(base, items: list[str]):
    """`--filter NAME=VALUE` items applied to `base` (a Filters)."""
    import attrs

    from racesl.search.config import ConfigError, Filters, unknown_keys

    changes = {}
    for item in items:
        name, sep, lit = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise ConfigError(f"--filter wants NAME=VALUE, e.g. max_int=1000 (got {item!r})")
        changes[name] = _filter_value(lit)
    try:
        unknown_keys("filters", changes, [f.name for f in attrs.fields(Filters)])
        return attrs.evolve(base, **changes)
    except ConfigError as e:
        raise e.located("--filter") from None


def _config(args):
    """(CompileConfig, paths, include, output, format) from races.toml and the command line;
    a wrong setting is a ConfigError whose message names it (and its file:line)."""
    from pathlib import Path

    from racesl.search.config import CompileConfig, ConfigError, Filters, parse_operators, read_races_toml

    kw: dict = {}
    paths = list(args.paths)
    cfg_path = Path(args.config) if args.config else (Path("races.toml") if Path("races.toml").exists() else None)
    if cfg_path is not None:
        file_kw, sources = read_races_toml(cfg_path)
        kw.update(file_kw)
        paths = paths or sources
    if args.n is not None:
        kw["n"] = args.n
    if args.seed is not None:
        kw["seed"] = args.seed
    if args.solver is not None:
        kw["solver"] = args.solver
    if args.operators:
        try:
            kw["operators"] = parse_operators(args.operators)
        except ConfigError as e:
            raise e.located("--operators") from None
    if args.filter:
        kw["filters"] = _filters(kw.get("filters", Filters()), args.filter)
    include = list(args.include) + list(kw.pop("include", ()))
    fmt = args.format
    out = args.output
    if out is None:
        out = "tasks.parquet" if fmt in ("parquet", "verl") else "tasks.jsonl"
    if fmt is None:
        fmt = "parquet" if out.endswith(".parquet") else "jsonl"
    return CompileConfig(**kw), paths or ["."], include, out, fmt


def execute(args) -> int:
    import time

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from racesl.atomic import written_together
    from racesl.check import check_paths
    from racesl.cli.common import fail, show_diagnostics, show_notes, stderr_console, stdout_console
    from racesl.cli.summary import print_json, print_summary, summary_json
    from racesl.compile import compile_tasks
    from racesl.library import Library
    from racesl.records import to_record, write_jsonl, write_parquet, write_verl
    from racesl.rewards.libraries import write_sidecar
    from racesl.search.config import ConfigError
    from racesl.text import plural

    err = stderr_console()
    try:
        cfg, paths, include, out, fmt = _config(args)
    except (ConfigError, ValueError, OSError) as e:
        return fail(str(e))
    checked = check_paths(paths, include)
    if not checked.ok:
        show_diagnostics(checked, err)
        return fail("the sources do not compile; nothing was written", 1)
    show_notes(checked, err)
    if not checked.modules:
        return fail("no .races files found")
    lib = Library(checked)
    if not lib.envs:
        return fail("no environments found")
    sandbox = None
    if args.untrusted:
        import functools

        from racesl.sandbox_runner import SandboxRunner

        sandbox = functools.partial(SandboxRunner, lib, workers=1, wall=cfg.filters.wall)
    t0 = time.perf_counter()
    if args.quiet:
        tasks, summary = compile_tasks(lib, cfg, args.workers, sandbox=sandbox)
    else:
        with Progress(TextColumn("compiling"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      console=err, transient=True) as prog:
            bar = prog.add_task("tasks", total=cfg.n)
            tasks, summary = compile_tasks(lib, cfg, args.workers, sandbox=sandbox,
                                           progress=lambda done, total: prog.update(bar, completed=done))
    records = [to_record(t, k, cfg.seed, lib.hash) for k, t in enumerate(tasks)]
    with written_together():  # OUT is the commit point: present means its sidecar is too
        if fmt == "jsonl":
            write_jsonl(records, out)
        elif fmt == "parquet":
            write_parquet(records, out)
        else:
            write_verl(records, out)
        write_sidecar(lib, out + ".library.json")
    seconds = time.perf_counter() - t0
    report = None
    if (args.json or not args.quiet) and args.audit and records:
        from racesl.audit import audit_records
        from racesl.rewards import register

        def audit():
            register(lib)  # sort and select shortcuts are scored by re-executing in it
            return audit_records(records)

        if args.untrusted:  # the re-executions, too, run outside this process
            from racesl.runtime.children import ChildFailed, run_limited

            try:
                report = run_limited(audit)
            except ChildFailed as exc:
                err.print(f"[yellow]warning:[/] the shortcut audit was stopped: {exc}")
        else:
            report = audit()
    if args.json:
        print_json(summary_json(summary, lib, out, fmt, cfg.n, seconds, report))
    elif not args.quiet:
        console = stdout_console()
        print_summary(summary, lib, console, out, seconds)
        if report is not None:
            console.print(report.verdict(), style=None if report.ok else "bold red")
    if summary.tasks < cfg.n:
        err.print(f"[yellow]warning:[/] only {summary.tasks} of {plural(cfg.n, 'task')} could be made "
                  "from this library")
    return 0
