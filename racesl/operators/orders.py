"""Which orders of a sort task's candidates reach its target.

A sort task whose steps commute accepts many orders and so tests little: the builder drops
one when too large a share of the orders reaches the target, and `racesc audit` measures
the same share on written records. Both ask this module, which runs candidates as the
reward does (racesl.rewards.score): each value checked against the next environment's input
type, each step with the reward's own fuel, the last value compared by canonical text. A
generator environment (racesl.check.generators) is never run: first, it gives the answer it
drew (`drawn`, from the chain or the record); anywhere else, the order fails.

It also says which orders the declared types allow (`type_fit`, below): the builder keeps a
sort task only when they allow every order, and `racesc audit`'s type_order strategy guesses
among them.
"""

from __future__ import annotations

import math
import random
from typing import Any, Callable, Sequence

import attrs

from racesl.check.model import EnvSig
from racesl.runtime.contract import canonical
from racesl.types import types as T

STEP_FUEL = 400  # each re-executed step's budget: what the reward gives it
EXHAUSTIVE = 120  # orders counted one by one up to this many (5 candidates); sampled beyond
SAMPLES = 48  # orders drawn when there are more

_FAIL = object()  # a prefix that fails or leaves a candidate's domain
_MISS = object()


class _Runner:
    """Runs prefixes of orders, remembering each prefix's value: orders share prefixes."""

    def __init__(self, lib, x0: Any, cands: Sequence[tuple[EnvSig, tuple]], drawn: Any = None):
        self.lib, self.cands, self.x0, self.drawn = lib, cands, x0, drawn
        self.memo: dict[tuple[int, ...], Any] = {(): x0}

    def step(self, value: Any, k: int, first: bool = False) -> Any:
        """Candidate k applied to `value` (`first`: at the start of the order), or _FAIL."""
        env, settings = self.cands[k]
        if env.generate is not None:
            return self.drawn if first and self.drawn is not None else _FAIL
        if value is _FAIL or self.lib.conforms(value, env.input) is not None:
            return _FAIL
        r = self.lib.run(env, value, settings, fuel=STEP_FUEL)
        return r.value if r.ok else _FAIL

    def value(self, order: tuple[int, ...]) -> Any:
        hit = self.memo.get(order, _MISS)
        if hit is _MISS:
            hit = self.memo[order] = self.step(self.value(order[:-1]), order[-1], len(order) == 1)
        return hit

    def count_all(self, value: Any, left: frozenset[int], target: str) -> int:
        """Orders of the candidates in `left` that take `value` to the target; a prefix that
        fails is not extended (none of its orders can succeed)."""
        if not left:
            return int(canonical(value) == target)
        hits = 0
        first = len(left) == len(self.cands)
        for k in sorted(left):
            nxt = self.step(value, k, first)
            if nxt is not _FAIL:
                hits += self.count_all(nxt, left - {k}, target)
        return hits


def accepting_orders(lib, x0: Any, cands: Sequence[tuple[EnvSig, tuple]], target: str,
                     rng: random.Random, drawn: Any = None) -> tuple[int, int]:
    """(orders that reach `target`, orders tried): every order of up to five candidates,
    else SAMPLES orders drawn with `rng` (an estimate of the same share). `drawn`: the answer
    a generator candidate drew, where there is one."""
    n = len(cands)
    run = _Runner(lib, x0, cands, drawn)
    if math.factorial(n) <= EXHAUSTIVE:
        return run.count_all(x0, frozenset(range(n)), target), math.factorial(n)
    hits = 0
    for _ in range(SAMPLES):
        order = list(range(n))
        rng.shuffle(order)
        v = run.value(tuple(order))
        if v is not _FAIL and canonical(v) == target:
            hits += 1
    return hits, SAMPLES


# ---------------------------------------------------------------- orders the types allow
#
# A learner who computes nothing can still read the candidates' declared signatures (they are
# public) and the prompt's start and target values, and keep only the orders whose types chain:
# the start is of the first candidate's input type, each output of the next one's input type,
# the target of the last one's output type. Where few orders pass, guessing among them beats a
# uniform guess among all orders. The sort builder keeps a task only when every order passes
# (`all_fit`), so that guess is a uniform one; `racesc audit`'s type_order strategy plays it on
# written records (`pick_fitting`).

Link = Callable[[EnvSig, EnvSig], bool]  # may a value of a's declared output be b's input?
DP_MAX = 12  # orders counted and drawn exactly (a pass over the reachable subsets) up to this many candidates
REJECT = 4096  # beyond: random orders tried before a randomised depth-first walk


def shape_link(a: EnvSig, b: EnvSig) -> bool:
    """The signature graph's own rule, refinements aside: a terminal environment ends a chain,
    a generator environment only starts one, and the shapes (newtype names kept) must be equal."""
    return not a.terminal and not b.source and T.erase(a.output) == T.erase(b.input)


def graph_link(graph) -> Link:
    """An edge of the signature graph (racesl.graph.signature): the shapes are equal and, with
    the solver, the refinements can overlap."""
    return lambda a, b: graph.g.has_edge(a.qualname, b.qualname)


