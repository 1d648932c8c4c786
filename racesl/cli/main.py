"""`racesc`: the command-line driver. Each subcommand lives in its own module and is
imported only when used, so `racesc check` never pays for torch or pygls."""

from __future__ import annotations

import argparse
import sys

COMMANDS = {
    "check": ("racesl.cli.check", "type-check .races files and sample every environment"),
    "fmt": ("racesl.cli.fmt", "rewrite .races files in the canonical layout (--check: only say which would change)"),
    "run": ("racesl.cli.run", "run one environment on given inputs"),
    "compile": ("racesl.cli.compile", "compose environments into task records"),
    "score": ("racesl.cli.score", "score completions against task records"),
    "audit": ("racesl.cli.audit", "check that no strategy which skips solving beats chance"),
    "graph": ("racesl.cli.graph", "draw the signature graph"),
    "doc": ("racesl.cli.doc", "write the catalogue page of a library, examples computed"),
    "admit": ("racesl.cli.admit", "run the admission gates on candidate modules; admit them to a pool"),
    "evolve": ("racesl.cli.evolve", "grow a pool: a generator writes modules, the gates admit them"),
    "serve": ("racesl.cli.serve", "serve task rewards over HTTP (native, OpenRLHF and slime shapes)"),
    "lsp": ("racesl.cli.lsp", "serve the language server over stdio"),
    "train": ("racesl.cli.train", "GRPO training on compiled or streamed tasks"),
    "eval": ("racesl.cli.eval", "evaluate a model on task records"),
    "split": ("racesl.cli.split", "check that two task files are the parts of one held-out split"),
}


def build_parser() -> argparse.ArgumentParser:
    from racesl import __version__

    parser = argparse.ArgumentParser(prog="racesc", description="The racesl compiler.")
    parser.add_argument("--version", action="version", version=f"racesc {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (modname, help_) in COMMANDS.items():
        p = sub.add_parser(name, help=help_, description=help_)
        try:
            mod = __import__(modname, fromlist=["add_arguments"])
        except ModuleNotFoundError as e:
            if e.name != modname:
                raise
            continue  # a command still being built
        mod.add_arguments(p)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    modname = COMMANDS[args.command][0]
    from racesl.output import command_inputs

    try:
        with command_inputs():  # (the inputs a command names bind its own outputs only)
            return __import__(modname, fromlist=["execute"]).execute(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except ValueError as e:  # the last net: a refused output (racesl.output), a path with a NUL in it
        from racesl.output import OutputRefused

        from racesl.library import ConstantError

        if isinstance(e, (OutputRefused, ConstantError)):  # (ConstantError: a located line)
            print(f"racesc: error: {e}", file=sys.stderr)
            return 2
        if "null byte" in str(e) or "null character" in str(e):
            print("racesc: error: a path cannot hold a NUL character", file=sys.stderr)
            return 2
        raise


if __name__ == "__main__":
    raise SystemExit(main())
