"""The front end is linear in its input on every path (issue 17).

Each case parses an input of size N and of size 4N and asserts the time grows by less than
8x (a quadratic path grows 16x). Ratios, not absolute times, so a slow or loaded machine
does not fail them; CPU time of this process, best of a few runs, with the garbage
collector off so that its full collections do not land in one run and not the other.
Before the fixes each of these took minutes at 4N (blank, comment and whitespace lines
inside brackets were rescanned at every line break; every parse error scanned all the
diagnostics so far and replayed every token of its item).
"""

from __future__ import annotations

import gc
import time

import pytest

from racesl.syntax.lexer import tokenize
from racesl.syntax.parser import parse_module

HEAD = "env e(x: Int) -> Int:\n    y = (\n"
TAIL = "    1)\n    return x\n"


def _blank(n: int) -> str:
    return HEAD + "\n" * n + TAIL


def _comments(n: int) -> str:
    return HEAD + "  # c\n" * n + TAIL


def _mixed_whitespace(n: int) -> str:
    return HEAD + " \t \n\t# x\n  \f\n" * (n // 3) + TAIL


def _continuations(n: int) -> str:
    return "env e(x: Int) -> Int:\n    y = 1 + \\\n" + "    \\\n" * n + "    1\n    return x\n"


def _errors_in_one_item(n: int) -> str:
    return "env e(x: Int) -> Int:\n" + "    y = x +* 2\n" * n + "    return x\n"


def _errors_after_many_diagnostics(n: int) -> str:
    """10n lexer diagnostics, then n/10 items that each hold a parse error."""
    items = "".join(f"env e{k}(x: Int) -> Int:\n    y = x +* 2\n    return x\n" for k in range(n // 10))
    return "$" * (10 * n) + "\n" + items


def _cpu(fn, text: str, runs: int) -> float:
    best = float("inf")
    gc.collect()
    gc.disable()
    try:
        for _ in range(runs):
            t = time.process_time()
            fn(text)
            best = min(best, time.process_time() - t)
    finally:
        gc.enable()
    return best


def _ratio(make, fn, n: int, runs: int = 3) -> float:
    fn(make(n // 4))  # warm caches (the grammar, regexes) outside the measurement
    small = _cpu(fn, make(n), runs)
    large = _cpu(fn, make(4 * n), runs)
    return large / max(small, 1e-3)


def _parse(text: str):
    _, diags = parse_module(text, "big.races")
    return diags


@pytest.mark.parametrize("make", [_blank, _comments, _mixed_whitespace])
def test_lines_inside_brackets_lex_in_linear_time(make):
    toks, diags = tokenize(make(1000))
    assert diags == [] and toks[-1].kind == "EOF"
    assert _ratio(make, tokenize, 50_000) < 8


@pytest.mark.parametrize("make", [_blank, _comments, _continuations])
def test_long_files_parse_in_linear_time(make):
    assert _parse(make(1000)) == []
    assert _ratio(make, _parse, 50_000) < 8


def test_many_errors_in_one_item_parse_in_linear_time():
    diags = _parse(_errors_in_one_item(50))
    assert [d.code for d in diags] == ["E100"] * 50 and len({d.span.line for d in diags}) == 50
    assert _ratio(_errors_in_one_item, _parse, 500) < 8


def test_many_items_with_errors_parse_in_linear_time():
    diags = _parse(_errors_after_many_diagnostics(100))
    assert sum(d.code == "E101" for d in diags) == 1000
    assert sum(d.code == "E100" for d in diags) == 10
    assert _ratio(_errors_after_many_diagnostics, _parse, 1000) < 8
