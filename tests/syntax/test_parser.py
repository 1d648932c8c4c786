from __future__ import annotations

import ast as pyast

import pytest

from racesl.syntax import ast as A
from racesl.syntax.emit import expr_text
from racesl.syntax.lexer import tokenize
from racesl.syntax.parser import parse_module

SRC = '''module demo
from numbers import Small

type Word = Str where 1 <= len(it) <= 12 and it.isalpha()

@sample(n=pick)
@tags("numbers")
env fib(n: Int where 0 <= it <= 30, k: Int where 1 <= it <= 3) -> Int where it >= 0:
    """Return the n-th Fibonacci number times {k}."""
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a * k

def pick(rng, level) -> Int:
    return rng.randint(0, 5 + 5 * level)
'''


def test_items_and_shapes():
    mod, diags = parse_module(SRC, "demo.races")
    assert diags == []
    assert mod.name == "demo"
    kinds = [type(i).__name__ for i in mod.items]
    assert kinds == ["ModuleDecl", "FromImport", "TypeDecl", "FuncDef", "FuncDef"]
    env = mod.items[3]
    assert env.is_env and env.name == "fib"
    assert [d.name for d in env.decorators] == ["sample", "tags"]
    assert env.docstring.value.startswith("Return the n-th")
    assert [p.name for p in env.params] == ["n", "k"]
    assert expr_text(env.params[0].annotation.where) == "0 <= it <= 30"
    assert expr_text(env.returns.where) == "it >= 0"
    assert len(env.body) == 3


def test_spans_are_exact():
    mod, _ = parse_module(SRC, "demo.races")
    env = mod.items[3]
    assert (env.name_span.line, env.name_span.col, env.name_span.end_col) == (8, 5, 8)
    ret = env.body[-1]
    assert (ret.span.line, ret.span.col, ret.span.end_line, ret.span.end_col) == (13, 5, 13, 17)
    # spans never run onto the next line (no _NEWLINE/_DEDENT in them)
    for node in A.walk(mod):
        if isinstance(node, (A.Return, A.Assign, A.ExprStmt)):
            assert node.span.end_line == node.span.line


def test_spans_count_code_points_after_non_ascii():
    mod, _ = parse_module('env f(s: Str) -> Str:\n    """Ünïcödé → fine."""\n    return "ä" + s\n')
    ret = mod.items[0].body[0]
    plus = ret.value
    assert plus.op_span.col == 16  # `return "ä" + s`: '+' is the 16th code point
    assert plus.right.span.col == 18


@pytest.mark.parametrize("expr", [
    "a if b else c", "not a and b or c", "x[1:2:3]", "x[::-1]", "f(a, key=lambda t: -t)",
    "[i * 2 for i in range(3) if i]", "{k: v for k, v in d.items()}", "{1, 2}", "(1,)", "()",
    "sum(x for x in y)", "a < b <= c != d", "x not in y", "-3", "~x", "2 ** -1", "a // b % c",
    "f'{a!r:>{w}} b {{c}}'", "'a' 'b'", "d.get(k, 0) + len(s)", "x[1, 2]", "0x1F + 0b10 + 0o7",
])
def test_expressions_round_trip_through_python(expr):
    mod, diags = parse_module(f"def f(a, b, c, d, s, t, w, x, y, k):\n    return {expr}\n")
    assert diags == []
    ours = expr_text(mod.items[0].body[0].value)
    assert pyast.dump(pyast.parse(ours, mode="eval")) == pyast.dump(pyast.parse(expr, mode="eval"))


def test_soft_keywords_are_names_inside_bodies():
    mod, diags = parse_module('def f(x: Int) -> Int:\n    type = x\n    env = type + 1\n    module = env\n    return module\n')
    assert diags == []


def test_file_ending_in_comment_without_newline():
    mod, diags = parse_module('env x(a: Int) -> Int:\n    """d"""\n    return a # c')
    assert diags == [] and mod.items[0].name == "x"


def test_recovery_keeps_later_items_and_statements():
    src = 'env a(x: Int) -> Int:\n    """d"""\n    y = = 2\n    return x\n\nenv b(x: Int) -> Int\n    return x\n\nenv c(x: Int) -> Int:\n    """d"""\n    return x\n'
    mod, diags = parse_module(src)
    assert [i.name for i in mod.items] == ["a", "c"]
    assert [(d.code, d.span.line) for d in diags] == [("E100", 3), ("E100", 6)]
    assert isinstance(mod.items[0].body[-1], A.Return)


def test_lexer_handles_every_token_kind():
    toks, diags = tokenize("x = 'a' + \"b\" + '''c''' + r'\\d' + f'{x}' + 0x1f\n")
    assert diags == []
    assert [t.kind for t in toks][-3:] == ["INT", "NEWLINE", "EOF"]


@pytest.mark.parametrize("digits,code", [(4300, None), (4301, "E113"), (5001, "E113")])
def test_a_decimal_literal_cpython_cannot_read_is_refused_where_it_stands(digits, code):
    src = f"env f(n: Int) -> Int:\n    \"\"\"Return n plus a big number.\"\"\"\n    return n + {'9' * digits}\n"
    mod, diags = parse_module(src, "big.races")
    assert [d.code for d in diags] == ([code] if code else [])
    if code:
        (d,) = diags
        assert (d.span.line, d.span.col) == (3, 16) and f"{digits:,} digits" in d.message
        assert "smaller" in d.hint
    else:  # read exactly, never as 0
        ret = mod.items[0].body[-1]
        assert ret.value.right.value == int("9" * digits)


def test_a_flood_of_fstring_fields_is_refused_at_the_fstring():
    from racesl.syntax.build import MAX_FSTRING_FIELDS

    ok = 'env e(x: Int) -> Str:\n    return f"' + "{x}" * MAX_FSTRING_FIELDS + '"\n'
    assert parse_module(ok)[1] == []
    for body in ("{x}" * 21_000, "{x:{x}}" * (MAX_FSTRING_FIELDS // 2 + 1), "{f'{x}'}" * (MAX_FSTRING_FIELDS // 2 + 1)):
        _, diags = parse_module('env e(x: Int) -> Str:\n    return "a" f"' + body + '"\n')
        assert [d.code for d in diags] == ["E112"], body[:20]
        d = diags[0]
        assert (d.span.line, d.span.col) == (2, 12) and "replacement fields; the limit is 256" in d.message
        assert d.hint
