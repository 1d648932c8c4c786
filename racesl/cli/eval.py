"""`racesc eval MODEL --tasks FILE` (or `--endpoint URL`): generate, score with the reward
training uses, and report pass@1, pass@k and mean reward by operator × size with bootstrap
95% intervals, as a table and a PNG heatmap. `racesc eval --compare A B`: the per-cell
differences B − A of two such runs (racesl.train.compare).

torch/transformers (or vLLM) are imported only when a local model runs; `--endpoint` and
`--compare` need neither. Without a GPU the defaults are sized to finish in minutes
(CPU_TASKS tasks, CPU_TOKENS new tokens); with one or an endpoint, every task and GPU_TOKENS.
"""

from __future__ import annotations

import argparse
import contextlib
import os

from racesl.cli.common import count

FILES = ("results.json", "completions.jsonl", "accuracy.png")
CPU_TASKS, CPU_TOKENS, GPU_TOKENS = 100, 256, 1024


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", metavar="MODEL", nargs="?", default=None,
                   help="a model folder (as saved by racesc train) or a hub id; with --endpoint, leave it out")
    p.add_argument("--tasks", metavar="FILE", help="task records (.jsonl or .parquet, from racesc compile)")
    p.add_argument("--backend", choices=("transformers", "vllm"), default="transformers")
    p.add_argument("--endpoint", metavar="URL",
                   help="an OpenAI-compatible server's …/v1 (vllm serve, sglang, transformers serve, a hosted API)")
    p.add_argument("--model", dest="model_name", metavar="NAME",
                   help="the model id to ask --endpoint for (default: the server's first); without "
                        "--endpoint, the same as MODEL")
    p.add_argument("--api-key-env", default="OPENAI_API_KEY", metavar="VAR",
                   help="the environment variable holding --endpoint's API key (default OPENAI_API_KEY; unset: none)")
    p.add_argument("--concurrency", type=count(1, 256), default=8, metavar="C",
                   help="requests in flight to --endpoint (default 8)")
    p.add_argument("--timeout", type=float, default=600.0, metavar="S",
                   help="seconds one --endpoint request may take, retries apart (default 600)")
    p.add_argument("--n", type=int, default=None,
                   help=f"evaluate N tasks spread evenly over operator × size cells, seeded (default: all on a "
                        f"GPU or an endpoint, {CPU_TASKS} on a CPU)")
    p.add_argument("--k", type=count(1), default=None, metavar="K",
                   help="samples per task, and the k of pass@k (default 1)")
    p.add_argument("--samples", type=count(1), default=None, metavar="N",
                   help="samples per task when more than --k (the pass@k estimate is then less noisy)")
    p.add_argument("--max-new-tokens", type=int, default=None, metavar="K",
                   help=f"new tokens per completion (default {GPU_TOKENS} on a GPU or an endpoint, "
                        f"{CPU_TOKENS} on a CPU)")
    p.add_argument("--temperature", type=float, default=None,
                   help="sampling temperature (default: 0, greedy, for one sample; 1.0 for several)")
    p.add_argument("--batch-size", type=int, default=None,
                   help="prompts per generate call (transformers; default 16 on a GPU, 4 on a CPU)")
    p.add_argument("--system-prompt", default=None)
    p.add_argument("--no-chat", action="store_true", help="plain-text prompts, no chat template (local models)")
    p.add_argument("--seed", type=int, default=0, help="sampling, the --n selection and the bootstrap (default 0)")
    p.add_argument("--bootstrap", type=count(1), default=1000, metavar="B",
                   help="bootstrap resamples for the 95%% intervals (default 1000)")
    p.add_argument("-o", "--output", default="eval", metavar="DIR",
                   help="folder for results.json, completions.jsonl and accuracy.png (default ./eval)")
    p.add_argument("--compare", nargs=2, metavar=("A", "B"),
                   help="compare two evaluations (results.json or their folders): B − A per cell")
    p.add_argument("--metric", choices=("pass@1", "pass@k", "mean_reward"), default="pass@1",
                   help="what --compare's heatmap shows (its JSON has all three)")
    p.add_argument("--plot", metavar="FILE.png", help="with --compare: the heatmap as a PNG (needs matplotlib)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar and no notes on stderr")
    p.add_argument("--json", action="store_true",
                   help="print the metrics as one JSON object on stdout instead of the table (docs/training.md)")


