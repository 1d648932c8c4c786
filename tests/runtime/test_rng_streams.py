"""`rng.fraction()` and `rng.fork(label)` (issue 48): a fraction in [0, 1) that is exactly
CPython's `random()`, as a rational, and independent sub-streams derived from the parent's
state and a label, the same in every process and hash seed."""

from __future__ import annotations

import random
import subprocess
import sys
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from racesl.check import check_paths
from racesl.library import Library
from racesl.runtime.builtins import FRACTION_DEN, SafeRng, rng_over
from racesl.runtime.limits import MAX_LEN, SizeExceeded

labels = st.one_of(st.integers(-(2**63), 2**64 - 1), st.text(max_size=20))


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**64))
def test_fraction_is_exactly_pythons_random(seed):
    ours, theirs = SafeRng(seed), random.Random(seed)
    for _ in range(5):
        num, den = ours.fraction()
        assert den == FRACTION_DEN == 2**53 and 0 <= num < den
        assert Fraction(num, den) == Fraction(theirs.random())  # the same value, exactly
    assert ours.randint(0, 10**9) == theirs.randint(0, 10**9)  # and the same stream after it


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**64), label=labels)
def test_fork_is_deterministic_and_advances_the_parent_by_one_64_bit_word(seed, label):
    a, b = SafeRng(seed), SafeRng(seed)
    ca, cb = a.fork(label), b.fork(label)
    assert [ca.randint(0, 10**6) for _ in range(8)] == [cb.randint(0, 10**6) for _ in range(8)]
    ref = random.Random(seed)
    ref.getrandbits(64)
    # the parent goes on as if it had drawn one getrandbits(64), whatever the child draws
    assert [a.randint(0, 10**6) for _ in range(8)] == [ref.randint(0, 10**6) for _ in range(8)]


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**64), one=labels, two=labels)
def test_forks_with_other_labels_or_later_forks_are_other_streams(seed, one, two):
    draws = lambda r: [r.randint(0, 2**32) for _ in range(4)]  # noqa: E731
    parent = SafeRng(seed)
    first = draws(parent.fork(one))
    again = draws(parent.fork(one))  # the parent moved on: another stream
    assert first != again
    if one != two:  # (an Int and a Str never are: "1" and 1 are other labels)
        assert draws(SafeRng(seed).fork(one)) != draws(SafeRng(seed).fork(two))
    assert first != draws(SafeRng(seed))  # not the parent's own stream


def test_fork_labels_are_ints_or_bounded_strs():
    with pytest.raises(TypeError):
        SafeRng(0).fork([1])
    with pytest.raises(ValueError):
        SafeRng(0).fork(2**70)
    with pytest.raises(SizeExceeded):
        SafeRng(0).fork("x" * (MAX_LEN + 1))
    with pytest.raises(TypeError):
        SafeRng(0).fork(True)  # a Bool is not a label: `fork(1)` and `fork(True)` would read alike


def test_fork_does_not_depend_on_the_hash_seed():
    code = ("from racesl.runtime.builtins import SafeRng; r = SafeRng(5); c = r.fork('walls'); "
            "print([c.randint(0, 10**9) for _ in range(3)], r.fork(7).fraction())")
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                           env={"PYTHONHASHSEED": h, "PATH": ""}).stdout for h in ("0", "1", "12345")}
    assert len(outs) == 1 and outs.pop().startswith("[")


def test_a_fork_of_a_shared_stream_advances_it_exactly():
    src, ref = random.Random(3), random.Random(3)
    rng_over(src).fork("x")
    ref.getrandbits(64)
    assert src.random() == ref.random()


def test_samplers_may_fork_and_draw_fractions(tmp_path):
    p = tmp_path / "st.races"
    p.write_text('''\
def pick(rng, level) -> Int:
    walls = rng.fork("walls")
    deeper = walls.fork(level)
    num, den = rng.fraction()
    x = walls.randint(0, 9) + deeper.randint(0, 9)
    return x if num * 10 < 3 * den else x + 100

@sample(n=pick)
env inc(n: Int where 0 <= it <= 200) -> Int:
    """Add one to n."""
    return n + 1
''', encoding="utf-8")
    lib, checked = Library.from_paths([p])
    assert lib is not None, [d.headline() for d in checked.diagnostics]
    got = [lib.aux_call("st__pick", (1,), random.Random(s)) for s in range(60)]
    assert all(status == "ok" for status, _, _ in got)
    values = [v for _, v, _ in got]
    assert values == [lib.aux_call("st__pick", (1,), random.Random(s))[1] for s in range(60)]
    low = sum(v < 100 for v in values)
    assert 5 <= low <= 35  # about 30% below 100: the fraction decides


def test_a_forked_rng_has_rngs_methods_only(tmp_path):
    p = tmp_path / "fk.races"
    p.write_text('''\
def pick(rng, level) -> Int:
    sub = rng.fork(1)
    return sub.randint(0, 9) + len(sub.upper())

@sample(n=pick)
env inc(n: Int where 0 <= it <= 200) -> Int:
    """Add one to n."""
    return n + 1
''', encoding="utf-8")
    checked = check_paths([p])
    assert [(d.code, d.message) for d in checked.diagnostics if d.is_error] == [
        ("E503", "rng has no allowed method 'upper'")]
