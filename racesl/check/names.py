"""What a body may name: builtins, methods per receiver (views of the one table,
racesl.types.builtins), decorators — and the rules for identifiers."""

from __future__ import annotations

import difflib
import re

from racesl.syntax.decorators import DECORATORS, LAWS  # noqa: F401 — re-exported: the checker reads them here
from racesl.types import builtins as _table

Arity = tuple[int, "int | None", frozenset[str]]  # (min args, max args or None, allowed keywords)


def _arities(entries) -> dict[str, Arity]:
    return {e.name: (e.min_args, e.max_args, e.keywords) for e in entries}


# name -> (min args, max args or None, allowed keywords): views of racesl.types.builtins
BUILTINS: dict[str, Arity] = _arities(_table.builtins())
STR_METHODS = _arities(_table.methods("Str"))
LIST_METHODS = _arities(_table.methods("List"))
DICT_METHODS = _arities(_table.methods("Dict"))
TUPLE_METHODS = _arities(_table.methods("Tuple"))
RNG_METHODS = _arities(_table.methods("rng"))
ALL_METHODS: dict[str, Arity] = _table.methods_all()  # a receiver of unknown type

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
