"""The closing summary of `racesc compile`: what was made, what was dropped, and why; as
rich tables, or (`--json`, here for every command that takes it) as one JSON object."""

from __future__ import annotations

import json
import math
import sys

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from racesl.search.config import OPERATORS
from racesl.text import plural
from racesl.types import types as T

# the signature graph's counts the summaries show; "never_passed": guarded edges that never
# passed in check's sampling (racesl.passing), not counted as guarded
GRAPH_COUNTS = ("proved", "guarded", "dropped", "never_passed", "isolated")


def plain(obj):
    """`obj` with NaN and infinities as None, tuples as lists: what strict JSON can hold."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {str(k): plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [plain(v) for v in obj]
    return obj


def print_json(obj: dict) -> None:
    """One JSON object on one line of stdout, keys sorted (object keys carry no order; lists
    do), no markup: what `--json` prints."""
    sys.stdout.write(json.dumps(plain(obj), sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n")
    sys.stdout.flush()


def summary_json(s, lib, out: str, fmt: str, requested: int, seconds: float, audit=None, audited: int = 0) -> dict:
    """The `--json` summary of `racesc compile` (its keys: docs/compile.md); `audit` is the
    shortcut audit's `Report` over `audited` records, or None when it did not run."""
    by_size: dict = {}
    for (op, size), n in s.by_size.items():
        if n:
            by_size.setdefault(op, {})[str(size)] = n
    sv = s.solver
    return {
        "command": "compile",
        "output": out,
        "format": fmt,
        "library": lib.hash,
        "tasks": s.tasks,
        "requested": requested,
        "attempts": s.attempts,
        "gave_up": s.failed,
        "duplicates": s.duplicates,
        "executions": s.executions,
        "reused": s.reused,
        "seconds": round(seconds, 3),
        "cpu_seconds": round(s.cpu_seconds, 3),
        "workers": s.workers,
        "blocks": {"first": s.blocks[0], "stop": s.blocks[1], "short": list(s.short)},
        "by_operator": {op: n for op, n in s.by_operator.items() if n},
        "by_size": by_size,
        "dropped": {name: n for name, n in s.rejections.items() if n},
        "graph": {"environments": len(lib.envs), **{k: s.edges[k] for k in GRAPH_COUNTS if k in s.edges}},
        "solver": ({"on": True, "pruned": len(sv["pruned"]), "queries": sv["queries"],
                    "seconds": round(sv["seconds"], 3)} if sv.get("on") else {"on": False}),
        "usage": {q: s.usage[q] for q in lib.envs},
        "usage_by_shape": {shape: {"environments": n, "uses": uses}
                           for shape, (n, uses) in shape_usage(s, lib).items()},
        "never_used": s.unused,  # environment → why
        "environments": s.environments or None,  # envs, exclude, [weights] and the chosen set, when given
        "split": s.split or None,  # the held-out split and this part (racesl.search.holdout)
        "audit": None if audit is None else {**{k: v for k, v in audit.to_json().items() if k != "cells"},
                                             "records": audited},
    }


def environments_line(env: dict, total: int) -> str:
    """One line on the environment settings: how many were chosen, by what, with which weights."""
    how = []
    if "envs" in env:
        how.append(f"envs = {env['envs']}")
    if env.get("exclude"):
        how.append("exclude " + ", ".join(env["exclude"]))
    weights = env.get("effective_weights") or {}
    if env.get("weights"):
        how.append(f"{plural(len(weights), 'environment')} weighted")
    return f"environments: {len(env['chosen'])} of {total} used ({'; '.join(how)})"


def split_line(split: dict) -> str:
    """One line on the held-out split: what is held out, and which part this file is."""
    held = [f"{plural(len(split['envs']), 'environment')}"] if split["envs"] else []
    held += [f"{plural(len(split['pairs']), 'pair')}"] if split["pairs"] else []
    held += [f"size >= {split['min_size']}"] if "min_size" in split else []
    return (f"holdout {split['spec']} (seed {split['seed']}): {', '.join(held) or 'nothing'} held out; "
            f"this is the {split['part']} part")


def shape_usage(s, lib) -> dict[str, tuple[int, int]]:
    """{input shape: (environments reading it, their uses)}: a shape whose environments are
    rarely used is starved (its domain barely reaches the tasks)."""
    out: dict[str, list[int]] = {}
    for q, e in lib.envs.items():
        row = out.setdefault(T.shape_name(e.input), [0, 0])
        row[0] += 1
        row[1] += s.usage[q]
    return {shape: (n, uses) for shape, (n, uses) in sorted(out.items())}


WIDE = 100  # narrower terminals get the full summary's table pairs one under the other


def _pair(console: Console, a: Table, b: Table) -> None:
    """Two tables side by side where they fit, else one under the other (at 80 columns two
    titles side by side wrap into each other)."""
    from rich.columns import Columns

    if console.width >= WIDE:
        console.print(Columns([a, b]))
    else:
        console.print(a)
        console.print(b)


