"""Value contracts: check_value messages, the bool/int distinction, canonical text and
parse_literal."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from racesl.runtime.contract import canonical, check_value, conforms, parse_literal
from racesl.syntax.emit import expr_text
from racesl.syntax.parser import parse_module
from racesl.types.types import BOOL, INT, STR, DictT, ListT, NewT, Pred, Refined, TupleT


def pred(src: str) -> Pred:
    m, diags = parse_module(f"type T = Int where {src}\n", "t.races")
    assert not diags, diags
    e = m.items[0].type.where
    return Pred(e, expr_text(e), "m", e.span)


def R(base, *srcs):
    return Refined(base, tuple(pred(s) for s in srcs))


_SAFE = {n: __builtins__[n] if isinstance(__builtins__, dict) else getattr(__builtins__, n)
         for n in ("len", "all", "any", "set", "sorted", "range", "abs", "sum", "list", "min", "max")}


def check(p: Pred, v) -> bool:
    try:
        return bool(eval(p.text, {"__builtins__": _SAFE, "it": v}))
    except Exception:
        return False


DIGIT = R(INT, "0 <= it <= 9")
GRID = NewT("m.Grid", R(ListT(R(ListT(DIGIT), "2 <= len(it) <= 5")), "2 <= len(it) <= 5"))


def test_values_that_belong():
    assert check_value(3, DIGIT, check) is None
    assert check_value(True, BOOL, check) is None
    assert check_value("ab", STR, check) is None
    assert check_value([1, 2], ListT(DIGIT), check) is None
    assert check_value((1, "a"), TupleT((INT, STR)), check) is None
    assert check_value({"a": 1}, DictT(STR, DIGIT), check) is None
    assert check_value([[1, 2], [3, 4, 5]], GRID, check) is None
    assert check_value([], ListT(INT), check) is None


def test_element_message():
    msg = check_value([1, 2, 3, 12], ListT(DIGIT), check)
    assert msg == "element 3: 12 violates 0 <= it <= 9"


def test_nested_messages_say_where():
    assert check_value([[1, 2], [3, 10]], GRID, check) == "element 1: element 1: 10 violates 0 <= it <= 9"
    assert check_value([[1, 2]], GRID, check) == "[[1, 2]] violates 2 <= len(it) <= 5"
    assert check_value((1, "x"), TupleT((INT, DIGIT)), check) == \
        "component 1: expected Int where 0 <= it <= 9, got str 'x'"
    assert check_value({"a": 11}, DictT(STR, DIGIT), check) == "value at key 'a': 11 violates 0 <= it <= 9"
    assert check_value({1: 1}, DictT(STR, DIGIT), check) == "key 1: expected Str, got int 1"


def test_shape_messages():
    assert check_value("ab", INT, check) == "expected Int, got str 'ab'"
    assert check_value((1, 2), ListT(INT), check) == "expected List[Int], got tuple (1, 2)"
    assert check_value((1, 2, 3), TupleT((INT, INT)), check).startswith(
        "expected Tuple[Int, Int] (2 components), got a tuple of 3")
    assert check_value([1], TupleT((INT,)), check) == "expected Tuple[Int], got list [1]"
    assert check_value(None, STR, check) == "expected Str, got NoneType None"
    long = check_value("x" * 500, INT, check)
    assert len(long) < 100 and long.endswith("...")


def test_bool_is_not_int_and_int_is_not_bool():
    assert check_value(True, INT, check) == "expected Int, got bool True"
    assert check_value(1, BOOL, check) == "expected Bool, got int 1"
    assert check_value([1, False], ListT(INT), check) == "element 1: expected Int, got bool False"
    assert not conforms(True, INT) and conforms(1, INT) and conforms(False, BOOL)


def test_all_predicates_at_every_depth():
    t = R(ListT(R(INT, "it >= 0", "it % 2 == 0")), "len(it) >= 1", "it == sorted(it)")
    assert check_value([0, 2, 4], t, check) is None
    assert check_value([0, 3], t, check) == "element 1: 3 violates it % 2 == 0"
    assert check_value([4, 2], t, check) == "[4, 2] violates it == sorted(it)"
    assert check_value([], t, check) == "[] violates len(it) >= 1"


def test_newtype_is_checked_through_its_representation():
    n = NewT("m.Pos", R(INT, "it > 0"))
    assert check_value(5, n, check) is None
    assert check_value(0, n, check) == "0 violates it > 0"
    assert check_value(0, R(n, "it < 10"), check) == "0 violates it > 0"
    assert check_value(True, n, check) == "expected m.Pos, got bool True"
    assert check_value(12, R(n, "it < 10"), check) == "12 violates it < 10"


def test_canonical_is_repr():
    for v in (0, -3, True, "a'b", [1, (2, "x")], {"k": [True]}, ()):
        assert canonical(v) == repr(v)
        assert parse_literal(canonical(v)) == v


def test_parse_literal_accepts_values():
    assert parse_literal(" [1, -2, (3, 'a'), {'k': True}] ") == [1, -2, (3, "a"), {"k": True}]
    assert parse_literal("+5") == 5
    assert parse_literal("'é'") == "é"
    assert type(parse_literal("True")) is bool


@pytest.mark.parametrize("text,why", [
    ("__import__('os')", "call"),
    ("os.system('x')", "call"),
    ("x", "name"),
    ("[x]", "name"),
    ("1.5", "float"),
    ("1e3", "float"),
    ("1j", "complex"),
    ("{1, 2}", "set"),
    ("None", "None"),
    ("b'x'", "bytes"),
    ("1 + 2", "binop"),
    ("--5", "sign"),
    ("-True", "sign"),
    ("[1, 2][0]", "subscript"),
    ("(lambda: 1)", "lambda"),
    ("{**{}}", "**"),
    ("{[1]: 2}", "hashable"),
    ("{(1, [2]): 3}", "unhashable"),
    ("", "empty"),
    ("1 2", "not a literal"),
    ("[" * 60 + "]" * 60, "nested"),
    ("[" * 300 + "]" * 300, "nest"),
    ("1" * 5000, "not a literal"),
    ("'" + "a" * 100_001 + "'", "too long"),
])
def test_parse_literal_refusals(text, why):
    with pytest.raises(ValueError) as exc:
        parse_literal(text)
    assert why.lower() in str(exc.value).lower()
    assert len(str(exc.value)) < 250


def test_parse_literal_refuses_non_text():
    with pytest.raises(ValueError):
        parse_literal(b"1")


values = st.recursive(
    st.integers() | st.booleans() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
    | st.dictionaries(st.integers() | st.text(max_size=3), inner, max_size=3),
    max_leaves=12,
)


@settings(max_examples=100, deadline=None)
@given(values)
def test_canonical_round_trip(v):
    assert parse_literal(canonical(v)) == v
    assert canonical(parse_literal(canonical(v))) == canonical(v)
