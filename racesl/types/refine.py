"""What a refinement says about its values: ranges, moduli, lengths, alphabets. The
samplers draw from it, lowering trusts its sound part and the solver shares its literals.

`extract(preds)` turns a tuple of `Pred`s (a conjunction; a top-level `and` inside one
predicate is split too) into a frozen `Bounds`. Every fact in a `Bounds` is *implied* by the
predicates (sound), except the string `alphabet`, which is a *preferred* character set (every
non-empty string over it satisfies the predicate it came from, e.g. `it.isalpha()` → ASCII
letters) and is used only to steer generation. Whatever is not understood is recorded as
opaque and left to rejection: the sampler always checks every predicate on every value, so
nothing here can make a wrong value pass.

Understood forms (over the variable `it`, or a comprehension variable for `all(...)`):

- comparisons, chained or not, on either side, of linear integer forms in `it` or `len(it)`:
  `0 <= it <= 30`, `it > 3`, `10 >= it`, `it != 5`, `2 * it + 1 <= 30`, `len(it) >= 2`;
  `abs(Y) <= c`, `Y // k OP c`, `Y % m OP c` for a linear `Y` and constants `k, m > 0`;
- `Y in range(a, b[, step])`, `Y in {..}` / `(..)` / `[..]`, `it == literal`, `it != literal`,
  `it not in {..}`; `it in "abc"` (it is a substring of "abc");
- `not <comparison>` (the comparison inverted), bare `it` / `not it` (truthiness);
- `it.isalpha()`, `isdigit`, `islower`, `isupper`, `isalnum`, ... (alphabet, non-empty);
- `all(P(x) for x in it)` (element bounds), `all(P(v) for v in it.values())` (dict values),
  `set(it) <= set("abc")` / `set(it).issubset(X)` (element choices);
- `len(set(it)) == len(it)` (distinct), `it == sorted(it)` / `sorted(it, reverse=True)`,
  `"".join(sorted(it)) == it`, `all(it[i] <= it[i + 1] for i in range(len(it) - 1))`,
  `all(a < b for a, b in zip(it, it[1:]))` (order; strict order adds distinct).
"""

from __future__ import annotations

import math
import operator
import string
from typing import Any, Iterable

import attrs

from racesl.syntax import ast as A

__all__ = ["Bounds", "IntRange", "extract", "analyze", "conjuncts", "literal_value", "NOT_LITERAL", "eq_key",
           "lit_key", "range_args"]

_MAX_MODULUS = 10**12
_MAX_ENUM = 4096  # exact emptiness checks enumerate at most this many integers


def _sorted_tuple(xs) -> tuple:
    return tuple(sorted(set(xs)))


# ---------------------------------------------------------------- integer constraints


def _compact_repr(self) -> str:
    parts = []
    for a in attrs.fields(type(self)):
        v = getattr(self, a.name)
        if v != a.default:
            if isinstance(v, frozenset):
                v = sorted(v)
            parts.append(f"{a.name}={v!r}")
    return f"{type(self).__name__}({', '.join(parts)})"