@attrs.frozen
class TypeFit:
    """Which candidate may come first, which last, and which may follow which, by declared types."""

    first: tuple[bool, ...]
    last: tuple[bool, ...]
    link: tuple[tuple[bool, ...], ...]  # link[a][b]: candidate b may follow candidate a

    @property
    def n(self) -> int:
        return len(self.first)

    def fits(self, order: Sequence[int]) -> bool:
        return (bool(order) and self.first[order[0]] and self.last[order[-1]]
                and all(self.link[a][b] for a, b in zip(order, order[1:])))

    def all_fit(self) -> bool:
        """Every order passes: guessing among the orders that pass is guessing among all."""
        return all(self.first) and all(self.last) and all(
            self.link[a][b] for a in range(self.n) for b in range(self.n) if a != b)


def type_fit(lib, x0: Any, envs: Sequence[EnvSig], target: Any, link: Link = shape_link) -> TypeFit:
    """The type facts of one sort task: `x0` and `target` are the prompt's values, `envs` the
    candidates' environments (settings do not change a declared type)."""
    n = len(envs)
    first = tuple(lib.conforms(x0, e.input) is None for e in envs)
    last = tuple(lib.conforms(target, e.output) is None for e in envs)
    return TypeFit(first, last, tuple(tuple(a != b and link(envs[a], envs[b]) for b in range(n))
                                      for a in range(n)))


def _paths(fit: TypeFit, length: int) -> dict[int, list[int]]:
    """paths[mask][j]: the fitting prefixes that use exactly the candidates in `mask` (at most
    `length` of them) and end at j; only the reachable masks are kept."""
    n = fit.n
    layer = {1 << j: [int(k == j) for k in range(n)] for j in range(n) if fit.first[j]}
    paths = dict(layer)
    for _ in range(length - 1):
        nxt: dict[int, list[int]] = {}
        for mask, row in layer.items():
            for j, c in enumerate(row):
                if c:
                    for b in range(n):
                        if not mask >> b & 1 and fit.link[j][b]:
                            nxt.setdefault(mask | 1 << b, [0] * n)[b] += c
        paths.update(nxt)
        layer = nxt
    return paths


def _ends(fit: TypeFit, paths: dict[int, list[int]], length: int) -> dict[int, list[int]]:
    """The complete fitting sequences of `length` candidates: mask → counts by last candidate."""
    return {m: [c if fit.last[j] else 0 for j, c in enumerate(row)] for m, row in paths.items()
            if m.bit_count() == length}


def count_fitting(fit: TypeFit, length: int | None = None) -> int | None:
    """How many orders of all the candidates (or sequences of `length` distinct ones) pass;
    None beyond DP_MAX candidates, where they are not counted."""
    length = fit.n if length is None else length
    if fit.n > DP_MAX:
        return None
    return sum(sum(row) for row in _ends(fit, _paths(fit, length), length).values())


def pick_fitting(fit: TypeFit, rng: random.Random, length: int | None = None) -> tuple[int, ...] | None:
    """An order of all the candidates (or a sequence of `length` distinct ones) that passes,
    drawn uniformly among those that do; None when none does. Beyond DP_MAX candidates: the
    first of REJECT uniform draws that passes (uniform too), else one found by a randomised
    depth-first walk (not uniform: a strategy may guess as it likes)."""
    n = fit.n
    length = n if length is None else length
    if n <= DP_MAX:
        paths = _paths(fit, length)
        ends = sorted(_ends(fit, paths, length).items())
        flat = [(m, j, c) for m, row in ends for j, c in enumerate(row) if c]
        if not flat:
            return None
        mask, j, _ = flat[_weighted(rng, [c for _, _, c in flat])]
        order = [j]
        while len(order) < length:  # walk back: a predecessor in proportion to the prefixes ending there
            mask &= ~(1 << order[-1])
            row = paths[mask]
            order.append(_weighted(rng, [row[a] if fit.link[a][order[-1]] else 0 for a in range(n)]))
        return tuple(reversed(order))
    for _ in range(REJECT):
        order = rng.sample(range(n), length)
        if fit.fits(order):
            return tuple(order)
    return _walk(fit, rng, [], frozenset(range(n)), length, [10_000])


def _weighted(rng: random.Random, weights: list[int]) -> int:
    r = rng.randrange(sum(weights))
    for k, w in enumerate(weights):
        if r < w:
            return k
        r -= w
    raise AssertionError("unreachable")


def _walk(fit: TypeFit, rng: random.Random, prefix: list[int], left: frozenset[int], length: int,
          budget: list[int]) -> tuple[int, ...] | None:
    if len(prefix) == length:
        return tuple(prefix) if fit.last[prefix[-1]] else None
    nxt = [k for k in sorted(left) if (fit.link[prefix[-1]][k] if prefix else fit.first[k])]
    rng.shuffle(nxt)
    for k in nxt:
        budget[0] -= 1
        if budget[0] < 0:
            return None
        got = _walk(fit, rng, prefix + [k], left - {k}, length, budget)
        if got is not None:
            return got
    return None
