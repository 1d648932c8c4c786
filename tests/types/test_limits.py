"""racesl.types.limits (issue 33): type sizes and declaration chains measured without
recursion, and a refinement's constant bound equal to the runtime's Int bound."""

from __future__ import annotations

import random

from racesl.runtime.limits import MAX_INT_BITS
from racesl.sample.default import MAX_SAMPLE_SIZE, NoSample, build_sampler
from racesl.syntax.build import fstring_weight
from racesl.syntax.emit import int_text
from racesl.syntax.parser import parse_module
from racesl.types import limits as L
from racesl.types import types as T


def test_the_constant_bound_is_the_runtimes_int_bound():
    assert L.MAX_CONST_BITS == MAX_INT_BITS


def test_measure_counts_shared_parts_once_in_time_but_in_full_in_size():
    t = T.INT
    for _ in range(200):  # 2**200 leaves written out: measured in 200 steps, no recursion
        t = T.TupleT((t, t))
    m = L.measure(t)
    assert m.depth == 201 and m.size > 2 ** 200
    assert L.too_big(t) is not None
    nested = T.INT
    for _ in range(5000):
        nested = T.NewT("m.N", nested)
    assert L.measure(nested).depth == 5001
    assert L.too_big(T.ListT(T.ListT(T.INT))) is None


def test_chain_depths_in_any_order_and_through_cycles():
    text = "type A = B\ntype B = List[C]\ntype C = Int\ntype X = Y\ntype Y = X\n"
    mod, diags = parse_module(text)
    assert diags == []
    depths = L.chain_depths({d.name: d for d in mod.items})
    assert depths["A"] == 3 and depths["B"] == 2 and depths["C"] == 1
    assert depths["X"] == 2 and depths["Y"] == 1  # the name that closes the cycle counts nothing


def test_wide_constants_and_their_text():
    mod, _ = parse_module(f"type B = Int where it < 0x{'f' * 2049} and it > 0x{'f' * 2048}\n")
    (wide,) = L.wide_constants(mod.items[0].type.where)  # 8,196 bits; 8,192 is within the bound
    assert wide.value.bit_length() == 8196
    assert int_text(1 << 5000).startswith("0x1") and int_text(12) == "12"


def test_fstring_weight_counts_fields_before_parsing():
    assert fstring_weight('"{x}"') == (0, 0)
    assert fstring_weight('f"a{{b}}{x}{y + 1:>{w}}"') == (3, 7)  # x; y + 1 : >; w
    assert fstring_weight('rf"{x}"') == (1, 1)


def test_sampler_refuses_a_smallest_value_past_the_bound_and_cuts_long_windows():
    mod, _ = parse_module("type S = Str where len(it) >= 20000\n")
    from racesl.types.types import Pred
    from racesl.syntax.emit import expr_text

    where = mod.items[0].type.where
    t = T.refine(T.STR, (Pred(where, expr_text(where), "m", where.span),))
    s = build_sampler(t)
    assert s.min_size() == 20000 > MAX_SAMPLE_SIZE
    try:
        s.draw(random.Random(1), 0, lambda p, v: True)
    except NoSample as e:
        assert "smallest value" in e.reason
    else:
        raise AssertionError("sampled a value past the bound")
    deep = T.INT
    for _ in range(40):
        deep = T.ListT(deep)
    d = build_sampler(deep)
    v = d.draw(random.Random(2), 40, lambda p, v: True)  # level 40: windows of ~120 a level
    count, stack = 0, [v]
    while stack:
        x = stack.pop()
        if isinstance(x, list):
            count += len(x)
            stack.extend(x)
    assert count <= MAX_SAMPLE_SIZE