def defaults(args, gpu: bool) -> tuple[int | None, int, int]:
    """n, max new tokens and batch size: the given ones, else what finishes in minutes on this
    machine (a CPU generates a few tokens a second per sequence, a GPU thousands)."""
    n = args.n if args.n is not None else (None if gpu else CPU_TASKS)
    tokens = args.max_new_tokens or (GPU_TOKENS if gpu else CPU_TOKENS)
    return n, tokens, args.batch_size or (16 if gpu else 4)


def _has_gpu(backend: str) -> bool:
    if backend in ("vllm", "endpoint"):
        return True  # (vLLM runs on a GPU only; a server is sized by whoever runs it)
    import torch

    return torch.cuda.is_available()


def summary_json(res: dict, out_dir: str) -> dict:
    """The `--json` summary of `racesc eval`: results.json's metrics (docs/training.md), with
    the folder and the files written there."""
    from pathlib import Path

    summary = {k: v for k, v in res.items() if not k.startswith("_")}
    written = [f for f in FILES if f != "accuracy.png" or Path(out_dir, f).exists()]
    summary.update(command="eval", output=str(out_dir), files=[str(Path(out_dir) / f) for f in written])
    return summary


def _check(args) -> str | None:
    """What is wrong with the arguments, before any work."""
    if args.compare:
        if args.model or args.tasks or args.endpoint:
            return "--compare A B compares two results files: give no MODEL, --tasks or --endpoint with it"
        return None
    if args.plot:
        return "--plot goes with --compare (an evaluation writes accuracy.png into -o DIR)"
    if not args.tasks:
        return "give the tasks to evaluate on: --tasks FILE (or --compare A B)"
    if args.endpoint:
        if args.model:
            return "with --endpoint, name the served model with --model NAME, not as MODEL"
        if args.backend != "transformers":
            return "--endpoint is its own backend: leave out --backend"
        if args.no_chat:
            return "--no-chat has no effect on --endpoint (the server applies its chat template)"
    elif args.model and args.model_name and args.model != args.model_name:
        return f"two models: MODEL {args.model!r} and --model {args.model_name!r}"
    elif not (args.model or args.model_name):
        return "give a MODEL folder (or hub id) or --endpoint URL"
    if args.n is not None and args.n < 1:
        return "--n must be at least 1"
    if (args.max_new_tokens or 1) < 1 or (args.batch_size or 1) < 1:
        return "--max-new-tokens and --batch-size must be at least 1"
    if args.samples is not None and args.k is not None and args.samples < args.k:
        return f"pass@{args.k} needs at least {args.k} --samples a task, not {args.samples}"
    if not args.timeout > 0:
        return "--timeout must be above 0"
    return None


