"""`racesc check PATHS...`: parse, type-check, then sample and run every environment."""

from __future__ import annotations

import argparse

from racesl.check.model import declared_signature
from racesl.cli.common import add_include, count
from racesl.diagnostics import Diagnostic, Severity
from racesl.probe import DROP_REASONS, SeedProbe, probe_env, set_builders


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="PATH", help=".races files or folders")
    add_include(p)
    p.add_argument("--solver", action=argparse.BooleanOptionalAction, default=None,
                   help="prove edges and prune with Z3 (default: on)")
    p.add_argument("--samples", type=count(1), default=50, metavar="N",
                   help="inputs sampled per environment, at least 1 (default 50)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--untrusted", action="store_true",
                   help="run environments in worker processes with memory and CPU limits")
    p.add_argument("--config", metavar="TOML",
                   help="a races.toml whose [compile] max_level sets the levels sampled, as compile draws "
                        "them (default: ./races.toml when present; else levels 0-2)")
    p.add_argument("--quiet", "-q", action="store_true", help="no summary table")
    p.add_argument("--json", action="store_true",
                   help="print the summary as one JSON object on stdout instead of the table (docs/compile.md)")


def _short(s: str, n: int = 44) -> str:
    return s if len(s) <= n else s[: n - 1] + "…"


def summary_json(rows, samples: int, seed: int, errors: int, warnings: int, ran: bool = True) -> dict:
    """The `--json` summary of `racesc check` (its keys: docs/compile.md)."""
    envs = []
    for env, c, elapsed in rows:
        runs = max(1, sum(c.values()) * 2)
        envs.append({
            "environment": env.qualname,
            "signature": declared_signature(env),
            "ok": c["ok"],
            "dropped": {r.replace(" ", "_"): c[r] for r in DROP_REASONS + ("no sample",) if c[r]},
            "violations": c["contract"],
            "ms_per_run": round(1000 * elapsed / runs, 4),
        })
    return {"command": "check", "ran": ran, "samples": samples, "seed": seed, "environments": envs,
            "errors": errors, "warnings": warnings}


def max_level(args) -> int:
    """The highest level a compile of this project draws, read as `racesc compile` reads it
    (--config, else ./races.toml when present): check samples every level up to it."""
    from pathlib import Path

    from racesl.search.config import CompileConfig, read_races_toml

    path = Path(args.config) if getattr(args, "config", None) else Path("races.toml")
    if not args.config and not path.exists():
        return CompileConfig().max_level
    return CompileConfig(**read_races_toml(path)[0]).max_level


def execute(args) -> int:
    from rich.table import Table

    from racesl.check import check_paths
    from racesl.cli.common import show_diagnostics, stderr_console, stdout_console
    from racesl.cli.summary import print_json
    from racesl.diagnostics import has_errors
    from racesl.text import plural

    err = stderr_console()
    try:
        levels = max_level(args)
    except (ValueError, OSError) as e:  # (ConfigError: one line naming the file and setting)
        err.print(f"racesc: error: {e}", markup=False, highlight=False)
        return 2
    checked = check_paths(args.paths, args.include)
    if not checked.modules and not checked.diagnostics:
        err.print("racesc: no .races files found")
        return 1
    if has_errors(checked.diagnostics):
        show_diagnostics(checked, err)
        n = sum(d.is_error for d in checked.diagnostics)
        err.print(f"[bold red]{plural(n, 'error')}[/]; nothing was run")
        if args.json:
            print_json(summary_json([], args.samples, args.seed, n,
                                    sum(d.severity is Severity.WARNING for d in checked.diagnostics), ran=False))
        return 1
    from racesl.library import Library

    lib = Library(checked)
    pool = None
    runner = None
    if args.untrusted:
        from racesl.sandbox_runner import SandboxRunner

        pool = SandboxRunner(lib)
        runner = pool.run
    rows = []
    runtime_diags: list[Diagnostic] = []
    from racesl.graph.diagnostics import composition_diagnostics
    from racesl.graph.signature import build_graph

    graph, solver = build_graph(lib.envs.values(), args.solver is not False)
    runtime_diags += composition_diagnostics(graph, lib.root_envs, solver)
    from racesl.runtime.watchdog import WATCHDOG

    from racesl.passing import Recorder, never_passed, save_record

    outputs = Recorder()  # which guarded edges ever pass (racesl.passing)
    marks: dict = {}
    seeds = None
    try:
        seeds = SeedProbe(lib, set_builders(lib, lib.root_envs), memory_mb=512 if args.untrusted else 0)
        with WATCHDOG.session():  # one timer for all runs, not one per call
            for env in lib.root_envs:
                counts, diags, elapsed = probe_env(lib, env, args.samples, args.seed, runner, seeds,
                                                   on_run=outputs.on_run(env), max_level=levels)
                runtime_diags.extend(diags)
                rows.append((env, counts, elapsed))
        runtime_diags.extend(seeds.finish())
        marks = never_passed(graph, outputs.outputs, lib)
        save_record(lib, args.seed, args.samples, outputs.sampled, marks)
    finally:
        if seeds is not None:
            seeds.close()
        if pool is not None:
            pool.close()
    checked.diagnostics = sorted(checked.diagnostics + runtime_diags, key=Diagnostic.sort_key)
    show_diagnostics(checked, err)
    errors = sum(d.is_error for d in checked.diagnostics)
    warnings = sum(d.severity is Severity.WARNING for d in checked.diagnostics)
    if args.json:
        print_json({**summary_json(rows, args.samples, args.seed, errors, warnings),
                    "never_passed": [f"{a} -> {b}" for a, b in sorted(marks)]})
    elif not args.quiet:
        table = Table(title=f"{plural(len(rows), 'environment')}, {plural(args.samples, 'sample')} each",
                      show_lines=False)
        for col, just in (("environment", "left"), ("signature", "left"), ("ok", "right"),
                          ("dropped", "left"), ("violations", "right"), ("ms/run", "right")):
            table.add_column(col, justify=just)
        for env, c, elapsed in rows:
            dropped = ", ".join(f"{r} {c[r]}" for r in DROP_REASONS + ("no sample",) if c[r])
            runs = max(1, sum(c.values()) * 2)
            table.add_row(env.qualname, _short(declared_signature(env)), str(c["ok"]), dropped or "-",
                          str(c["contract"]) if c["contract"] else "-", f"{1000 * elapsed / runs:.2f}")
        stdout_console().print(table)
    err.print(f"{plural(len(rows), 'environment')} checked: {plural(errors, 'error')}, "
              f"{plural(warnings, 'warning')}")
    return 1 if errors else 0
