"""`racesc eval --compare A B`: per-cell differences B − A of pass@1, pass@k and mean reward
between two evaluations, with bootstrap 95% intervals, as a coloured terminal grid, JSON or
a PNG heatmap.

A cell is *paired* when A and B evaluated the same tasks there: the same ids, each with the
same prompt (ids alone repeat across task files compiled with one seed). Then each bootstrap
resample draws tasks once and takes B − A on them, which cancels the tasks' own difficulty;
otherwise A and B are resampled independently (*unpaired*, wider). pass@k is compared at
the smaller of the two runs' k, from each task's n and c (the unbiased estimator needs no
more). Needs neither torch nor numpy; the PNG needs matplotlib.
"""

from __future__ import annotations

import json
from pathlib import Path

from racesl.train import cells as C
from racesl.train import passk

METRICS = ("pass@1", "pass@k", "mean_reward")


class CompareError(ValueError):
    """A results file that cannot be compared, in one line."""


MAX_SAMPLES = 1_000_000  # samples of one task a results file may claim (pass@k's product loops over them)


def load_results(path: str | Path) -> dict:
    """results.json (or `racesc eval --json`'s output, or a folder holding results.json),
    read by the one reader of users' files (racesl.userfiles: a regular file, strict JSON,
    bounded depth) and checked field by field: CompareError, one line naming the file and
    the field, for anything else (`"k": "many"`, `"k": -3`, a row whose `correct` is above
    its `n`, a task id twice)."""
    from racesl.userfiles import UserFileError, load_json

    p = Path(path)
    if p.is_dir():
        p = p / "results.json"
    try:
        data = load_json(p, what="results file")
    except UserFileError as e:
        raise CompareError(str(e)) from None
    if not isinstance(data, dict) or not isinstance(data.get("per_task"), list) or not data["per_task"]:
        raise CompareError(f"{p} has no per-task results (it is not from racesc eval, or from a version before "
                           "pass@k): evaluate again")
    try:
        k = _field(data, "k", int, p, "a whole number of at least 1", lambda v: v >= 1, default=1)
        _field(data, "model", str, p, "a string or null", default=None)
        tasks = [_task(row, i, p) for i, row in enumerate(data["per_task"], 1)]
    except _Bad as e:
        raise CompareError(str(e)) from None
    seen: dict[str, int] = {}
    for i, (t, _) in enumerate(tasks, 1):
        if t.id in seen:
            raise CompareError(f"{p}: per_task rows {seen[t.id]} and {i} are both task {t.id!r}")
        seen[t.id] = i
    small = min(t.n for t, _ in tasks)
    if k > small:
        raise CompareError(f"{p}: \"k\" is {k}, but a task has only {small} samples (pass@k needs k <= n)")
    data["k"] = k
    data["_tasks"] = tasks
    data["_path"] = str(p)
    return data


class _Bad(ValueError):
    pass


def _field(d: dict, name: str, kind, where, want: str, ok=lambda v: True, default=...):
    """d[name] when it is of `kind` (never a bool for an int) and `ok`; the default when it
    is missing (or null, where the default is None); _Bad naming the field otherwise."""
    if name not in d or (d[name] is None and default is None):
        if default is ...:
            raise _Bad(f"{where}: no \"{name}\"")
        return default
    v = d[name]
    if isinstance(v, bool) or not isinstance(v, kind) or not ok(v):
        shown = json.dumps(v)[:40] if isinstance(v, (bool, int, float, str)) or v is None else type(v).__name__
        raise _Bad(f"{where}: \"{name}\" must be {want}, not {shown}")
    return v


def _task(row, i: int, p: Path) -> tuple:
    """(TaskResult, prompt digest) of per_task row i, every field checked."""
    where = f"{p}: per_task row {i}"
    if not isinstance(row, dict):
        raise _Bad(f"{where} is not an object")
    tid = _field(row, "id", (str, int), where, "a string")
    op = _field(row, "operator", str, where, "a string")
    size = _field(row, "size", int, where, "a whole number of at least 1", lambda v: 1 <= v <= 10**6)
    n = _field(row, "n", int, where, f"a whole number from 1 to {MAX_SAMPLES:,}", lambda v: 1 <= v <= MAX_SAMPLES)
    c = _field(row, "correct", int, where, f"a whole number from 0 to n ({n})", lambda v: 0 <= v <= n)
    r = _field(row, "reward", (int, float), where, "a number from 0 to 1", lambda v: 0 <= v <= 1)
    prompt = _field(row, "prompt", str, where, "a string", default="")
    return passk.TaskResult(str(tid), op, size, n, c, float(r)), prompt


