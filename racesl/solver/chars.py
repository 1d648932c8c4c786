"""Character classes for the solver: `it.isdigit()`, `it.isalpha()`, `it.islower()`,
`it.isupper()` and `all(P(c) for c in it)` as Z3 regular-expression membership.

The language's strings are Python's: any code point from 0 to 0x10FFFF, with Python's own
Unicode tables deciding `isdigit` and the rest (`'²'.isdigit()` and `'é'.isalpha()` are
true). Z3's alphabet stops at 0x2FFFF, and a union of the ~650 Unicode ranges of `isalpha`
stalls its regex solver past any `rlimit`. So the solver reasons over an **abstract
alphabet**: a character `c` is encoded as `code(c)`, itself for ASCII (0–127) and
`128 + k` otherwise, where `k` indexes its *profile*, the six facts the encodings read:

    c.isdigit(), c.isalpha(), c.islower(), c.isupper(),
    not ("a" + c).islower()   # c is upper- or titlecase: it breaks islower
    not ("A" + c).isupper()   # c is lower- or titlecase: it breaks isupper

Every string-level method is a function of its characters' profiles (CPython:
`islower` is "no upper- or titlecase character and at least one lowercase one"), so
`s.isdigit()` holds exactly when the encoded string is in the encoded class; the same for
a per-character predicate built from these methods, comparisons with ASCII literals, `==`,
`in` and `not`/`and`/`or`. A non-ASCII literal character is mapped to its profile's code
too, which over-approximates (the code stands for every character of that profile): used
only where the predicate occurs positively, and the encoding is then marked inexact.

`PROFILES` lists the profiles of non-ASCII characters that occur under Python's Unicode
tables (`unicodedata.unidata_version`); tests/solver/test_char_classes.py checks it over
every code point. A character whose profile is not listed makes the encoding opaque.
"""

from __future__ import annotations

import unicodedata

from racesl.syntax import ast as A
from racesl.types import builtins as _table

__all__ = ["METHODS", "PROFILES", "ALPHABET", "UNICODE", "code", "profile", "char_class", "string_regex",
           "char_predicate", "NotACharSet"]

UNICODE = unicodedata.unidata_version

# the Str methods of the builtins table that the solver encodes (racesl.types.builtins)
METHODS = frozenset(e.name for e in _table.methods("Str") if e.name in ("isdigit", "isalpha", "islower", "isupper"))

# (isdigit, isalpha, islower, isupper, breaks islower, breaks isupper) of non-ASCII characters
PROFILES: tuple[tuple[bool, ...], ...] = (
    (False, False, False, False, False, False),  # U+0080: no class (marks, symbols, unassigned...)
    (False, True, False, False, False, False),   # U+01BB: an uncased letter (CJK, Arabic, ...)
    (False, True, True, False, False, True),     # U+00AA: a lowercase letter
    (False, True, False, True, True, False),     # U+00C0: an uppercase letter
    (True, False, False, False, False, False),   # U+00B2: a digit that is not ASCII
    (False, False, False, True, True, False),    # U+2160: uppercase, not a letter (Roman numerals)
    (False, False, True, False, False, True),    # U+0345: lowercase, not a letter
    (False, True, False, False, True, True),     # U+01C5: a titlecase letter
)
_FACTS = ("isdigit", "isalpha", "islower", "isupper", "breaks_lower", "breaks_upper")


def profile(c: str) -> tuple[bool, ...]:
    return (c.isdigit(), c.isalpha(), c.islower(), c.isupper(), not ("a" + c).islower(), not ("A" + c).isupper())


def code(c: str) -> int | None:
    """The abstract code of one character, or None when its profile is not in PROFILES."""
    o = ord(c)
    if o < 128:
        return o
    try:
        return 128 + PROFILES.index(profile(c))
    except ValueError:
        return None


ALPHABET = frozenset(range(128 + len(PROFILES)))
ASCII = frozenset(range(128))


def _fact_set(k: int) -> frozenset[int]:
    return frozenset([o for o in range(128) if profile(chr(o))[k]]
                     + [128 + i for i, p in enumerate(PROFILES) if p[k]])


_CLASSES = {name: _fact_set(k) for k, name in enumerate(_FACTS)}
# (1-character strings take CPython's fast path, one flag; longer ones the loop: they agree
# because no character both is lowercase and breaks islower, nor uppercase and breaks isupper)
assert not _CLASSES["islower"] & _CLASSES["breaks_lower"] and not _CLASSES["isupper"] & _CLASSES["breaks_upper"]


def char_class(name: str) -> frozenset[int]:
    """The codes of the characters `c` with `c.<name>()` (or a `breaks_*` fact)."""
    return _CLASSES[name]


