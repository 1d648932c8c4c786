"""pass@k, mean reward and their bootstrap intervals, per operator × size cell and overall.

pass@k is Chen et al. (2021)'s unbiased estimator: with n samples of a task of which c
are right, 1 - C(n-c, k) / C(n, k), computed as a product so no binomial overflows. A cell's
value is the mean over its tasks. Intervals are percentile bootstraps over tasks (tasks are
resampled with replacement, never single completions: a task's samples are not independent
draws of the cell), seeded from the run's seed and the cell's name, so the same results
give the same intervals whatever else is in the file. Needs no numpy.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence

from attrs import frozen

LEVEL = 0.95  # the intervals' coverage
RESAMPLES = 1000  # bootstrap resamples by default


def pass_at_k(n: int, c: int, k: int) -> float:
    """The chance that at least one of k samples drawn without replacement from n (c right)
    is right: 1 - C(n-c, k)/C(n, k) = 1 - prod_{i=n-c+1..n} (1 - k/i)."""
    if not (0 <= c <= n and 1 <= k <= n):
        raise ValueError(f"pass@{k} needs 0 <= c <= n and 1 <= k <= n (n={n}, c={c})")
    if n - c < k:
        return 1.0
    if k == 1:
        return c / n  # (exactly the share right, without the product's rounding)
    prod = 1.0
    for i in range(n - c + 1, n + 1):
        prod *= 1.0 - k / i
    return 1.0 - prod


@frozen
class TaskResult:
    """One task's samples: n completions, `correct` of them solved (reward 1), `reward` their mean."""

    id: str
    operator: str
    size: int
    n: int
    correct: int
    reward: float

    def as_dict(self) -> dict:
        return {"id": self.id, "operator": self.operator, "size": self.size, "n": self.n,
                "correct": self.correct, "reward": self.reward}


def task_results(rows: Iterable[dict]) -> list[TaskResult]:
    """Per-completion rows ({id, operator, size, reward, solved}) folded into tasks, in the
    order each task first appears."""
    acc: dict[str, list] = {}
    for row in rows:
        t = acc.setdefault(row["id"], [row["operator"], int(row["size"]), 0, 0, 0.0])
        t[2] += 1
        t[3] += bool(row["solved"])
        t[4] += float(row["reward"])
    return [TaskResult(i, op, s, n, c, r / n) for i, (op, s, n, c, r) in acc.items()]


def percentile(ordered: Sequence[float], q: float) -> float:
    """The q-quantile (0..1) of sorted values, linearly interpolated (numpy's default)."""
    pos = q * (len(ordered) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def _interval(stats: list[float]) -> list[float]:
    stats.sort()
    tail = (1.0 - LEVEL) / 2
    return [percentile(stats, tail), percentile(stats, 1.0 - tail)]


def rng_for(seed: int, key: str) -> random.Random:
    """A generator for one cell: seeded by a string, which Python hashes with SHA-512 (not
    the per-process hash), so it is the same in every run."""
    return random.Random(f"racesl.bootstrap:{seed}:{key}")


def _means(picked: Sequence[tuple[float, ...]]) -> list[float]:
    n = len(picked)
    return [sum(col) / n for col in zip(*picked)]


def bootstrap(rows: Sequence[tuple[float, ...]], *, resamples: int, rng: random.Random) -> list[list[float]]:
    """Percentile intervals of the mean of each column of `rows` (one row a task)."""
    stats = [_means(rng.choices(rows, k=len(rows))) for _ in range(resamples)]
    return [_interval(list(col)) for col in zip(*stats)]


def bootstrap_difference(a: Sequence[tuple[float, ...]], b: Sequence[tuple[float, ...]], *, paired: bool,
                         resamples: int, rng: random.Random) -> list[list[float]]:
    """Intervals of mean(b) - mean(a) per column. Paired: a[i] and b[i] are the same task,
    resampled together; unpaired: each side resampled on its own."""
    if paired:
        return bootstrap([tuple(y - x for x, y in zip(ra, rb)) for ra, rb in zip(a, b)], resamples=resamples, rng=rng)
    stats = []
    for _ in range(resamples):
        ma, mb = _means(rng.choices(a, k=len(a))), _means(rng.choices(b, k=len(b)))
        stats.append([y - x for x, y in zip(ma, mb)])
    return [_interval(list(col)) for col in zip(*stats)]


def metric_columns(k: int) -> tuple[tuple[str, Callable[[TaskResult], float]], ...]:
    """(name, per-task value) of each metric a cell reports: pass@1, pass@k, mean reward."""
    return (("pass@1", lambda t: t.correct / t.n), ("pass@k", lambda t: pass_at_k(t.n, t.correct, k)),
            ("mean_reward", lambda t: t.reward))


def cell_metrics(tasks: Sequence[TaskResult], k: int, *, resamples: int, seed: int, key: str) -> dict:
    """One cell's tasks, completions, solved completions, metrics and their `_ci` intervals."""
    cols = metric_columns(k)
    rows = [tuple(f(t) for _, f in cols) for t in sorted(tasks, key=lambda t: t.id)]  # (any input order)
    means = _means(rows)
    cis = bootstrap(rows, resamples=resamples, rng=rng_for(seed, key)) if resamples else [[m, m] for m in means]
    out = {"tasks": len(tasks), "n": sum(t.n for t in tasks), "solved": sum(t.correct for t in tasks)}
    for (name, _), m, ci in zip(cols, means, cis):
        out[name] = m
        out[f"{name}_ci"] = ci
    return out


def cell_key(operator: str, size: int) -> str:
    return f"{operator}/{size}"


def by_cell(tasks: Iterable[TaskResult]) -> dict[tuple[str, int], list[TaskResult]]:
    cells: dict[tuple[str, int], list[TaskResult]] = {}
    for t in tasks:
        cells.setdefault((t.operator, t.size), []).append(t)
    return cells


def summarize(tasks: Sequence[TaskResult], k: int, *, resamples: int = RESAMPLES,
              seed: int = 0) -> tuple[dict[tuple[str, int], dict], dict]:
    """(metrics per (operator, size), metrics over every task). Every task needs n >= k."""
    short = [t.id for t in tasks if t.n < k]
    if short:
        raise ValueError(f"pass@{k} needs at least {k} samples a task; {short[0]} has fewer")
    cells = {cell: cell_metrics(ts, k, resamples=resamples, seed=seed, key=cell_key(*cell))
             for cell, ts in sorted(by_cell(tasks).items())}
    return cells, cell_metrics(tasks, k, resamples=resamples, seed=seed, key="all")