def _key(item) -> tuple[str, str]:
    t, digest = item
    return t.id, digest


def _side(items, cols) -> list[tuple[float, ...]]:
    return [tuple(f(t) for _, f in cols) for t, _ in items]


def _difference(a_items, b_items, cols, *, resamples: int, seed: int, key: str) -> dict:
    a_items, b_items = sorted(a_items, key=_key), sorted(b_items, key=_key)  # (any input order)
    keys_a, keys_b = [_key(i) for i in a_items], [_key(i) for i in b_items]
    paired = set(keys_a) == set(keys_b) and len(set(keys_a)) == len(keys_a) == len(keys_b)
    if paired:  # B's tasks in A's order
        at = {_key(i): i for i in b_items}
        b_items = [at[k] for k in keys_a]
    a, b = _side(a_items, cols), _side(b_items, cols)
    ma = [sum(c) / len(a) for c in zip(*a)]
    mb = [sum(c) / len(b) for c in zip(*b)]
    rng = passk.rng_for(seed, "compare:" + key)
    cis = passk.bootstrap_difference(a, b, paired=paired, resamples=resamples, rng=rng)
    out = {"paired": paired, "tasks_a": len(a), "tasks_b": len(b), "common": len(set(keys_a) & set(keys_b))}
    for (name, _), x, y, ci in zip(cols, ma, mb, cis):
        out[name] = {"a": x, "b": y, "diff": y - x, "ci": ci}
    return out


def compare(a: dict, b: dict, *, resamples: int = passk.RESAMPLES, seed: int = 0) -> dict:
    """Differences B − A per operator × size cell (cells in one run only are listed, with
    `only`) and over every task (`all`)."""
    k = min(a["k"], b["k"])  # (load_results checked both: whole numbers, at most every task's n)
    cols = passk.metric_columns(k)
    cells_a, cells_b = _cells(a["_tasks"]), _cells(b["_tasks"])
    cells = []
    for cell in sorted(set(cells_a) | set(cells_b), key=lambda c: (C.order(c[0]), c)):
        row = {"operator": cell[0], "size": cell[1]}
        if cell not in cells_b or cell not in cells_a:
            row.update(only="a" if cell in cells_a else "b", tasks_a=len(cells_a.get(cell, ())),
                       tasks_b=len(cells_b.get(cell, ())))
        else:
            row.update(_difference(cells_a[cell], cells_b[cell], cols, resamples=resamples, seed=seed,
                                   key=passk.cell_key(*cell)))
        cells.append(row)
    overall = _difference(a["_tasks"], b["_tasks"], cols, resamples=resamples, seed=seed, key="all")
    return {"command": "compare", "a": a["_path"], "b": b["_path"], "model_a": a.get("model"),
            "model_b": b.get("model"), "k": k,
            "bootstrap": {"method": "percentile bootstrap over tasks (paired where the same tasks were evaluated)",
                          "level": passk.LEVEL, "resamples": resamples, "seed": seed},
            "cells": cells, "all": overall}


def _cells(items) -> dict[tuple[str, int], list]:
    out: dict[tuple[str, int], list] = {}
    for t, digest in items:
        out.setdefault((t.operator, t.size), []).append((t, digest))
    return out


def metric_label(metric: str, k: int) -> str:
    return {"pass@k": f"pass@{k}", "mean_reward": "mean reward"}.get(metric, metric)


def _colour(diff: float, scale: float) -> str:
    """A diverging background: red for B below A, blue for B above, white at 0."""
    x = max(-1.0, min(1.0, diff / scale))
    if x >= 0:
        r, g, b = (int(255 - x * 185), int(255 - x * 125), 255)
    else:
        r, g, b = (255, int(255 + x * 165), int(255 + x * 165))
    return f"rgb({r},{g},{b})"


