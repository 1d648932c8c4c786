"""The one charge of racesl.runtime.builtins (`_pay`, `_sized`) and the sites that
fold into it: exactly n steps, the box untouched when they are refused."""

from __future__ import annotations

import pytest

from racesl.runtime import abi
from racesl.runtime import builtins as B
from racesl.runtime.limits import MAX_LEN, FuelOut, SizeExceeded


def test_pay_takes_exactly_n_or_nothing():
    box = [5]
    B._pay(box, 5)
    assert box == [0]
    box = [4]
    with pytest.raises(FuelOut):
        B._pay(box, 5)
    assert box == [4]


def test_sized_refuses_past_max_len_before_paying():
    box = [10 * MAX_LEN]
    with pytest.raises(SizeExceeded, match=f"list of {MAX_LEN + 1} elements passed to a builtin"):
        B._sized(box, MAX_LEN + 1, [])
    assert box == [10 * MAX_LEN]
    B._sized(box, MAX_LEN, [])
    assert box == [9 * MAX_LEN]
    with pytest.raises(SizeExceeded, match="zip over"):
        B._sized(box, MAX_LEN + 1, None, "zip over {n} elements")


@pytest.mark.parametrize("call,need", [
    (lambda box, xs: B.RUNTIME[abi.builtin1("sum")](box, xs), 3),
    (lambda box, xs: B.bi_sorted(box, xs), 3),
    (lambda box, xs: B.bi_sum(box, xs), 3),
    (lambda box, xs: B.bi_zip(box, xs, xs), 3),
    (lambda box, xs: B.esc(box, xs), 3),
    (lambda box, xs: B.in_arg(box, xs), 3),
])
def test_sites_charge_at_the_exact_budget(call, need):
    xs = [3, 1, 2]
    for budget in range(need + 2):
        box = [budget]
        if budget < need:
            with pytest.raises(FuelOut):
                call(box, xs)
            assert box == [budget]
        else:
            call(box, xs)
            assert box == [budget - need]
