"""`racesc run FILE ENV`: run one environment on inputs given as Python literals.

Prints one canonical output per input, or `!REASON` when the execution is dropped:
`!fuel !timeout !size !recursion !assert !contract !error`, and `!input` for an input
that is not a value of the environment's input type.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from racesl.cli.common import add_include, count, fail
from racesl.check.model import declared_param
from racesl.text import plural


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE")
    p.add_argument("env", metavar="ENV", help="environment name (or module.name)")
    p.add_argument("--input", action="append", default=[], metavar="LIT", help="an input as a Python literal")
    p.add_argument("--inputs", metavar="FILE", help="a file with one input literal per line ('-' for stdin)")
    p.add_argument("--setting", action="append", default=[], metavar="NAME=LIT")
    add_include(p)
    p.add_argument("--seed", type=int, default=0, help="seed for settings not given")
    p.add_argument("--fuel", type=_budget, default=400,
                   help="step budget per execution (default 400; an environment's @fuel(N) raises it to N)")
    p.add_argument("--wall", type=float, default=2.0, help="wall-clock limit per execution in seconds")
    p.add_argument("--untrusted", action="store_true", help="run in a worker process with resource limits")


def _budget(text: str) -> int:
    from racesl.runtime.limits import MAX_FUEL

    return count(0, MAX_FUEL)(text)


def execute(args) -> int:
    from racesl.check import check_paths
    from racesl.cli.common import show_diagnostics, stderr_console
    from racesl.diagnostics import has_errors

    err = stderr_console()
    checked = check_paths([args.file], args.include)
    if has_errors(checked.diagnostics):
        show_diagnostics(checked, err)
        return 2
    from racesl.library import Library

    lib = Library(checked)
    root = checked.roots[0] if checked.roots else Path(args.file).stem
    env = checked.env(args.env if "." in args.env else f"{root}.{args.env}")
    if env is None:
        names = ", ".join(e.name for e in checked.envs(only_roots=True)) or "none"
        return fail(f"no environment '{args.env}' in {args.file} (environments: {names})")
    if env.source and not env.node.body:  # (racesl.check.generators)
        return fail(f"'{env.name}' is a generator environment: its answer is drawn with its input by "
                    f"@generate({env.generate.split('__')[-1]}), not computed from one; `racesc check` draws and "
                    "checks its pairs, `racesc compile` starts tasks with it")

    runner = lib.run
    pool = None
    if args.untrusted:  # before anything runs: refinements and samplers run in the worker too
        from racesl.sandbox_runner import SandboxRunner

        pool = SandboxRunner(lib, wall=args.wall)
        runner = pool.run
    from racesl.runtime.watchdog import WATCHDOG

    try:  # one watchdog session for everything: a body without loops opens none itself
        with WATCHDOG.session():
            return _run_all(args, lib, env, runner, pool)
    finally:
        if pool is not None:
            pool.close()


def _run_all(args, lib, env, runner, pool) -> int:
    from racesl.runtime.contract import canonical, not_a_member, parse_literal
    from racesl.sample.default import NoSample
    from racesl.sample.seeding import item_rng

    given: dict[str, object] = {}
    for item in args.setting:
        name, sep, lit = item.partition("=")
        if not sep:
            return fail(f"--setting wants NAME=LITERAL, got {item!r}")
        if name not in {s.name for s in env.settings}:
            return fail(f"'{env.name}' has no setting '{name}' (settings: "
                        f"{', '.join(s.name for s in env.settings) or 'none'})")
        try:
            given[name] = parse_literal(lit)
        except ValueError as e:
            return fail(f"setting {name}: {e}" + _quote_hint(lit, "--setting", _setting_type(env, name), name))
    settings = []
    rng = item_rng(args.seed, env.qualname, "settings")
    for s in env.settings:
        if s.name in given:
            lib.last_cut = None
            why = lib.conforms(given[s.name], s.type)
            if why:
                return fail(f"setting {s.name}: " + not_a_member(
                    given[s.name], s.type, declared_param(env, s.name, s.type), why, lib.last_cut, _where(env, s.name)))
            settings.append(given[s.name])
        else:
            try:
                settings.append(lib.sample_param(env, s.name, s.type, rng, 0))
            except NoSample as e:
                return fail(f"cannot sample setting {s.name}: {e}")
            print(f"racesc: sampled setting {s.name}={canonical(settings[-1])}", file=sys.stderr)

    lines = list(args.input)
    if args.inputs:
        try:
            stream = sys.stdin if args.inputs == "-" else open(args.inputs, encoding="utf-8")
            with stream:
                lines.extend(line.rstrip("\r\n") for line in stream if line.strip())
        except OSError as e:
            return fail(f"cannot read {args.inputs}: {e.strerror}")
        except UnicodeDecodeError as e:
            return fail(f"{args.inputs} is not UTF-8 text (byte {e.start})")
    if not lines:
        return fail("no inputs: give --input LIT or --inputs FILE")

    for k, line in enumerate(lines, 1):
        try:
            x = parse_literal(line)
        except ValueError as e:
            flag = "--input" if k <= len(args.input) else ""
            print(f"racesc: input {k}: {e}{_quote_hint(line, flag, env.input)}", file=sys.stderr)
            print("!input", flush=True)
            continue
        lib.last_cut = None
        why = lib.conforms(x, env.input)
        if why is not None:
            declared = declared_param(env, env.input_name, env.input)
            why = not_a_member(x, env.input, declared, why, lib.last_cut, _where(env, env.input_name))
            print(f"racesc: input {k}: {why}", file=sys.stderr)
            print("!input", flush=True)
            continue
        r = runner(env, x, tuple(settings), fuel=args.fuel, wall=args.wall)
        if r.ok:
            print(canonical(r.value), flush=True)
        else:
            line_no = _failure_line(lib, pool, env, x, tuple(settings), r, args)
            print(f"racesc: input {k}: {_explain(r, line_no, args, lib, env)}", file=sys.stderr)
            print(f"!{r.status}", flush=True)
    return 0


def _where(env, name: str) -> str:
    """The refinement a parameter's annotation writes in place (`where ...`), or ""."""
    te = next((p.annotation for p in env.node.params if p.name == name), None)
    return getattr(te, "where_text", "") or ""


