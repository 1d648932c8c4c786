"""Rendering is bounded before it is built, and never shows an object address (issue 17,
"Size guards missing", "Int rendering", "Entropy from the heap"):

- an int wider than MAX_INT_BITS (past CPython's 4,300-digit limit, whose ValueError used to
  end runs in a traceback) turned into text by `str`, an f-string or `%` is refused with
  status "size", in-process and in the `--untrusted` worker;
- f-string fields of constant width count towards the whole text, and an f-string of many
  wide fields is built a few fields at a time, each part checked;
- a function, iterator or generator turned into text is refused (status "error"): its
  CPython text carries a memory address, which differs between processes.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import time
from pathlib import Path

import pytest

from racesl.lower.instrument import lower_to_source
from racesl.runtime import abi
from racesl.runtime.guards import check_result, g_cat
from racesl.runtime.limits import MAX_INT_BITS, MAX_LEN, SizeExceeded
from racesl.runtime.measure import OpaqueText, render_size

from .rtutil import plain, run

BIG_FUEL = 10**7
RACESC = str(Path(sys.executable).with_name("racesc"))
# x grows past MAX_INT_BITS by `+`, which is not guarded (a bit a step)
GROW = "    x = 1 << 8000\n    for i in range(n):\n        x = x + x\n"


def outcome(src, *args, via_source=False):
    t = time.perf_counter()
    out = run(src, "f", *args, fuel=BIG_FUEL, via_source=via_source)
    assert time.perf_counter() - t < 3
    return out


# ---------------------------------------------------------------- ints


@pytest.mark.parametrize("via_source", [False, True])
@pytest.mark.parametrize("expr", ["str(x)", 'f"{x}"', 'f"{x:>5}"', 'f"{x!r}"', '"%d" % x', '"%s" % (x,)',
                                  "str([x])", 'f"{[x]}"', "x", "[x]", "{1: x}", 'f"{x:,}"', "int(str(x)[:3])"])
def test_a_wide_int_is_refused_before_it_is_rendered(expr, via_source):
    src = f"def f(n):\n{GROW}    return {expr}\n"
    out = outcome(src, 7000, via_source=via_source)  # 15,000 bits: past 4,300 digits
    assert out.status == "size", out
    out = outcome(src, 100, via_source=via_source)  # 8,100 bits: rendered as CPython does
    assert out.status == "ok" and out.value == plain(src)["f"](100)


@pytest.mark.parametrize("via_source", [False, True])
def test_a_wide_int_literal_is_refused_when_rendered(via_source):
    lit = "0x" + "f" * 5000  # (the source path writes it in hex: its decimal text is past the limit)
    assert outcome(f"def f(n):\n    return str({lit} + n)\n", 1, via_source=via_source).status == "size"
    assert outcome(f"def f(n):\n    return {lit} + n\n", 1, via_source=via_source).status == "size"
    assert outcome(f"def f(n):\n    return ({lit} + n) % 1000\n", 1, via_source=via_source).value == (
        (int("f" * 5000, 16) + 1) % 1000)


def test_an_int_known_to_be_narrow_is_rendered_without_a_test():
    src = "def f(n):\n    return str(len('ab') + 1) + f'{ord(\"a\") * 3}{n}'\n"
    text = lower_to_source(ast.parse(src), int_params={"f": frozenset({"n"})})
    entry = text[text.index("def _races_entry__f"):]
    assert "_races_str(len('ab') + 1)" in entry and "{ord('a') * 3}" in entry  # (bounded bits)
    assert "-1073741823 < n < 1073741823" in entry  # n: an Int of unknown size
    assert run(src, "f", 12345, int_params={"f": frozenset({"n"})}).value == plain(src)["f"](12345)


def test_check_result_refuses_a_wide_int_anywhere():
    for v in [1 << (MAX_INT_BITS + 1), [1, 1 << 20000], {"a": (1, -(1 << 20000))}]:
        with pytest.raises(SizeExceeded):
            check_result(v)


# ---------------------------------------------------------------- f-strings


def test_constant_width_fields_count_towards_the_text():
    two = 'def f(n):\n    return f"{n:>60000}{n:>60000}"\n'
    assert outcome(two, 1).status == "size"
    wide = "def f(n):\n    return f\"" + "{n:>99999}" * 40 + "\"\n"
    assert outcome(wide, 1).status == "size"
    small = "def f(n):\n    return f\"" + "{n:>3}-" * 40 + "\"\n"
    assert outcome(small, 7).value == plain(small)["f"](7)


def test_many_wide_fields_are_built_a_few_at_a_time():
    n_fields = 200
    src = "def f(n, s):\n    return f\"" + "{n:>99999}|{s}" * n_fields + "\"\n"
    text = lower_to_source(ast.parse(src))
    tree = ast.parse(text)
    fstrings = [x for x in ast.walk(tree) if isinstance(x, ast.JoinedStr)]
    assert fstrings and all(sum(isinstance(v, ast.FormattedValue) for v in x.values) <= 8 for x in fstrings)
    assert abi.G_CAT in text
    for via_source in (False, True):
        out = run(src, "f", 1, "ab", fuel=BIG_FUEL, via_source=via_source)
        assert out.status == "size", out
        # narrow fields: the same text as CPython's, however many
        narrow = src.replace("99999", "2")
        assert run(narrow, "f", 1, "ab", via_source=via_source).value == plain(narrow)["f"](1, "ab")
    with pytest.raises(SizeExceeded):
        g_cat("a" * MAX_LEN, "b")
    assert g_cat("ab", "", "c") == "abc"


@pytest.mark.parametrize("body", ['s = f"{s!r}"', 's = f"{s}{s}"', 's = f"{s!a}"', 's = f"{s:>{len(s) + 1}}{s}"'])
def test_fstrings_that_feed_on_themselves_stop_at_the_limit(body):
    src = f'def f(n):\n    s = "\\\\\\u00e9"\n    while True:\n        {body}\n'
    assert outcome(src, 1).status == "size"


def test_fstrings_in_comprehensions_are_bounded_too():
    src = 'def f(n):\n    return [f"{x}{x}{x:>60000}" for x in ["a" * 50000, n]]\n'
    assert outcome(src, 1).status == "size"
    src = 'def f(n):\n    return [f"{x:>60000}{x:>60000}" for x in [n]]\n'
    assert outcome(src, 1).status == "size"


# ---------------------------------------------------------------- object addresses

OPAQUE = ["lambda y: y", "reversed([1, 2])", "zip([1], [2])", "enumerate([1])",
          "(y for y in [1])", "[reversed([1])]", "{1: (zip(),)}"]


@pytest.mark.parametrize("via_source", [False, True])
@pytest.mark.parametrize("value", OPAQUE)
@pytest.mark.parametrize("render", ["str(v)", 'f"{v}"', 'f"{v!r}"', 'f"{v:>3}"', 'f"{v!a:{n}}"', '"%s" % (v,)',
                                    '"%r" % [v]', "v"])
def test_nothing_renders_an_object_address(value, render, via_source):
    src = f"def f(n):\n    v = {value}\n    return {render}\n"
    out = outcome(src, 3, via_source=via_source)
    assert out.status == "error", out
    assert "memory address" in out.error


def test_an_assertion_message_shows_no_address():
    out = outcome("def f(n):\n    assert n > 5, enumerate([n])\n    return n\n", 1)
    assert out.status == "error" and "0x" not in (out.error or "")


def test_data_still_renders():
    src = 'def f(n):\n    d = {1: [2, "x"]}\n    return [str(d.keys()), f"{d.items()}", str(range(n)), f"{None}"]\n'
    assert outcome(src, 3).value == plain(src)["f"](3)
    for v in [lambda: 1, iter(()), zip()]:
        with pytest.raises(OpaqueText):
            render_size([1, v], 10**6)


# ---------------------------------------------------------------- the command line

MODULE = '''env text(x: Int where 0 <= it <= 10) -> Str:
    """Return a big number as text."""
    y = 1 << 8000
    for i in range(7000):
        y = y + y
    return str(y + x)

env ftext(x: Int where 0 <= it <= 10) -> Str:
    """Return a big number in an f-string."""
    y = 1 << 8000
    for i in range(7000):
        y = y + y
    return f"{y + x}!"

env small(x: Int where 0 <= it <= 10) -> Str:
    """Return a number as text."""
    return f"{x}{x:>3}" + str(x * 3)

env literal(x: Int where 0 <= it <= 10) -> Int:
    """Return a big number."""
    return LIT + x

env literal_mod(x: Int where 0 <= it <= 10) -> Int:
    """Return a big number modulo 1000."""
    return (LIT + x) % 1000
'''.replace("LIT", "0x" + "f" * 5000)  # 20,000 bits: legal source, no decimal text


@pytest.mark.parametrize("untrusted", [False, True])
def test_the_command_line_refuses_wide_ints_with_size(tmp_path, untrusted):
    p = tmp_path / "wide.races"
    p.write_text(MODULE, encoding="utf-8")
    extra = ["--untrusted"] if untrusted else []
    wants = {"text": "!size", "ftext": "!size", "small": repr("2  2" + "6"), "literal": "!size",
             "literal_mod": str((int("f" * 5000, 16) + 2) % 1000)}
    for env, want in wants.items():
        r = subprocess.run([RACESC, "run", str(p), env, "--input", "2", "--fuel", "100000", *extra],
                           capture_output=True, text=True, timeout=120, check=False)
        assert "Traceback" not in r.stderr + r.stdout, r.stderr
        assert r.stdout.strip() == want, (env, r.stdout, r.stderr)


# ---------------------------------------------------------------- the checker

H = 'env e(x: Int where 0 <= it <= 10) -> Str:\n    """Return text."""\n'


@pytest.mark.parametrize("body,col", [("str(zip([x], [x]))", 16), ('f"{x}{(lambda y: y)}"', 19),
                                      ('"%s" % (x, (y for y in [x]))', 23), ("str([1, reversed([x])])", 20),
                                      ('f"{enumerate([x])!r:>4}"', 15)])
def test_the_checker_refuses_text_of_what_it_knows_has_none(tmp_path, body, col):
    from racesl.check import check_paths

    p = tmp_path / "m.races"
    p.write_text(H + f"    return {body}\n", encoding="utf-8")
    diags = [d for d in check_paths([p]).diagnostics if d.code == "E509"]
    assert [(d.span.line, d.span.col) for d in diags] == [(3, col)], diags
    assert "memory address" in diags[0].message


def test_the_checker_accepts_the_text_of_what_they_give(tmp_path):
    from racesl.check import check_paths

    p = tmp_path / "m.races"
    p.write_text(H + '    return str(list(zip([x], [x]))) + f"{sorted(y for y in [x])}"\n', encoding="utf-8")
    assert not [d for d in check_paths([p]).diagnostics if d.severity.value == "error"]
