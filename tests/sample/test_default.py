"""The default sampler: values always belong to their type; levels reach further; direct
drawing where the bounds say enough; NoSample where nothing fits."""

from __future__ import annotations

import random
import time

import pytest

from racesl.runtime.contract import check_value
from racesl.sample import NoSample, build_sampler, int_window, length_window, sampler_for
from racesl.types.refine import IntRange
from racesl.types.types import BOOL, INT, STR, DictT, ListT, NewT, TupleT
from .sample_testutil import check, pred, refined as R

DIGIT = R(INT, "0 <= it <= 9")
GRID = NewT("m.Grid", R(ListT(R(ListT(DIGIT), "2 <= len(it) <= 5")), "2 <= len(it) <= 5"))
WORD = R(STR, "1 <= len(it) <= 12 and it.isalpha() and it.islower()")

TYPES = {
    "int": INT,
    "bool": BOOL,
    "str": STR,
    "int range": R(INT, "0 <= it <= 30"),
    "int chained both sides": R(INT, "-5 <= it < 5", "it != 0"),
    "int one-sided": R(INT, "it > 100"),
    "int upper only": R(INT, "10 >= it"),
    "int odd": R(INT, "3 <= it and it % 2 == 1 and it < 40"),
    "int modulus only": R(INT, "it % 7 == 3"),
    "int excluded residue": R(INT, "0 <= it <= 50", "it % 3 != 0"),
    "int residue window": R(INT, "it % 10 < 3", "it >= 0"),
    "int range()": R(INT, "it in range(5, 100, 5)"),
    "int set": R(INT, "it in {2, 3, 5, 7, 11}"),
    "int tuple literal": R(INT, "it in (40, -3)"),
    "int linear": R(INT, "2 * it + 1 <= 30", "it >= -3"),
    "int abs": R(INT, "abs(it) <= 3"),
    "int floordiv": R(INT, "it // 10 == 4"),
    "int opaque": R(INT, "0 <= it <= 40", "it * it % 7 == 2"),
    "int far modulus": R(INT, "it >= 0", "it % 1000 == 999"),
    "bool true": R(BOOL, "it"),
    "bool false": R(BOOL, "not it"),
    "str word": WORD,
    "str upper": R(STR, "it.isupper()", "len(it) <= 4"),
    "str digits": R(STR, "it.isdigit() and len(it) == 4"),
    "str alphabet all": R(STR, 'all(c in "abc" for c in it)', "len(it) >= 3"),
    "str alphabet set": R(STR, 'set(it) <= set("01")', "2 <= len(it) <= 6"),
    "str choices": R(STR, 'it in {"north", "south", "east"}'),
    "str substring": R(STR, 'it in "racecar"', "len(it) >= 2"),
    "str sorted distinct": R(STR, '"".join(sorted(it)) == it', "len(set(it)) == len(it)",
                             "len(it) >= 3"),
    "str char range": R(STR, 'all("a" <= c <= "f" for c in it)', "len(it) == 5"),
    "list digits": R(ListT(DIGIT), "2 <= len(it) <= 8"),
    "list all()": R(ListT(INT), "all(0 <= x <= 9 for x in it)", "len(it) >= 1"),
    "list all() meets element refinement": R(ListT(R(INT, "it % 2 == 0")),
                                             "all(-10 <= x <= 10 for x in it)"),
    "list distinct sorted": R(ListT(R(INT, "0 <= it <= 20")), "len(set(it)) == len(it)",
                              "it == sorted(it)", "len(it) == 6"),
    "list strictly desc": R(ListT(INT), "all(it[i] > it[i + 1] for i in range(len(it) - 1))"),
    "list permutation": R(ListT(R(INT, "0 <= it < 8")), "len(it) == 8", "len(set(it)) == len(it)"),
    "list of words": R(ListT(WORD), "len(it) <= 4"),
    "list subset": R(ListT(INT), "set(it) <= {1, 2, 3}", "len(it) == 4"),
    "grid newtype": GRID,
    "newtype of newtype": NewT("m.Big", R(NewT("m.Small", R(INT, "0 <= it <= 99")), "it >= 50")),
    "tuple": TupleT((R(INT, "0 <= it < 5"), WORD, BOOL)),
    "tuple refined": R(TupleT((INT, INT)), "it[0] < it[1]"),
    "tuple choices": R(TupleT((INT, STR)), "it in [(1, 'a'), (2, 'b')]"),
    "dict": DictT(R(STR, "len(it) == 2"), R(INT, "0 <= it <= 3")),
    "dict sized": R(DictT(DIGIT, STR), "len(it) == 5"),
    "dict bounded keys/values": R(DictT(INT, INT), "all(0 <= k < 4 for k in it)",
                                  "all(v > 0 for v in it.values())", "len(it) >= 2"),
    "list of tuples": R(ListT(TupleT((DIGIT, BOOL))), "len(it) == 3"),
    "list of lists opaque": R(ListT(R(ListT(DIGIT), "len(it) == 2")), "len(it) >= 2",
                              "sum(len(r) for r in it) == 2 * len(it)"),
}


