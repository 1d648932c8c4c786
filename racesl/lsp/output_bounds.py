"""Bounds of an environment's Int output, inferred from its body, for the inlay hint
`-> Int` ` where 0 <= it <= 54`.

Why it exists: the checker infers shapes only, and the solver reasons about declared
refinements only; nothing states what a body's `return` can produce. This is a small,
sound interval reading of the return expressions. Its inputs come from the solver: the
least and greatest value of each Int parameter (and the length of each Str or Tuple
parameter) under its declared refinement (`racesl.solver.int_bounds`, exact inside the SMT
fragment and memoized by the solver).

Sound by construction, so a hint is never wrong (it may be absent):

- a parameter counts only if the body never rebinds it; a local only if every binding is a
  plain `name = expr` (no augmented assignment, unpacking or loop target), and then as the
  hull of those expressions (a local that depends on itself is unknown);
- integer `+ - *`, `//` and `%` by a positive (or negative) bound, unary minus, `abs`,
  `len`, `ord`, `min`/`max` of several arguments, three-argument `pow`, conditional
  expressions and `and`/`or` (which return an operand); comparisons and `not` are 0..1;
- anything else (calls to helpers, subscripts, comprehensions, ...) is unbounded.

Raising cases (division by zero, an unbound local) produce no output, so they need no bound.
"""

from __future__ import annotations

from racesl.check import names as N
from racesl.check.model import EnvSig
from racesl.syntax import ast as A
from racesl.types import types as T

Bounds = tuple  # (lo, hi): int or None (unbounded on that side)
TOP: Bounds = (None, None)
MAX_DEPTH = 60  # expression nesting followed before giving up (unbounded)


def _hull(bs) -> Bounds:
    bs = list(bs)
    if not bs:
        return TOP
    lo = None if any(b[0] is None for b in bs) else min(b[0] for b in bs)
    hi = None if any(b[1] is None for b in bs) else max(b[1] for b in bs)
    return lo, hi


def _add(a: Bounds, b: Bounds) -> Bounds:
    return (None if a[0] is None or b[0] is None else a[0] + b[0],
            None if a[1] is None or b[1] is None else a[1] + b[1])


def _neg(a: Bounds) -> Bounds:
    return (None if a[1] is None else -a[1], None if a[0] is None else -a[0])


def _const(a: Bounds) -> int | None:
    return a[0] if a[0] is not None and a[0] == a[1] else None


def _finite(a: Bounds) -> bool:
    return a[0] is not None and a[1] is not None


def _mul(a: Bounds, b: Bounds) -> Bounds:
    if _finite(a) and _finite(b):
        xs = [a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1]]
        return min(xs), max(xs)
    for x, c in ((a, _const(b)), (b, _const(a))):
        if c is not None:
            if c == 0:
                return 0, 0
            lo = None if x[0] is None else x[0] * c
            hi = None if x[1] is None else x[1] * c
            return (lo, hi) if c > 0 else (hi, lo)
    if a[0] is not None and a[0] >= 0 and b[0] is not None and b[0] >= 0:
        return a[0] * b[0], None
    return TOP


