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
- value answers (sequential, parallel, branch, loop, individual): 0 — the well-formed answers are
  unbounded — so the strategies themselves are the baseline.

The constant strategies are cross-fitted: the most common answer (or item) of one half of
a cell is scored on the other half, so a cell of distinct answers does not look guessable
merely because some answer comes first. `env_mode` is cross-fitted too, over all records:
each environment's most common output in the traces of one half answers its items in the
other (the builder thins such outputs: racesl.operators.outputs).

A beaten strategy names its carriers: the environments whose items it gets right (value
answers), or the chains of the sort and select tasks it solves above their chance, ranked
by the reward they give it above chance. A strategy beats chance when its mean exceeds the
chance by more than max(3 standard errors of the per-task difference, `margin`). The
standard error uses the largest of the sample's variance, the variance a guess at chance
would have (c(1 - c) per task), and the variance of hits at the strategy's own rate r
(r(1 - r) / k per task of k items): a small cell whose answers happen to lean one way (12
of 14 size-2 sort tasks answered "A, B"), or four parallel tasks of 11 items with an item
or two right in each, otherwise looks surer of its lean than so few tasks can be (the rate
by Laplace's rule, (hits + 1) / (items + 2), so that all hits is no certainty). A cell of
fewer than MIN_TASKS tasks is shown but never judged.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from typing import Callable, Iterable

import attrs

from racesl.catalogue.examples import outputs_shown
from racesl.operators.orders import Link, accepting_orders, graph_link, pick_fitting, shape_link, type_fit
from racesl.rewards import score
from racesl.rewards.libraries import library_for
from racesl.rewards.parse import expected_value
from racesl.sample.seeding import item_rng
from racesl.text import plural

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
SELECT_GUESSES = 16
VALUE_OPERATORS = ("sequential", "parallel", "branch", "loop", "individual")
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


def constant(rec: dict, fold: dict) -> str | list[str] | None:
    """The other half's most common answer (its items, for sequential and parallel)."""
    if rec["operator"] in ("sequential", "parallel") and fold.get("answer_items") is not None:
        return list(fold["answer_items"])
    return fold.get("answer")


def item_mode(rec: dict, fold: dict) -> list[str] | None:
    """Sequential and parallel: each item the other half's most common item there."""
    if rec["operator"] not in ("sequential", "parallel"):
        return None
    modes = fold.get("items", {})
    return [modes.get(k, "0") for k in range(len(rec["trace"]))]


def env_mode(rec: dict, fold: dict) -> str | list[str] | None:
    """Value answers: each item the most common output of the environment that makes it,
    learned from the other half of all records (every operator's traces). A branch answers
    the mode of the arm whose last environment is the more predictable; a loop its
    environment's mode."""
    modes = fold.get("envs", {})
    op = rec["operator"]
    if op in ("sequential", "parallel"):
        return [modes.get(q, ("?", 0.0))[0] for q in rec["chain"]]
    if op in ("loop", "individual"):
        return modes.get(rec["chain"][0], ("?", 0.0))[0]
    if op == "branch":
        ends = [rec["extra"]["then"][-1], rec["extra"]["else"][-1]]
        return max((modes.get(q, ("?", 0.0)) for q in ends), key=lambda m: m[1])[0]
    return None


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


_LINKS: dict[str, Link] = {}  # library hash → its signature graph's edges (the solver's, where it runs)


def _link(lib) -> Link:
    """Which candidate may follow which by declared types: the library's signature graph,
    built once per library (with the solver, which drops edges whose refinements cannot meet;
    by shapes alone where the solver is not there)."""
    hit = _LINKS.get(lib.hash)
    if hit is None:
        try:
            from racesl.graph.signature import build_graph

            hit = graph_link(build_graph(lib.envs.values())[0])
        except ImportError:
            hit = shape_link
        _LINKS[lib.hash] = hit
    return hit


def type_order(rec: dict, fold: dict) -> str | None:
    """Sort: an order of the candidates, select: a sequence of `size` of them, drawn uniformly
    among those whose declared types chain — the start of the first one's input type, each
    output of the next one's input type (an edge of the signature graph), the target of the
    last one's output type. It runs nothing: the signatures are public, the start and the
    target are in the prompt (racesl.operators.orders.type_fit). Where none chains, the first
    candidates as listed."""
    if rec["operator"] not in LETTER_OPERATORS:
        return None
    lib = library_for(rec["library"])
    if lib is None:
        return None
    envs = [lib.envs.get(c["env"]) for c in rec["extra"]["candidates"]]
    if any(e is None for e in envs):
        return None
    try:
        x0, target = expected_value(rec["input"]), expected_value(rec["extra"]["target"])
    except (ValueError, SyntaxError, RecursionError):
        return identity(rec, fold)
    fit = type_fit(lib, x0, envs, target, _link(lib))
    length = len(envs) if rec["operator"] == "sort" else rec["size"]
    order = pick_fitting(fit, item_rng(0, "audit-type-order", rec["id"]), length)
    return identity(rec, fold) if order is None else ", ".join(LETTERS[k] for k in order)


def echo_input(rec: dict, fold: dict) -> str | list[str] | None:
    """The input itself (for every item of a list answer)."""
    op = rec["operator"]
    if op == "sequential":
        return [rec["input"]] * len(rec["trace"])
    if op == "parallel":
        return list(rec["extra"].get("inputs", [rec["input"]]))
    if op in ("branch", "loop", "individual"):
        return rec["input"]
    return None


def example_output(rec: dict, fold: dict) -> str | list[str] | None:
    """Each description's example output, in the order the prompt shows them (the k-th
    item of a list answer from the k-th example; a single answer from the last one)."""
    shown = outputs_shown(rec.get("prompt", ""))
    if not shown or rec["operator"] in LETTER_OPERATORS:
        return None
    if rec["operator"] in ("sequential", "parallel"):
        n = len(rec["trace"])
        return (shown + shown[-1:] * n)[:n]
    return shown[-1]


def _always(text: str) -> Callable[[dict, dict], str | list[str] | None]:
    def strategy(rec: dict, fold: dict) -> str | list[str] | None:
        if rec["operator"] in ("sequential", "parallel"):
            return [text] * len(rec["trace"])
        return text if rec["operator"] in ("branch", "loop", "individual") else None
    strategy.__doc__ = f"{text} (for every item of a list answer)."
    return strategy


# A strategy answers a text, or for sequential and parallel a list of item texts (so the
# audit can tell which environments' items it gets right).
STRATEGIES: dict[str, Callable[[dict, dict], str | list[str] | None]] = {
    "copy_example": copy_example,
    "constant": constant,
    "item_mode": item_mode,
    "env_mode": env_mode,
    "identity": identity,
    "reversed": reversed_order,
    "type_order": type_order,
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
    drawn = expected_value(rec["trace"][0]) if any(e.source for e, _ in cands) else None  # (a generator's)
    hits, tried = accepting_orders(lib, expected_value(rec["input"]), cands, rec["extra"]["target"],
                                   item_rng(0, "audit-orders", rec["id"]), drawn)
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

CARRIERS = 3  # environments or chains named per beaten strategy
MIN_TASKS = 8  # a cell of fewer tasks is shown, never judged: two tasks that share an answer prove nothing


@attrs.frozen
class Carrier:
    """An environment (value answers) or a chain (sort, select) and the reward a strategy
    collects above chance on its items or tasks in one cell."""

    name: str
    n: int  # items (value answers) or tasks (sort, select) it appears in
    excess: float  # the strategy's reward above chance there, summed (in tasks' worth)


@attrs.frozen
class Result:
    """One strategy in one cell."""

    mean: float
    se: float  # standard error of the per-task difference from chance
    beats: bool
    carriers: tuple[Carrier, ...] = ()  # where the excess comes from, most first (beaten strategies only)


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


def _carried(r: Result) -> str:
    if not r.carriers:
        return ""
    return "; carried by " + ", ".join(f"{c.name} ({c.n})" for c in r.carriers)


@attrs.frozen
class Report:
    cells: tuple[Cell, ...]
    margin: float
    missing_library: int  # sort/select records whose library could not be found
    z: float = 3.0  # standard errors a strategy must clear (besides the margin)

    @property
    def ok(self) -> bool:
        return not any(c.beaten for c in self.cells)

    def worst(self) -> tuple[Cell, str, Result] | None:
        """The strategy furthest above chance (relative to its bar), for one-line verdicts."""
        best = None
        for c in self.cells:
            for name, r in c.results.items():
                gap = r.mean - c.chance - max(self.z * r.se, self.margin)
                if best is None or gap > best[0]:
                    best = (gap, c, name, r)
        return None if best is None else best[1:]

    def verdict(self) -> str:
        """One line: whether any shortcut beats chance (with the environments or chains that
        carry it), and otherwise the closest call."""
        beaten = [f"{c.operator} {c.size} {name} {c.results[name].mean:.3f} (chance {c.chance:.3f}"
                  f"{_carried(c.results[name])})"
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

    def leaks(self) -> list[str]:
        """The environments and chains that carry a beaten strategy, most excess first."""
        total: dict[str, float] = defaultdict(float)
        for c in self.cells:
            for name in c.beaten:
                for k in c.results[name].carriers:
                    total[k.name] += k.excess
        return sorted(total, key=lambda k: (-total[k], k))

    def to_json(self) -> dict:
        return {"ok": self.ok, "margin": self.margin, "z": self.z, "missing_library": self.missing_library,
                "order_insensitive": self.order_insensitive_share(), "verdict": self.verdict(),
                "leaks": self.leaks(),
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


def _outputs(rec: dict) -> Iterable[tuple[str, str]]:
    """(environment, output text) pairs of a record's trace."""
    if rec["operator"] == "loop":
        return ((rec["chain"][0], t) for t in rec["trace"])
    return zip(rec["chain"], rec["trace"])


def _env_modes(records: Iterable[dict]) -> dict[str, tuple[str, float]]:
    """Each environment's most common output and its share, over `records`' traces."""
    seen: dict[str, Counter] = defaultdict(Counter)
    for r in records:
        for q, t in _outputs(r):
            seen[q][t] += 1
    return {q: (_mode(c), c[_mode(c)] / sum(c.values())) for q, c in seen.items()}


def _fold_priors(records: list[dict], envs: dict) -> dict:
    """What the constant strategies learn from one half of a cell (and `envs`, the
    environments' modes from one half of all records)."""
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
    top = _mode(answers)
    items_of = next((list(r["trace"]) for r in records if r["answer"] == top), None)
    return {"answer": top, "answer_items": items_of, "items": modes, "envs": envs}


def _mode(c: Counter) -> str | None:
    # ties broken by text, so the audit is the same in every process
    return min(c.items(), key=lambda kv: (-kv[1], kv[0]))[0] if c else None


def _same(a: str, b: str) -> bool:
    """Two item texts denote the same value (for naming carriers; the score itself is the reward's)."""
    if a == b:
        return True
    try:
        return expected_value(a) == expected_value(b) and type(expected_value(a)) is type(expected_value(b))
    except (ValueError, SyntaxError, RecursionError):
        return False


def _keys(rec: dict, answer: str | list[str]) -> list[str]:
    """The environments (or the chain) a task's reward can be credited to (see _credit)."""
    op = rec["operator"]
    if isinstance(answer, list) and op in ("sequential", "parallel"):
        return list(rec["chain"])
    if op in ("loop", "branch", "individual"):
        return [_credit(rec, answer, 1.0)[0][0]]
    return [" → ".join(rec["chain"])]


def _credit(rec: dict, answer: str | list[str], excess: float) -> list[tuple[str, float]]:
    """Where one task's excess reward comes from: for item answers, the environments of the
    items it gets right (a sequential answer's right prefix), each its share of the task;
    otherwise the task's chain (sort, select, and whole answers), or the environment that
    makes a loop's or branch's answer."""
    op = rec["operator"]
    if isinstance(answer, list) and op in ("sequential", "parallel"):
        hits = [_same(a, t) for a, t in zip(answer, rec["trace"])]
        if op == "sequential":
            hits = [all(hits[:k + 1]) for k in range(len(hits))]
        n = len(rec["trace"])
        return [(q, 1.0 / n) for q, h in zip(rec["chain"], hits) if h]
    if op in ("loop", "individual"):
        return [(rec["chain"][0], excess)]
    if op == "branch":
        arm = rec["extra"]["then" if rec["extra"].get("value") else "else"]
        return [(arm[-1], excess)]
    return [(" → ".join(rec["chain"]), excess)]


def _carriers(credit: dict[str, float], seen: Counter) -> tuple[Carrier, ...]:
    ranked = sorted((k for k in credit if credit[k] > 0), key=lambda k: (-credit[k], k))[:CARRIERS]
    return tuple(Carrier(k, seen[k], round(credit[k], 3)) for k in ranked)


def _text(answer: str | list[str]) -> str:
    return _listing(answer) if isinstance(answer, list) else answer


def audit_records(records: list[dict], margin: float = 0.05,
                  answers: dict[str, str] | None = None, z: float = 3.0) -> Report:
    """Score every strategy on every record; `answers` (record id → completion) adds a
    model's accuracy per cell."""
    cells: dict[tuple[str, int], list[dict]] = defaultdict(list)
    for r in records:
        cells[(r["operator"], r["size"])].append(r)
    # every cell split in two halves, alike for the cell's and the environments' priors
    halves_all: tuple[list[dict], list[dict]] = ([], [])
    for recs in cells.values():
        halves_all[0].extend(recs[0::2])
        halves_all[1].extend(recs[1::2])
    env_priors = (_env_modes(halves_all[1]), _env_modes(halves_all[0]))
    out = []
    missing = 0
    for (op, size), recs in sorted(cells.items()):
        halves = (recs[0::2], recs[1::2])
        priors = (_fold_priors(halves[1], env_priors[0]), _fold_priors(halves[0], env_priors[1]))
        per: dict[str, list[float]] = defaultdict(list)
        items: dict[str, list[int]] = defaultdict(list)  # how many items each answer had
        credit: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
        seen: dict[str, Counter] = defaultdict(Counter)
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
                gain = score(r, _wrap(_text(ans))) - c
                per[name].append(gain)
                items[name].append(len(ans) if isinstance(ans, list) else 1)
                seen[name].update(_keys(r, ans))
                if gain > 0:
                    for key, part in _credit(r, ans, gain):
                        credit[name][key] += part
        results = {}
        mean_chance = sum(chances) / len(chances)
        null_var = sum(c * (1 - c) for c in chances) / len(chances)  # a guess at chance, per task
        for name, diffs in per.items():
            n = len(diffs)
            mean = sum(diffs) / n
            var = sum((d - mean) ** 2 for d in diffs) / (n - 1) if n > 1 else 0.0
            # a few tasks that each collect a little look surer than they are: no less than
            # the variance of hits at the strategy's own rate, independent per item
            k = sum(items[name])
            rate = (min(k, max(0.0, mean + mean_chance) * k) + 1) / (k + 2)  # hits per item, Laplace's rule
            own_var = rate * (1 - rate) * n / k
            se = math.sqrt(max(var, null_var, own_var) / n) if n > 1 else 1.0
            beats = n >= MIN_TASKS and mean > max(z * se, margin)
            results[name] = Result(mean + mean_chance, se, beats,
                                   _carriers(credit[name], seen[name]) if beats else ())
        model = None
        if answers is not None:
            judged = [score(r, answers[r["id"]]) for r in recs if r["id"] in answers]
            model = sum(judged) / len(judged) if judged else None
        out.append(Cell(op, size, len(recs), mean_chance, _entropy(Counter(r["answer"] for r in recs)),
                        math.log2(len(recs)) if recs else 0.0,
                        sum(insensitive) / len(insensitive) if insensitive else None, results, model))
    return Report(tuple(out), margin, missing, z)
