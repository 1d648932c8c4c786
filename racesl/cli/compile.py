"""`racesc compile PATHS... -n N -o OUT`: search composite tasks and write task records."""

from __future__ import annotations

import argparse

from racesl.cli.common import add_include, count
from racesl.records import FORMATS

AUDIT_SAMPLE = 10_000  # records the shortcut audit reads at most: every k-th, evenly through the output


def shard(text: str) -> tuple[int, int]:
    """An argparse type: `K/N`, shard K of N (1 <= K <= N)."""
    k, sep, n = text.partition("/")
    try:
        k_, n_ = int(k), int(n)
    except ValueError:
        k_ = n_ = 0
    if not sep or not 1 <= k_ <= n_:
        raise argparse.ArgumentTypeError(f"want K/N with 1 <= K <= N, e.g. 2/8 (got {text!r})")
    return k_, n_


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="*", metavar="PATH", help=".races files or folders (default: races.toml's)")
    add_include(p)
    p.add_argument("--solver", action=argparse.BooleanOptionalAction, default=None,
                   help="prove edges and prune with Z3 (default: on)")
    p.add_argument("-n", type=count(1), default=None, help="number of tasks, at least 1 (default 1000)")
    p.add_argument("-o", "--output", metavar="OUT", help="output file (default tasks.jsonl)")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--workers", type=count(1, 256), default=1,
                   help="worker processes, 1 to 256 (output does not depend on it)")
    p.add_argument("--ray", metavar="ADDRESS",
                   help="build on Ray: 'local' starts Ray on this machine, else a running cluster's address "
                        "(host:port, or 'auto'); --workers actors (needs the ray extra); the output is the same")
    p.add_argument("--shard", type=shard, metavar="K/N",
                   help="build only shard K of N: the N shards' records, concatenated in order, are the whole output")
    p.add_argument("--untrusted", action="store_true",
                   help="run the environments in sandbox worker processes with resource limits, one per "
                        "compile process (with --workers W: W more processes); the output is the same")
    p.add_argument("--operators", metavar="SPEC",
                   help="operators and sizes, e.g. sequential=2-12,parallel=2-12,sort=2-6,select=2-6,branch,loop; "
                        "individual (one environment a task, size 1) only when named")
    p.add_argument("--envs", metavar="N|FILE",
                   help="use only some environments: N (a seeded sample of N, spread over modules) or a file of "
                        "names, one module.env or env a line (# comments)")
    p.add_argument("--exclude", action="append", default=[], metavar="ENV|MODULE",
                   help="leave an environment or a whole module out (repeatable)")
    p.add_argument("--holdout", metavar="SPEC",
                   help="a held-out split: envs=F, pairs=F and/or size>=K, comma-separated (e.g. pairs=0.2); "
                        "with --part, which side this compile writes (docs/experiments.md)")
    p.add_argument("--part", choices=("train", "test"), default=None,
                   help="the side of the --holdout split to write (default: train); compile both with one "
                        "--seed and check them with racesc split check TRAIN TEST")
    p.add_argument("--config", metavar="TOML", help="a races.toml (default: ./races.toml when present)")
    p.add_argument("--format", choices=FORMATS + ("hf",), default=None,
                   help="jsonl (default), parquet, verl's parquet, skyrl (verl's with env_class and reward_spec), "
                        "nemo-gym (JSONL rows for NeMo Gym), or hf (a Hugging Face datasets folder at OUT; needs "
                        "datasets); see docs/integrations.md")
    p.add_argument("--filter", action="append", default=[], metavar="NAME=VALUE",
                   help="override a filter, e.g. max_int=1000, repeated_char=false, drop_values=[0,1]")
    p.add_argument("--no-audit", dest="audit", action="store_false",
                   help="skip the shortcut audit of the written tasks (its one-line verdict ends the summary)")
    p.add_argument("--allow-shortcuts", action="store_true",
                   help="exit 0 even when the audit finds a shortcut (the tasks are written either way; "
                        "without this, such a compile exits 1)")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar and no summary")
    p.add_argument("--summary", choices=("short", "full"), default="short",
                   help="short (default): tasks by operator and size and one line per fact; full: every table "
                        "(filters, the graph, usage per environment and per shape)")
    p.add_argument("--json", action="store_true",
                   help="print the summary as one JSON object on stdout instead of tables (docs/compile.md)")