@attrs.frozen(slots=True, repr=False)
class IntRange:
    """Constraints on one integer quantity (a value or a length).

    The allowed set is: `lo <= x <= hi` (None: unbounded), `x % modulus == residue`,
    `x not in excluded`, `x % m != r` for each `(m, r)` in `excluded_residues`, and, when
    `choices` is not None, `x in choices`. `empty` marks a provably empty set.
    """

    lo: int | None = None
    hi: int | None = None
    modulus: int = 1
    residue: int = 0
    excluded: frozenset = frozenset()
    excluded_residues: frozenset = frozenset()
    choices: tuple | None = None
    empty: bool = False

    __repr__ = _compact_repr

    # -- membership

    def _extra_ok(self, v: int) -> bool:
        if v in self.excluded:
            return False
        return all(v % m != r for m, r in self.excluded_residues)

    def allows(self, v: int) -> bool:
        if self.empty:
            return False
        if self.lo is not None and v < self.lo:
            return False
        if self.hi is not None and v > self.hi:
            return False
        if v % self.modulus != self.residue:
            return False
        if self.choices is not None and v not in self.choices:
            return False
        return self._extra_ok(v)

    @property
    def trivial(self) -> bool:
        return self == IntRange()

    # -- combination

    def meet(self, other: "IntRange") -> "IntRange":
        if self.empty or other.empty:
            return EMPTY_RANGE
        lo = _max_opt(self.lo, other.lo)
        hi = _min_opt(self.hi, other.hi)
        crt = _crt(self.modulus, self.residue, other.modulus, other.residue)
        if crt is None:
            return EMPTY_RANGE
        m, r = crt
        if m > _MAX_MODULUS:  # keep the stronger (bigger) one; the rest is left to checks
            m, r = max((self.modulus, self.residue), (other.modulus, other.residue))
        if self.choices is None:
            choices = other.choices
        elif other.choices is None:
            choices = self.choices
        else:
            choices = tuple(c for c in self.choices if c in set(other.choices))
        return IntRange(lo, hi, m, r, self.excluded | other.excluded,
                        self.excluded_residues | other.excluded_residues, choices).normalized()

    def normalized(self) -> "IntRange":
        if self.empty:
            return EMPTY_RANGE
        lo, hi, m, r = self.lo, self.hi, self.modulus, self.residue
        if m < 1:
            m, r = 1, 0
        r %= m
        if lo is not None:
            lo = lo + ((r - lo) % m)
        if hi is not None:
            hi = hi - ((hi - r) % m)
        if lo is not None and hi is not None and lo > hi:
            return EMPTY_RANGE
        # residues excluded by `x % m != r` that coincide with the modulus class are redundant
        # or fatal; those with other moduli stay.
        exres = frozenset((mm, rr % mm) for mm, rr in self.excluded_residues if mm >= 1)
        out = IntRange(lo, hi, m, r, frozenset(self.excluded), exres, None)
        if self.choices is not None:
            ch = _sorted_tuple(c for c in self.choices if out.allows(c))
            if not ch:
                return EMPTY_RANGE
            return IntRange(ch[0], ch[-1], m, r, out.excluded, out.excluded_residues, ch)
        if out._provably_empty():
            return EMPTY_RANGE
        return out

    def _provably_empty(self) -> bool:
        if self.lo is not None and self.hi is not None:
            count = (self.hi - self.lo) // self.modulus + 1
            if count <= _MAX_ENUM:
                return not any(self._extra_ok(self.lo + k * self.modulus) for k in range(count))
        if self.excluded_residues:
            big = self.modulus
            for mm, _ in self.excluded_residues:
                big = big * mm // math.gcd(big, mm)
                if big > 10_000:
                    return False
            return not any(x % self.modulus == self.residue
                           and all(x % mm != rr for mm, rr in self.excluded_residues)
                           for x in range(big))
        return False

    # -- drawing

    def count_in(self, a: int, b: int) -> int:
        """How many values of the modulus class lie in [a, b] (before exclusions)."""
        if self.lo is not None:
            a = max(a, self.lo)
        if self.hi is not None:
            b = min(b, self.hi)
        if a > b:
            return 0
        first = a + ((self.residue - a) % self.modulus)
        return 0 if first > b else (b - first) // self.modulus + 1

    def candidates(self, a: int, b: int, limit: int = 256) -> list[int] | None:
        """Every allowed value in [a, b], ascending, or None when there are more than `limit`
        values of the modulus class to look at."""
        if self.empty:
            return []
        if self.choices is not None:
            return [c for c in self.choices if a <= c <= b]
        if self.lo is not None:
            a = max(a, self.lo)
        if self.hi is not None:
            b = min(b, self.hi)
        if a > b:
            return []
        first = a + ((self.residue - a) % self.modulus)
        if first > b:
            return []
        count = (b - first) // self.modulus + 1
        if count > limit:
            return None
        return [v for v in range(first, b + 1, self.modulus) if self._extra_ok(v)]

    def pick(self, rng, a: int, b: int) -> int | None:
        """A uniformly drawn allowed value of [a, b], or None when there is none (or, for a
        wide window where exclusions leave few values, none was found)."""
        if self.empty:
            return None
        if self.choices is not None:
            cand = [c for c in self.choices if a <= c <= b]
            return rng.choice(cand) if cand else None
        if self.lo is not None:
            a = max(a, self.lo)
        if self.hi is not None:
            b = min(b, self.hi)
        if a > b:
            return None
        first = a + ((self.residue - a) % self.modulus)
        if first > b:
            return None
        count = (b - first) // self.modulus + 1
        if not self.excluded and not self.excluded_residues:
            return first + rng.randrange(count) * self.modulus
        for _ in range(16):
            v = first + rng.randrange(count) * self.modulus
            if self._extra_ok(v):
                return v
        cand = self.candidates(a, b, limit=4096)
        if cand is not None:
            return rng.choice(cand) if cand else None
        for _ in range(64):
            v = first + rng.randrange(count) * self.modulus
            if self._extra_ok(v):
                return v
        return None

    def describe(self) -> str:
        if self.empty:
            return "empty"
        parts = []
        if self.choices is not None:
            parts.append(f"in {list(self.choices)}")
        else:
            if self.lo is not None or self.hi is not None:
                parts.append(f"[{'-inf' if self.lo is None else self.lo}, "
                             f"{'inf' if self.hi is None else self.hi}]")
            if self.modulus > 1:
                parts.append(f"= {self.residue} mod {self.modulus}")
        if self.excluded:
            parts.append(f"not in {sorted(self.excluded)}")
        for m, r in sorted(self.excluded_residues):
            parts.append(f"!= {r} mod {m}")
        return " ".join(parts) or "any"


