"""Refinement predicates → Z3 formulas.

A predicate is a Bool expression over `it`. What `it` is depends on the position being
encoded, described by a `Scope`:

- `int`: an Int variable; `bool`: a Bool variable (Python's `True == 1` is kept);
- `str` / `list` / `set` / `dict`: only `len(it)` is known, a non-negative Int variable;
- `tuple`: `len(it)` is the constant arity and `it[i]` (literal `i`) is the component's own
  scope, so `it[0] < it[1]` is exact over Int components;
- `other`: nothing is known (newtypes are unwrapped before a scope is made).

The fragment encoded exactly: int and bool literals, `+ -`, `*` when one side is constant,
`//` and `%` by non-zero constants (Python's floor semantics: by Z3's `div`/`mod` on a positive
divisor, a negative one rewritten), `<<`/`>>` by constants, unary `- + ~ not`, comparisons
(chained too), `and or not`, conditional expressions, `abs`, `min`/`max`, `bool`, `int`,
`len(it)`, `X in range(a, b[, step])` and `X in {..}` / `(..)` / `[..]` of literals, `==`
and `!=` against literals of another type (always false / always true), and constant
arithmetic of any kind (folded in Python).

Everything else is **opaque**. An opaque Bool-valued sub-expression becomes a Bool variable
named by its normalized text (an *atom*), so it is never treated as true or as false, yet the
same predicate written twice is the same atom. Some atoms come with *axioms*, facts that hold
for every value: `it.isalpha()` ⇒ `len(it) >= 1`, `it == "abc"` ⇒ `len(it) == 3`, ...
A non-linear Int sub-expression that cannot raise (`it * it`) becomes a fresh Int variable.

Errors: a refinement that raises rejects the value (the runtime checks `pred(value) is True`
and catches exceptions). The exact fragment never raises. An atom means "evaluates without
an exception and is truthy" (or "... and is True"), which is exact wherever a false value
already makes the whole predicate false: at the top, under `and`, in the last operand of
`or`, in either branch of a conditional. Elsewhere (under `not`, in a condition, in an
earlier `or` operand) only atoms that cannot raise are allowed; an expression that might
raise there turns its nearest safe ancestor into the atom instead.

Encodings are *sound*: an atom-free encoding is exact, and with atoms the set of values a
formula admits (for some choice of atoms) contains every value the predicate accepts.
"""

from __future__ import annotations

from typing import Any

import attrs

from racesl.solver import chars as _chars
from racesl.syntax import ast as A
from racesl.types import builtins as _table
from racesl.types import types as T

__all__ = ["Scope", "scope_of", "flatten", "Conj", "conjuncts_of", "Enc", "Encoder", "BUILTINS", "FRAGMENT"]

# the body's builtins (racesl.types.builtins), and `frozenset`
BUILTINS = frozenset(e.name for e in _table.builtins()) | {"frozenset"}

# the encoder's fragment, named in the classification cache's key (racesl.solver.cache): a
# cached answer from another fragment (or another Unicode table) is never reused
FRAGMENT = f"chars1-u{_chars.UNICODE}"

SEQ_KINDS = ("str", "list", "set", "dict", "tuple")
# str methods that return a bool, never raise, and are False on the empty string
_NONEMPTY_METHODS = frozenset(
    "isalpha isdigit islower isupper isalnum isspace isdecimal isnumeric istitle isidentifier".split())
_BOOL_METHODS = _NONEMPTY_METHODS | {"isascii", "isprintable"}
# the language's character-class methods (racesl.types.builtins): encoded exactly, racesl.solver.chars
_CHAR_METHODS = _chars.METHODS
_MAX_FOLD_BITS = 4096  # constant folding gives up on larger intermediate values


# ---------------------------------------------------------------- scopes


@attrs.frozen(slots=True)
class Scope:
    """What `it` (or a bound name) stands for at one position of a type.

    `path` names the Z3 variables (`it`, `len(it)`, `it[0]`); `hashable`: `hash(value)` cannot
    raise (set-literal membership); `finite_keys`: a set or dict of this type has a bounded
    number of distinct keys (`Set[Bool]`), so not every length is realizable.
    """

    path: str
    kind: str  # "int" | "bool" | "str" | "list" | "set" | "dict" | "tuple" | "other"
    comps: tuple["Scope", ...] = ()
    hashable: bool = True
    finite_keys: bool = False

    @property
    def key(self) -> str:
        flags = ("" if self.hashable else "!hash") + ("!finite" if self.finite_keys else "")
        if self.kind == "tuple":
            return f"{self.path}:({','.join(c.key for c in self.comps)}){flags}"
        return f"{self.path}:{self.kind}{flags}"

    @property
    def has_len(self) -> bool:
        return self.kind in SEQ_KINDS

    def realizable(self) -> bool:
        """Every assignment of this scope's variables belongs to some Python value."""
        if self.kind in ("set", "dict"):
            return not self.finite_keys
        if self.kind == "tuple":
            return all(c.realizable() for c in self.comps)
        return self.kind != "other"


