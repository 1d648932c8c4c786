"""`racesc eval MODEL --tasks FILE`: generate, score with racesl.rewards, and report
accuracy by operator × size as a table and a PNG heatmap.

torch/transformers (or vLLM) are imported only when the command runs. Without a GPU the
defaults are sized to finish in minutes (the first CPU_TASKS tasks, CPU_TOKENS new tokens);
with one, every task and GPU_TOKENS.
"""

from __future__ import annotations

import argparse
import contextlib


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", metavar="MODEL", help="a model folder (as saved by racesc train) or a hub id")
    p.add_argument("--tasks", required=True, metavar="FILE", help="task records (.jsonl or .parquet, from racesc compile)")
    p.add_argument("--backend", choices=("transformers", "vllm"), default="transformers")
    p.add_argument("--n", type=int, default=None,
                   help=f"evaluate the first N tasks (default: all on a GPU, {CPU_TASKS} on a CPU)")
    p.add_argument("--samples", type=int, default=1, help="completions per task (default 1)")
    p.add_argument("--max-new-tokens", type=int, default=None, metavar="K",
                   help=f"new tokens per completion (default {GPU_TOKENS} on a GPU, {CPU_TOKENS} on a CPU)")
    p.add_argument("--temperature", type=float, default=None,
                   help="sampling temperature (default: 0, greedy, for one sample; 1.0 for several)")
    p.add_argument("--batch-size", type=int, default=None,
                   help="prompts per generate call (transformers; default 16 on a GPU, 4 on a CPU)")
    p.add_argument("--system-prompt", default=None)
    p.add_argument("--no-chat", action="store_true", help="plain-text prompts, no chat template")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("-o", "--output", default="eval", metavar="DIR",
                   help="folder for results.json, completions.jsonl and accuracy.png (default ./eval)")
    p.add_argument("--json", action="store_true",
                   help="print the metrics as one JSON object on stdout instead of the table (docs/training.md)")


FILES = ("results.json", "completions.jsonl", "accuracy.png")
CPU_TASKS, CPU_TOKENS, GPU_TOKENS = 100, 256, 1024


def defaults(args, gpu: bool) -> tuple[int | None, int, int]:
    """n, max new tokens and batch size: the given ones, else what finishes in minutes on this
    machine (a CPU generates a few tokens a second per sequence, a GPU thousands)."""
    n = args.n if args.n is not None else (None if gpu else CPU_TASKS)
    tokens = args.max_new_tokens or (GPU_TOKENS if gpu else CPU_TOKENS)
    return n, tokens, args.batch_size or (16 if gpu else 4)


def _has_gpu(backend: str) -> bool:
    if backend == "vllm":
        return True  # (vLLM runs on a GPU only)
    import torch

    return torch.cuda.is_available()


def summary_json(res: dict, out_dir: str) -> dict:
    """The `--json` summary of `racesc eval`: results.json's metrics (docs/training.md), with
    the folder and the files written there."""
    from pathlib import Path

    summary = {k: v for k, v in res.items() if not k.startswith("_")}
    summary.update(command="eval", output=str(out_dir), files=[str(Path(out_dir) / f) for f in FILES])
    return summary


def execute(args) -> int:
    from racesl.cli.common import fail, need, stderr_console, stdout_console

    if args.n is not None and args.n < 1:
        return fail("--n must be at least 1")
    if args.samples < 1 or (args.max_new_tokens or 1) < 1 or (args.batch_size or 1) < 1:
        return fail("--samples, --max-new-tokens and --batch-size must be at least 1")
    temperature = args.temperature if args.temperature is not None else (0.0 if args.samples == 1 else 1.0)
    if args.samples > 1 and temperature == 0:
        return fail("several --samples with temperature 0 would all be the same: give --temperature")
    from pathlib import Path

    from racesl.output import OutputRefused, folder, refusal

    try:  # the output policy (racesl.output), before any work: a folder, and each file in it
        folder(args.output)
        why = refusal(*(Path(args.output, f) for f in FILES))
    except OutputRefused as e:
        why = str(e)
    if why:
        return fail(why)
    if args.backend == "transformers":
        missing = need("racesc eval", "train", ("torch", "transformers"))
        if missing:
            return fail(missing)

    from racesl.train.evaluate import EvalError, evaluate, load_tasks, table

    err = stderr_console()
    n, max_new_tokens, batch_size = defaults(args, _has_gpu(args.backend))
    try:
        total = len(load_tasks(args.tasks, n))
    except EvalError as e:
        return fail(str(e))
    if n is not None and args.n is None and not args.json:
        err.print(f"no GPU: the first {total} tasks, {max_new_tokens} new tokens each (--n and --max-new-tokens "
                  "choose)", highlight=False)
    try:
        with _bar(err, total, args.json) as progress:
            res = evaluate(args.model, args.tasks, backend=args.backend, n=n, samples=args.samples,
                           max_new_tokens=max_new_tokens, temperature=temperature, batch_size=batch_size,
                           system_prompt=args.system_prompt, chat=not args.no_chat, seed=args.seed,
                           out_dir=args.output, progress=progress)
    except EvalError as e:
        return fail(str(e))
    except OSError as e:
        return fail(f"cannot load the model {args.model}: {e}")
    if args.json:
        from racesl.cli.summary import print_json

        print_json(summary_json(res, args.output))
        return 0
    out = stdout_console()
    out.print(table(res["_cells"], f"{args.model}: accuracy by operator × size (n completions)"))
    out.print(f"accuracy {res['accuracy']:.3f}, mean reward {res['mean_reward']:.3f} over "
              f"{res['n_tasks']} tasks × {res['samples']}; generation {res['generate_seconds']:.1f} s, "
              f"scoring {res['score_seconds']:.2f} s")
    out.print(f"wrote {args.output}/results.json, completions.jsonl, accuracy.png")
    return 0


@contextlib.contextmanager
def _bar(console, total: int, quiet: bool):
    """A progress bar of tasks generated (tasks done, elapsed, time left) while the model
    runs; its callable takes the number done. None with --json (stdout is the data)."""
    if quiet:
        yield None
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    with Progress(TextColumn("generating"), BarColumn(), MofNCompleteColumn(), TextColumn("tasks"),
                  TimeElapsedColumn(), TimeRemainingColumn(), console=console, transient=True) as prog:
        bar = prog.add_task("", total=total)
        yield lambda done: prog.update(bar, completed=done)