def execute(args) -> int:
    from racesl.cli.common import fail

    why = _check(args)
    if why:
        return fail(why)
    if args.compare:
        return _compare(args)
    k = args.k or 1
    samples = args.samples or k
    temperature = args.temperature if args.temperature is not None else (0.0 if samples == 1 else 1.0)
    if samples > 1 and temperature == 0:
        return fail("several samples a task with temperature 0 would all be the same: give --temperature")
    from pathlib import Path

    from racesl.output import OutputRefused, folder, reading, refusal

    reading(args.tasks)  # (no output over the task file, nor a folder holding it)
    try:  # the output policy (racesl.output), before any work: a folder, and each file in it
        folder(args.output)
        why = refusal(*(Path(args.output, f) for f in FILES))
    except OutputRefused as e:
        why = str(e)
    if why:
        return fail(why)
    backend = "endpoint" if args.endpoint else args.backend
    if backend == "transformers":
        from racesl.cli.common import need

        missing = need("racesc eval", "train", ("torch", "transformers"))
        if missing:
            return fail(missing)

    from racesl.cli.common import stderr_console, stdout_console
    from racesl.train.evaluate import EvalError, evaluate, load_tasks, table

    err = stderr_console()
    n, max_new_tokens, batch_size = defaults(args, _has_gpu(backend))
    try:
        total = len(load_tasks(args.tasks, n, args.seed))
    except EvalError as e:
        return fail(str(e))
    if n is not None and args.n is None and not (args.json or args.quiet):
        err.print(f"no GPU: {total} tasks spread over operator × size, {max_new_tokens} new tokens each (--n and "
                  "--max-new-tokens choose)", highlight=False)
    api_key = os.environ.get(args.api_key_env) or None
    try:
        with _bar(err, total, args.quiet or not err.is_terminal) as progress:
            res = evaluate(args.model_name if args.endpoint else (args.model or args.model_name), args.tasks,
                           backend=backend, n=n, samples=samples, k=k, max_new_tokens=max_new_tokens,
                           temperature=temperature, batch_size=batch_size, system_prompt=args.system_prompt,
                           chat=not args.no_chat, seed=args.seed, out_dir=args.output, progress=progress,
                           endpoint=args.endpoint, api_key=api_key, concurrency=args.concurrency,
                           timeout=args.timeout, resamples=args.bootstrap)
    except EvalError as e:
        return fail(str(e))
    except OSError as e:
        return fail(f"cannot load the model {args.model}: {e}")
    if res["_errors"] and not args.quiet:
        err.print(f"racesc: warning: {len(res['_errors'])} of {res['n_tasks']} requests failed: each sample left "
                  f"without text scores 0 (status error); the first: {res['_errors'][0]}", highlight=False,
                  markup=False)
    if args.json:
        from racesl.cli.summary import print_json

        print_json(summary_json(res, args.output))
        return 0
    out = stdout_console()
    who = res["model"] or args.endpoint
    metrics = "pass@1" + (f", pass@{k}" if k > 1 else "")
    out.print(table(res, f"{who}: {metrics} and mean reward by operator × size"))
    out.print(f"pass@1 {res['pass@1']:.3f}" + (f", pass@{k} {res['pass@k']:.3f}" if k > 1 else "") +
              f", mean reward {res['mean_reward']:.3f} over {res['n_tasks']} tasks × {samples}; [95% CI]: "
              f"percentile bootstrap over tasks ({args.bootstrap} resamples, seed {args.seed}); generation "
              f"{res['generate_seconds']:.1f} s, scoring {res['score_seconds']:.2f} s", markup=False)
    written = summary_json(res, args.output)["files"]
    out.print(f"wrote {', '.join(written)}", markup=False)
    return 0


def _compare(args) -> int:
    from racesl.cli.common import fail, stdout_console
    from racesl.train.compare import CompareError, compare, load_results, overall_line, plot, table

    if args.plot:
        from racesl.cli.common import install_hint
        from racesl.output import OutputRefused, refusal
        from racesl.train.evaluate import has_matplotlib

        if not has_matplotlib():
            return fail(f"--plot needs matplotlib (the plot extra): {install_hint('plot')}")
        try:
            why = refusal(args.plot, inputs=args.compare)
        except OutputRefused as e:
            why = str(e)
        if why:
            return fail(why)
    try:
        a, b = (load_results(p) for p in args.compare)
    except CompareError as e:
        return fail(str(e))
    res = compare(a, b, resamples=args.bootstrap, seed=args.seed)
    if args.plot:
        plot(res, args.plot, args.metric)
    if args.json:
        from racesl.cli.summary import print_json

        print_json(dict(res, metric=args.metric, plot=args.plot))
        return 0
    out = stdout_console()
    out.print(table(res, args.metric))
    out.print(overall_line(res, args.metric), markup=False)
    if args.plot:
        out.print(f"wrote {args.plot}", markup=False)
    return 0


@contextlib.contextmanager
def _bar(console, total: int, quiet: bool):
    """A progress bar of tasks generated (tasks done, elapsed, time left) while the model
    runs; its callable takes the number done. None when quiet or stderr is no terminal."""
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
