"""`racesc eval MODEL --tasks FILE`: generate, score with racesl.rewards, and report
accuracy by operator × size as a table and a PNG heatmap.

torch/transformers (or vLLM) are imported only when the command runs.
"""

from __future__ import annotations

import argparse

from racesl.text import plural


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", metavar="MODEL", help="a model folder (as saved by racesc train) or a hub id")
    p.add_argument("--tasks", required=True, metavar="FILE", help="task records (.jsonl or .parquet, from racesc compile)")
    p.add_argument("--backend", choices=("transformers", "vllm"), default="transformers")
    p.add_argument("--n", type=int, default=None, help="evaluate the first N tasks (default: all)")
    p.add_argument("--samples", type=int, default=1, help="completions per task (default 1)")
    p.add_argument("--max-new-tokens", type=int, default=1024, metavar="K")
    p.add_argument("--temperature", type=float, default=None,
                   help="sampling temperature (default: 0, greedy, for one sample; 1.0 for several)")
    p.add_argument("--batch-size", type=int, default=16, help="prompts per generate call (transformers)")
    p.add_argument("--system-prompt", default=None)
    p.add_argument("--no-chat", action="store_true", help="plain-text prompts, no chat template")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("-o", "--output", default="eval", metavar="DIR",
                   help="folder for results.json, completions.jsonl and accuracy.png (default ./eval)")
    p.add_argument("--json", action="store_true",
                   help="print the metrics as one JSON object on stdout instead of the table (docs/training.md)")


FILES = ("results.json", "completions.jsonl", "accuracy.png")


def summary_json(res: dict, out_dir: str) -> dict:
    """The `--json` summary of `racesc eval`: results.json's metrics (docs/training.md), with
    the folder and the files written there."""
    from pathlib import Path

    summary = {k: v for k, v in res.items() if not k.startswith("_")}
    summary.update(command="eval", output=str(out_dir), files=[str(Path(out_dir) / f) for f in FILES])
    return summary


def execute(args) -> int:
    from racesl.cli.common import fail, stderr_console, stdout_console

    if args.n is not None and args.n < 1:
        return fail("--n must be at least 1")
    if args.samples < 1 or args.max_new_tokens < 1 or args.batch_size < 1:
        return fail("--samples, --max-new-tokens and --batch-size must be at least 1")
    temperature = args.temperature if args.temperature is not None else (0.0 if args.samples == 1 else 1.0)
    if args.samples > 1 and temperature == 0:
        return fail("several --samples with temperature 0 would all be the same: give --temperature")
    if args.backend == "transformers":
        try:
            import torch  # noqa: F401
            import transformers  # noqa: F401
        except ImportError as e:
            return fail(f"racesc eval needs the training extra ({e.name} is missing): pip install 'racesl[train]'")

    from racesl.train.evaluate import EvalError, evaluate, table

    err = stderr_console()
    try:
        with err.status("generating") as status:
            res = evaluate(args.model, args.tasks, backend=args.backend, n=args.n, samples=args.samples,
                           max_new_tokens=args.max_new_tokens, temperature=temperature, batch_size=args.batch_size,
                           system_prompt=args.system_prompt, chat=not args.no_chat, seed=args.seed,
                           out_dir=args.output,
                           progress=lambda k: status.update(f"generating: {plural(k, 'task')} done"))
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