def _filter_value(lit: str):
    """`--filter` text as a value: a literal (`[0, 1]`, `true`), else a number, else the
    text itself, for Filters to accept or refuse like any other value."""
    from racesl.runtime.contract import parse_literal

    text = {"true": "True", "false": "False"}.get(lit.strip().lower(), lit)
    try:
        return parse_literal(text)
    except ValueError:
        pass
    try:
        return float(text)  # shares and the wall limit (the language itself has no floats)
    except ValueError:
        return lit


def _filters(base, items: list[str]):
    """`--filter NAME=VALUE` items applied to `base` (a Filters)."""
    import attrs

    from racesl.search.config import ConfigError, Filters, unknown_keys

    changes = {}
    for item in items:
        name, sep, lit = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise ConfigError(f"--filter wants NAME=VALUE, e.g. max_int=1000 (got {item!r})")
        changes[name] = _filter_value(lit)
    try:
        unknown_keys("filters", changes, [f.name for f in attrs.fields(Filters)])
        return attrs.evolve(base, **changes)
    except ConfigError as e:
        raise e.located("--filter") from None


def _config(args):
    """(CompileConfig, paths, include, output, format) from races.toml and the command line;
    a wrong setting is a ConfigError whose message names it (and its file:line)."""
    from pathlib import Path

    from racesl.search.config import CompileConfig, ConfigError, Filters, parse_operators, read_races_toml

    kw: dict = {}
    paths = list(args.paths)
    cfg_path = Path(args.config) if args.config else (Path("races.toml") if Path("races.toml").exists() else None)
    if cfg_path is not None:
        file_kw, sources = read_races_toml(cfg_path)
        kw.update(file_kw)
        paths = paths or sources
    if args.n is not None:
        kw["n"] = args.n
    if args.seed is not None:
        kw["seed"] = args.seed
    if args.solver is not None:
        kw["solver"] = args.solver
    if args.operators:
        try:
            kw["operators"] = parse_operators(args.operators)
        except ConfigError as e:
            raise e.located("--operators") from None
    if args.filter:
        kw["filters"] = _filters(kw.get("filters", Filters()), args.filter)
    if args.envs is not None:
        text = args.envs.strip()
        kw["envs"] = int(text) if text.isdigit() else str(Path(text).resolve())
        try:
            CompileConfig(envs=kw["envs"])
        except ConfigError as e:
            raise ConfigError(f"--envs: {e.message.removeprefix('[compile] envs ')}", e.section, e.key) from None
    if args.exclude:
        kw["exclude"] = tuple(args.exclude)
    for flag in ("holdout", "part"):
        if getattr(args, flag) is not None:
            kw[flag] = getattr(args, flag)
    if "holdout" in kw or "part" in kw:
        try:
            CompileConfig(holdout=kw.get("holdout"), part=kw.get("part", "train"))
        except ConfigError as e:
            flag = f"--{e.key}" if e.key in ("holdout", "part") else None
            raise ConfigError(f"{flag}: {e.message.removeprefix(f'[compile] {e.key} ').removeprefix(f'[compile] {e.key}: ')}"
                              if flag else e.message, e.section, e.key) from None
    args.config_file = cfg_path
    include = list(args.include) + list(kw.pop("include", ()))
    fmt = args.format
    out = args.output
    if out is None:
        out = "tasks.hf" if fmt == "hf" else "tasks.parquet" if fmt in ("parquet", "verl", "skyrl") else "tasks.jsonl"
    if fmt is None:
        fmt = "parquet" if out.endswith(".parquet") else "jsonl"
    return CompileConfig(**kw), paths or ["."], include, out, fmt