def flatten(t: T.Type) -> tuple[T.Type, tuple[T.Pred, ...]]:
    """The representation shape of `t` (newtypes unwrapped at the top) and every predicate
    met on the way, outermost first."""
    preds: tuple[T.Pred, ...] = ()
    for _ in range(100):
        if isinstance(t, T.Refined):
            preds += t.preds
            t = t.base
        if isinstance(t, T.NewT):
            t = t.underlying
            continue
        break
    return t, preds


def _hashable(s: T.Type) -> bool:
    s, _ = flatten(s)
    if isinstance(s, (T.IntT, T.BoolT, T.StrT)):
        return True
    if isinstance(s, T.TupleT):
        return all(_hashable(e) for e in s.elems)
    return False


def _finite(s: T.Type) -> bool:
    """The shape has finitely many values (refinements ignored)."""
    s, _ = flatten(s)
    if isinstance(s, T.BoolT):
        return True
    if isinstance(s, T.TupleT):
        return all(_finite(e) for e in s.elems)
    return False


_KINDS = {T.IntT: "int", T.BoolT: "bool", T.StrT: "str", T.ListT: "list", T.SetT: "set", T.DictT: "dict",
          T.TupleT: "tuple"}
_NAMED = {"int": T.INT, "bool": T.BOOL, "str": T.STR, "list": T.ListT(T.INT), "set": T.SetT(T.INT),
          "dict": T.DictT(T.INT, T.INT)}


def scope_of(t: "T.Type | str | Scope", path: str = "it") -> Scope:
    """The scope of a value of type `t` (its refinements are not part of the scope). `t` may
    also be one of "int", "bool", "str", "list", "set", "dict" (a sequence name stands for
    its length)."""
    if isinstance(t, Scope):
        return t
    if isinstance(t, str):
        if t == "len":
            t = "list"
        if t not in _NAMED:
            raise ValueError(f"unknown subject {t!r} (expected int, bool, str, list, set, dict or a type)")
        t = _NAMED[t]
    s, _ = flatten(t)
    kind = _KINDS.get(type(s), "other")
    if kind == "tuple":
        comps = tuple(scope_of(e, f"{path}[{i}]") for i, e in enumerate(s.elems))
        return Scope(path, kind, comps, hashable=_hashable(s))
    finite = False
    if kind == "set":
        finite = _finite(s.elem)
    elif kind == "dict":
        finite = _finite(s.key)
    return Scope(path, kind, hashable=_hashable(s), finite_keys=finite)


# ---------------------------------------------------------------- conjuncts


def _bool_valued(e: A.Expr) -> bool:
    """`e` evaluates to a real bool (so "truthy" and "is True" agree)."""
    if isinstance(e, A.Compare):
        return True
    if isinstance(e, A.UnaryOp) and e.op == "not":
        return True
    if isinstance(e, A.Const):
        return isinstance(e.value, bool)
    if isinstance(e, A.Call):
        f = e.func
        if isinstance(f, A.Name) and f.id in ("all", "any", "bool"):
            return True
        if isinstance(f, A.Attribute) and (f.attr.startswith("is") or f.attr in ("startswith", "endswith")):
            return True
    if isinstance(e, A.BoolOp):
        return all(_bool_valued(v) for v in e.values)
    return False


def _free_names(e: A.Expr) -> set[str]:
    """Names read by `e` that it does not bind itself (comprehension targets, lambda params)."""
    used, bound = set(), set()
    for n in A.walk(e):
        if isinstance(n, A.Name):
            used.add(n.id)
        elif isinstance(n, A.CompFor):
            for t in A.walk(n.target):
                if isinstance(t, A.Name):
                    bound.add(t.id)
        elif isinstance(n, A.Lambda):
            bound.update(p.name for p in n.params)
    return used - bound


def expr_text(e: A.Expr) -> str:
    from racesl.syntax.emit import expr_text as _text

    return _text(e)


