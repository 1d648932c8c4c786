"""racesl.cache: caches bounded by the characters they hold (the language server's and
scoring's, in processes that live as long as an editor or a training run)."""

from __future__ import annotations

import pytest

from racesl.cache import ENTRY_COST, SizedLRU, text_cache


def test_sized_lru_bounds_cost_and_entries_and_drops_the_least_recently_used():
    c = SizedLRU(budget=3 * (100 + ENTRY_COST), max_entries=10)
    for k in "abc":
        c.put(k, k.upper(), 100)
    assert c.get("a") == "A"  # now the most recent: d pushes out b
    c.put("d", "D", 100)
    assert "b" not in c and [c.get(k) for k in "acd"] == ["A", "C", "D"] and c.cost <= c.budget
    c.put("big", "X", 10 ** 9)  # alone over the budget: kept (it is in use), the rest go
    assert len(c) == 1 and c["big"] == "X"
    few = SizedLRU(budget=10 ** 9, max_entries=2)
    for k in "xyz":
        few.put(k, k, 1)
    assert len(few) == 2 and "x" not in few


def test_text_cache_is_bounded_in_characters_and_evicts_the_least_recently_used():
    calls = []

    @text_cache(budget=3 * (100 + ENTRY_COST), max_text=150)
    def f(text):
        calls.append(text)
        return len(text)

    a, b, c, d = ("a" * 100, "b" * 100, "c" * 100, "d" * 100)
    for t in (a, b, c):
        assert f(t) == 100
    assert f.cache_len() == 3 and f.cache_cost() == 3 * (100 + ENTRY_COST)
    f(a)  # a is now the most recently used: d evicts b
    f(d)
    assert f.cache_len() == 3 and f.cache_cost() <= f.budget
    calls.clear()
    f(a), f(c), f(d)
    assert calls == []
    f(b)
    assert calls == [b]
    big = "x" * 151  # over max_text: computed every time, never held
    f(big), f(big)
    assert calls == [b, big, big] and big not in [t for t in calls[:1]]
    assert f.cache_cost() <= f.budget
    f.cache_clear()
    assert f.cache_len() == 0 and f.cache_cost() == 0


def test_text_cache_does_not_cache_exceptions():
    n = []

    @text_cache(budget=10_000, max_text=100)
    def g(text):
        n.append(text)
        raise ValueError(text)

    for _ in range(2):
        with pytest.raises(ValueError):
            g("x")
    assert n == ["x", "x"] and g.cache_len() == 0