EMPTY_RANGE = IntRange(empty=True)
ANY_RANGE = IntRange()


def _max_opt(a, b):
    return b if a is None else a if b is None else max(a, b)


def _min_opt(a, b):
    return b if a is None else a if b is None else min(a, b)


def _crt(m1: int, r1: int, m2: int, r2: int) -> tuple[int, int] | None:
    g = math.gcd(m1, m2)
    if (r2 - r1) % g:
        return None
    lcm = m1 // g * m2
    mg = m2 // g
    t = ((r2 - r1) // g * pow(m1 // g, -1, mg)) % mg if mg > 1 else 0
    return lcm, (r1 + m1 * t) % lcm


# ---------------------------------------------------------------- bounds


@attrs.frozen(slots=True, repr=False)
class Bounds:
    """What the predicates say about a value (see the module docstring)."""

    value: IntRange = ANY_RANGE          # the value itself, as an integer
    length: IntRange = ANY_RANGE         # len(value)
    choices: tuple | None = None         # value is one of these literals (any kind)
    excluded: tuple = ()                 # value is none of these literals
    alphabet: frozenset | None = None    # preferred characters (strings)
    elem: "Bounds | None" = None         # each element / character / dict key
    values: "Bounds | None" = None       # each dict value
    distinct: bool = False               # elements pairwise different
    order: str | None = None             # "asc" | "desc": elements sorted
    empty: bool = False                  # provably unsatisfiable
    opaque: tuple = ()                   # texts of conjuncts (partly) left to rejection

    __repr__ = _compact_repr

    def meet(self, o: "Bounds") -> "Bounds":
        if self.empty or o.empty:
            return attrs.evolve(EMPTY, opaque=self.opaque + o.opaque)
        if self.choices is None:
            choices = o.choices
        elif o.choices is None:
            choices = self.choices
        else:
            keys = {eq_key(c) for c in o.choices}
            choices = tuple(c for c in self.choices if eq_key(c) in keys)
        mine = {lit_key(y) for y in self.excluded}
        excluded = self.excluded + tuple(x for x in o.excluded if lit_key(x) not in mine)
        if self.alphabet is None:
            alphabet = o.alphabet
        elif o.alphabet is None:
            alphabet = self.alphabet
        else:
            alphabet = self.alphabet & o.alphabet
        value = self.value.meet(o.value)
        length = self.length.meet(o.length)
        empty = choices == () or length.empty
        return Bounds(
            value=value, length=length, choices=choices, excluded=excluded, alphabet=alphabet,
            elem=_meet_opt(self.elem, o.elem), values=_meet_opt(self.values, o.values),
            distinct=self.distinct or o.distinct, order=self.order or o.order, empty=empty,
            opaque=self.opaque + tuple(t for t in o.opaque if t not in self.opaque),
        )

    @property
    def int_empty(self) -> bool:
        """No integer satisfies the bounds (the value range is empty)."""
        return self.empty or self.value.empty


EMPTY = Bounds(empty=True)
NONE = Bounds()


def _meet_opt(a: Bounds | None, b: Bounds | None) -> Bounds | None:
    if a is None:
        return b
    if b is None:
        return a
    return a.meet(b)


def lit_key(v: Any) -> tuple:
    """Literal identity that keeps 1, True and '1' apart (and is hashable)."""
    return (type(v).__name__, repr(v))


def eq_key(v: Any, depth: int = 0) -> Any:
    """A hashable key with Python's equality: `eq_key(a) == eq_key(b)` iff `a == b` for
    literal values (so 1 and True share a key, as `1 in {True}` holds)."""
    if depth > 50:
        return ("r", repr(v))
    if isinstance(v, int):
        return ("n", int(v))
    if isinstance(v, str):
        return ("s", v)
    if isinstance(v, tuple):
        return ("t", tuple(eq_key(x, depth + 1) for x in v))
    if isinstance(v, list):
        return ("l", tuple(eq_key(x, depth + 1) for x in v))
    if isinstance(v, (set, frozenset)):
        return ("f", frozenset(eq_key(x, depth + 1) for x in v))
    if isinstance(v, dict):
        return ("d", frozenset((eq_key(k, depth + 1), eq_key(x, depth + 1)) for k, x in v.items()))
    return ("r", type(v).__name__, repr(v))


# ---------------------------------------------------------------- literals


class _NotLiteral:
    def __repr__(self) -> str:
        return "NOT_LITERAL"


NOT_LITERAL = _NotLiteral()


def literal_value(e: A.Expr, depth: int = 0) -> Any:
    """The value of a literal expression (ints, bools, strs, tuples, lists, sets, dicts,
    `set("abc")`, `range(..)` is not one), or NOT_LITERAL."""
    if depth > 20:
        return NOT_LITERAL
    if isinstance(e, A.Const):
        return e.value
    if isinstance(e, A.UnaryOp) and e.op in ("-", "+"):
        v = literal_value(e.operand, depth + 1)
        if isinstance(v, int) and not isinstance(v, bool):
            return -v if e.op == "-" else v
        return NOT_LITERAL
    if isinstance(e, (A.TupleExpr, A.ListExpr, A.SetExpr)):
        vals = [literal_value(x, depth + 1) for x in e.elts]
        if any(v is NOT_LITERAL for v in vals):
            return NOT_LITERAL
        if isinstance(e, A.TupleExpr):
            return tuple(vals)
        if isinstance(e, A.ListExpr):
            return vals
        try:
            return frozenset(vals)
        except TypeError:
            return NOT_LITERAL
    if isinstance(e, A.DictExpr):
        ks = [literal_value(x, depth + 1) for x in e.keys]
        vs = [literal_value(x, depth + 1) for x in e.values]
        if any(v is NOT_LITERAL for v in ks + vs):
            return NOT_LITERAL
        try:
            return dict(zip(ks, vs))
        except TypeError:
            return NOT_LITERAL
    if (isinstance(e, A.Call) and isinstance(e.func, A.Name) and e.func.id in ("set", "frozenset")
            and len(e.args) == 1 and not e.keywords):
        v = literal_value(e.args[0], depth + 1)
        if isinstance(v, (str, tuple, list, frozenset)):
            try:
                return frozenset(v)
            except TypeError:
                return NOT_LITERAL
    return NOT_LITERAL


def _members(v: Any) -> tuple | None:
    """The elements of a literal collection in a deterministic order, or None."""
    if isinstance(v, (tuple, list)):
        out, seen = [], set()
        for x in v:
            k = lit_key(x)
            if k not in seen:
                seen.add(k)
                out.append(x)
        return tuple(out)
    if isinstance(v, frozenset):
        return tuple(sorted(v, key=lambda x: (type(x).__name__, repr(x))))
    if isinstance(v, dict):
        return _members(list(v))
    return None


def range_args(e: A.Expr) -> tuple[int, int, int] | None:
    if not (isinstance(e, A.Call) and isinstance(e.func, A.Name) and e.func.id == "range"
            and 1 <= len(e.args) <= 3 and not e.keywords):
        return None
    vals = [literal_value(a) for a in e.args]
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in vals):
        return None
    if len(vals) == 1:
        return 0, vals[0], 1
    if len(vals) == 2:
        return vals[0], vals[1], 1
    if vals[2] == 0:
        return None
    return vals[0], vals[1], vals[2]


