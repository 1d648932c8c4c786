"""`racesc check PATHS...`: parse, type-check, then sample and run every environment."""

from __future__ import annotations

import argparse
import time
from collections import Counter

from racesl.cli.common import add_include
from racesl.diagnostics import Diagnostic, Severity

DROP_REASONS = ("assert", "fuel", "timeout", "size", "recursion", "error")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="PATH", help=".races files or folders")
    add_include(p)
    p.add_argument("--solver", action=argparse.BooleanOptionalAction, default=None,
                   help="prove edges and prune with Z3 (default: on)")
    p.add_argument("--samples", type=int, default=50, metavar="N", help="inputs sampled per environment (default 50)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--untrusted", action="store_true",
                   help="run environments in worker processes with memory and CPU limits")
    p.add_argument("--quiet", "-q", action="store_true", help="no summary table")


def _short(s: str, n: int = 44) -> str:
    return s if len(s) <= n else s[: n - 1] + "…"


def _level(i: int, n: int) -> int:
    return min(2, i * 3 // max(n, 1))


def probe_env(lib, env, samples: int, seed: int, runner=None) -> tuple[Counter, list[Diagnostic], float]:
    """Sample an environment's inputs, run each twice, check contracts and laws."""
    from racesl.runtime.contract import canonical
    from racesl.sample.default import NoSample
    from racesl.sample.seeding import item_rng

    runner = runner or lib.run
    diags: list[Diagnostic] = []
    counts: Counter = Counter()
    sample_fail = None
    contract_reported = det_reported = law_reported = False
    t0 = time.perf_counter()

    def diag(code: str, msg: str, hint: str | None = None, sev=Severity.ERROR) -> None:
        diags.append(Diagnostic(code, msg, env.span, env.path, sev, hint))

    for i in range(samples):
        rng = item_rng(seed, env.qualname, i)
        level = _level(i, samples)
        try:
            x = lib.sample_input(env, rng, level)
            st = lib.sample_settings(env, rng, level)
        except NoSample as e:
            counts["no sample"] += 1
            sample_fail = sample_fail or str(e)
            continue
        r1, r2 = runner(env, x, st), runner(env, x, st)
        shown = f"{env.name}({', '.join(canonical(v) for v in (x,) + st)})"
        if (r1.status, canonical(r1.value)) != (r2.status, canonical(r2.value)) and not det_reported:
            det_reported = True
            diag("E601", f"{shown} gave {canonical(r1.value) if r1.ok else '!' + r1.status} once and "
                 f"{canonical(r2.value) if r2.ok else '!' + r2.status} the next time",
                 "environments must be deterministic: avoid iterating over sets, sort first")
        counts[r1.status] += 1
        if r1.status == "contract" and not contract_reported:
            contract_reported = True
            diag("E600", f"{shown} returned {canonical(r1.value)}, outside {env.output}: {r1.detail}",
                 "fix the body, or widen the declared return type")
        if r1.ok and env.laws and not law_reported:
            y = r1.value
            again = runner(env, y, st)
            for law in env.laws:
                want = y if law == "idempotent" else x
                if not again.ok or canonical(again.value) != canonical(want):
                    law_reported = True
                    got = canonical(again.value) if again.ok else "!" + again.status
                    rule = f"{env.name}({env.name}(x)) == {'{}(x)'.format(env.name) if law == 'idempotent' else 'x'}"
                    diag("E603", f"law {law} fails: {rule} is false for x = {canonical(x)} "
                         f"({env.name}(x) = {canonical(y)}, applied again: {got})",
                         f"remove @laws({law}) or fix the body")
                    break
    elapsed = time.perf_counter() - t0
    if counts["no sample"] == samples:
        diag("E602", f"could not sample inputs for '{env.name}': {sample_fail}",
             "the refinement may be unsatisfiable or too narrow; add @sample(param=helper)")
    elif counts["ok"] < samples / 2 and samples >= 4:
        worst = max((r for r in DROP_REASONS + ("contract", "no sample")), key=lambda r: counts[r])
        diag("W600", f"'{env.name}' succeeds on only {counts['ok']} of {samples} sampled inputs "
             f"(most often: {worst})",
             "narrow the input refinement or add a sampler so sampled inputs are in the domain",
             Severity.WARNING)
    return counts, diags, elapsed


def execute(args) -> int:
    from rich.table import Table

    from racesl.check import check_paths
    from racesl.cli.common import show_diagnostics, stderr_console, stdout_console
    from racesl.diagnostics import has_errors
    from racesl.types import types as T

    err = stderr_console()
    checked = check_paths(args.paths, args.include)
    if not checked.modules and not checked.diagnostics:
        err.print("racesc: no .races files found")
        return 1
    if has_errors(checked.diagnostics):
        show_diagnostics(checked, err)
        n = sum(d.is_error for d in checked.diagnostics)
        err.print(f"[bold red]{n} error{'s' * (n != 1)}[/]; nothing was run")
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

    try:
        with WATCHDOG.session():  # one timer for all runs, not one per call
            for env in lib.root_envs:
                counts, diags, elapsed = probe_env(lib, env, args.samples, args.seed, runner)
                runtime_diags.extend(diags)
                rows.append((env, counts, elapsed))
    finally:
        if pool is not None:
            pool.close()
    checked.diagnostics = sorted(checked.diagnostics + runtime_diags, key=Diagnostic.sort_key)
    show_diagnostics(checked, err)
    if not args.quiet:
        table = Table(title=f"{len(rows)} environments, {args.samples} samples each", show_lines=False)
        for col, just in (("environment", "left"), ("signature", "left"), ("ok", "right"),
                          ("dropped", "left"), ("violations", "right"), ("ms/run", "right")):
            table.add_column(col, justify=just)
        for env, c, elapsed in rows:
            dropped = ", ".join(f"{r} {c[r]}" for r in DROP_REASONS + ("no sample",) if c[r])
            runs = max(1, sum(c.values()) * 2)
            table.add_row(env.qualname, _short(f"{T.erase(env.input)} -> {T.erase(env.output)}"), str(c["ok"]), dropped or "-",
                          str(c["contract"]) if c["contract"] else "-", f"{1000 * elapsed / runs:.2f}")
        stdout_console().print(table)
    errors = sum(d.is_error for d in checked.diagnostics)
    warnings = sum(d.severity is Severity.WARNING for d in checked.diagnostics)
    err.print(f"{len(rows)} environments checked: {errors} error{'s' * (errors != 1)}, "
              f"{warnings} warning{'s' * (warnings != 1)}")
    return 1 if errors else 0
