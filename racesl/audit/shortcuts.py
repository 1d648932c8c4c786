"""Strategies that do not solve a task, scored with the real reward.

A task set is only worth training on if no such strategy collects reward above chance.
Per operator × size cell, `audit` scores each strategy on every record with
`racesl.rewards.score` (so sort and select re-execute, exactly as in training) and sets
the mean beside the chance of a uniform guess among well-formed answers:

- sort: the share of all orders of the candidates that reach the target (every order up
  to five candidates, a seeded sample of them beyond);
- select: the mean score of `SELECT_GUESSES` seeded uniform draws among the selections of
  the cell's length (sequences of that many distinct candidate letters). The strategies
  that select (identity, reversed) are told the length, so their baseline is a guess told
  it too; against guesses of any length (almost all longer, and wrong) a fixed pair in a
  size-2 cell looked like a shortcut by luck alone;
- value answers (sequential, parallel, branch, loop): 0 — the well-formed answers are
  unbounded — so the strategies themselves are the baseline.

The constant strategies are cross-fitted: the most common answer (or item) of one half of
a cell is scored on the other half, so a cell of distinct answers does not look guessable
merely because some answer comes first. A strategy beats chance when its mean exceeds the
chance by more than max(3 standard errors of the per-task difference, `margin`). The
standard error uses the larger of the sample's variance and the variance a guess at chance
would have (c(1 - c) per task): a small cell whose answers happen to lean one way (12 of 14
size-2 sort tasks answered "A, B") otherwise looks surer of its lean than 14 tasks can be.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from typing import Callable, Iterable

import attrs

from racesl.catalogue.examples import outputs_shown
from racesl.operators.orders import accepting_orders
from racesl.rewards import score
from racesl.rewards.libraries import library_for
from racesl.rewards.parse import expected_value
from racesl.sample.seeding import item_rng
from racesl.text import plural

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
SELECT_GUESSES = 16
VALUE_OPERATORS = ("sequential", "parallel", "branch", "loop")
LETTER_OPERATORS = ("sort", "select")
_EXAMPLE = re.compile(r"<answer>(.*?)</answer>", re.S)


def _wrap(answer: str) -> str:
    return f"<answer>{answer}</answer>"


def _listing(items: Iterable[str]) -> str:
    return "[" + ", ".join(items) + "]"


def _letters(k: int) -> list[str]:
    return list(LETTERS[:k])


# ---------------------------------------------------------------- the strategies
#
# Each takes (record, fold) — `fold` is what the cross-fitted strategies learned from the
# other half of the cell — and returns an answer text, or None where it does not apply.

def copy_example(rec: dict, fold: dict) -> str | None:
    """The prompt's own example answer (its last non-empty <answer> block)."""
    found = [m for m in _EXAMPLE.findall(rec.get("prompt", "")) if m.strip()]
    return found[-1].strip() if found else ""


def constant(rec: dict, fold: dict) -> str | None:
    """The other half's most common answer."""
    return fold.get("answer")


def item_mode(rec: dict, fold: dict) -> str | None:
    """Sequential and parallel: each item the other half's most common item there."""
    if rec["operator"] not in ("sequential", "parallel"):
        return None
    modes = fold.get("items", {})
    return _listing(modes.get(k, "0") for k in range(len(rec["trace"])))


def identity(rec: dict, fold: dict) -> str | None:
    """Sort: the candidates as listed; select: the first `size` of them."""
    if rec["operator"] not in LETTER_OPERATORS:
        return None
    k = len(rec["extra"]["candidates"]) if rec["operator"] == "sort" else rec["size"]
    return ", ".join(_letters(k))


def reversed_order(rec: dict, fold: dict) -> str | None:
    """Sort: the candidates listed backwards; select: the first `size`, backwards."""
    ident = identity(rec, fold)
    return None if ident is None else ", ".join(reversed(ident.split(", ")))


def echo_input(rec: dict, fold: dict) -> str | None:
    """The input itself (for every item of a list answer)."""
    op = rec["operator"]
    if op == "sequential":
        return _listing([rec["input"]] * len(rec["trace"]))
    if op == "parallel":
        return _listing(rec["extra"].get("inputs", [rec["input"]]))
    if op in ("branch", "loop"):
        return rec["input"]
    return None


