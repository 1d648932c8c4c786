"""Size guards in expressions: arithmetic that can grow a value, comparisons and hashing
that can walk one, f-strings, displays with `*` unpacking.

`_Guards` is part of the expression rewrite `_Ex` (expressions.py): it decides, from the
inference (scope.py), which operations need a guard from racesl.runtime.guards, and emits
the guard with an inline fast path where that pays (docs/fuel.md, "Guards").
"""

from __future__ import annotations

import ast

from racesl.lower.instrument.build import _call, _clone, _const, _loc, _name
from racesl.lower.instrument.scope import CHAR, _bits, _is_char, _is_num, _len_bound
from racesl.lower.instrument.facts import STR
from racesl.lower.instrument.syntax import _bounded_lit, _small_int_lit, _static_len
from racesl.runtime import abi
from racesl.runtime.guards import spec_ok
from racesl.runtime.limits import MAX_INT_BITS, MAX_LEN

_SMALL_INT = (1 << 30) - 1  # |x| below it: a one-digit int (CPython's fast int compare)


def _cheap_num(x, num) -> bool:
    """A number made of known numbers and int literals by `+` and `-` alone: evaluating it
    twice changes nothing and costs less than a guard's call."""
    if isinstance(x, ast.Constant):
        return type(x.value) is int
    if isinstance(x, ast.Name):
        return _is_num(x, num)
    return (isinstance(x, ast.BinOp) and isinstance(x.op, (ast.Add, ast.Sub))
            and _cheap_num(x.left, num) and _cheap_num(x.right, num))


def _mark_inner_adds(e) -> None:
    """`(a + b) + c` with the outer `+` guarded: the inner sum is a temporary of at most twice
    the bound that only the outer sum consumes, and the outer check bounds it — so only the
    outermost `+` of a chain is checked (a value can only double by being stored and
    reused). Marks the `+` operands of the `+` `e`."""
    for child in (e.left, e.right):
        _mark_inner_add(child)


def _mark_inner_add(e) -> None:
    """Mark `e` when it is a `+` whose result only a guarded `+` / `+=` consumes."""
    if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Add):
        e._races_inner = True


