"""`racesc evolve CONFIG [--model PATH | --endpoint URL] [--steps N] [--pool DIR] [--json] [--train]`:
the pool grows itself (racesl.evolve; docs/evolve.md).

A generator writes `.races` modules, the admission gates judge them, the admitted ones join
the pool. Progress goes to stderr; the summary (the per-gate funnel, the admitted modules,
seconds per candidate, the mean generator reward) to stdout, or one JSON object with
`--json`. Why candidates got no completion goes to stderr, one line per cause. Exit 0 when the
run finished, also when nothing was admitted (an honest result); 1 when a step got no
completion at all (the endpoint refused or failed every request: that step is not committed,
so running the command again retries it); 2 on a configuration or usage error.
"""

from __future__ import annotations

import argparse

from racesl.cli.common import count


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("config", metavar="CONFIG.toml", help="the evolve config (see docs/evolve.md)")
    who = p.add_mutually_exclusive_group()
    who.add_argument("--model", metavar="PATH", help="the generator: a local transformers model folder")
    who.add_argument("--endpoint", metavar="URL", help="the generator: an OpenAI-compatible server (…/v1)")
    p.add_argument("--steps", type=count(0), default=None,
                   help="override [generator] steps: the step the pool should reach (a rerun continues)")
    p.add_argument("--pool", default=None, metavar="DIR", help="override [pool] dir")
    p.add_argument("--train", action="store_true",
                   help="train one policy in both roles with GRPO (needs the train extra; racesl.evolve.grpo)")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")


def _summary(s, console) -> None:
    from rich.table import Table

    funnel = Table(title=f"evolve funnel: steps {s.first_step} → {s.last_step}")
    funnel.add_column("gate")
    funnel.add_column("rejected", justify="right")
    funnel.add_row("[dim]candidates in[/]", str(s.candidates))
    for gate, n in s.funnel().items():
        funnel.add_row(gate, str(n) if n else "[dim]0[/]")
    funnel.add_row("[bold]admitted[/]", f"[bold]{len(s.admitted)}[/] of {s.candidates}")
    console.print(funnel)
    per = "—" if s.seconds_per_candidate is None else f"{s.seconds_per_candidate:.2f} s"
    mean = "—" if s.reward_mean is None else f"{s.reward_mean:+.3f}"
    console.print(f"{s.candidates} candidate(s) in {s.seconds:.1f} s ({per} each); mean generator reward {mean}",
                  highlight=False)
    if s.admitted:
        console.print("admitted: " + ", ".join(s.admitted), highlight=False)
    if s.retired:
        console.print("retired: " + ", ".join(s.retired), highlight=False)
    pool = s.pool
    console.print(f"pool at step {pool.get('step')}: {pool.get('active', 0)} admitted module(s) active, "
                  f"{pool.get('retired', 0)} retired; log {s.log}", highlight=False)


CAUSE_CHARS = 300  # a cause's text on the terminal (evolve.jsonl keeps it whole)


def _report_failures(s, backend) -> None:
    """One stderr line per cause of a missing completion, and one when the endpoint refused the
    grammar: the terminal says what went wrong, not only evolve.jsonl."""
    import sys

    for cause, n in s.failures():
        text = cause if len(cause) <= CAUSE_CHARS else cause[:CAUSE_CHARS] + "…"
        print(f"racesc: warning: {n} of {s.candidates} candidate(s) got no completion: {text}", file=sys.stderr)
    refused = getattr(backend, "grammar_refused", None)
    if refused:
        print(f"racesc: warning: the endpoint refused the generation grammar ({refused[:CAUSE_CHARS]}): candidates "
              "were asked for again without it; set [generator] constrained = false, or serve with "
              "`vllm serve MODEL --structured-outputs-config.backend guidance`", file=sys.stderr)


def _train(cfg, args) -> int:
    from racesl.cli.common import fail, need

    from racesl.cli.common import install_hint

    missing = need("racesc evolve --train", "train")
    if missing:
        return fail(missing)
    try:
        from racesl.evolve import grpo
    except ImportError as e:  # the extra's packages are there, yet a part of them (or of racesl) is not
        return fail(f"racesc evolve --train needs the training part ({e}): {install_hint('train')}")
    return grpo.train_evolve(cfg, args)


def execute(args) -> int:
    from racesl.cli.common import fail, need, stderr_console, stdout_console
    from racesl.cli.summary import print_json
    from racesl.evolve.config import load
    from racesl.pool import PoolError
    from racesl.search.config import ConfigError

    try:
        cfg = load(args.config).with_overrides(model=args.model, endpoint=args.endpoint, steps=args.steps,
                                               pool=args.pool)
    except ConfigError as e:
        return fail(str(e))
    from pathlib import Path

    from racesl.evolve.loop import LOG
    from racesl.output import OutputRefused, folder, refusal
    from racesl.pool.manifest import MANIFEST

    try:  # the output policy (racesl.output), before any work: the pool folder and what evolve writes in it
        folder(cfg.pool.dir)
        why = refusal(Path(cfg.pool.dir, MANIFEST), Path(cfg.pool.dir, LOG), inputs=[args.config])
    except OutputRefused as e:
        why = str(e)
    if why:
        return fail(why)
    if args.train:
        return _train(cfg, args)
    missing = cfg.generator.model and need("racesc evolve --model", "train", ("torch", "transformers"))
    if missing:
        return fail(missing)

    from racesl.evolve.loop import evolve, open_generator

    err = stderr_console()
    try:
        backend = open_generator(cfg)
    except (OSError, ValueError) as e:
        return fail(f"cannot open the generator: {e}")
    try:
        if args.json:
            summary = evolve(cfg, backend)
        else:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            with Progress(TextColumn("evolving"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                          TextColumn("{task.description}"), console=err, transient=True) as prog:
                bar = prog.add_task("", total=None)

                def progress(done, total, row):
                    mark = "admitted" if row.admitted else f"stopped at {row.gate}"
                    prog.update(bar, completed=done, total=total, description=f"step {row.step}: {mark}")

                summary = evolve(cfg, backend, progress=progress)
    except PoolError as e:
        return fail(str(e))
    except ValueError as e:  # the pool itself does not check
        return fail(str(e), 1)
    finally:
        backend.close()
    if args.json:
        print_json(summary.to_json())
    else:
        _summary(summary, stdout_console())
    _report_failures(summary, backend)
    if summary.stalled is not None:
        return fail(f"step {summary.stalled}: the generator gave no completion for any of its "
                    f"{cfg.generator.candidates_per_step} candidate(s) (the causes are above); the step was not "
                    "committed: fix the endpoint and run the same command again to retry it", 1)
    return 0