def string_regex(enc, name: str):
    """The Z3 regex of the strings `s` (over ALPHABET) with `s.<name>()` True."""
    z3 = enc.z3
    if name in ("isdigit", "isalpha"):
        return z3.Plus(enc.charset(_CLASSES[name]))
    good = _CLASSES[name]
    rest = enc.charset(ALPHABET - _CLASSES["breaks_lower" if name == "islower" else "breaks_upper"])
    return z3.Concat(z3.Star(rest), enc.charset(good), z3.Star(rest))


class NotACharSet(Exception):
    """A per-character predicate outside what `char_predicate` reads."""


def char_predicate(e: A.Expr, var: str, literal) -> tuple[frozenset[int], bool]:
    """(the codes of the one-character strings `c` for which `e`, with `var` bound to `c`,
    is truthy; exact). `literal(expr)` reads a literal (a sentinel object when not one).
    Raises NotACharSet outside the fragment (`e` may not raise for any character)."""
    flags = {"exact": True}
    got = _pred(e, var, literal, True, flags)
    return got, flags["exact"]


def _lit_codes(chars, positive: bool, flags) -> frozenset[int]:
    out = set()
    for ch in chars:
        k = code(ch)
        if k is None:
            raise NotACharSet()
        if k >= 128:  # the profile's code stands for more characters than this one
            if not positive:
                raise NotACharSet()
            flags["exact"] = False
        out.add(k)
    return frozenset(out)


def _pred(e: A.Expr, var: str, literal, positive: bool, flags) -> frozenset[int]:
    if isinstance(e, A.BoolOp):
        parts = [_pred(v, var, literal, positive, flags) for v in e.values]
        acc = parts[0]
        for p in parts[1:]:
            acc = acc & p if e.op == "and" else acc | p
        return acc
    if isinstance(e, A.UnaryOp) and e.op == "not":
        return ALPHABET - _pred(e.operand, var, literal, not positive, flags)
    if isinstance(e, A.Const) and isinstance(e.value, bool):
        return ALPHABET if e.value else frozenset()
    if (isinstance(e, A.Call) and isinstance(e.func, A.Attribute) and e.func.attr in METHODS and not e.args
            and not e.keywords and isinstance(e.func.value, A.Name) and e.func.value.id == var):
        return _CLASSES[e.func.attr]
    if isinstance(e, A.Compare):
        return _compare(e, var, literal, positive, flags)
    raise NotACharSet()


def _is_var(e: A.Expr, var: str) -> bool:
    return isinstance(e, A.Name) and e.id == var


def _compare(e: A.Compare, var: str, literal, positive: bool, flags) -> frozenset[int]:
    acc = ALPHABET
    left = e.left
    for op, right in zip(e.ops, e.comparators):
        acc = acc & _one(left, op, right, var, literal, positive, flags)
        left = right
    return acc


def _one(a: A.Expr, op: str, b: A.Expr, var: str, literal, positive: bool, flags) -> frozenset[int]:
    if op in ("in", "not in"):
        if not _is_var(a, var):
            raise NotACharSet()
        lit = literal(b)
        if isinstance(lit, str):
            chars = set(lit)  # a one-character `c in "abc"`: membership
        elif isinstance(lit, (tuple, list, set, frozenset)) and all(isinstance(x, str) for x in lit):
            chars = {x for x in lit if len(x) == 1}  # by equality: only one-character members
        else:
            raise NotACharSet()
        inner = _lit_codes(chars, positive if op == "in" else not positive, flags)
        return inner if op == "in" else ALPHABET - inner
    if _is_var(b, var) and not _is_var(a, var):
        a, b = b, a
        op = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}.get(op, op)
    if not _is_var(a, var):
        raise NotACharSet()
    lit = literal(b)
    if not isinstance(lit, str):
        raise NotACharSet()
    if op in ("==", "!="):
        inner = _lit_codes([lit] if len(lit) == 1 else [], positive if op == "==" else not positive, flags)
        return inner if op == "==" else ALPHABET - inner
    if op in ("<", "<=", ">", ">=") and len(lit) == 1 and ord(lit) < 128:
        # a one-character string against an ASCII one: by code point, and every non-ASCII
        # character is above every ASCII one
        o = ord(lit)
        test = {"<": lambda k: k < o, "<=": lambda k: k <= o, ">": lambda k: k > o, ">=": lambda k: k >= o}[op]
        return frozenset(k for k in range(128) if test(k)) | (ALPHABET - ASCII if op in (">", ">=") else frozenset())
    raise NotACharSet()