def example_output(rec: dict, fold: dict) -> str | None:
    """Each description's example output, in the order the prompt shows them (the k-th
    item of a list answer from the k-th example; a single answer from the last one)."""
    shown = outputs_shown(rec.get("prompt", ""))
    if not shown or rec["operator"] in LETTER_OPERATORS:
        return None
    if rec["operator"] in ("sequential", "parallel"):
        n = len(rec["trace"])
        return _listing((shown + shown[-1:] * n)[:n])
    return shown[-1]


def _always(text: str) -> Callable[[dict, dict], str | None]:
    def strategy(rec: dict, fold: dict) -> str | None:
        if rec["operator"] in ("sequential", "parallel"):
            return _listing([text] * len(rec["trace"]))
        return text if rec["operator"] in ("branch", "loop") else None
    strategy.__doc__ = f"{text} (for every item of a list answer)."
    return strategy


STRATEGIES: dict[str, Callable[[dict, dict], str | None]] = {
    "copy_example": copy_example,
    "constant": constant,
    "item_mode": item_mode,
    "identity": identity,
    "reversed": reversed_order,
    "echo_input": echo_input,
    "example_output": example_output,
    "always_true": _always("True"),
    "always_false": _always("False"),
}


# ---------------------------------------------------------------- chance

def _candidates(lib, rec: dict) -> list | None:
    out = []
    for c in rec["extra"]["candidates"]:
        env = lib.envs.get(c["env"])
        if env is None:
            return None
        out.append((env, tuple(expected_value(c["settings"][s.name]) for s in env.settings)))
    return out


def sort_share(rec: dict) -> float | None:
    """The share of candidate orders that reach the target (None without the library)."""
    lib = library_for(rec["library"])
    cands = _candidates(lib, rec) if lib is not None else None
    if cands is None:
        return None
    hits, tried = accepting_orders(lib, expected_value(rec["input"]), cands, rec["extra"]["target"],
                                   item_rng(0, "audit-orders", rec["id"]))
    return hits / tried


def select_chance(rec: dict) -> float:
    rng = item_rng(0, "audit-select", rec["id"])
    letters = _letters(len(rec["extra"]["candidates"]))
    return sum(score(rec, _wrap(", ".join(rng.sample(letters, rec["size"]))))
               for _ in range(SELECT_GUESSES)) / SELECT_GUESSES


def chance(rec: dict, share: float | None) -> float:
    op = rec["operator"]
    if op == "sort":
        return share if share is not None else 0.0
    if op == "select":
        return select_chance(rec)
    return 0.0


# ---------------------------------------------------------------- the audit

@attrs.frozen
class Result:
    """One strategy in one cell."""

    mean: float
    se: float  # standard error of the per-task difference from chance
    beats: bool


@attrs.frozen
class Cell:
    operator: str
    size: int
    n: int
    chance: float
    entropy: float  # bits, of the reference answers
    max_entropy: float  # log2(n): every answer distinct
    order_insensitive: float | None  # sort: share of tasks that more than half of all orders solve
    results: dict[str, Result]
    model: float | None = None

    @property
    def beaten(self) -> list[str]:
        return [name for name, r in self.results.items() if r.beats]


@attrs.frozen
class Report:
    cells: tuple[Cell, ...]
    margin: float
    missing_library: int  # sort/select records whose library could not be found

    @property
    def ok(self) -> bool:
        return not any(c.beaten for c in self.cells)

    def worst(self) -> tuple[Cell, str, Result] | None:
        """The strategy furthest above chance (relative to its bar), for one-line verdicts."""
        best = None
        for c in self.cells:
            for name, r in c.results.items():
                gap = r.mean - c.chance - max(3 * r.se, self.margin)
                if best is None or gap > best[0]:
                    best = (gap, c, name, r)
        return None if best is None else best[1:]

    def verdict(self) -> str:
        """One line: whether any shortcut beats chance, and the closest call."""
        beaten = [f"{c.operator} {c.size} {name} {c.results[name].mean:.3f} (chance {c.chance:.3f})"
                  for c in self.cells for name in c.beaten]
        insensitive = self.order_insensitive_share()
        tail = ("" if insensitive is None else
                f"; sort tasks of size <= 4 that most orders solve: {insensitive:.1%}")
        if beaten:
            return (f"audit: {plural(len(beaten), 'shortcut')} beat chance by more than the margin: "
                    + ", ".join(beaten[:4]) + (" …" if len(beaten) > 4 else "") + tail)
        w = self.worst()
        closest = "" if w is None else (f" (closest: {w[0].operator} {w[0].size} {w[1]} {w[2].mean:.3f}, "
                                        f"chance {w[0].chance:.3f})")
        return f"audit: no shortcut beats chance in {plural(len(self.cells), 'cell')}{closest}{tail}"

    def to_json(self) -> dict:
        return {"ok": self.ok, "margin": self.margin, "missing_library": self.missing_library,
                "order_insensitive": self.order_insensitive_share(), "verdict": self.verdict(),
                "cells": [{"operator": c.operator, "size": c.size, "n": c.n, "chance": c.chance,
                           "entropy": c.entropy, "max_entropy": c.max_entropy,
                           "order_insensitive": c.order_insensitive, "model": c.model,
                           "strategies": {k: attrs.asdict(r) for k, r in c.results.items()}}
                          for c in self.cells]}

    def order_insensitive_share(self, max_size: int = 4) -> float | None:
        """Across sort tasks of size <= max_size: share solved by more than half of all orders."""
        num = den = 0.0
        for c in self.cells:
            if c.operator == "sort" and c.size <= max_size and c.order_insensitive is not None:
                num += c.order_insensitive * c.n
                den += c.n
        return num / den if den else None


