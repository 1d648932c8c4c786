"""`racesc admit FILES… --pool DIR|stdlib [--model PATH | --endpoint URL] [--json]`: run the
admission gates (racesl.admit) on candidate modules; the admitted ones join the pool.

Without a model only the model-free gates run (parse … novelty); `--json` prints one object
per candidate (`file`, `admitted`, `gate`, `reason`, `scores`). Exit 0 when every candidate
was admitted, 1 when one was not, 2 on a usage error.
"""

from __future__ import annotations

import argparse

from racesl.cli.common import count


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", metavar="FILE", help="candidate .races modules (folders: their .races files)")
    p.add_argument("--pool", default="stdlib", metavar="DIR|stdlib",
                   help="the pool to admit into: a folder (created when missing; its seeds are the stdlib), or "
                        "`stdlib` to judge against the bundled library without writing anything (default)")
    p.add_argument("--seed", type=count(0), default=0, help="seed of every sampled input and probe (default 0)")
    p.add_argument("--samples", type=count(1, 10_000), default=40,
                   help="sampled inputs per environment in the sample gate (default 40)")
    p.add_argument("--time-budget", type=float, default=None, metavar="S",
                   help="seconds each candidate may spend in the gates that run its code (default 240)")
    who = p.add_mutually_exclusive_group()
    who.add_argument("--model", metavar="PATH", help="a local transformers model for the review and calibration gates")
    who.add_argument("--endpoint", metavar="URL", help="an OpenAI-compatible server (…/v1) for the model gates")
    p.add_argument("--served-model", metavar="NAME", help="the model name to ask --endpoint for (default: its first)")
    p.add_argument("--dry-run", action="store_true", help="judge only: write nothing to the pool")
    p.add_argument("--json", action="store_true", help="one JSON object per candidate on stdout")


def _files(items: list[str]) -> list[str]:
    """The candidate files: as named, or a folder's `*.races` (a FIFO, socket or device among
    them skipped with a warning, never opened)."""
    import sys
    from pathlib import Path

    from racesl.check.loader import irregular

    out: list[str] = []
    for item in items:
        p = Path(item)
        if not p.is_dir():
            out.append(item)
            continue
        for f in sorted(p.glob("*.races")):
            what = irregular(f)
            if what is None:
                out.append(str(f))
            elif what != "a folder":
                print(f"racesc: warning: skipped {f}: {what}, not a regular file", file=sys.stderr)
    return out


def execute(args) -> int:
    from racesl.admit.context import AdmitConfig, Context
    from racesl.admit.gates import GATES
    from racesl.admit.run import admit_files
    from racesl.cli.common import fail, stderr_console, stdout_console
    from racesl.cli.summary import print_json
    from racesl.pool import Pool, PoolError

    files = _files(args.files)
    if not files:
        return fail("no candidate files: name .races files or folders holding them")
    budget = {} if args.time_budget is None else {"time_budget": float(args.time_budget)}
    if budget and not (0 < budget["time_budget"] <= 86400):
        return fail(f"--time-budget must be a number of seconds above 0 and at most 86400, not {args.time_budget}")
    try:
        pool = Pool.open(args.pool)
    except PoolError as e:
        return fail(str(e))
    for w in pool.warnings:
        stderr_console().print(f"warning: {w}", highlight=False, markup=False)
    if pool.writable and not args.dry_run:
        from racesl.output import refusal
        from racesl.pool.manifest import MANIFEST

        why = refusal(pool.root / MANIFEST, inputs=files)  # the output policy, before any gate runs
        if why:
            return fail(why)
    backend = None
    if args.model or args.endpoint:
        from racesl.cli.common import need
        from racesl.generation import open_backend

        missing = args.model and need("racesc admit --model", "train", ("torch", "transformers"))
        if missing:
            return fail(missing)

        try:
            kw = {"served_model": args.served_model} if args.endpoint else {}
            backend = open_backend(args.model, args.endpoint, **kw)
        except (OSError, ValueError) as e:
            return fail(f"cannot open the model: {e}")
    err = stderr_console()
    ctx = Context(pool, AdmitConfig(seed=args.seed, samples=args.samples, **budget), backend)

    def show(v) -> None:
        if args.json:
            print_json(v.to_json())
        else:
            mark = "[green]admitted[/]" if v.admitted else f"[red]rejected at {v.gate}[/]"
            err.print(f"{v.file}: {mark} ({v.seconds:.1f} s) — {v.reason}", highlight=False, markup=True)

    try:
        verdicts = admit_files(files, ctx, write=not args.dry_run, on_verdict=show)
    except ValueError as e:  # the pool itself does not check
        return fail(str(e))
    finally:
        ctx.close()
        if backend is not None:
            backend.close()
    if not args.json:
        from rich.table import Table

        funnel = Table(title="admission funnel")
        funnel.add_column("gate")
        funnel.add_column("rejected", justify="right")
        gates = [g for g in GATES if backend is not None or g not in ("review", "calibration")]
        for g in gates:
            funnel.add_row(g, str(sum(v.gate == g for v in verdicts)))
        funnel.add_row("[bold]admitted[/]", f"[bold]{sum(v.admitted for v in verdicts)}[/] of {len(verdicts)}")
        stdout_console().print(funnel)
        t = next((v.scores["novelty"]["thresholds"] for v in reversed(verdicts) if "novelty" in v.scores), None)
        if t:
            err.print(f"novelty thresholds, from the pool's nearest neighbours: behaviour agreement ≥ "
                      f"{t['behaviour']:.2f} (pool p95 {t['pool_nn_behaviour_p95']:.2f}), text Jaccard ≥ "
                      f"{t['text']:.2f} (pool p95 {t['pool_nn_text_p95']:.2f})", highlight=False)
        if pool.writable and not args.dry_run and any(v.admitted for v in verdicts):
            err.print(f"written to {pool.root}")
        elif any(v.admitted for v in verdicts):
            err.print("nothing written: " + ("--dry-run" if args.dry_run else "the stdlib pool is read-only; "
                                             "give --pool DIR to keep admitted modules"))
    return 0 if all(v.admitted for v in verdicts) else 1
