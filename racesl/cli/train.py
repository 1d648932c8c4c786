"""`racesc train CONFIG.toml`: GRPO (TRL) on tasks streamed from a library or read from a file.

torch, transformers and TRL are imported only when the command runs (the `train` extra).
Under `accelerate launch` every process runs this command; `--launch` starts that for you
with the config's [launch] accelerate_config.
"""

from __future__ import annotations

import argparse

from racesl.cli.common import count


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("config", metavar="CONFIG.toml", help="the training config (see train/paper.toml)")
    p.add_argument("--max-steps", type=count(1), default=None, help="override [grpo] max_steps (at least 1)")
    p.add_argument("--output-dir", default=None, metavar="DIR", help="override [launch] output_dir")
    p.add_argument("--model", default=None, metavar="PATH", help="override [model] path")
    p.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE",
                   help="override one setting, e.g. --set grpo.learning_rate=1e-6 --set curriculum.enabled=false")
    p.add_argument("--launch", action="store_true",
                   help="run under `accelerate launch` with [launch] accelerate_config (or --accelerate-config)")
    p.add_argument("--accelerate-config", default=None, metavar="YAML", help="accelerate config for --launch")
    p.add_argument("--num-processes", type=count(1), default=None,
                   help="processes for --launch (default: the config's)")
    p.add_argument("--no-save", action="store_true", help="do not save the final model")


def _passthrough(args) -> list[str]:
    out = [args.config]
    if args.max_steps is not None:
        out += ["--max-steps", str(args.max_steps)]
    if args.output_dir:
        out += ["--output-dir", args.output_dir]
    if args.model:
        out += ["--model", args.model]
    for s in args.set:
        out += ["--set", s]
    if args.no_save:
        out.append("--no-save")
    return out


def _launch(args, cfg) -> int:
    import subprocess
    import sys

    from racesl.cli.common import fail

    acc = args.accelerate_config or cfg.launch.accelerate_config
    if not acc:
        return fail("--launch needs an accelerate config: set [launch] accelerate_config or pass --accelerate-config")
    cmd = [sys.executable, "-m", "accelerate.commands.launch", "--config_file", acc]
    if args.num_processes:
        cmd += ["--num_processes", str(args.num_processes)]
    cmd += ["-m", "racesl", "train", *_passthrough(args)]
    print("+ " + " ".join(cmd), file=sys.stderr)
    return subprocess.call(cmd)


def _refused_output(args, cfg) -> str | None:
    """The output policy's word on the output folder (`output.work_folder`), with what training
    reads named first: the config, a task file, and the model when it is a local folder (saving
    the trained model there would replace the weights it started from)."""
    import os

    from racesl import output

    model = args.model or cfg.model.path
    model = os.path.expanduser(model) if model else None
    inputs = [args.config, cfg.data.tasks, model if model and os.path.isdir(model) else None]
    output.reading(*inputs)
    try:
        output.work_folder(args.output_dir or cfg.launch.output_dir)
    except output.OutputRefused as e:
        return str(e)
    return None


def execute(args) -> int:
    import os
    import sys

    from racesl.cli.common import fail, need, stderr_console
    from racesl.search.config import ConfigError
    from racesl.train.config import load

    try:
        cfg = load(args.config, args.set)
    except ConfigError as e:  # a wrong setting, with file:line or --set: one line, exit 2
        return fail(str(e))
    refused = _refused_output(args, cfg)
    if refused:
        return fail(refused)
    if args.launch:
        return _launch(args, cfg)
    missing = need("racesc train", "train")
    if missing:
        return fail(missing)

    from racesl.train.trainer import TrainError, train

    err = stderr_console()
    try:
        summary = train(cfg, model=args.model, output_dir=args.output_dir, max_steps=args.max_steps,
                        save=not args.no_save, echo=lambda m: err.print(m, markup=False, highlight=False))
    except TrainError as e:
        return fail(str(e))
    if os.environ.get("RANK", "0") == "0":
        stream = summary["stream"] or {}
        lines = [f"trained {summary['steps']} step{'' if summary['steps'] == 1 else 's'} in {summary['seconds']:.1f} s → {summary['output_dir']}"]
        if stream:
            lines.append(f"tasks streamed: {stream['built']} (failed {stream['failed']}, duplicates "
                         f"{stream['duplicates']}, too long {stream['too_long']}); building took "
                         f"{stream['seconds']:.2f} s, scoring {summary['reward_seconds']:.2f} s")
        if summary["curriculum"]:
            sizes = ", ".join(f"{op} {st['size']}" + ("" if st["level"] is None else f"/L{st['level']}")
                              for op, st in summary["curriculum"].items())
            lines.append(f"curriculum sizes: {sizes} ({len(summary['curriculum_moves'])} moves)")
        if summary["world_size"] > 1:
            lines.append(f"({summary['world_size']} processes)")
        print("\n".join(lines), file=sys.stdout)
    return 0
