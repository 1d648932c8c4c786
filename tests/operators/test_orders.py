"""The orders the declared types allow (racesl.operators.orders): counted and drawn exactly,
checked against brute force over every order, on type facts Hypothesis makes up."""

from __future__ import annotations

import itertools
import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from racesl.operators.orders import DP_MAX, TypeFit, count_fitting, pick_fitting


@st.composite
def fits(draw, lo: int = 1, hi: int = 6) -> TypeFit:
    n = draw(st.integers(lo, hi))
    bits = st.booleans()
    first = tuple(draw(st.lists(bits, min_size=n, max_size=n)))
    last = tuple(draw(st.lists(bits, min_size=n, max_size=n)))
    link = tuple(tuple(a != b and draw(bits) for b in range(n)) for a in range(n))
    return TypeFit(first, last, link)


def brute(fit: TypeFit, length: int) -> set[tuple[int, ...]]:
    return {o for o in itertools.permutations(range(fit.n), length) if fit.fits(o)}


@given(fits(), st.data())
@settings(max_examples=300, deadline=None)
def test_count_and_pick_agree_with_every_order(fit, data):
    length = data.draw(st.integers(1, fit.n))
    want = brute(fit, length)
    assert count_fitting(fit, length) == len(want)
    got = pick_fitting(fit, random.Random(data.draw(st.integers(0, 2**32))), length)
    if want:
        assert got in want  # only ever an order the types allow, and one exists: it finds one
    else:
        assert got is None


@given(st.permutations(range(7)), st.integers(0, 2**32))
@settings(max_examples=100, deadline=None)
def test_one_fitting_order_is_always_found(order, seed):
    """Types that chain in one order only (a → b → c ...): the pick is that order."""
    n = len(order)
    pos = {k: i for i, k in enumerate(order)}
    fit = TypeFit(tuple(pos[k] == 0 for k in range(n)), tuple(pos[k] == n - 1 for k in range(n)),
                  tuple(tuple(pos[b] == pos[a] + 1 for b in range(n)) for a in range(n)))
    assert count_fitting(fit) == 1
    assert pick_fitting(fit, random.Random(seed)) == tuple(order)


def test_the_pick_is_uniform_among_fitting_orders():
    """4 candidates, any may start, D must be last: the 6 orders ending in D, each about a sixth."""
    n = 4
    fit = TypeFit((True,) * 3 + (False,), (False,) * 3 + (True,),
                  tuple(tuple(a != b for b in range(n)) for a in range(n)))
    rng = random.Random(7)
    seen = Counter(pick_fitting(fit, rng) for _ in range(6000))
    assert set(seen) == brute(fit, n) and len(seen) == 6
    assert all(850 <= c <= 1150 for c in seen.values()), seen


def test_beyond_exact_counting_a_fitting_order_is_still_found():
    n = DP_MAX + 4
    order = list(range(n))
    random.Random(3).shuffle(order)
    pos = {k: i for i, k in enumerate(order)}
    chain = TypeFit(tuple(pos[k] == 0 for k in range(n)), tuple(pos[k] == n - 1 for k in range(n)),
                    tuple(tuple(pos[b] == pos[a] + 1 for b in range(n)) for a in range(n)))
    assert count_fitting(chain) is None
    assert pick_fitting(chain, random.Random(0)) == tuple(order)  # (the walk: no random order hits it)
    free = TypeFit((True,) * n, (True,) * n, tuple(tuple(a != b for b in range(n)) for a in range(n)))
    assert free.all_fit() and sorted(pick_fitting(free, random.Random(0))) == list(range(n))
    assert not chain.all_fit()