def _floordiv(a: Bounds, b: Bounds) -> Bounds:
    c = _const(b)
    if c is not None and c != 0:
        lo = None if a[0] is None else a[0] // c
        hi = None if a[1] is None else a[1] // c
        return (lo, hi) if c > 0 else (hi, lo)
    if b[0] is not None and b[0] > 0 and a[0] is not None and a[0] >= 0:
        return (0 if b[1] is None else a[0] // b[1]), (None if a[1] is None else a[1] // b[0])
    return TOP


def _mod(a: Bounds, b: Bounds) -> Bounds:
    if b[0] is not None and b[0] > 0:  # Python's % takes the divisor's sign: 0 <= a % b < b
        top = None if b[1] is None else b[1] - 1
        if a[0] is not None and a[0] >= 0:
            if a[1] is not None and a[1] < b[0]:
                return a  # a % b == a
            top = a[1] if top is None else (top if a[1] is None else min(top, a[1]))
        return 0, top
    if b[1] is not None and b[1] < 0:  # b < a % b <= 0
        return (None if b[0] is None else b[0] + 1), 0
    return TOP


def _abs(a: Bounds) -> Bounds:
    if a[0] is not None and a[0] >= 0:
        return a
    if a[1] is not None and a[1] <= 0:
        return _neg(a)
    return 0, (None if a[0] is None or a[1] is None else max(-a[0], a[1]))


def _minmax(bs: list[Bounds], least: bool) -> Bounds:
    """min (least) or max of several values: min is at most each argument's upper bound."""
    los, his = [b[0] for b in bs], [b[1] for b in bs]
    known_lo, known_hi = [v for v in los if v is not None], [v for v in his if v is not None]
    if least:
        return (None if None in los else min(los)), (min(known_hi) if known_hi else None)
    return (max(known_lo) if known_lo else None), (None if None in his else max(his))


class BodyBounds:
    """The interval reading of one function's body; `param_bounds(name, kind)` gives a
    parameter's bounds: kind "value" (Int or Bool) or "len" (Str or Tuple), None if unknown."""

    def __init__(self, fn: A.FuncDef, param_bounds, builtin_names: frozenset[str]):
        self.fn = fn
        self.params = {p.name for p in fn.params}
        self.param_bounds = param_bounds
        self.builtins = builtin_names  # builtins not shadowed by a module-level name
        self.stores: dict[str, list] = {}  # name → its bound expressions (None: a binding we do not read)
        for stmt in fn.body:
            for n in A.walk(stmt):
                if isinstance(n, A.Assign):
                    for t in n.targets:
                        if isinstance(t, A.Name):
                            self.stores.setdefault(t.id, []).append(n.value)
                        else:
                            self._opaque(t)
                elif isinstance(n, (A.AugAssign, A.For)):
                    self._opaque(n.target)
        self._active: set[str] = set()
        self._memo: dict[str, Bounds] = {}

    def _opaque(self, target) -> None:
        names: list = []
        A.assigned_names(target, names)
        for x in names:
            self.stores.setdefault(x.id, []).append(None)

    def returns(self) -> Bounds | None:
        """The hull of every return value's bounds; None when the body has no `return`."""
        rets = [n for s in self.fn.body for n in A.walk(s) if isinstance(n, A.Return)]
        if not rets or any(r.value is None for r in rets):
            return None
        out = []
        for r in rets:
            b = self.expr(r.value, 0)
            if b == TOP:
                return TOP
            out.append(b)
        return _hull(out)

    # ------------------------------------------------------------ names

    def name(self, n: str) -> Bounds:
        if n in self.params:
            if n in self.stores:
                return TOP
            return self.param_bounds(n, "value") or TOP
        vals = self.stores.get(n)
        if not vals or any(v is None for v in vals) or n in self._active:
            return TOP
        hit = self._memo.get(n)
        if hit is not None:
            return hit
        self._active.add(n)
        try:
            b = _hull(self.expr(v, 0) for v in vals)
        finally:
            self._active.discard(n)
        self._memo[n] = b
        return b

    def _length(self, e: A.Expr) -> Bounds:
        if isinstance(e, A.Const) and isinstance(e.value, str):
            return len(e.value), len(e.value)
        if isinstance(e, A.Name) and e.id in self.params and e.id not in self.stores:
            b = self.param_bounds(e.id, "len")
            if b is not None:
                return max(0, b[0] or 0), b[1]
        return 0, None

    # ------------------------------------------------------------ expressions

    def expr(self, e: A.Expr, depth: int) -> Bounds:
        if depth > MAX_DEPTH:
            return TOP
        d = depth + 1
        if isinstance(e, A.Const):
            if isinstance(e.value, bool):
                return int(e.value), int(e.value)
            if isinstance(e.value, int):
                return e.value, e.value
            return TOP
        if isinstance(e, A.Name):
            return self.name(e.id)
        if isinstance(e, A.UnaryOp):
            if e.op == "not":
                return 0, 1
            a = self.expr(e.operand, d)
            if e.op == "-":
                return _neg(a)
            if e.op == "+":
                return a
            if e.op == "~":  # ~x == -x - 1
                return _add(_neg(a), (-1, -1))
            return TOP
        if isinstance(e, A.BinOp):
            if e.op not in ("+", "-", "*", "//", "%") or isinstance(e.left, A.FString) \
                    or isinstance(e.left, A.Const) and isinstance(e.left.value, str):
                return TOP  # (`"%d" % n` formats text)
            a, b = self.expr(e.left, d), self.expr(e.right, d)
            if e.op == "+":
                return _add(a, b)
            if e.op == "-":
                return _add(a, _neg(b))
            if e.op == "*":
                return _mul(a, b)
            if e.op == "//":
                return _floordiv(a, b)
            return _mod(a, b)
        if isinstance(e, A.Compare):
            return 0, 1
        if isinstance(e, A.BoolOp):
            return _hull(self.expr(v, d) for v in e.values)
        if isinstance(e, A.IfExp):
            return _hull((self.expr(e.body, d), self.expr(e.orelse, d)))
        if isinstance(e, A.Call):
            return self._call(e, d)
        return TOP

    def _call(self, e: A.Call, d: int) -> Bounds:
        f = e.func
        if not isinstance(f, A.Name) or f.id not in self.builtins or f.id in self.params or f.id in self.stores:
            return TOP
        n, args = f.id, e.args
        if e.keywords:
            return TOP
        if n == "abs" and len(args) == 1:
            return _abs(self.expr(args[0], d))
        if n == "len" and len(args) == 1:
            return self._length(args[0])
        if n == "ord" and len(args) == 1:
            return 0, 0x10FFFF
        if n == "bool":
            return 0, 1
        if n in ("min", "max") and len(args) >= 2:
            return _minmax([self.expr(a, d) for a in args], n == "min")
        if n == "pow" and len(args) == 3:
            return _mod(TOP, self.expr(args[2], d))
        return TOP


def _kind_bounds(t: T.Type, kind: str, int_bounds) -> Bounds | None:
    """Bounds of a parameter of type `t`: its value ("value": Int/Bool) or length ("len":
    Str/Tuple), read from its refinements by the solver; None if not that kind of type."""
    preds = list(T.preds(t))
    shape = T.shape(t)
    if isinstance(shape, T.NewT):
        inner = shape.underlying
        preds += list(T.preds(inner))
        shape = T.shape(inner)
    if kind == "value" and isinstance(shape, T.BoolT):
        return 0, 1
    if kind == "value" and isinstance(shape, T.IntT):
        subject = "int"
    elif kind == "len" and isinstance(shape, T.StrT):
        subject = "str"
    elif kind == "len" and isinstance(shape, T.TupleT):
        return len(shape.elems), len(shape.elems)
    else:
        return None
    if not preds:
        return (None, None) if subject == "int" else (0, None)
    try:
        lo, hi = int_bounds(preds, subject)
    except Exception:  # noqa: BLE001 — the solver is best effort here: unknown
        return (None, None) if subject == "int" else (0, None)
    if lo is not None and hi is not None and lo > hi:
        return None  # no value satisfies the refinement: nothing to say
    return lo, hi


def output_bounds(fn: A.FuncDef, sig: EnvSig, shadowed: frozenset[str] = frozenset(),
                  int_bounds=None) -> tuple[Bounds, Bounds] | None:
    """(inferred, declared) bounds of an environment's Int output, or None when its output
    is not an Int or nothing is inferred. `shadowed`: module-level names (which hide builtins)."""
    if int_bounds is None:
        from racesl.solver.bounds import int_bounds
    if not isinstance(T.shape(T.unwrap(sig.output)), T.IntT):
        return None
    types = {sig.input_name: sig.input, **{s.name: s.type for s in sig.settings}}
    memo: dict = {}

    def param_bounds(name: str, kind: str):
        if (name, kind) not in memo:
            t = types.get(name)
            memo[(name, kind)] = None if t is None else _kind_bounds(t, kind, int_bounds)
        return memo[(name, kind)]

    got = BodyBounds(fn, param_bounds, frozenset(N.BUILTINS) - shadowed).returns()
    if got is None or got == TOP:
        return None
    declared = _kind_bounds(sig.output, "value", int_bounds)  # (asked last: the solver is the cost)
    if declared is None:
        return None
    return got, declared


def tightened(inferred: Bounds, declared: Bounds) -> tuple[int | None, int | None] | None:
    """The sides (lo, hi) where the inferred bounds, met with the declared ones, are tighter
    than the declared bounds (None for a side that is not); None when neither is, or when
    the two do not meet (every output would break the contract: not a hint's business)."""
    lo = inferred[0] if declared[0] is None else (declared[0] if inferred[0] is None else max(inferred[0], declared[0]))
    hi = inferred[1] if declared[1] is None else (declared[1] if inferred[1] is None else min(inferred[1], declared[1]))
    if lo is not None and hi is not None and lo > hi:
        return None
    new_lo = lo if lo is not None and (declared[0] is None or lo > declared[0]) else None
    new_hi = hi if hi is not None and (declared[1] is None or hi < declared[1]) else None
    if new_lo is None and new_hi is None:
        return None
    return new_lo, new_hi