def _short(s, lib, console: Console) -> None:
    """The facts of the full summary's tables, a line each."""
    dropped = s.rejections.most_common()
    if dropped:
        head = ", ".join(f"{name} {count:,}" for name, count in dropped[:5])
        more = f", {len(dropped) - 5} more" if len(dropped) > 5 else ""
        console.print(f"dropped by filter: {head}{more}", highlight=False)
    e = s.edges
    graph = ", ".join(f"{e[k]:,} {k.replace('_', ' ')}" for k in ("proved", "guarded") if k in e)
    console.print(f"graph: {plural(len(lib.envs), 'environment')}, {graph or 'no'} edges", highlight=False)
    used = sorted(lib.envs, key=lambda q: (-s.usage[q], q))
    if used:
        top = ", ".join(f"{q} {s.usage[q]}" for q in used[:3])
        console.print(f"usage: most used {top}; {sum(1 for q in used if s.usage[q] == 0)} of {len(used)} unused "
                      "(`--summary full` shows every table)", highlight=False)


def print_summary(s, lib, console: Console, out: str, seconds: float, full: bool = False) -> None:
    console.print(f"[bold]{s.tasks}[/] tasks → {out}   ({s.attempts} attempts, {s.failed} gave up, "
                  f"{s.duplicates} duplicates, {s.executions:,} executions + {s.reused:,} reused; {seconds:.1f} s, "
                  f"{s.tasks / max(s.cpu_seconds, 1e-9):,.0f} tasks/CPU-s, {plural(s.workers, 'worker')})")
    sizes = sorted({size for _, size in s.by_size})
    t = Table(title="tasks by operator and size")
    t.add_column("operator")
    for size in sizes:
        t.add_column(str(size), justify="right")
    t.add_column("total", justify="right", style="bold")
    for op in OPERATORS:
        if s.by_operator[op]:
            t.add_row(op, *[str(s.by_size[(op, z)] or "") for z in sizes], str(s.by_operator[op]))
    console.print(t)
    if s.environments:
        console.print(environments_line(s.environments, len(lib.envs)), highlight=False)
    if s.split:
        console.print(split_line(s.split), highlight=False)
    if full:
        _full_tables(s, lib, console)
    else:
        _short(s, lib, console)
    if s.unused:
        console.print(f"[yellow]{plural(len(s.unused), 'environment')} never used:[/]")
        for q, why in list(s.unused.items())[:12]:
            console.print(f"  {q}: {escape(why)}", highlight=False)  # (a reason may name [text_limits])
        if len(s.unused) > 12:
            console.print(f"  and {len(s.unused) - 12} more (`--json` lists them all)")


def _full_tables(s, lib, console: Console) -> None:
    """`--summary full`: the filter, graph and usage tables."""
    r = Table(title="expansions dropped, by filter")
    r.add_column("filter")
    r.add_column("dropped", justify="right")
    for name, count in s.rejections.most_common():
        r.add_row(name, f"{count:,}")
    e = s.edges
    g = Table(title="signature graph")
    g.add_column("what")
    g.add_column("count", justify="right")
    g.add_row("environments", str(len(lib.envs)))
    for k in GRAPH_COUNTS:
        if k in e:
            g.add_row(f"{k.replace('_', ' ')} edges" if k != "isolated" else "isolated environments", str(e[k]))
    sv = s.solver
    if sv.get("on"):
        g.add_row("pruned environments", str(len(sv["pruned"])))
        g.add_row("solver queries", str(sv["queries"]))
        g.add_row("solver time", f"{sv['seconds']:.2f} s")
    else:
        g.add_row("solver", "off")
    _pair(console, r, g)
    used = sorted(lib.envs, key=lambda q: (-s.usage[q], q))
    u = Table(title=f"usage per environment (most and least used of {len(used)})")
    u.add_column("environment")
    u.add_column("uses", justify="right")
    for q in used[:8]:
        u.add_row(q, str(s.usage[q]))
    if len(used) > 16:
        u.add_row("…", "")
    for q in used[-8:] if len(used) > 8 else []:
        u.add_row(q, str(s.usage[q]))
    shapes = sorted(shape_usage(s, lib).items(), key=lambda kv: (kv[1][1] / kv[1][0], kv[0]))
    h = Table(title=f"usage per input shape (least used first, of {len(shapes)})")
    h.add_column("shape")
    h.add_column("envs", justify="right")
    h.add_column("uses / env", justify="right")
    for shape, (n, uses) in shapes[:16]:
        h.add_row(shape, str(n), f"{uses / n:.0f}")
    if len(shapes) > 16:
        h.add_row(f"… {len(shapes) - 16} more", "", "")
    _pair(console, u, h)

