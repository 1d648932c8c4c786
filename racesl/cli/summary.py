"""The closing summary of `racesc compile`: what was made, what was dropped, and why."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from racesl.search.config import OPERATORS


def print_summary(s, lib, console: Console, out: str, seconds: float) -> None:
    console.print(f"[bold]{s.tasks}[/] tasks → {out}   ({s.attempts} attempts, {s.failed} gave up, "
                  f"{s.duplicates} duplicates, {s.executions:,} executions + {s.reused:,} reused; {seconds:.1f} s, "
                  f"{s.tasks / max(s.cpu_seconds, 1e-9):,.0f} tasks/CPU-s, {s.workers} worker{'s' * (s.workers != 1)})")
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
    for k in ("proved", "guarded", "dropped", "isolated"):
        if k in e:
            g.add_row(f"{k} edges" if k != "isolated" else "isolated environments", str(e[k]))
    sv = s.solver
    if sv.get("on"):
        g.add_row("pruned environments", str(len(sv["pruned"])))
        g.add_row("solver queries", str(sv["queries"]))
        g.add_row("solver time", f"{sv['seconds']:.2f} s")
    else:
        g.add_row("solver", "off")
    from rich.columns import Columns

    console.print(Columns([r, g]))
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
    console.print(u)
    never = [q for q in used if not s.usage[q]]
    if never:
        console.print(f"[yellow]{len(never)} environments were never used:[/] " + ", ".join(never[:12])
                      + (" …" if len(never) > 12 else ""))
