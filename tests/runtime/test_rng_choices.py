"""`rng.choices(population, weights=[...], k=N)`: the weighted draw generators use (issue 48),
with integer weights only, exact proportions, the same stream for the same seed, and the
size guard on `k` that `rng.sample` has."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from racesl.check import check_paths
from racesl.library import Library
from racesl.runtime.builtins import SafeRng
from racesl.runtime.limits import MAX_LEN, SizeExceeded


def test_weights_give_their_proportions():
    draws = Counter(SafeRng(7).choices(["a", "b", "c"], weights=[3, 1, 0], k=40_000))
    assert draws["c"] == 0
    assert 2.8 < draws["a"] / draws["b"] < 3.2


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32), weights=st.lists(st.integers(0, 5), min_size=1, max_size=6).filter(any),
       k=st.integers(0, 30))
def test_a_draw_is_a_function_of_the_seed_and_never_picks_a_zero_weight(seed, weights, k):
    population = list(range(len(weights)))
    a = SafeRng(seed).choices(population, weights=weights, k=k)
    assert a == SafeRng(seed).choices(population, weights=weights, k=k)
    assert len(a) == k and all(weights[x] > 0 for x in a)


@pytest.mark.parametrize("weights, k", [([1.5, 1], 1), ([0, 0], 1), ([1], 1), ([1, -1], 1), ([1, 1], -1),
                                        ([1, 1], True)])
def test_bad_weights_or_counts_are_refused(weights, k):
    with pytest.raises(ValueError):
        SafeRng(0).choices(["a", "b"], weights=weights, k=k)


def test_k_is_size_guarded():
    with pytest.raises(SizeExceeded):
        SafeRng(0).choices([1], k=MAX_LEN + 1)


def test_a_sampler_may_call_it(tmp_path):
    src = tmp_path / "ch.races"
    src.write_text('''module ch

def pick(rng, level) -> List[Int]:
    return rng.choices([1, 2, 3], weights=[5, 1, 0], k=4 + level)

@sample(xs=pick)
env total(xs: List[Int where 1 <= it <= 3] where 1 <= len(it) <= 9) -> Int:
    """Add up the numbers of xs, then add ten."""
    return sum(xs) + 10
''', encoding="utf-8")
    checked = check_paths([src])
    assert checked.ok, [d.message for d in checked.diagnostics]
    lib = Library(checked)
    env = lib.envs["ch.total"]
    import random

    xs = lib.sample_input(env, random.Random(3), 0)
    assert len(xs) == 4 and set(xs) <= {1, 2}