@attrs.frozen(slots=True)
class Conj:
    """One conjunct of a refinement, over the name `var`.

    `mode`: "true" (its value must be `True`: the last conjunct of a predicate), "truthy"
    (earlier conjuncts and lifted `all(...)` bodies), or "b" (it always evaluates to a bool,
    so both agree). `scoped` is the module when the text names a helper (the same text in
    two modules may mean two things), else "".
    """

    expr: A.Expr = attrs.field(eq=False, hash=False, repr=False)
    text: str
    mode: str
    var: str = "it"
    scoped: str = ""

    @property
    def key(self) -> str:
        return f"{self.scoped}|{self.var}|{self.mode}|{self.text}"


def make_conj(e: A.Expr, mode: str, module: str, var: str = "it", text: str | None = None) -> Conj:
    if _bool_valued(e):
        mode = "b"
    free = _free_names(e) - BUILTINS - {var}
    return Conj(e, text if text is not None else expr_text(e), mode, var, module if free else "")


def conjuncts_of(pred: Any, module: str = "") -> tuple[Conj, ...]:
    """The conjuncts of one predicate (a `Pred`, or a bare expression over `it`): every
    top-level `and` operand but the last must be truthy, the last must be `True`."""
    e = getattr(pred, "expr", pred)
    module = getattr(pred, "module", module)
    parts = A.conjuncts(e)
    if len(parts) == 1:
        return (make_conj(e, "true", module, text=getattr(pred, "text", None)),)
    return tuple(make_conj(p, "truthy" if i < len(parts) - 1 else "true", module) for i, p in enumerate(parts))


# ---------------------------------------------------------------- encoding


@attrs.frozen
class Enc:
    """A conjunct's formula, the atoms it uses and their axioms; `exact` when it has no
    atom and no free Int (then the formula is exactly the predicate)."""

    formula: Any
    axioms: tuple
    exact: bool


class _Opaque(Exception):
    """Raised inside the encoder for a sub-expression outside the fragment."""


_NOT_LIT = object()


def _literal(e: A.Expr):
    from racesl.types.refine import NOT_LITERAL, literal_value

    v = literal_value(e)
    return _NOT_LIT if v is NOT_LITERAL else v


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


class _Val:
    """A value during encoding. kind: "int" (z3 Int, a Python int), "bool" (z3 Bool, a Python
    bool), "seq" (a scope with a length), "lit" (a non-number Python literal)."""

    __slots__ = ("kind", "term", "const", "scope", "lit")

    def __init__(self, kind, term=None, const=None, scope=None, lit=None):
        self.kind, self.term, self.const, self.scope, self.lit = kind, term, const, scope, lit


class Encoder:
    """Builds Z3 terms in a private context. One per `Solver`."""

    def __init__(self):
        import z3

        self.z3 = z3
        self.ctx = z3.Context()
        self._ints: dict[str, Any] = {}
        self._bools: dict[str, Any] = {}
        self._strs: dict[str, Any] = {}
        self._charsets: dict[frozenset, Any] = {}
        self._alphabet = None
        self.TRUE = z3.BoolVal(True, self.ctx)
        self.FALSE = z3.BoolVal(False, self.ctx)

    # -- variables

    def int_var(self, name: str):
        v = self._ints.get(name)
        if v is None:
            v = self._ints[name] = self.z3.Int(name, self.ctx)
        return v

    def bool_var(self, name: str):
        v = self._bools.get(name)
        if v is None:
            v = self._bools[name] = self.z3.Bool(name, self.ctx)
        return v

    def num(self, v: int):
        return self.z3.IntVal(v, self.ctx)

    def str_var(self, s: Scope) -> tuple[Any, list]:
        """A str scope's value as a Z3 String over the abstract alphabet of
        racesl.solver.chars, and the facts tying it to `len(...)`. Made only for the
        conjuncts that read characters, so queries about lengths alone stay as they were."""
        name = f"str({s.path})"
        v = self._strs.get(name)
        if v is None:
            v = self._strs[name] = self.z3.String(name, self.ctx)
        if self._alphabet is None:
            self._alphabet = self.z3.Star(self.charset(_chars.ALPHABET))
        return v, [self.z3.Length(v) == self.length(s), self.z3.InRe(v, self._alphabet)]

    def charset(self, codes) -> Any:
        """A Z3 regex of one character among the abstract `codes`."""
        key = frozenset(codes)
        hit = self._charsets.get(key)
        if hit is None:
            z3, ks, parts, i = self.z3, sorted(key), [], 0
            while i < len(ks):
                j = i
                while j + 1 < len(ks) and ks[j + 1] == ks[j] + 1:
                    j += 1
                parts.append(z3.Range(chr(ks[i]), chr(ks[j]), ctx=self.ctx))
                i = j + 1
            if not parts:
                hit = z3.Empty(z3.ReSort(z3.StringSort(self.ctx)))
            else:
                hit = parts[0] if len(parts) == 1 else z3.Union(*parts)
            self._charsets[key] = hit
        return hit

    def value(self, s: Scope):
        """The value of an int or bool scope."""
        if s.kind == "int":
            return self.int_var(s.path)
        if s.kind == "bool":
            return self.bool_var(s.path)
        raise ValueError(f"{s.kind} scope has no scalar value")

    def length(self, s: Scope):
        if s.kind == "tuple":
            return self.num(len(s.comps))
        if s.kind in SEQ_KINDS:
            return self.int_var(f"len({s.path})")
        raise ValueError(f"{s.kind} scope has no length")

    def base(self, s: Scope) -> list:
        """What every value of the scope satisfies."""
        if s.kind in ("str", "list", "set", "dict"):
            return [self.length(s) >= 0]
        if s.kind == "tuple":
            return [f for c in s.comps for f in self.base(c)]
        return []

    def And(self, xs):
        xs = list(xs)
        if not xs:
            return self.TRUE
        return xs[0] if len(xs) == 1 else self.z3.And(*xs)

    def Or(self, xs):
        xs = list(xs)
        if not xs:
            return self.FALSE
        return xs[0] if len(xs) == 1 else self.z3.Or(*xs)

    # -- conjuncts

    def encode(self, c: Conj, s: Scope, chars: bool = True) -> Enc:
        """`chars=False`: character classes as opaque atoms with their length axioms (Z3
        Optimize, for the sampler's bounds, gives up on string constraints)."""
        w = _Walk(self, {c.var: s}, c.scoped, s.path, chars)
        if c.mode == "true":
            f = w.true(c.expr, True)
        else:
            f = w.truthy(c.expr, True)
        return Enc(f, tuple(w.axioms), not w.inexact)