@pytest.mark.parametrize("name", sorted(TYPES))
def test_samples_belong_to_their_type(name):
    t = TYPES[name]
    s = build_sampler(t)
    for seed in range(40):
        rng = random.Random(seed)
        for level in (0, 1, 2, 3):
            value = s.draw(rng, level, check)
            assert check_value(value, t, check) is None, (name, level, value)


def test_many_types_covered():
    assert len(TYPES) >= 40


def test_direct_sampling_needs_no_rejection():
    t = R(INT, "3 <= it and it % 2 == 1 and it < 40")
    s = build_sampler(t)
    seen = set()
    for seed in range(300):
        seen.add(s.draw(random.Random(seed), 2, check))
    assert s.stats.rejections == 0
    assert s.stats.checks == 300  # exactly one check per draw: every pred is still checked
    assert seen == set(range(3, 40, 2))


@pytest.mark.parametrize("t", [
    R(INT, "3 <= it", "it % 2 == 1", "it < 40"),
    R(INT, "it in range(1, 500, 7)"),
    R(STR, "2 <= len(it) <= 8 and it.isalpha() and it.islower()"),
    R(ListT(R(INT, "0 <= it <= 9")), "2 <= len(it) <= 8"),
    GRID,
    R(ListT(INT), "all(0 <= x <= 99 for x in it)", "len(it) == 5"),
    R(DictT(R(STR, "len(it) == 3"), DIGIT), "len(it) <= 3"),
], ids=str)
def test_analyzable_types_sample_without_rejection(t):
    s = build_sampler(t)
    for seed in range(100):
        s.draw(random.Random(seed), seed % 4, check)
    assert s.stats.rejections == 0


def test_unsatisfiable_refinement_raises_quickly():
    s = build_sampler(R(INT, "0 <= it and it < 0"))
    t0 = time.perf_counter()
    with pytest.raises(NoSample) as exc:
        s.draw(random.Random(0), 0, check)
    assert time.perf_counter() - t0 < 0.05
    assert s.stats.checks == 0
    assert "unsatisfiable" in exc.value.reason


@pytest.mark.parametrize("t", [
    R(INT, "it % 2 == 0", "it % 4 == 1"),
    R(ListT(INT), "len(it) < 0"),
    R(BOOL, "it", "not it"),
    R(STR, 'it in {"a", "b"}', "len(it) == 2"),
], ids=str)
def test_provably_empty_types(t):
    with pytest.raises(NoSample):
        build_sampler(t).draw(random.Random(0), 0, check)


def test_opaque_unsatisfiable_gives_up_after_bounded_tries():
    s = build_sampler(R(STR, "it.isalpha()", "it.isdigit()"))
    t0 = time.perf_counter()
    with pytest.raises(NoSample) as exc:
        s.draw(random.Random(0), 0, check)
    assert time.perf_counter() - t0 < 1.0
    assert s.stats.rejections <= 200
    assert "isdigit" in exc.value.reason


def test_small_opaque_domain_is_enumerated():
    # 40 * 40 % 7 == 2 holds for few values: enumeration finds them, exhaustively
    t = R(INT, "0 <= it <= 12", "it * it % 7 == 2")
    s = build_sampler(t)
    got = {s.draw(random.Random(seed), 0, check) for seed in range(100)}
    assert got == {x for x in range(11) if x * x % 7 == 2}  # level 0: the window 0..10
    got = {s.draw(random.Random(seed), 2, check) for seed in range(100)}
    assert got == {x for x in range(13) if x * x % 7 == 2}
    empty = build_sampler(R(INT, "0 <= it <= 12", "it * it == 50"))
    with pytest.raises(NoSample, match="none of its 13 candidate"):
        empty.draw(random.Random(0), 0, check)


def _mean(xs):
    xs = list(xs)
    return sum(xs) / len(xs)


def _means(t, f, levels=(0, 1, 2, 3), n=300):
    s = build_sampler(t)
    return [_mean(f(s.draw(random.Random(1000 * lv + i), lv, check)) for i in range(n)) for lv in levels]


def test_level_reaches_further_for_ints():
    m = _means(R(INT, "0 <= it <= 500"), lambda v: v)
    assert m[0] < m[1] < m[2] < m[3]
    assert m[0] <= 10 and m[3] > 150
    m = _means(INT, abs)
    assert m[0] < m[1] < m[2] < m[3]


