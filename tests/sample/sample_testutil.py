"""Helpers for the sampler tests: predicates from source text and a plain `check`."""

from __future__ import annotations

from racesl.syntax.emit import expr_text
from racesl.syntax.parser import parse_module
from racesl.types.types import BOOL, INT, STR, DictT, ListT, NewT, Pred, Refined, TupleT  # noqa: F401

SAFE_BUILTINS = {
    name: __builtins__[name] if isinstance(__builtins__, dict) else getattr(__builtins__, name)
    for name in ("abs", "all", "any", "bool", "chr", "dict", "divmod", "enumerate", "int", "len",
                 "list", "max", "min", "ord", "range", "reversed", "set", "sorted", "str", "sum",
                 "tuple", "zip")
}


def pred(src: str) -> Pred:
    m, diags = parse_module(f"type T = Int where {src}\n", "t.races")
    assert not diags, diags
    e = m.items[0].type.where
    return Pred(e, expr_text(e), "m", e.span)


def refined(base, *srcs: str):
    return Refined(base, tuple(pred(s) for s in srcs)) if srcs else base


_CODE: dict[str, object] = {}


def check(p: Pred, value) -> bool:
    code = _CODE.get(p.text)
    if code is None:
        code = _CODE[p.text] = compile(p.text, "<pred>", "eval")
    try:
        # `it` is a global so that comprehension scopes see it too
        return bool(eval(code, {"__builtins__": SAFE_BUILTINS, "it": value}))
    except Exception:
        return False