def _substrings(s: str) -> tuple[str, ...] | None:
    if len(s) > 64:
        return None
    out = dict.fromkeys(s[i:j] for i in range(len(s) + 1) for j in range(i, len(s) + 1))
    return tuple(out)


# ---------------------------------------------------------------- linear forms

# A linear form is (coefficients, constant) with coefficients over the atoms "v" (the
# variable) and "len" (its length).
Lin = tuple[dict, int]


def _is_var(e: A.Expr, var: str) -> bool:
    return isinstance(e, A.Name) and e.id == var


def _call_of(e: A.Expr, fname: str, nargs: int = 1) -> bool:
    return (isinstance(e, A.Call) and isinstance(e.func, A.Name) and e.func.id == fname
            and len(e.args) == nargs and not e.keywords)


def _lin(e: A.Expr, var: str) -> Lin | None:
    if isinstance(e, A.Const):
        if isinstance(e.value, int):  # bools count as 0/1, as in Python
            return {}, int(e.value)
        return None
    if _is_var(e, var):
        return {"v": 1}, 0
    if _call_of(e, "len") and _is_var(e.args[0], var):
        return {"len": 1}, 0
    if isinstance(e, A.UnaryOp) and e.op in ("-", "+"):
        inner = _lin(e.operand, var)
        if inner is None:
            return None
        if e.op == "+":
            return inner
        return {k: -c for k, c in inner[0].items()}, -inner[1]
    if isinstance(e, A.BinOp) and e.op in ("+", "-", "*"):
        left, right = _lin(e.left, var), _lin(e.right, var)
        if left is None or right is None:
            return None
        if e.op == "*":
            if not left[0]:
                k, (co, c) = left[1], right
            elif not right[0]:
                k, (co, c) = right[1], left
            else:
                return None
            return {a: k * x for a, x in co.items()}, k * c
        sign = 1 if e.op == "+" else -1
        co = dict(left[0])
        for a, x in right[0].items():
            co[a] = co.get(a, 0) + sign * x
        return co, left[1] + sign * right[1]
    return None


