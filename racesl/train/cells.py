"""Operator × size cells, the unit eval reports and compares: their order (operators as
compile lists them, then sizes) and the axes of a heatmap over them."""

from __future__ import annotations


def order(op: str) -> int:
    from racesl.search.config import OPERATORS

    return OPERATORS.index(op) if op in OPERATORS else len(OPERATORS)


def axes(cells: list[dict]) -> tuple[list[str], list[int]]:
    """The operators and the sizes of `cells` (dicts with `operator` and `size`), in order."""
    ops = sorted({c["operator"] for c in cells}, key=lambda o: (order(o), o))
    return ops, sorted({c["size"] for c in cells})


def label(ax, ops: list[str], sizes: list[int]) -> None:
    """A heatmap's ticks and axis names: sizes across, operators down."""
    ax.set_xticks(range(len(sizes)), [str(s) for s in sizes])
    ax.set_yticks(range(len(ops)), ops)
    ax.set_xlabel("composition size")
    ax.set_ylabel("operator")
