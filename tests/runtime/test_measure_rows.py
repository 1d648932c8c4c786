"""`render_size`'s fast path for a flat row (a list or tuple of leaves: most values a compile
renders) must give exactly what the general unfolded walk gives, so that no value is refused
or admitted differently because it took the short way, and it must still bound CPython's
text of the row."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from racesl.runtime import measure as M
from racesl.runtime.limits import MAX_INT_BITS

LEAVES = st.one_of(
    st.integers(), st.integers(min_value=-9, max_value=9), st.booleans(), st.none(),
    st.floats(allow_nan=False), st.text(max_size=12),
    st.integers(min_value=2 ** (MAX_INT_BITS - 2), max_value=2 ** (MAX_INT_BITS + 4)),  # too wide to render
)
ROWS = st.lists(LEAVES, min_size=1, max_size=40).flatmap(lambda xs: st.sampled_from([xs, tuple(xs)]))
LIMITS = st.sampled_from([0, 3, 40, 200, 10 ** 6])


def walked(v, limit: int) -> int:
    return M._unfolded(v, limit, M._render_leaf, M._render_bulk, 2, 16)


@settings(max_examples=400, deadline=None)
@given(ROWS, LIMITS)
def test_a_flat_row_measures_as_the_walk_does(row, limit):
    assert M.render_size(row, limit, False) == walked(row, limit)
    assert M.render_size(row, limit, True) == walked(row, limit)


@settings(max_examples=200, deadline=None)
@given(ROWS)
def test_a_flat_row_bounds_its_text(row):
    if any(type(x) is int and x.bit_length() > MAX_INT_BITS for x in row):
        assert M.render_size(row, 10 ** 9, False) > 10 ** 9  # refused whatever the limit
        return
    assert len(repr(row)) <= M.render_size(row, 10 ** 9, False)


def test_rows_that_are_not_flat_take_the_walk():
    shared = [1, 2]
    nested = [shared, shared, (3, "x")]
    assert M.render_size(nested, 10 ** 6, False) == walked(nested, 10 ** 6)
    assert M.render_size([], 10 ** 6, False) == walked([], 10 ** 6) == 16
    assert M.render_size((), 10 ** 6, False) == walked((), 10 ** 6)
