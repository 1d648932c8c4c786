"""The decorators' canonical order: docs/format.md and docs/language.md §3.4 state the one
table the formatter sorts by (racesl.syntax.decorators.DECORATORS), every decorator in it,
and `racesc fmt` puts an environment's decorators in that order whatever order they come in."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

from racesl.format import format_source
from racesl.syntax.decorators import DECORATORS

DOCS = Path(__file__).resolve().parents[2] / "docs"


@pytest.mark.parametrize("page, pattern", [
    ("format.md", r"\*\*Decorators\*\* in the order (.*?) \(the checker"),
    ("language.md", r"`racesc fmt` sorts them: (.*?)\)\."),
])
def test_the_documented_order_is_the_formatters(page, pattern):
    text = " ".join((DOCS / page).read_text(encoding="utf-8").split())
    line = re.search(pattern, text)
    assert line is not None
    assert re.findall(r"`@(\w+)`", line[1]) == list(DECORATORS)


_ARGS = {"generate": "(draw)", "sample": "(k=pick)", "verify": "(ok)", "fuel": "(20000)",
         "laws": "(idempotent)", "layout": "(rows)", "tags": '("x")'}


def _module(order) -> str:
    decorators = "".join(f"@{name}{_ARGS.get(name, '')}\n" for name in order)
    return f'{decorators}env f(x: Int, k: Int) -> Int:\n    """Return x."""\n    return x\n'


@pytest.mark.parametrize("order", [tuple(reversed(DECORATORS))] + [
    p for k, p in enumerate(itertools.permutations(DECORATORS)) if k % 997 == 0])
def test_fmt_sorts_every_decorator_into_the_documented_order(order):
    assert set(_ARGS) == set(DECORATORS)  # (a decorator added to the table gets its arguments here)
    result = format_source(_module(order), "m.races")
    assert result.ok
    assert result.text == _module(DECORATORS)