def table(cmp: dict, metric: str = "pass@1"):
    """The heatmap in the terminal: operators × sizes, each cell B − A with its interval, its
    background coloured by the difference (bold when the interval excludes 0; † unpaired)."""
    from rich.table import Table
    from rich.text import Text

    label = metric_label(metric, cmp["k"])
    ops, sizes = C.axes(cmp["cells"])
    at = {(c["operator"], c["size"]): c for c in cmp["cells"]}
    diffs = [abs(c[metric]["diff"]) for c in cmp["cells"] if metric in c]
    scale = max([0.05, *diffs])
    t = Table(title=f"{label}: B − A (A = {cmp['a']}, B = {cmp['b']})",
              caption="[95% CI] percentile bootstrap over tasks, paired where both ran the same tasks; "
                      "† unpaired; bold: the interval excludes 0", show_lines=True)
    t.add_column("operator")
    for s in sizes:
        t.add_column(f"size {s}", justify="center")
    for op in ops:
        row = [op]
        for s in sizes:
            c = at.get((op, s))
            if c is None:
                row.append("")
            elif "only" in c:
                row.append(f"only in {c['only'].upper()}")
            else:
                m = c[metric]
                lo, hi = m["ci"]
                mark = "" if c["paired"] else "†"
                style = ("bold " if lo > 0 or hi < 0 else "") + f"black on {_colour(m['diff'], scale)}"
                row.append(Text(f"{m['diff']:+.3f}{mark}\n[{lo:+.3f}, {hi:+.3f}]", style=style))
        t.add_row(*row)
    return t


def overall_line(cmp: dict, metric: str = "pass@1") -> str:
    m = cmp["all"][metric]
    how = "paired" if cmp["all"]["paired"] else "unpaired"
    return (f"all tasks: {metric_label(metric, cmp['k'])} A {m['a']:.3f}, B {m['b']:.3f}, B − A {m['diff']:+.3f} "
            f"[{m['ci'][0]:+.3f}, {m['ci'][1]:+.3f}] ({how}; {cmp['all']['tasks_a']} and {cmp['all']['tasks_b']} "
            f"tasks, {cmp['all']['common']} in common)")


def plot(cmp: dict, path: str | Path, metric: str = "pass@1") -> Path:
    """The differences as a PNG heatmap (matplotlib): diverging colours centred on 0."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ops, sizes = C.axes(cmp["cells"])
    at = {(c["operator"], c["size"]): c for c in cmp["cells"]}
    grid = [[at[op, s][metric]["diff"] if metric in at.get((op, s), {}) else float("nan") for s in sizes]
            for op in ops]
    scale = max([0.05, *(abs(v) for row in grid for v in row if v == v)])
    fig, ax = plt.subplots(figsize=(1.0 + 1.1 * max(3, len(sizes)), 1.4 + 0.7 * max(2, len(ops))))
    im = ax.imshow(grid, vmin=-scale, vmax=scale, cmap="RdBu", aspect="auto")
    C.label(ax, ops, sizes)
    for i, op in enumerate(ops):
        for j, s in enumerate(sizes):
            c = at.get((op, s))
            if c is None:
                continue
            if "only" in c:
                ax.text(j, i, f"only {c['only'].upper()}", ha="center", va="center", fontsize=7)
                continue
            m = c[metric]
            ax.text(j, i, f"{m['diff']:+.2f}{'' if c['paired'] else '†'}\n[{m['ci'][0]:+.2f}, {m['ci'][1]:+.2f}]",
                    ha="center", va="center", fontsize=7,
                    fontweight="bold" if m["ci"][0] > 0 or m["ci"][1] < 0 else "normal")
    label = metric_label(metric, cmp["k"])
    fig.colorbar(im, ax=ax, label=f"B − A, {label}")
    ax.set_title(f"{label}: {Path(cmp['b']).parent.name or cmp['b']} − {Path(cmp['a']).parent.name or cmp['a']}"
                 " (95% bootstrap CI; † unpaired)", fontsize=9)
    fig.tight_layout()
    from racesl.atomic import atomic_write

    atomic_write(path, lambda tmp: fig.savefig(tmp, dpi=120, format="png"))
    plt.close(fig)
    return Path(path)
