"""What the lowering reads out of declared types for the entry variants (racesl.lower.module):
only what the refinements written on a parameter's type (or its elements' types) promise."""

from __future__ import annotations

import pytest

from racesl.library import load

SOURCE = '''module facts

type Nat = Int where 0 <= it <= 500
newtype Grid = List[List[Int where 0 <= it <= 9] where 1 <= len(it) <= 5] where 1 <= len(it) <= 5

env nat(n: Nat, k: Int where -9 <= it <= 9, big: Int where it >= 0, wide: Int where 0 <= it <= 2 ** 70) -> Int:
    """x {k} {big} {wide}"""
    return n * k + big + wide

env nums(xs: List[Int where 0 <= it <= 99] where len(it) <= 20, ys: List[Int] where len(it) <= 100001, zs: List[Int] where all(0 <= z <= 5 for z in it)) -> Int:
    """x {ys} {zs}"""
    return len(xs) + len(ys) + len(zs)

env grid(g: Grid, t: Tuple[Str where len(it) <= 3, List[Int] where len(it) <= 2], w: List[Str] where all(len(v) <= 4 for v in it), loose: List[List[Int]]) -> Int:
    """x {t} {w} {loose}"""
    return len(g) + len(t) + len(w) + len(loose)
'''


@pytest.fixture(scope="module")
def facts(tmp_path_factory):
    path = tmp_path_factory.mktemp("facts") / "facts.races"
    path.write_text(SOURCE)
    lib = load([path])
    return {name.split("__")[-1]: marks for name, marks in lib.int_params.items()}


@pytest.mark.parametrize("fn,param,marks,absent", [
    # WORD `~`: an Int bounded on both sides within 64 bits, by its alias or its own refinement
    ("nat", "n", {"n~"}, set()),
    ("nat", "k", {"k~"}, set()),
    ("nat", "big", set(), {"big~"}),  # bounded below only
    ("nat", "wide", set(), {"wide~"}),  # bounded, but wider than 64 bits
    # ELEM_WORD `[~`: every element such an int, by the element type or an `all(...)` of the list
    ("nums", "xs", {"xs[~", "xs#<", "xs#:20"}, set()),
    ("nums", "zs", {"zs[~"}, {"zs#<"}),
    # SHORT `#<`: the declared length at most MAX_LEN
    ("nums", "ys", set(), {"ys#<", "ys[~", "ys#:100001"}),
    # ROWS `[#`: every element sized and short, by its own type or the container's `all(...)`
    ("grid", "g", {"g#<", "g[#", "g#:5"}, {"g[~", "g[]"}),
    ("grid", "t", {"t[#", "t#<", "t#:2"}, set()),  # (a Tuple's length is its shape's)
    ("grid", "w", {"w[#"}, {"w#<"}),
    ("grid", "loose", set(), {"loose[#", "loose#<"}),
])
def test_declared_facts_of_entry_parameters(facts, fn, param, marks, absent):
    assert marks <= facts[fn], sorted(facts[fn])
    assert not absent & facts[fn], sorted(facts[fn])
