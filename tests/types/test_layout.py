"""`@layout(rows)`: which types fit, and that a laid-out value reads back to exactly itself
(racesl.types.layout). A value whose block would be ambiguous is shown as its literal."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from racesl.types import layout as L
from racesl.types import types as T

INT, STR, BOOL = T.IntT(), T.StrT(), T.BoolT()


def test_the_types_each_form_fits():
    assert L.fits("rows", T.ListT(T.ListT(INT)))
    assert L.fits("rows", T.ListT(T.ListT(STR)))
    assert L.fits("rows", T.ListT(T.ListT(BOOL)))
    assert L.fits("rows", T.ListT(STR))
    assert L.fits("rows", T.NewT("g.Board", T.ListT(T.ListT(STR))))  # a newtype over a grid
    for t in (INT, STR, T.ListT(INT), T.ListT(T.ListT(T.ListT(INT))), T.TupleT((INT, INT)),
              T.ListT(T.TupleT((INT, INT)))):
        assert not L.fits("rows", t), t
    assert not L.fits("columns", T.ListT(STR))


def test_a_grid_is_aligned_by_column_and_a_picture_is_shown_as_is():
    assert L.show("rows", [[1, 0, 12], [10, 3, 1]]) == "```\n 1 0 12\n10 3  1\n```"
    assert L.show("rows", [["a", "bb"], ["ccc", "d"]]) == "```\na   bb\nccc d\n```"
    assert L.show("rows", [[True, False], [False, True]]) == "```\nTrue  False\nFalse True\n```"
    assert L.show("rows", ["#..#", " ## ", ""]) == "```\n#..#\n ## \n\n```"
    assert L.show("rows", [[1, 2], [3]]) == "```\n1 2\n3\n```"  # a ragged grid keeps its rows
    assert L.show(None, [[1]]) is None


def test_values_whose_block_would_be_ambiguous_stay_literals():
    for v in ([], [[]], [[1], []], [["a b"]], [[""]], [["`"]], ["a\nb"], ["a\u2028b"], ["tab\there"],
              ["```"], [["x\u00a0y"]], [[1.5]], [(1, 2)], 5, "abc", [["a"], "b"]):
        assert L.show("rows", v) is None, v


def _read_grid(block: str) -> list[list[int]]:
    assert block.startswith("```\n") and block.endswith("\n```")
    return [[int(c) for c in line.split()] for line in block[4:-4].split("\n")]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.integers(-10**6, 10**6), min_size=1, max_size=7), min_size=1, max_size=7))
def test_an_int_grid_reads_back_to_itself(grid):
    block = L.show("rows", grid)
    assert block is not None and _read_grid(block) == grid
    assert L.show("rows", grid) == block  # deterministic


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(max_size=12), min_size=1, max_size=6))
def test_a_picture_reads_back_to_itself_or_is_a_literal(rows):
    block = L.show("rows", rows)
    if block is None:  # refused: a line break, a backtick or a character that is not printable
        assert any(not r.isprintable() or "`" in r for r in rows)
        return
    assert block[4:-4].split("\n") == rows


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.text(min_size=0, max_size=5), min_size=1, max_size=4), min_size=1, max_size=4))
def test_a_word_grid_reads_back_to_itself_or_is_a_literal(grid):
    block = L.show("rows", grid)
    if block is None:
        assert any(not c or not c.isprintable() or "`" in c or any(x.isspace() for x in c) for r in grid for c in r)
        return
    assert [line.split() for line in block[4:-4].split("\n")] == grid
