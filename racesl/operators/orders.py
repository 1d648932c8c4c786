"""Which orders of a sort task's candidates reach its target.

A sort task whose steps commute accepts many orders and so tests little: the builder drops
one when too large a share of the orders reaches the target, and `racesc audit` measures
the same share on written records. Both ask this module, which runs candidates as the
reward does (racesl.rewards.score): each value checked against the next environment's input
type, each step with the reward's own fuel, the last value compared by canonical text. A
generator environment (racesl.check.generators) is never run: first, it gives the answer it
drew (`drawn`, from the chain or the record); anywhere else, the order fails.
"""

from __future__ import annotations

import math
import random
from typing import Any, Sequence

from racesl.check.model import EnvSig
from racesl.runtime.contract import canonical

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