def _entropy(counts: Counter) -> float:
    total = sum(counts.values())
    return -sum(v / total * math.log2(v / total) for v in counts.values()) if total else 0.0


def _fold_priors(records: list[dict]) -> dict:
    """What the constant strategies learn from one half of a cell."""
    answers = Counter(r["answer"] for r in records)
    items: dict[int, Counter] = defaultdict(Counter)
    for r in records:
        if r["operator"] == "parallel":
            for t in r["trace"]:
                items[-1].update([t])
        elif r["operator"] == "sequential":
            for k, t in enumerate(r["trace"]):
                items[k][t] += 1
    modes = {k: _mode(c) for k, c in items.items()}
    if -1 in modes:  # parallel items are alike at every position
        modes = defaultdict(lambda: modes[-1])
    return {"answer": _mode(answers), "items": modes}


def _mode(c: Counter) -> str | None:
    # ties broken by text, so the audit is the same in every process
    return min(c.items(), key=lambda kv: (-kv[1], kv[0]))[0] if c else None


def audit_records(records: list[dict], margin: float = 0.05,
                  answers: dict[str, str] | None = None) -> Report:
    """Score every strategy on every record; `answers` (record id → completion) adds a
    model's accuracy per cell."""
    cells: dict[tuple[str, int], list[dict]] = defaultdict(list)
    for r in records:
        cells[(r["operator"], r["size"])].append(r)
    out = []
    missing = 0
    for (op, size), recs in sorted(cells.items()):
        halves = (recs[0::2], recs[1::2])
        priors = (_fold_priors(halves[1]), _fold_priors(halves[0]))  # each half learns from the other
        per: dict[str, list[float]] = defaultdict(list)
        chances, insensitive = [], []
        for k, r in enumerate(recs):
            fold = priors[k % 2]
            share = sort_share(r) if op == "sort" else None
            if op in LETTER_OPERATORS and library_for(r["library"]) is None:
                missing += 1
            if share is not None:
                insensitive.append(share > 0.5)
            c = chance(r, share)
            chances.append(c)
            for name, strategy in STRATEGIES.items():
                ans = strategy(r, fold)
                if ans is None:
                    continue
                per[name].append(score(r, _wrap(ans)) - c)
        results = {}
        mean_chance = sum(chances) / len(chances)
        null_var = sum(c * (1 - c) for c in chances) / len(chances)  # a guess at chance, per task
        for name, diffs in per.items():
            n = len(diffs)
            mean = sum(diffs) / n
            var = sum((d - mean) ** 2 for d in diffs) / (n - 1) if n > 1 else 0.0
            se = math.sqrt(max(var, null_var) / n) if n > 1 else 1.0
            results[name] = Result(mean + mean_chance, se, mean > max(3 * se, margin))
        model = None
        if answers is not None:
            judged = [score(r, answers[r["id"]]) for r in recs if r["id"] in answers]
            model = sum(judged) / len(judged) if judged else None
        out.append(Cell(op, size, len(recs), mean_chance, _entropy(Counter(r["answer"] for r in recs)),
                        math.log2(len(recs)) if recs else 0.0,
                        sum(insensitive) / len(insensitive) if insensitive else None, results, model))
    return Report(tuple(out), margin, missing)
