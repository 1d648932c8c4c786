"""Single layout rules, each on a small module: what a reader of docs/format.md expects."""

from __future__ import annotations

import pytest

from racesl.format import format_source
from racesl.syntax.decorators import DECORATORS, rank
from racesl.syntax.docstrings import description


def fmt(text: str) -> str:
    result = format_source(text)
    assert result.ok, result.diagnostics
    assert format_source(result.text).text == result.text  # idempotent
    return result.text


def body(line: str) -> str:
    """`line` formatted as the only statement of a helper's body."""
    return fmt(f"def f(x: Int) -> Int:\n    {line}\n").split("\n", 1)[1].rstrip("\n")


@pytest.mark.parametrize("written, formatted", [
    ("return -x", "    return -x"),
    ("return x-1", "    return x - 1"),
    ("return f(x=-1)[1:-1]", "    return f(x=-1)[1:-1]"),
    ("return [a for a in range(x) if not a in (1,2)]", "    return [a for a in range(x) if not a in (1, 2)]"),
    ("return (lambda a,b:a**b)(x,2)", "    return (lambda a, b: a ** b)(x, 2)"),
    ("return {1:x}[1]", "    return {1: x}[1]"),
    ("return (x,)", "    return (x,)"),  # a one-tuple's comma is no magic comma
    ("return x if x>0 else~x", "    return x if x > 0 else ~x"),
])
def test_spacing(written: str, formatted: str):
    assert body(written) == formatted


def test_magic_trailing_comma_keeps_one_item_a_line():
    assert body("return max(x, 1,)") == "    return max(\n        x,\n        1,\n    )"


def test_long_call_opens_at_its_brackets_and_gets_a_last_comma():
    args = ", ".join(f"x{i}" for i in range(30))
    out = body(f"return g({args})")
    assert out.split("\n")[0] == "    return g(" and out.split("\n")[-1] == "    )"
    assert all(line.endswith(",") for line in out.split("\n")[1:-1])
    assert max(map(len, out.split("\n"))) <= 100


def test_a_file_with_syntax_errors_is_left_as_it_is():
    text = "env f(x: Int) -> Int:\n    return (x +\n"
    result = format_source(text)
    assert not result.ok and result.text == text
    assert any(d.code.startswith("E1") for d in result.diagnostics)


def test_other_parser_errors_do_not_stop_formatting():
    assert fmt("def f(x:Int)->Int:\n    return x/2\n") == "def f(x: Int) -> Int:\n    return x / 2\n"


@pytest.mark.parametrize("text, formatted", [
    ("", ""), ("\n\n", ""), ("# only\n\n\n# comments", "# only\n\n# comments\n"),
])
def test_empty_and_comment_only_files(text: str, formatted: str):
    assert fmt(text) == formatted


def test_decorators_in_canonical_order():
    assert DECORATORS == ("generate", "sample", "verify", "fuel", "laws", "layout", "tags")
    assert [rank(n) for n in ("tags", "sample", "fuel", "mystery")] == [len(DECORATORS) - 1, 1, 3, len(DECORATORS)]


def test_description_joins_lines_and_keeps_paragraphs():
    assert description("  Add one to n.  ") == "Add one to n."
    assert description("Add one\n      to n.\n\n    Then stop.\n    ") == "Add one to n.\n\nThen stop."
    assert description("a  b") == "a  b"  # spaces inside a line are the author's