def _single(lin: Lin) -> tuple[str | None, int, int]:
    """(atom, coefficient, constant) of a form with at most one atom; atom None: a constant.
    Raises ValueError when the form mixes atoms."""
    co = {a: x for a, x in lin[0].items() if x != 0}
    if not co:
        return None, 0, lin[1]
    if len(co) > 1:
        raise ValueError("two atoms")
    (atom, a), = co.items()
    return atom, a, lin[1]


_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
_NEGATE = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "==",
           "in": "not in", "not in": "in"}
_PYOP = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
         "==": operator.eq, "!=": operator.ne}


def _on(atom: str, r: IntRange) -> Bounds:
    r = r.normalized()
    if r.empty:
        return EMPTY
    if atom == "len" and r.meet(IntRange(lo=0)).empty:  # lengths are never negative
        return EMPTY
    return Bounds(value=r) if atom == "v" else Bounds(length=r)


def _linear_bound(atom: str, a: int, b: int, op: str) -> Bounds | None:
    """Bounds from `a * x + b OP 0` (a != 0)."""
    if op == ">=":
        return _linear_bound(atom, -a, -b, "<=")
    if op == ">":
        return _linear_bound(atom, -a, -b, "<")
    if op == "<":
        return _linear_bound(atom, a, b + 1, "<=")
    if op == "<=":  # a x <= -b
        c = -b
        if a > 0:
            return _on(atom, IntRange(hi=c // a))
        return _on(atom, IntRange(lo=-((-c) // a)))  # x >= ceil(c / a)
    if op in ("==", "!="):
        if (-b) % a:
            return EMPTY if op == "==" else NONE
        v = (-b) // a
        if op == "==":
            return _on(atom, IntRange(lo=v, hi=v))
        return _on(atom, IntRange(excluded=frozenset({v})))
    return None


def _lin_cmp(left: Lin, op: str, right: Lin) -> Bounds | None:
    co = dict(left[0])
    for k, x in right[0].items():
        co[k] = co.get(k, 0) - x
    try:
        atom, a, b = _single((co, left[1] - right[1]))
    except ValueError:
        return None
    if atom is None:
        return NONE if _PYOP[op](b, 0) else EMPTY
    return _linear_bound(atom, a, b, op)


def _in_range(form: Lin, start: int, stop: int, step: int) -> Bounds | None:
    """`Y in range(start, stop, step)` for a linear Y."""
    try:
        atom, a, b = _single(form)
    except ValueError:
        return None
    if atom is None:
        return NONE if b in range(start, stop, step) else EMPTY
    if step > 0:
        lo, hi = start, stop - 1
    else:
        lo, hi = stop + 1, start
    if lo > hi:
        return EMPTY
    out = _linear_bound(atom, a, b - lo, ">=").meet(_linear_bound(atom, a, b - hi, "<="))
    m = abs(step)
    if m > 1 and a in (1, -1):
        # a x + b ≡ start (mod m)  →  x ≡ a (start - b)  (a = ±1 is its own inverse)
        out = out.meet(_on(atom, IntRange(modulus=m, residue=(a * (start - b)) % m)))
    return out


def _in_values(form: Lin, vals: Iterable[Any]) -> Bounds | None:
    """`Y in {v1, v2, ...}` for a linear Y: Y equals one of the integer-valued members."""
    try:
        atom, a, b = _single(form)
    except ValueError:
        return None
    ints = [int(v) for v in vals if isinstance(v, int)]
    if atom is None:
        return NONE if b in ints else EMPTY
    xs = [(v - b) // a for v in ints if (v - b) % a == 0]
    return _on(atom, IntRange(choices=_sorted_tuple(xs)))


def _residue_bound(y: Lin, m: int, op: str, c: int) -> Bounds | None:
    """`Y % m OP c` (m > 0 constant): allowed residues of Y, mapped to x when Y = ±x + b."""
    try:
        atom, a, b = _single(y)
    except ValueError:
        return None
    if m > 1000 and op not in ("==", "!="):
        return None
    if op == "==":
        allowed = [c] if 0 <= c < m else []
    elif op == "!=":
        allowed = None if 0 <= c < m else list(range(m))  # None: exactly c excluded
    else:
        allowed = [r for r in range(m) if _PYOP[op](r, c)]
    if atom is None:
        res = b % m
        ok = res != c if allowed is None else res in allowed
        return NONE if ok else EMPTY
    if a not in (1, -1):
        return None
    to_x = lambda r: (a * (r - b)) % m  # noqa: E731  (a x + b ≡ r  →  x ≡ a (r - b))
    if allowed is None:
        return _on(atom, IntRange(excluded_residues=frozenset({(m, to_x(c))})))
    if not allowed:
        return EMPTY
    if len(allowed) == 1:
        return _on(atom, IntRange(modulus=m, residue=to_x(allowed[0])))
    if len(allowed) == m:
        return NONE
    gone = frozenset((m, to_x(r)) for r in range(m) if r not in allowed)
    return _on(atom, IntRange(excluded_residues=gone))


def _floordiv_bound(y: Lin, k: int, op: str, c: int) -> Bounds | None:
    """`Y // k OP c` (k > 0): floor(Y / k) <= c  ⇔  Y <= k c + k - 1;  >= c  ⇔  Y >= k c."""
    def le(cc):
        return _lin_cmp(y, "<=", ({}, k * cc + k - 1))

    def ge(cc):
        return _lin_cmp(y, ">=", ({}, k * cc))

    parts = {"<=": lambda: le(c), "<": lambda: le(c - 1), ">=": lambda: ge(c), ">": lambda: ge(c + 1)}
    if op in parts:
        return parts[op]()
    if op == "==":
        lo, hi = ge(c), le(c)
        return None if lo is None or hi is None else lo.meet(hi)
    return None


# ---------------------------------------------------------------- string predicates

_LOWER, _UPPER, _DIGITS = string.ascii_lowercase, string.ascii_uppercase, string.digits
_PRINTABLE = "".join(chr(i) for i in range(32, 127))
# method → (preferred alphabet, implies non-empty)
_STR_METHODS = {
    "isalpha": (_LOWER + _UPPER, True),
    "islower": (_LOWER, True),
    "isupper": (_UPPER, True),
    "isdigit": (_DIGITS, True),
    "isdecimal": (_DIGITS, True),
    "isnumeric": (_DIGITS, True),
    "isalnum": (_LOWER + _UPPER + _DIGITS, True),
    "isspace": (" ", True),
    "isascii": (_PRINTABLE, False),
    "isprintable": (_PRINTABLE, False),
}


# ---------------------------------------------------------------- analysis


conjuncts = A.conjuncts  # top-level `and` operands, flattened


def _text(e: A.Expr) -> str:
    try:
        from racesl.syntax.emit import expr_text

        return expr_text(e)
    except Exception:  # pragma: no cover - diagnostics only
        return type(e).__name__


def extract(preds: Iterable, var: str = "it") -> Bounds:
    """Bounds implied by a conjunction of `Pred`s (or bare AST expressions)."""
    out = NONE
    for p in preds:
        expr = getattr(p, "expr", p)
        out = out.meet(analyze(expr, var))
    return out


def analyze(e: A.Expr, var: str = "it") -> Bounds:
    """Bounds implied by one Bool expression over `var`."""
    out = NONE
    for c in conjuncts(e):
        b = _conjunct(c, var)
        if b is None:
            out = out.meet(Bounds(opaque=(_text(c),)))
        else:
            out = out.meet(b)
    return out


def _conjunct(e: A.Expr, var: str) -> Bounds | None:
    if isinstance(e, A.Const):
        return NONE if e.value else EMPTY
    if _is_var(e, var):  # truthiness: non-zero int, non-empty container, True
        return Bounds(value=IntRange(excluded=frozenset({0})), length=IntRange(lo=1))
    if isinstance(e, A.UnaryOp) and e.op == "not":
        inner = e.operand
        if _is_var(inner, var):
            return Bounds(value=IntRange(lo=0, hi=0), length=IntRange(lo=0, hi=0))
        if isinstance(inner, A.Compare) and len(inner.ops) == 1 and inner.ops[0] in _NEGATE:
            return _pair(inner.left, _NEGATE[inner.ops[0]], inner.comparators[0], var)
        if isinstance(inner, A.UnaryOp) and inner.op == "not":
            return _conjunct(inner.operand, var)
        return None
    if isinstance(e, A.Compare):
        out, partial = NONE, False
        left = e.left
        for op, right in zip(e.ops, e.comparators):
            b = _pair(left, op, right, var)
            if b is None:
                partial = True
            else:
                out = out.meet(b)
            left = right
        if partial:
            out = out.meet(Bounds(opaque=(_text(e),)))
        return out
    if isinstance(e, A.Call):
        return _call(e, var)
    return None


def _call(e: A.Call, var: str) -> Bounds | None:
    f = e.func
    # it.isalpha() and friends
    if isinstance(f, A.Attribute) and _is_var(f.value, var) and not e.args and not e.keywords:
        if f.attr in _STR_METHODS:
            alpha, nonempty = _STR_METHODS[f.attr]
            return Bounds(alphabet=frozenset(alpha), length=IntRange(lo=1 if nonempty else None))
        return None
    # set(it).issubset(X)
    if (isinstance(f, A.Attribute) and f.attr == "issubset" and _call_of(f.value, "set")
            and _is_var(f.value.args[0], var) and len(e.args) == 1 and not e.keywords):
        return _subset(e.args[0], iterable=True)
    if _call_of(e, "all"):
        return _all(e.args[0], var)
    return None


def _subset(x: A.Expr, iterable: bool = False) -> Bounds | None:
    """`set(it) <= X`; `iterable`: X is any iterable (`set(it).issubset("abc")`)."""
    lit = literal_value(x)
    if iterable and isinstance(lit, str):
        lit = frozenset(lit)
    members = _members(lit)
    if members is None:
        return None
    return Bounds(elem=_choice_bounds(members))


def _all(c: A.Expr, var: str) -> Bounds | None:
    if not (isinstance(c, A.Comprehension) and c.kind in ("gen", "list") and len(c.generators) == 1):
        return None
    g = c.generators[0]
    if g.ifs:
        return None
    it = g.iter
    # all(P(x) for x in it) / it.keys() / it.values()
    if isinstance(g.target, A.Name):
        x = g.target.id
        if x == var:
            return None
        if _is_var(it, var):
            return Bounds(elem=analyze(c.elt, x))
        if (isinstance(it, A.Call) and isinstance(it.func, A.Attribute) and _is_var(it.func.value, var)
                and not it.args and not it.keywords):
            if it.func.attr == "keys":
                return Bounds(elem=analyze(c.elt, x))
            if it.func.attr == "values":
                return Bounds(values=analyze(c.elt, x))
        # all(it[i] <= it[i + 1] for i in range(...))
        if _call_of(it, "range", len(it.args)) and isinstance(c.elt, A.Compare) and len(c.elt.ops) == 1:
            return _adjacent_index(c.elt, x, var, it)
        return None
    # all(a <= b for a, b in zip(it, it[1:]))
    if (isinstance(g.target, A.TupleExpr) and len(g.target.elts) == 2
            and all(isinstance(t, A.Name) for t in g.target.elts)
            and _call_of(it, "zip", 2) and _is_var(it.args[0], var) and _is_tail(it.args[1], var)):
        a, b = (t.id for t in g.target.elts)
        el = c.elt
        if isinstance(el, A.Compare) and len(el.ops) == 1 and el.ops[0] in _FLIP:
            left, right = el.left, el.comparators[0]
            if _is_var(left, a) and _is_var(right, b):
                return _order(el.ops[0])
            if _is_var(left, b) and _is_var(right, a):
                return _order(_FLIP[el.ops[0]])
    return None


def _is_tail(e: A.Expr, var: str) -> bool:
    """`var[1:]`"""
    return (isinstance(e, A.Subscript) and _is_var(e.value, var) and isinstance(e.index, A.Slice)
            and e.index.lower is not None and literal_value(e.index.lower) == 1
            and e.index.upper is None and e.index.step is None)


def _order(op: str) -> Bounds | None:
    return {
        "<=": Bounds(order="asc"), "<": Bounds(order="asc", distinct=True),
        ">=": Bounds(order="desc"), ">": Bounds(order="desc", distinct=True),
    }.get(op)


def _adjacent_index(cmp: A.Compare, i: str, var: str, rng: A.Call) -> Bounds | None:
    """`all(it[i] <= it[i + 1] for i in range(len(it) - 1))` and shifted variants: the
    range must visit every adjacent pair exactly (it[0], it[1]) ... (it[n-2], it[n-1])."""
    if not 1 <= len(rng.args) <= 2:
        return None
    start = _lin(rng.args[0], var) if len(rng.args) == 2 else ({}, 0)
    stop = _lin(rng.args[-1], var)
    if start is None or stop is None:
        return None
    left, op, right = cmp.left, cmp.ops[0], cmp.comparators[0]
    if not (isinstance(left, A.Subscript) and isinstance(right, A.Subscript)
            and _is_var(left.value, var) and _is_var(right.value, var)):
        return None
    li, ri = _lin(left.index, i), _lin(right.index, i)
    if li is None or ri is None:
        return None
    if li[0] != {"v": 1} or ri[0] != {"v": 1}:
        return None
    d = ri[1] - li[1]
    if d not in (1, -1) or op not in _FLIP:
        return None
    low = min(li[1], ri[1])  # the index of the first element of a pair is i + low
    first = ({k: c for k, c in start[0].items() if c}, start[1] + low)
    last = ({k: c for k, c in stop[0].items() if c}, stop[1] + low)  # exclusive
    if first != ({}, 0) or last != ({"len": 1}, -1):
        return None
    return _order(op) if d == 1 else _order(_FLIP[op])


def _is_sorted_call(e: A.Expr, var: str) -> str | None:
    """`sorted(it)` → "asc", `sorted(it, reverse=True)` → "desc"; `"".join(sorted(it))` too."""
    if (isinstance(e, A.Call) and isinstance(e.func, A.Attribute) and e.func.attr == "join"
            and isinstance(e.func.value, A.Const) and e.func.value.value == "" and len(e.args) == 1
            and not e.keywords):
        return _is_sorted_call(e.args[0], var)
    if not (isinstance(e, A.Call) and isinstance(e.func, A.Name) and e.func.id == "sorted"
            and len(e.args) == 1 and _is_var(e.args[0], var)):
        return None
    if not e.keywords:
        return "asc"
    if len(e.keywords) == 1 and e.keywords[0].name == "reverse":
        v = literal_value(e.keywords[0].value)
        if isinstance(v, bool):
            return "desc" if v else "asc"
    return None


def _same_var(e: A.Expr, var: str) -> bool:
    return _is_var(e, var) or (_call_of(e, "list") and _is_var(e.args[0], var))


def _pair(left: A.Expr, op: str, right: A.Expr, var: str) -> Bounds | None:
    """Bounds from one comparison `left OP right`, or None when not understood."""
    if op in ("is", "is not"):
        return None
    if op in ("in", "not in"):
        return _membership(left, op, right, var)
    # order and distinctness patterns
    if op == "==":
        for a, b in ((left, right), (right, left)):
            if _same_var(a, var):
                o = _is_sorted_call(b, var)
                if o is not None:
                    return Bounds(order=o)
            if (_call_of(a, "len") and _call_of(a.args[0], "set") and _is_var(a.args[0].args[0], var)
                    and _call_of(b, "len") and _is_var(b.args[0], var)):
                return Bounds(distinct=True)
    # set(it) <= X  /  X >= set(it)
    if op in ("<=", "<", ">=", ">"):
        sub, sup = (left, right) if op in ("<=", "<") else (right, left)
        if _call_of(sub, "set") and _is_var(sub.args[0], var):
            return _subset(sup)
    # linear integer forms
    ll, rl = _lin(left, var), _lin(right, var)
    if ll is not None and rl is not None:
        return _lin_cmp(ll, op, rl)
    # Y % m OP c, Y // k OP c, abs(Y) OP c
    for a, b, o in ((left, right, op), (right, left, _FLIP[op])):
        c = literal_value(b)
        if not isinstance(c, int):
            continue
        c = int(c)
        if isinstance(a, A.BinOp) and a.op in ("%", "//"):
            k = literal_value(a.right)
            y = _lin(a.left, var)
            if isinstance(k, int) and not isinstance(k, bool) and k > 0 and y is not None:
                return _residue_bound(y, k, o, c) if a.op == "%" else _floordiv_bound(y, k, o, c)
        if _call_of(a, "abs"):
            y = _lin(a.args[0], var)
            if y is None:
                continue
            if o in ("<=", "<"):
                cc = c if o == "<=" else c - 1
                lo, hi = _lin_cmp(y, ">=", ({}, -cc)), _lin_cmp(y, "<=", ({}, cc))
                if lo is not None and hi is not None:
                    return lo.meet(hi)
            if o == "==":
                return _in_values(y, (c, -c)) if c >= 0 else EMPTY
    # comparisons with literals: equality gives choices, single chars give an alphabet
    for a, b, o in ((left, right, op), (right, left, _FLIP[op])):
        if not _is_var(a, var):
            continue
        c = literal_value(b)
        if c is NOT_LITERAL:
            continue
        if o == "==":
            return _choice_bounds((c,))
        if o == "!=":
            return _exclude_bounds((c,))
        if isinstance(c, str) and len(c) == 1:
            return Bounds(alphabet=frozenset(ch for ch in _PRINTABLE if _PYOP[o](ch, c)))
    return None


def _choice_bounds(vals: tuple) -> Bounds:
    ints = [int(v) for v in vals if isinstance(v, int)]
    return Bounds(choices=_members(list(vals)), value=IntRange(choices=_sorted_tuple(ints)).normalized())


def _exclude_bounds(vals: tuple) -> Bounds:
    ints = frozenset(int(v) for v in vals if isinstance(v, int))
    return Bounds(excluded=_members(list(vals)), value=IntRange(excluded=ints))


def _membership(left: A.Expr, op: str, right: A.Expr, var: str) -> Bounds | None:
    rng = range_args(right)
    form = _lin(left, var)
    if rng is not None:
        if form is None:
            return None
        if op == "in":
            return _in_range(form, *rng)
        try:
            atom, a, b = _single(form)
        except ValueError:
            return None
        r = range(*rng)
        if atom is None:
            return NONE if b not in r else EMPTY
        if a == 1 and len(r) <= 1000:
            return _on(atom, IntRange(excluded=frozenset(v - b for v in r)))
        return None
    lit = literal_value(right)
    if lit is NOT_LITERAL:
        return None
    if isinstance(lit, str):
        if not _is_var(left, var):
            return None
        subs = _substrings(lit)
        if subs is None:
            return None
        return _choice_bounds(subs) if op == "in" else _exclude_bounds(subs)
    members = _members(lit)
    if members is None:
        return None
    if _is_var(left, var):
        return _choice_bounds(members) if op == "in" else _exclude_bounds(members)
    if form is not None and op == "in":
        return _in_values(form, members)
    return None