class _Sample:
    """Every k-th record, evenly through an output of `expected` records, at most `cap`: what
    the shortcut audit reads when the output is too large to hold."""

    def __init__(self, expected: int, cap: int):
        self.every = max(1, -(-expected // cap))
        self.records: list[dict] = []
        self.seen = 0

    def offer(self, record: dict) -> None:
        if self.seen % self.every == 0:
            self.records.append(record)
        self.seen += 1


def _wrong_examples(lib, untrusted: bool, wall: float) -> list:
    """The E604s of every environment compiled (racesl.catalogue.diagnose.refusals), run in
    a sandbox worker under --untrusted."""
    from racesl.catalogue.diagnose import refusals
    from racesl.runtime.watchdog import WATCHDOG

    if not untrusted:
        with WATCHDOG.session():
            return refusals(lib)
    from racesl.sandbox_runner import SandboxRunner

    box = SandboxRunner(lib, workers=1, wall=wall)
    try:
        return refusals(lib, runner=box.run)
    finally:
        box.close()


def execute(args) -> int:
    import time
    from pathlib import Path

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from racesl.atomic import atomic_write, written_together
    from racesl.check import check_paths
    from racesl.cli.common import fail, show_diagnostics, show_notes, stderr_console, stdout_console
    from racesl.cli.summary import print_json, print_summary, summary_json
    from racesl.compile import compile_stream, shard_blocks
    from racesl.compile.driver import block_target
    from racesl.library import Library
    from racesl.records import RecordWriter, to_record
    from racesl.rewards.libraries import write_sidecar
    from racesl.search.config import ConfigError
    from racesl.search.subsets import choose
    from racesl.text import plural

    err = stderr_console()
    try:
        cfg, paths, include, out, fmt = _config(args)
    except (ConfigError, ValueError, OSError) as e:
        return fail(str(e))
    if fmt == "hf":
        from racesl.cli.common import need

        missing = need("--format hf", "hf")
        if missing:
            return fail(missing)
    from racesl.output import OutputRefused, dataset_folder, reading, refusal, sidecar_of

    # the output policy (racesl.output), before any work: hf writes a folder, the others a file
    # and its sidecar beside the file the records land in (a link followed); none over an input
    reading(*paths, *include, args.config_file, cfg.envs if isinstance(cfg.envs, str) else None)
    try:
        side = sidecar_of(out, ".library.json") if fmt != "hf" else None
        why = refusal(out, side) if fmt != "hf" else None
        if fmt == "hf":
            dataset_folder(out)
    except OutputRefused as e:
        why = str(e)
    if why:
        return fail(why)
    if args.ray is not None:
        from racesl.cli.common import need
        from racesl.compile.ray import RayMissing, check_address

        missing = need("--ray", "ray")
        if missing:
            return fail(missing)
        try:
            check_address(args.ray)
        except (RayMissing, ValueError) as e:
            return fail(str(e))
    checked = check_paths(paths, include)
    if not checked.ok:
        show_diagnostics(checked, err)
        return fail("the sources do not compile; nothing was written", 1)
    show_notes(checked, err)
    if not checked.modules:
        return fail("no .races files found")
    lib = Library(checked)
    if not lib.envs:
        return fail("no environments found")
    try:  # unknown names in envs, exclude and [weights]: one located line, before any work
        choose(lib.envs, cfg, lib.envs)
    except ConfigError as e:
        return fail(str(_choice_error(e, args)))
    wrong = _wrong_examples(lib, args.untrusted, cfg.filters.wall)  # prompts show them: check's E604
    if wrong:
        import attrs

        show_diagnostics(attrs.evolve(checked, diagnostics=wrong), err)
        return fail(f"{plural(len(wrong), 'worked example')} {'does' if len(wrong) == 1 else 'do'} not hold; "
                    "nothing was written", 1)
    sandbox = None
    if args.untrusted:
        import functools

        from racesl.sandbox_runner import SandboxRunner

        sandbox = functools.partial(SandboxRunner, lib, workers=1, wall=cfg.filters.wall)
    blocks = shard_blocks(cfg, *args.shard) if args.shard else None
    expected = sum(block_target(cfg, b) for b in blocks) if blocks is not None else cfg.n
    audit_on = args.audit  # -q too: a gameable task set is never written silently
    sample = _Sample(expected, AUDIT_SAMPLE) if audit_on else None
    t0 = time.perf_counter()
    summary = None

    def compile_into(tmp: str, progress=None) -> None:
        nonlocal summary
        with RecordWriter(tmp, "parquet" if fmt == "hf" else fmt) as writer:
            def emit(index, task):
                record = to_record(task, index, cfg.seed, lib.hash)
                writer.add(record, index)
                if sample is not None:
                    sample.offer(record)

            summary = compile_stream(lib, cfg, emit, args.workers, blocks=blocks, ray=args.ray,
                                     progress=progress, sandbox=sandbox)

    def sidecar_extra() -> dict | None:  # what the sidecar records beside the library
        return {k: v for k, v in (("environments", summary.environments), ("split", summary.split)) if v} or None

    def write_all(progress=None) -> None:
        if fmt == "hf":  # records to a temporary Parquet file, then the dataset folder (its sidecar inside)
            import tempfile

            from racesl.integrations.hf import save_parquet

            Path(out).parent.mkdir(parents=True, exist_ok=True)
            with tempfile.TemporaryDirectory(prefix=f".{Path(out).name}.", dir=Path(out).parent) as d:
                compile_into(f"{d}/records.parquet", progress)
                save_parquet(f"{d}/records.parquet", out, lib, sidecar_extra())
            return
        # OUT is the commit point: present means its sidecar is too; records stream into its
        # temporary file as batches merge, and an interrupted compile leaves nothing half-written
        with written_together():
            atomic_write(out, lambda tmp: compile_into(tmp, progress))
            write_sidecar(lib, side, sidecar_extra())

    try:
        if args.quiet:
            write_all()
        else:
            with Progress(TextColumn("compiling"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                          console=err, transient=True) as prog:
                bar = prog.add_task("tasks", total=expected)
                write_all(lambda done, total: prog.update(bar, completed=done))
    except ConfigError as e:  # envs = N beyond the environments the search can use: nothing written
        return fail(str(_choice_error(e, args)))
    except RuntimeError as e:  # Ray unreachable, a worker that failed: said in a line, nothing written
        from racesl.compile.ray import RayMissing

        if not isinstance(e, RayMissing) and "compile worker failed" not in str(e):
            raise
        return fail(f"{e}; nothing was written", 1)
    seconds = time.perf_counter() - t0
    report = None
    if sample is not None and sample.records:
        from racesl.audit import audit_records
        from racesl.rewards import register

        records = sample.records

        def audit():
            register(lib)  # sort and select shortcuts are scored by re-executing in it
            return audit_records(records)

        if args.untrusted:  # the re-executions, too, run outside this process
            from racesl.runtime.children import ChildFailed, run_limited

            try:
                report = run_limited(audit)
            except ChildFailed as exc:
                err.print(f"[yellow]warning:[/] the shortcut audit was stopped: {exc}")
        else:
            report = audit()
    if args.json:
        print_json(summary_json(summary, lib, out, fmt, expected, seconds, report,
                                len(sample.records) if sample is not None else 0))
    elif not args.quiet:
        console = stdout_console()
        print_summary(summary, lib, console, out, seconds, full=args.summary == "full")
        if report is not None:
            line = report.verdict()
            if sample.every > 1:
                line += f" (it read 1 in {sample.every} of the {summary.tasks:,} tasks)"
            console.print(line, style=None if report.ok else "bold red")
    if summary.tasks < expected:
        err.print(f"[yellow]warning:[/] only {summary.tasks} of {plural(expected, 'task')} could be made "
                  "from this library" + _short_blocks(summary, cfg.block))
    return _audit_exit(report, args, err)


def _choice_error(e, args):
    """An error of the environment settings, located: `--envs` or `--exclude` when the command
    line gave the setting, else races.toml:LINE; a file of names' own errors say FILE:N already."""
    from racesl.search.config import locate

    flag = {"envs": "--envs", "exclude": "--exclude"}.get(e.key) if e.section == "compile" else None
    if flag and getattr(args, e.key, None):
        from racesl.search.config import ConfigError

        return ConfigError(f"{flag}: {e.message.removeprefix(f'[compile] {e.key}: ')}", e.section, e.key)
    path = getattr(args, "config_file", None)
    if path is not None and e.section is not None:
        try:
            text = path.read_text(encoding="utf-8")
        except OSError:
            text = ""
        return locate(e, path, text)
    return e


def _audit_exit(report, args, err) -> int:
    """1 when the audit found a shortcut (the tasks stay written), unless --allow-shortcuts.
    The verdict is on stdout already unless -q (or --json, which carries it): then on stderr."""
    if report is None or report.ok:
        return 0
    if args.quiet and not args.json:
        err.print(report.verdict(), style="bold red", markup=False, highlight=False)
    if args.allow_shortcuts:
        return 0
    leaks = report.leaks()
    named = f" (carried by {', '.join(leaks[:5])}{' …' if len(leaks) > 5 else ''})" if leaks else ""
    err.print(f"racesc: the tasks were written, but a shortcut beats chance{named}: fix or drop what carries "
              "it, or pass --allow-shortcuts to accept them (racesc audit OUT shows the table)",
              markup=False, highlight=False)
    return 1


def _short_blocks(summary, block: int) -> str:
    """What the warning adds when several blocks ended short: each block is filled on its
    own, so the tasks of one may repeat another's."""
    from racesl.text import plural

    if summary.blocks[1] - summary.blocks[0] < 2:
        return ""
    return (f" ({plural(len(summary.short), 'block')} of {block:,} ended short; blocks are filled "
            "independently, so their tasks may repeat each other's: lower -n)")