class _Guards:
    """The guarding part of `_Ex`: arithmetic, comparisons, f-strings, displays."""

    # -- arithmetic

    def guard_for(self, op, left, right, inplace=False) -> str | None:
        """The guard `left op right` needs, judged on the original operands, or None."""
        num = self.num
        if isinstance(op, ast.Add):
            if (_is_num(left, num) or _is_num(right, num) or _bounded_lit(left)
                    or _bounded_lit(right) or _is_char(left, num) or _is_char(right, num)):
                return None  # (a character, like a short literal, grows a value by its size)
            a, b = _len_bound(left, num, self.fx.scope.lens), _len_bound(right, num, self.fx.scope.lens)
            if "words" in self.fx.fast_paths and a is not None and b is not None and a + b <= MAX_LEN:
                return None  # two values of known, short lengths
            return abi.G_IADD if inplace else abi.G_ADD
        if isinstance(op, (ast.Mult, ast.Pow, ast.LShift)) and "words" in self.fx.fast_paths:
            b = _bits(ast.BinOp(left=left, op=op, right=right), num)
            if b is not None and b <= MAX_INT_BITS:
                return None  # ints whose bounds keep the result small (`_bits`)
        if isinstance(op, ast.Mult):
            if _is_num(left, num) and _is_num(right, num) and (
                    _small_int_lit(left) or _small_int_lit(right)):
                return None
            return abi.G_IMUL if inplace else abi.G_MUL
        if isinstance(op, ast.Pow):
            return abi.G_POW
        if isinstance(op, ast.LShift):
            if (_is_num(left, num) and isinstance(right, ast.Constant)
                    and type(right.value) is int and right.value <= 64):
                return None
            return abi.G_LSHIFT
        if isinstance(op, ast.Mod):
            return None if _is_num(left, num) else abi.G_MOD
        return None

    def v_BinOp(self, e):
        inner = getattr(e, "_races_inner", False)
        guard = None if inner else self.guard_for(e.op, e.left, e.right)
        if guard == abi.G_ADD or inner:
            _mark_inner_adds(e)
        left0 = e.left
        e.left = self.visit(e.left)
        e.right = self.visit(e.right)
        if guard is None:
            return e
        if _is_num(left0, self.num) and isinstance(e.op, (ast.Mult, ast.Pow)):
            fast = self.numeric(guard, e.op, e.left, e.right, e)
            if fast is not None:
                return fast
        return self.guarded(guard, e.op, e.left, e.right, e)

    def numeric(self, guard, op, left, right, ref):
        """`l * r` of two numbers (when `_is_num` says so) or `l ** k` (k = 2, 3): only the
        size of the ints matters. The fast path compares each operand with 2**30 (constants
        CPython compares with its one-digit int fast path); `:=` temporaries keep every
        operand evaluated once, in order:
        `((t1 * t2) if -S < (t2 := r) < S else g(t1, t2)) if -S < (t1 := l) < S else g(t1, r)`."""
        if isinstance(op, ast.Pow):
            if not (isinstance(right, ast.Constant) and type(right.value) is int and right.value in (2, 3)):
                return None
        elif not _is_num(right, self.num):
            return None

        def probe(x):
            if isinstance(x, (ast.Name, ast.Constant)):
                return _clone(x), x
            if not self.walrus:  # (a comprehension or lambda) evaluate it twice, when that is cheap
                return (_clone(x), x) if _cheap_num(x, self.num) else None
            t = self.fx.tmp("t")
            return ast.NamedExpr(target=_name(t, True), value=x), _name(t)

        def small(x):
            return ast.Compare(left=_const(-_SMALL_INT), ops=[ast.Lt(), ast.Lt()],
                               comparators=[x, _const(_SMALL_INT)])

        p1 = probe(left)
        if p1 is None:
            return None
        probe1, use1 = p1
        if isinstance(op, ast.Pow):
            body = ast.BinOp(left=_clone(use1), op=ast.Pow(), right=_clone(right))
            inner = body
            slow_right = right
        elif (isinstance(left, ast.Name) and isinstance(right, ast.Name) and left.id == right.id
              or isinstance(right, ast.Constant) and -_SMALL_INT < right.value < _SMALL_INT):
            # `x * x` (one test), `x * 7` (the literal needs none)
            inner = ast.BinOp(left=_clone(use1), op=ast.Mult(), right=_clone(right))
            slow_right = right
        else:
            p2 = probe(right)
            if p2 is None:
                return None
            probe2, use2 = p2
            body = ast.BinOp(left=_clone(use1), op=ast.Mult(), right=_clone(use2))
            inner = ast.IfExp(test=small(probe2), body=body,
                              orelse=_call(guard, [_clone(use1), _clone(use2)]))
            slow_right = _clone(right)
        return _loc(ast.IfExp(test=small(probe1), body=inner,
                              orelse=_call(guard, [_clone(use1), slow_right])), ref)

    def guarded(self, guard, op, left, right, ref):
        """`guard(left, right)` (visited operands), with an inline fast path where it pays:

        - `%` with a local name `a` on the left, `+` of local names where `:=` is not
          allowed: `(a + b) if _races_type(a) is _races_int else guard(a, b)`;
        - `+` where `:=` is allowed: build, then check —
          `(t if _races_type(t := l + r) not in _races_SEQ or len(t) <= MAX_LEN else
          _races_g_post(t))` (both operands are bounded, so the sum is at most twice the
          bound; `_races_SEQ`: str, list, tuple);
        - `*` of local names / small int literals: both ints under 2**(MAX_INT_BITS/2)."""
        call = _loc(_call(guard, [left, right]), ref)
        simple = (ast.Name, ast.Constant)
        if isinstance(op, ast.Add):
            if not self.walrus:
                probe = left if isinstance(left, ast.Name) else right if isinstance(right, ast.Name) else None
                if probe is not None and isinstance(left, simple) and isinstance(right, simple):
                    return _loc(ast.IfExp(test=self._is_type(probe, abi.INT),
                                          body=ast.BinOp(left=_clone(left), op=ast.Add(),
                                                         right=_clone(right)),
                                          orelse=call), ref)
                return call
            t = self.fx.tmp("t")
            built = ast.NamedExpr(target=_name(t, True), value=ast.BinOp(left=left, op=ast.Add(),
                                                                         right=right))
            ok = ast.BoolOp(op=ast.Or(), values=[
                ast.Compare(left=_call(abi.TYPE, [built]), ops=[ast.NotIn()],
                            comparators=[_name(abi.SEQ)]),
                ast.Compare(left=_call(abi.LEN, [_name(t)]), ops=[ast.LtE()],
                            comparators=[_const(MAX_LEN)])])
            return _loc(ast.IfExp(test=ok, body=_name(t), orelse=_call(abi.G_POST, [_name(t)])), ref)
        if not (isinstance(left, simple) and isinstance(right, simple)):
            return call
        if isinstance(op, ast.Mod) and isinstance(left, ast.Name):
            test = self._is_type(left, abi.INT)
        elif isinstance(op, ast.Mult):
            tests, seen = [], set()
            for x in (left, right):
                if isinstance(x, ast.Name):
                    if x.id not in seen:
                        seen.add(x.id)
                        tests += [self._is_type(x, abi.INT), self._small(x)]
                elif not _small_int_lit(x):
                    return call
            if not tests:
                return call
            test = ast.BoolOp(op=ast.And(), values=tests) if len(tests) > 1 else tests[0]
        else:
            return call
        fast = ast.BinOp(left=_clone(left), op=type(op)(), right=_clone(right))
        return _loc(ast.IfExp(test=test, body=fast, orelse=call), ref)

    @staticmethod
    def _is_type(x, tname):
        return ast.Compare(left=_call(abi.TYPE, [_clone(x)]), ops=[ast.Is()],
                           comparators=[_name(tname)])

    @staticmethod
    def _small(x):
        return ast.Compare(left=_const(-_SMALL_INT), ops=[ast.Lt(), ast.Lt()],
                           comparators=[_clone(x), _const(_SMALL_INT)])

    # -- membership

    def _flat(self, e) -> bool:
        """Whether `e` (judged before it is rewritten) can only be a number, a str or None:
        a value that compares with anything at once (CPython's containers compare only
        with their own type) and hashes in time linear in its size."""
        if isinstance(e, ast.Constant):
            return not isinstance(e.value, (tuple, frozenset))
        if isinstance(e, ast.Name) and (e.id + STR in self.num or e.id + CHAR in self.num):
            return True  # a Str parameter, or a character of one
        if isinstance(e, ast.Subscript) and isinstance(e.value, ast.Name) and e.value.id + STR in self.num:
            return True  # a character or slice of a Str parameter
        return isinstance(e, ast.JoinedStr) or _is_num(e, self.num)

    def _deep(self, x, flat: bool = False):
        """`x` measured before it is compared or hashed (`_races_g_deep`), unless `flat`.
        A name, or any operand where `:=` is allowed, gets the flat types' test inline:
        `(t if _races_type(t := x) in _races_FLAT else _races_g_deep(t))`."""
        if flat or isinstance(x, ast.Constant):
            return x
        if isinstance(x, ast.Name):
            probe, use = _clone(x), x
        elif self.walrus:
            t = self.fx.tmp("t")
            probe, use = ast.NamedExpr(target=_name(t, True), value=x), _name(t)
        else:
            return _loc(_call(abi.G_DEEP, [x]), x)
        test = ast.Compare(left=_call(abi.TYPE, [probe]), ops=[ast.In()],
                           comparators=[_name(abi.FLAT)])
        return _loc(ast.IfExp(test=test, body=use, orelse=_call(abi.G_DEEP, [_clone(use)])), x)

    @staticmethod
    def _flat_elements(e) -> bool:
        """`x in e` compares x with flat constants only (no hashing): a str literal, or a
        tuple/list display of flat constants."""
        if isinstance(e, ast.Constant):
            return isinstance(e.value, str)
        if isinstance(e, (ast.Tuple, ast.List)):
            return all(isinstance(x, ast.Constant) and not isinstance(x.value, (tuple, frozenset))
                       for x in e.elts)
        return False

    def v_Compare(self, e):
        """Comparisons and `in`. An operand is measured (`_deep`) only where the comparison
        could walk it: a rich comparison (`== < ...`) whose other side is not flat (see
        `_flat`: a container compared with a number, a str or None is answered at once), the
        left side of `in` unless it is flat or the right side holds flat constants only (a
        str literal: a non-str left side raises at once; a tuple/list display of constants).
        `is` measures nothing."""
        origs = [e.left, *e.comparators]
        flat = [self._flat(x) for x in origs]
        need = [False] * len(origs)
        for i, op in enumerate(e.ops):
            if isinstance(op, (ast.Is, ast.IsNot)):
                continue
            if isinstance(op, (ast.In, ast.NotIn)):
                need[i] = need[i] or not (flat[i] or self._flat_elements(origs[i + 1]))
            elif not (flat[i] or flat[i + 1]):
                need[i] = need[i + 1] = True
        sizes = [_static_len(c) for c in e.comparators]
        free = getattr(e, "_races_free", False) or (getattr(e, "_races_free_fast", False) and self.fx.src_fast)
        e.left = self._deep(self.visit(e.left), not need[0])
        out = []
        for k, (op, c0, n) in enumerate(zip(e.ops, e.comparators, sizes)):
            c = self.visit(c0)
            if isinstance(op, (ast.In, ast.NotIn)) and n != 0 and not free:
                c = self._charge_in(c, n)
            else:
                c = self._deep(c, not need[k + 1])
            out.append(c)
        e.comparators = out
        return e

    def _set_display(self, e):
        flat = [self._flat(x) for x in e.elts]
        e = self._display(e)
        if isinstance(e, ast.Set):
            e.elts = [x if isinstance(x, ast.Starred) else self._deep(x, f) for x, f in zip(e.elts, flat)]
        return e

    def v_Dict(self, e):
        flat = [k is not None and self._flat(k) for k in e.keys]
        e.keys = [self._deep(self.visit(k), f) if k is not None else None for k, f in zip(e.keys, flat)]
        e.values = [self.visit(v) for v in e.values]
        return e

    # -- text

    def v_JoinedStr(self, e):
        walrus = self.walrus
        c = self.child(nested=self.nested)
        unbounded = 0
        for v in e.values:
            if not isinstance(v, ast.FormattedValue):
                continue
            numeric = _is_num(v.value, self.num)
            val = c.visit(v.value)
            spec = v.format_spec
            dynamic = spec is not None and not all(isinstance(p, ast.Constant) for p in spec.values)
            text = None if spec is None or dynamic else "".join(p.value for p in spec.values)
            if dynamic or (text is not None and not spec_ok(text)):
                spec_node = c.visit(spec) if dynamic else _const(text)
                v.value = _loc(_call(abi.G_FMT, [val, _const(v.conversion), spec_node]), v)
                v.conversion = -1
                v.format_spec = None
                unbounded += 1
            elif numeric:
                v.value = val
            elif walrus:  # (t if type(t := v) in {str, int, bool} else _races_g_fv(t))
                t = self.fx.tmp("t")
                test = ast.Compare(left=_call(abi.TYPE, [ast.NamedExpr(target=_name(t, True), value=val)]),
                                   ops=[ast.In()], comparators=[_name(abi.TEXT)])
                v.value = _loc(ast.IfExp(test=test, body=_name(t), orelse=_call(abi.G_FV, [_name(t)])), v)
                unbounded += 1
            else:
                v.value = _loc(_call(abi.G_FV, [val]), v)
                unbounded += 1
        self.absorb(c)
        if unbounded < 2:
            return e
        if walrus:
            t = self.fx.tmp("t")
            test = ast.Compare(left=_call(abi.LEN, [ast.NamedExpr(target=_name(t, True), value=e)]),
                               ops=[ast.LtE()], comparators=[_const(MAX_LEN)])
            return _loc(ast.IfExp(test=test, body=_name(t), orelse=_call(abi.G_SZS, [_name(t)])), e)
        return _loc(_call(abi.G_SZS, [e]), e)

    # -- displays

    def _display(self, e):
        e = self.generic(e)
        if isinstance(getattr(e, "ctx", None), ast.Load) and any(isinstance(x, ast.Starred) for x in e.elts):
            return _loc(_call(abi.G_SZL, [e]), e)
        return e

    v_List = v_Tuple = _display
    v_Set = _set_display  # elements get hashed: measured first (see _deep)