def _setting_type(env, name: str):
    return next((s.type for s in env.settings if s.name == name), None)


def _quote_hint(text: str, flag: str, t, name: str = "") -> str:
    """`; write a string with quotes: --input '"banana"'` when the type takes a Str and the
    text is not a literal (an unquoted string); "" otherwise. `flag` "" for a line of --inputs."""
    from racesl.types import types as T

    src = text.strip()
    if t is None or not isinstance(T.erase(T.unwrap(t)), T.StrT) or not src or src[0] in "'\"":
        return ""
    lit = f'"{src}"' if '"' not in src and "\\" not in src else repr(src)
    if not flag:
        return f"; write a string with quotes: {lit}"
    return f"; write a string with quotes: {flag} {shlex.quote(f'{name}={lit}' if name else lit)}"


_LINE_STATUSES = ("assert", "error", "recursion", "size")


def _failure_line(lib, pool, env, x, settings: tuple, r, args) -> int | None:
    """The `.races` line where a dropped run failed: the run again (bodies are deterministic),
    through the runtime's call, which keeps the line (the library's Run does not)."""
    if r.status not in _LINE_STATUSES:
        return None
    from racesl.lower.effects import fresh

    call = (env.pyname, (fresh(x),) + tuple(fresh(s) for s in settings), args.fuel)
    try:
        if pool is not None:
            [out] = pool.pool.run_batch([call])
        else:
            out = lib.program.call(call[0], call[1], fuel=args.fuel, wall=args.wall)
    except Exception:  # noqa: BLE001 — the line is a courtesy; the verdict stands without it
        return None
    return out.line if out.status == r.status else None


def _explain(r, line: int | None, args, lib, env=None) -> str:
    """A dropped run in words (not the runtime's exception class names); the budget and
    wall limit named are those the run had (an environment's @fuel raises both)."""
    from racesl.runtime.limits import FUEL_CAP, MAX_DEPTH

    detail = r.detail or ""
    kind, sep, msg = detail.partition(": ")
    if not sep:
        kind, msg = detail, ""
    at = f" at line {line}" if line else ""
    if r.status == "fuel":
        fuel = lib.limits(env.pyname, args.fuel, args.wall)[0] if env is not None else args.fuel
        if fuel > args.fuel:
            return (f"used up its budget of {plural(fuel, 'step')} (its @fuel){at}; raise the @fuel "
                    f"(at most {FUEL_CAP:,}) or make the body cheaper")
        return f"used up its budget of {plural(fuel, 'step')}{at}; raise --fuel"
    if r.status == "timeout":
        wall = lib.limits(env.pyname, args.fuel, args.wall)[1] if env is not None else args.wall
        return f"ran past the wall-clock limit of {wall:g} s; raise --wall"
    if r.status == "assert":
        return f"assertion failed: {msg}{at}" if msg else f"assertion failed{at}"
    if r.status == "recursion":
        return f"helper calls nested deeper than {MAX_DEPTH}{at}"
    if r.status == "size":
        return f"a value grew past the size bound ({msg}){at}" if msg else f"a value grew past the size bound{at}"
    if r.status == "contract":
        return f"the output is outside the declared return type: {detail}"
    if r.status == "error":
        return f"{msg} ({kind}){at}" if msg else f"{kind}{at}"
    return f"{r.status}: {detail}{at}" if detail else f"{r.status}{at}"
