"""What a body may name: builtins, methods per receiver, decorators — and the rules for
identifiers. One table, read by the checker, the lowering and the language server."""

from __future__ import annotations

import difflib
import re

# name -> (min args, max args or None, allowed keywords)
BUILTINS: dict[str, tuple[int, int | None, frozenset[str]]] = {
    "abs": (1, 1, frozenset()),
    "all": (1, 1, frozenset()),
    "any": (1, 1, frozenset()),
    "bin": (1, 1, frozenset()),
    "bool": (0, 1, frozenset()),
    "chr": (1, 1, frozenset()),
    "divmod": (2, 2, frozenset()),
    "enumerate": (1, 2, frozenset({"start"})),
    "hex": (1, 1, frozenset()),
    "int": (0, 2, frozenset({"base"})),
    "len": (1, 1, frozenset()),
    "list": (0, 1, frozenset()),
    "max": (1, None, frozenset({"key", "default"})),
    "min": (1, None, frozenset({"key", "default"})),
    "ord": (1, 1, frozenset()),
    "pow": (2, 3, frozenset()),
    "range": (1, 3, frozenset()),
    "reversed": (1, 1, frozenset()),
    "sorted": (1, 1, frozenset({"key", "reverse"})),
    "str": (0, 1, frozenset()),
    "sum": (1, 2, frozenset({"start"})),
    "tuple": (0, 1, frozenset()),
    "zip": (0, None, frozenset()),
    "set": (0, 1, frozenset()),
    "dict": (0, 1, frozenset()),
}

_NO_KW: frozenset[str] = frozenset()
# method -> (min, max, keywords)
STR_METHODS = {
    "upper": (0, 0, _NO_KW), "lower": (0, 0, _NO_KW), "isalpha": (0, 0, _NO_KW),
    "isdigit": (0, 0, _NO_KW), "islower": (0, 0, _NO_KW), "isupper": (0, 0, _NO_KW),
    "split": (0, 2, frozenset({"sep", "maxsplit"})), "join": (1, 1, _NO_KW),
    "replace": (2, 3, _NO_KW), "strip": (0, 1, _NO_KW), "startswith": (1, 3, _NO_KW),
    "endswith": (1, 3, _NO_KW), "find": (1, 3, _NO_KW), "count": (1, 3, _NO_KW),
    "index": (1, 3, _NO_KW), "zfill": (1, 1, _NO_KW), "title": (0, 0, _NO_KW),
    "swapcase": (0, 0, _NO_KW),
}
LIST_METHODS = {
    "append": (1, 1, _NO_KW), "extend": (1, 1, _NO_KW), "pop": (0, 1, _NO_KW),
    "insert": (2, 2, _NO_KW), "index": (1, 3, _NO_KW), "count": (1, 1, _NO_KW),
    "reverse": (0, 0, _NO_KW), "sort": (0, 0, frozenset({"key", "reverse"})), "copy": (0, 0, _NO_KW),
}
DICT_METHODS = {
    "get": (1, 2, _NO_KW), "keys": (0, 0, _NO_KW), "values": (0, 0, _NO_KW),
    "items": (0, 0, _NO_KW), "setdefault": (1, 2, _NO_KW), "pop": (1, 2, _NO_KW),
    "copy": (0, 0, _NO_KW),
}
TUPLE_METHODS = {"index": (1, 3, _NO_KW), "count": (1, 1, _NO_KW)}
RNG_METHODS = {
    "randint": (2, 2, _NO_KW), "choice": (1, 1, _NO_KW), "sample": (2, 2, _NO_KW),
    "shuffle": (1, 1, _NO_KW),
}
ALL_METHODS: dict[str, tuple[int, int | None, frozenset[str]]] = {}
for _table in (STR_METHODS, LIST_METHODS, DICT_METHODS, TUPLE_METHODS):
    for _k, _v in _table.items():
        lo, hi, kw = ALL_METHODS.get(_k, (_v[0], _v[1], _v[2]))
        ALL_METHODS[_k] = (min(lo, _v[0]), max(hi, _v[1]), kw | _v[2])

DECORATORS = ("sample", "tags", "verify", "laws")
LAWS = ("idempotent", "involution")
CONSTANTS = {"True", "False"}

_DUNDER = re.compile(r"^__.*__$")


def name_problem(name: str) -> tuple[str, str, str] | None:
    """(code, message, hint) when an identifier is not allowed, else None."""
    if _DUNDER.match(name):
        return "E502", f"dunder name '{name}' is not allowed", "names like __x__ reach Python internals; pick a plain name"
    if name != "_" and (name.startswith("_") or "__" in name):
        return "E508", f"'{name}' is a reserved name", "names starting with '_' or containing '__' are reserved for the compiler"
    return None


def suggest(name: str, candidates) -> str | None:
    close = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return close[0] if close else None