class _Walk:
    """One conjunct's encoding: collects atoms and axioms."""

    def __init__(self, enc: Encoder, bindings: dict[str, Scope], scoped: str, root: str, chars: bool = True):
        self.e = enc
        self.chars = chars
        self.z3 = enc.z3
        self.b = bindings
        # atom names: same text, same bindings, same module-scoping → same atom
        self.prefix = ",".join(f"{k}={v.path}" for k, v in sorted(bindings.items())) + "|" + scoped + "|"
        self.axioms: list = []
        self.inexact = False

    # -- atoms

    def atom(self, e: A.Expr, mode: str):
        self.inexact = True
        if _bool_valued(e):
            mode = "b"
        return self.e.bool_var(f"?{self.prefix}{mode}|{expr_text(e)}")

    def safe(self, e: A.Expr) -> bool:
        """Evaluating `e` cannot raise: comparisons by `==`, `!=`, `is` and membership in a
        tuple or list literal, between bound names, literals and lengths of sequences."""
        if not isinstance(e, A.Compare):
            return False
        for op, right in zip(e.ops, e.comparators):
            if op in ("in", "not in"):
                if not isinstance(_literal(right), (tuple, list)):
                    return False
            elif op not in ("==", "!=", "is", "is not"):
                return False
        return all(self._safe_operand(x) for x in (e.left, *e.comparators))

    def _safe_operand(self, x: A.Expr) -> bool:
        if isinstance(x, A.Name):
            return x.id in self.b
        if (isinstance(x, A.Call) and isinstance(x.func, A.Name) and x.func.id == "len" and len(x.args) == 1
                and not x.keywords and x.func.id not in self.b):
            s = self.scope_expr(x.args[0])
            return s is not None and s.has_len
        if isinstance(x, A.Subscript):
            return self.scope_expr(x) is not None
        return _literal(x) is not _NOT_LIT

    def named_atom(self, text: str):
        self.inexact = True
        return self.e.bool_var(f"?{self.prefix}b|{text}")

    def fresh_int(self, text: str):
        self.inexact = True
        return self.e.int_var(f"#{self.prefix}{text}")

    # -- Bool contexts

    def truthy(self, e: A.Expr, transparent: bool):
        try:
            return self._truthy(e, transparent)
        except _Opaque:
            if transparent or self.safe(e):
                return self.atom(e, "truthy")
            raise

    def _truthy(self, e: A.Expr, tr: bool):
        if isinstance(e, A.BoolOp):
            n = len(e.values)
            if e.op == "and":
                return self.e.And(self.truthy(v, tr) for v in e.values)
            return self.e.Or(self.truthy(v, tr and i == n - 1) for i, v in enumerate(e.values))
        if isinstance(e, A.UnaryOp) and e.op == "not":
            return self.z3.Not(self.truthy(e.operand, False))
        if isinstance(e, A.IfExp):
            return self.z3.If(self.truthy(e.test, False), self.truthy(e.body, tr), self.truthy(e.orelse, tr))
        return self.to_bool(self.val(e))

    def true(self, e: A.Expr, transparent: bool):
        """The value of `e` is the bool True."""
        try:
            return self._true(e, transparent)
        except _Opaque:
            if transparent or self.safe(e):
                return self.atom(e, "true")
            raise

    def _true(self, e: A.Expr, tr: bool):
        if isinstance(e, A.BoolOp):
            vs, n = e.values, len(e.values)
            if e.op == "and":
                return self.e.And([self.truthy(v, tr) for v in vs[:-1]] + [self.true(vs[-1], tr)])
            alts = []
            for i, v in enumerate(vs):
                last = i == n - 1
                before = [self.z3.Not(self.truthy(u, False)) for u in vs[:i]]
                alts.append(self.e.And(before + [self.true(v, tr and last)]))
            return self.e.Or(alts)
        if isinstance(e, A.UnaryOp) and e.op == "not":
            return self.z3.Not(self.truthy(e.operand, False))
        if isinstance(e, A.IfExp):
            return self.z3.If(self.truthy(e.test, False), self.true(e.body, tr), self.true(e.orelse, tr))
        v = self.val(e)
        if v.kind == "bool":
            return v.term
        if v.kind == "lit":
            return self.e.TRUE if v.lit is True else self.e.FALSE
        return self.e.FALSE  # an int, a list, a str... is never the bool True

    def to_bool(self, v: _Val):
        if v.kind == "bool":
            return v.term
        if v.kind == "int":
            return v.term != 0
        if v.kind == "seq":
            return self.e.length(v.scope) > 0
        try:
            return self.e.TRUE if bool(v.lit) else self.e.FALSE
        except Exception:
            raise _Opaque() from None

    def to_int(self, v: _Val):
        if v.kind == "int":
            return v.term
        if v.kind == "bool":
            return self.z3.If(v.term, self.e.num(1), self.e.num(0))
        raise _Opaque()

    # -- values

    def val(self, e: A.Expr) -> _Val:
        if isinstance(e, A.Const):
            return self.const(e.value)
        if isinstance(e, A.Name):
            s = self.b.get(e.id)
            if s is None:
                raise _Opaque()
            return self.scope_val(s)
        if isinstance(e, A.UnaryOp):
            if e.op == "not":
                return _Val("bool", self.z3.Not(self.truthy(e.operand, False)))
            v = self.val(e.operand)
            if not self.numeric(v):
                raise _Opaque()
            if v.const is not None:
                return self.const({"-": -v.const, "+": +v.const, "~": ~v.const}[e.op])
            x = self.to_int(v)
            return _Val("int", {"-": -x, "+": x, "~": -x - 1}[e.op])
        if isinstance(e, A.BinOp):
            return self.binop(e)
        if isinstance(e, A.Compare):
            return _Val("bool", self.compare(e))
        if isinstance(e, A.BoolOp):
            vals = [self.val(v) for v in e.values]
            if all(v.kind == "bool" for v in vals):  # the result is one of them: a bool
                f = self.e.And if e.op == "and" else self.e.Or
                return _Val("bool", f(v.term for v in vals))
            raise _Opaque()
        if isinstance(e, A.IfExp):
            c = self.truthy(e.test, False)
            a, b = self.val(e.body), self.val(e.orelse)
            if a.kind == b.kind == "int":
                return _Val("int", self.z3.If(c, a.term, b.term))
            if a.kind == b.kind == "bool":
                return _Val("bool", self.z3.If(c, a.term, b.term))
            raise _Opaque()
        if isinstance(e, A.Call):
            return self.call(e)
        if isinstance(e, A.Subscript):
            s = self.scope_expr(e)
            if s is not None:
                return self.scope_val(s)
            raise _Opaque()
        lit = _literal(e)
        if lit is not _NOT_LIT:
            return self.const(lit)
        raise _Opaque()

    def const(self, v) -> _Val:
        if isinstance(v, bool):
            return _Val("bool", self.e.TRUE if v else self.e.FALSE, const=int(v), lit=v)
        if isinstance(v, int):
            return _Val("int", self.e.num(v), const=v)
        return _Val("lit", lit=v)

    def scope_val(self, s: Scope) -> _Val:
        if s.kind in ("int", "bool"):
            return _Val(s.kind, self.e.value(s))
        if s.has_len:
            return _Val("seq", scope=s)
        raise _Opaque()

    def scope_expr(self, e: A.Expr) -> Scope | None:
        """The scope an expression names: a bound name, or a tuple component `x[i]`."""
        if isinstance(e, A.Name):
            return self.b.get(e.id)
        if isinstance(e, A.Subscript) and not isinstance(e.index, A.Slice):
            s = self.scope_expr(e.value)
            i = _literal(e.index)
            if s is not None and s.kind == "tuple" and _is_int(i) and -len(s.comps) <= i < len(s.comps):
                return s.comps[i]
        return None

    @staticmethod
    def numeric(v: _Val) -> bool:
        return v.kind in ("int", "bool")

    def binop(self, e: A.BinOp) -> _Val:
        a, b = self.val(e.left), self.val(e.right)
        if not (self.numeric(a) and self.numeric(b)):
            raise _Opaque()
        op = e.op
        if a.const is not None and b.const is not None:
            return self.fold(op, a.const, b.const)
        x, y = self.to_int(a), self.to_int(b)
        if op == "+":
            return _Val("int", x + y)
        if op == "-":
            return _Val("int", x - y)
        if op == "*":
            if a.const is not None or b.const is not None:
                return _Val("int", x * y)
            return _Val("int", self.fresh_int(expr_text(e)))  # non-linear: an unknown int
        if op in ("//", "%"):
            k = b.const
            if k is None or k == 0:
                raise _Opaque()
            if k > 0:
                q = x / self.e.num(k)  # Z3 `div`: floor for a positive divisor, as Python's //
            else:
                q = (-x) / self.e.num(-k)  # floor(x / k) = floor(-x / -k)
            if op == "//":
                return _Val("int", q)
            if k > 0:
                return _Val("int", x % self.e.num(k))
            return _Val("int", x - self.e.num(k) * q)
        if op in ("<<", ">>") and b.const is not None:
            k = b.const
            if k < 0:
                raise _Opaque()
            if k > 256:
                raise _Opaque()
            p = self.e.num(2 ** k)
            return _Val("int", x * p if op == "<<" else x / p)
        if op == "**" and b.const in (0, 1):
            return self.const(1) if b.const == 0 else _Val("int", x)
        raise _Opaque()  # `**` may be cut off by the runtime's size guard: it can "raise"

    def fold(self, op: str, x: int, y: int) -> _Val:
        try:
            if op == "**":
                if y < 0 or y * max(abs(x), 2).bit_length() > _MAX_FOLD_BITS:
                    raise _Opaque()
                r = x ** y
            elif op in ("<<", ">>"):
                if y < 0 or y > _MAX_FOLD_BITS:
                    raise _Opaque()
                r = x << y if op == "<<" else x >> y
            else:
                r = {"+": lambda: x + y, "-": lambda: x - y, "*": lambda: x * y, "//": lambda: x // y,
                     "%": lambda: x % y, "&": lambda: x & y, "|": lambda: x | y, "^": lambda: x ^ y}[op]()
        except (KeyError, ZeroDivisionError, OverflowError):
            raise _Opaque() from None
        if not _is_int(r) or r.bit_length() > _MAX_FOLD_BITS:
            raise _Opaque()
        return self.const(r)

    def call(self, e: A.Call) -> _Val:
        f = e.func
        if isinstance(f, A.Attribute):
            return self.method(e, f)
        if not isinstance(f, A.Name) or f.id not in BUILTINS or f.id in self.b or e.keywords:
            raise _Opaque()
        name, args = f.id, e.args
        if name == "len" and len(args) == 1:
            s = self.scope_expr(args[0])
            if s is not None:
                if not s.has_len:
                    raise _Opaque()
                return _Val("int", self.e.length(s))
            inner = args[0]
            if (isinstance(inner, A.Call) and isinstance(inner.func, A.Name) and inner.func.id == "set"
                    and "set" not in self.b and len(inner.args) == 1 and not inner.keywords):
                s = self.scope_expr(inner.args[0])
                if s is not None and s.kind in ("str", "list", "tuple", "set", "dict"):
                    return self.distinct_count(s)
            v = self.val(inner)
            if v.kind == "lit":
                try:
                    return self.const(len(v.lit))
                except TypeError:
                    pass
            raise _Opaque()
        if name == "all" and len(args) == 1 and self.chars:
            return self.all_chars(args[0])
        if name == "abs" and len(args) == 1:
            v = self.val(args[0])
            if not self.numeric(v):
                raise _Opaque()
            x = self.to_int(v)
            return _Val("int", self.z3.If(x < 0, -x, x))
        if name in ("min", "max") and len(args) >= 2:
            vals = [self.val(a) for a in args]
            if not all(v.kind == "int" for v in vals):
                raise _Opaque()
            acc = vals[0].term
            for v in vals[1:]:
                # Python keeps the first of equal values; for ints the value is the same
                acc = self.z3.If(v.term < acc, v.term, acc) if name == "min" else self.z3.If(v.term > acc, v.term, acc)
            return _Val("int", acc)
        if name == "bool" and len(args) == 1:
            return _Val("bool", self.truthy(args[0], False))
        if name == "int" and len(args) == 1:
            v = self.val(args[0])
            if self.numeric(v):
                return _Val("int", self.to_int(v))
            raise _Opaque()
        raise _Opaque()

    def all_chars(self, g: A.Expr) -> _Val:
        """`all(P(c) for c in x)` over a str `x`: every character in P's set
        (racesl.solver.chars reads P); exact unless P names a non-ASCII literal."""
        chars = _chars
        if not (isinstance(g, A.Comprehension) and g.kind in ("gen", "list") and len(g.generators) == 1):
            raise _Opaque()
        gen = g.generators[0]
        s = self.scope_expr(gen.iter)
        if gen.ifs or not isinstance(gen.target, A.Name) or s is None or s.kind != "str":
            raise _Opaque()
        x = gen.target.id
        if x in self.b or (_free_names(g.elt) - {x} - BUILTINS):
            raise _Opaque()  # P reads more than its character
        try:
            codes, exact = chars.char_predicate(g.elt, x, lambda e: _literal(e))
        except chars.NotACharSet:
            raise _Opaque() from None
        v, link = self.e.str_var(s)
        self.axioms.extend(link)
        if not exact:
            self.inexact = True
        return _Val("bool", self.z3.InRe(v, self.z3.Star(self.e.charset(codes))))

    def distinct_count(self, s: Scope) -> _Val:
        """`len(set(it))`: an Int between min(1, len) and len. `set(it)` raises for unhashable
        elements: a list's may be, a tuple's when the tuple is unhashable."""
        if s.kind == "list" or (s.kind == "tuple" and not s.hashable):
            raise _Opaque()
        n = self.e.length(s)
        d = self.fresh_int(f"len(set({s.path}))")
        self.axioms.append(self.e.And([d <= n, self.z3.Implies(n >= 1, d >= 1), self.z3.Implies(n == 0, d == 0)]))
        return _Val("int", d)

    def method(self, e: A.Call, f: A.Attribute) -> _Val:
        s = self.scope_expr(f.value)
        if s is None or s.kind != "str" or e.keywords:
            raise _Opaque()
        if f.attr in _CHAR_METHODS and not e.args and self.chars:
            v, link = self.e.str_var(s)
            self.axioms.extend(link)
            return _Val("bool", self.z3.InRe(v, _chars.string_regex(self.e, f.attr)))
        if f.attr in _BOOL_METHODS and not e.args:
            a = self.atom(e, "b")
            if f.attr in _NONEMPTY_METHODS:
                self.axioms.append(self.z3.Implies(a, self.e.length(s) >= 1))
            return _Val("bool", a)
        if f.attr in ("startswith", "endswith") and len(e.args) == 1:
            lit = _literal(e.args[0])
            lits = (lit,) if isinstance(lit, str) else lit if isinstance(lit, tuple) else None
            if lits and all(isinstance(x, str) for x in lits):
                a = self.atom(e, "b")
                self.axioms.append(self.z3.Implies(a, self.e.length(s) >= min(len(x) for x in lits)))
                return _Val("bool", a)
        raise _Opaque()

    # -- comparisons

    def compare(self, e: A.Compare):
        parts = []
        lv = self.val(e.left)
        for op, right in zip(e.ops, e.comparators):
            if op in ("in", "not in"):
                f = self.membership(lv, right)
                parts.append(self.z3.Not(f) if op == "not in" else f)
                rv = None
            else:
                rv = self.val(right)
                parts.append(self.pair(lv, op, rv))
            if rv is None and right is not e.comparators[-1]:
                rv = self.val(right)
            lv = rv
        return self.e.And(parts)

    def pair(self, a: _Val, op: str, b: _Val):
        z3 = self.z3
        if op in ("is", "is not"):
            raise _Opaque()
        if self.numeric(a) and self.numeric(b):
            x, y = self.to_int(a), self.to_int(b)
            return {"<": lambda: x < y, "<=": lambda: x <= y, ">": lambda: x > y, ">=": lambda: x >= y,
                    "==": lambda: x == y, "!=": lambda: x != y}[op]()
        if op not in ("==", "!="):
            if a.kind == "lit" and b.kind == "lit":
                try:
                    r = {"<": lambda: a.lit < b.lit, "<=": lambda: a.lit <= b.lit, ">": lambda: a.lit > b.lit,
                         ">=": lambda: a.lit >= b.lit}[op]()
                    return self.e.TRUE if r else self.e.FALSE
                except Exception:
                    raise _Opaque() from None
            raise _Opaque()  # ordering of strings or lists, or a TypeError
        eq = self.equality(a, b)
        return eq if op == "==" else z3.Not(eq)

    def equality(self, a: _Val, b: _Val):
        """`a == b` where not both are numbers; never raises in Python."""
        if a.kind == "lit" and b.kind == "lit":
            return self.e.TRUE if a.lit == b.lit else self.e.FALSE
        if a.kind != "seq":
            a, b = b, a
        if a.kind != "seq":
            # a number against a non-number literal
            return self.e.FALSE
        s = a.scope
        if b.kind == "seq":
            if b.scope.path == s.path:
                return self.e.TRUE
            raise _Opaque()
        if b.kind != "lit":
            return self.e.FALSE  # a container is never equal to a number
        return self.eq_literal(s, b.lit)

    def eq_literal(self, s: Scope, lit):
        py = {"str": str, "list": list, "tuple": tuple, "dict": dict, "set": (set, frozenset)}[s.kind]
        if not isinstance(lit, py):
            return self.e.FALSE
        if s.kind == "tuple":
            if len(lit) != len(s.comps):
                return self.e.FALSE
            parts = []
            for c, x in zip(s.comps, lit):
                try:
                    parts.append(self.pair(self.scope_val(c), "==", self.const(x)))
                except _Opaque:  # `==` never raises: an atom is exact enough
                    parts.append(self.named_atom(f"{c.path} == {x!r}"))
            return self.e.And(parts)
        n = self.e.length(s)
        if len(lit) == 0:
            return n == 0
        a = self.named_atom(f"{s.path} == {lit!r}")
        self.axioms.append(self.z3.Implies(a, n == len(lit)))
        return a

    def membership(self, x: _Val, right: A.Expr):
        from racesl.types.refine import range_args

        rng = range_args(right)
        if rng is not None:
            if not self.numeric(x):
                if x.kind in ("lit", "seq"):
                    return self.e.FALSE  # range membership compares by ==: never true
                raise _Opaque()
            a, b, step = rng
            v = self.to_int(x)
            if step > 0:
                conds = [v >= a, v < b]
                if step > 1:
                    conds.append((v - a) % self.e.num(step) == 0)
            else:
                conds = [v <= a, v > b]
                if step < -1:
                    conds.append((self.e.num(a) - v) % self.e.num(-step) == 0)
            return self.e.And(conds)
        lit = _literal(right)
        if lit is _NOT_LIT:
            raise _Opaque()
        if isinstance(lit, dict):
            lit = list(lit)
        if isinstance(lit, str):
            if x.kind == "seq" and x.scope.kind == "str":
                a = self.named_atom(f"{x.scope.path} in {lit!r}")
                self.axioms.append(self.z3.Implies(a, self.e.length(x.scope) <= len(lit)))
                return a
            if x.kind == "lit" and isinstance(x.lit, str):
                return self.e.TRUE if x.lit in lit else self.e.FALSE
            raise _Opaque()  # TypeError for a non-str left operand
        if not isinstance(lit, (tuple, list, frozenset, set)):
            raise _Opaque()
        hashed = isinstance(lit, (frozenset, set))
        if self.numeric(x):
            v = self.to_int(x)
            return self.e.Or(v == int(m) for m in lit if isinstance(m, int))
        if x.kind == "lit":
            try:
                return self.e.TRUE if x.lit in lit else self.e.FALSE
            except TypeError:
                raise _Opaque() from None
        if x.kind != "seq":
            raise _Opaque()
        s = x.scope
        if hashed and not s.hashable:
            raise _Opaque()  # TypeError: unhashable
        return self.e.Or(self.eq_literal(s, m) for m in lit) if s.kind == "tuple" else self._in_lits(s, lit)

    def _in_lits(self, s: Scope, lits):
        py = {"str": str, "list": list, "dict": dict, "set": (set, frozenset)}[s.kind]
        same = [m for m in lits if isinstance(m, py)]
        if not same:
            return self.e.FALSE
        n = self.e.length(s)
        lens = sorted({len(m) for m in same})
        if lens == [0]:
            return n == 0
        a = self.named_atom(f"{s.path} in {sorted(map(repr, same))}")
        self.axioms.append(self.z3.Implies(a, self.e.Or(n == k for k in lens)))
        return a