def test_level_reaches_further_for_lengths():
    m = _means(STR, len)
    assert m[0] < m[1] < m[2] < m[3]
    m = _means(R(ListT(DIGIT), "2 <= len(it) <= 12"), len)
    assert m[0] < m[1] < m[2] <= m[3]
    m = _means(GRID, lambda g: sum(len(r) for r in g), levels=(0, 2))
    assert m[0] < m[1]


def test_level_windows_documented_rule():
    r = IntRange(0, 500)
    assert [int_window(r, lv)[:2] for lv in range(4)] == [(0, 10), (0, 50), (0, 250), (0, 500)]
    assert int_window(r, 3)[2] and not int_window(r, 2)[2]
    assert int_window(IntRange(), 0)[:2] == (-10, 10)
    assert int_window(IntRange(lo=100), 1)[:2] == (100, 150)
    assert int_window(IntRange(hi=-7), 0)[:2] == (-17, -7)
    assert [length_window(IntRange(), lv)[:2] for lv in range(3)] == [(1, 3), (1, 6), (1, 9)]
    assert length_window(IntRange(2, 8), 0)[:2] == (2, 4)
    assert length_window(IntRange(2, 8), 2)[:2] == (2, 8)


def test_default_string_alphabet_and_length():
    s = build_sampler(STR)
    for i in range(200):
        x = s.draw(random.Random(i), 0, check)
        assert 1 <= len(x) <= 3 and x.isalpha() and x.islower()


def test_preferred_alphabets_are_used():
    s = build_sampler(R(STR, "it.isupper()"))
    assert all(s.draw(random.Random(i), 1, check).isupper() for i in range(50))
    assert s.stats.rejections == 0
    s = build_sampler(R(STR, 'set(it) <= set("01")'))
    assert all(set(s.draw(random.Random(i), 1, check)) <= {"0", "1"} for i in range(50))


def test_bool_values_are_bools():
    s = build_sampler(BOOL)
    vals = {s.draw(random.Random(i), 0, check) for i in range(50)}
    assert vals == {False, True}
    assert all(type(v) is bool for v in vals)
    assert all(type(build_sampler(INT).draw(random.Random(i), 0, check)) is int for i in range(50))


def test_dict_keys_unique_and_sized():
    t = R(DictT(R(INT, "0 <= it <= 5"), STR), "len(it) == 6")
    s = build_sampler(t)
    for i in range(50):
        d = s.draw(random.Random(i), 0, check)
        assert sorted(d) == [0, 1, 2, 3, 4, 5]


def test_unhashable_dict_keys_only_allow_the_empty_dict():
    t = DictT(ListT(INT), INT)
    assert build_sampler(t).draw(random.Random(0), 2, check) == {}
    with pytest.raises(NoSample):
        build_sampler(R(t, "len(it) >= 1")).draw(random.Random(0), 0, check)


def test_list_of_unsatisfiable_elements_is_empty():
    t = ListT(R(INT, "it > 5 and it < 3"))
    assert build_sampler(t).draw(random.Random(0), 1, check) == []


def test_same_rng_same_value():
    for t in (GRID, WORD, TYPES["dict"], TYPES["list distinct sorted"]):
        s = build_sampler(t)
        a = [s.draw(random.Random(7), lv, check) for lv in range(3)]
        b = [sampler_for(t).draw(random.Random(7), lv, check) for lv in range(3)]
        assert a == b


def test_sampler_for_caches_and_sees_newtype_representation():
    assert sampler_for(GRID) is sampler_for(GRID)
    a = NewT("m.N", R(INT, "0 <= it <= 3"))
    b = NewT("m.N", R(INT, "100 <= it <= 103"))
    assert a == b  # nominal equality
    assert sampler_for(a).draw(random.Random(0), 0, check) <= 3
    assert sampler_for(b).draw(random.Random(0), 0, check) >= 100


def test_every_predicate_is_checked_even_if_bounds_are_wrong():
    # a check that disagrees with the predicate text: the sampler must obey the check
    p = pred("0 <= it <= 9")

    def strict(pr, v):
        return check(pr, v) and v != 4

    t = R(INT, "0 <= it <= 9")
    s = build_sampler(t)
    assert s.preds == (p,)
    assert all(s.draw(random.Random(i), 0, strict) != 4 for i in range(200))


def test_negative_and_huge_levels_are_clamped():
    s = build_sampler(R(INT, "0 <= it <= 500"))
    assert 0 <= s.draw(random.Random(0), -3, check) <= 10
    assert 0 <= s.draw(random.Random(0), 10**6, check) <= 500


def test_sampling_is_fast_enough():
    s = build_sampler(GRID)
    t0 = time.perf_counter()
    for i in range(500):
        s.draw(random.Random(i), i % 3, check)
    assert time.perf_counter() - t0 < 2.0
