"""Size guards in expressions: arithmetic that can grow a value, comparisons and hashing
that can walk one, f-strings, displays with `*` unpacking.

`_Guards` is part of the expression rewrite `_Ex` (expressions.py): it decides, from the
inference (scope.py), which operations need a guard from racesl.runtime.guards, and emits
the guard with an inline fast path where that pays (docs/fuel.md, "Guards").
"""

from __future__ import annotations

import ast
import re

from racesl.lower.instrument.build import _call, _clone, _const, _loc, _name
from racesl.lower.instrument.scope import CHAR, _bits, _is_char, _is_num, _len_bound
from racesl.lower.instrument.facts import ELEM_WORD, ELEMS, STR
from racesl.lower.instrument.syntax import _bounded_lit, _small_int_lit, _static_len
from racesl.runtime import abi
from racesl.runtime.guards import spec_ok
from racesl.runtime.limits import MAX_INT_BITS, MAX_LEN
from racesl.types import builtins as B

WALK = "_races_walk"  # a node's mark: measure its value (with this runtime guard) once visited
_SPLIT_TUPLE = 8  # a tuple display up to this long is measured element by element
_MEASURED = B.WALKING_BUILTINS & B.FRESH_BUILTINS  # sorted set dict: what they build was measured
_FLAT_RESULTS = B.NUMBER_BUILTINS | B.TEXT_BUILTINS
_HASHED = (ast.Set, ast.Dict, ast.SetComp, ast.DictComp)  # `x in` one hashes x, scans nothing
_SET_OPS = (ast.BitOr, ast.BitAnd, ast.BitXor, ast.Sub)  # on sets and dict views: hashing
_PASSING = B.ITER_BUILTINS  # zip enumerate reversed: their elements carry their arguments'

_SMALL_INT = (1 << 30) - 1  # |x| below it: a one-digit int (CPython's fast int compare)
# An f-string whose fields can render more than one value's worth (MAX_LEN) and _SLACK is
# checked after it is built; one with more than _FIELDS fields that can render more than
# _FIELDS values' worth is built _FIELDS fields at a time, each part checked before the next
# is built (`_joined`): at most _FIELDS times the limit is ever built. (Fields of a bounded
# size — numbers, constant widths — add to a value what a literal of that size would.)
_SLACK = 16_384
_FIELDS = 8
_SPEC_DIGITS = re.compile(r"\d+")
# A chain or tree of `+` is checked once, at its outermost `+`, only when it builds at most
# this many elements unchecked (`small_build`): else its inner sums are checked too.
INNER_BUILD = 8 * MAX_LEN


def _short_tuple(e) -> bool:
    """A tuple display of at most _SPLIT_TUPLE elements, none starred: measured element by
    element (a walk of it is one node plus its elements' walks)."""
    return (isinstance(e, ast.Tuple) and len(e.elts) <= _SPLIT_TUPLE
            and not any(isinstance(x, ast.Starred) for x in e.elts))


def _field_bound(spec: str | None, text: int) -> int:
    """An upper bound on the length of one f-string field: its value renders to at most
    `text` characters, padded to the widest number in its constant spec."""
    widths = [int(d) for d in _SPEC_DIGITS.findall(spec)] if spec else []
    return max([text, *widths]) + 8


def _int_text(bits: int, spec: str | None) -> int:
    """An upper bound on the length of an int of `bits` bits rendered with `spec`: decimal
    digits, or a digit a bit (`b`, `o`, `x`, `c`, `n`, grouping) plus separators."""
    if spec and any(c in spec for c in "bBoxXcn,_"):
        return bits + bits // 3 + 8
    return (bits * 11 >> 5) + 3


def _cheap_num(x, num) -> bool:
    """A number made of known numbers and int literals by `+` and `-` alone: evaluating it
    twice changes nothing and costs less than a guard's call."""
    if isinstance(x, ast.Constant):
        return type(x.value) is int
    if isinstance(x, ast.Name):
        return _is_num(x, num)
    return (isinstance(x, ast.BinOp) and isinstance(x.op, (ast.Add, ast.Sub))
            and _cheap_num(x.left, num) and _cheap_num(x.right, num))


def _add_leaves(e):
    """The operands of the tree of `+` rooted at `e` (`e` itself when it is no `+`)."""
    todo = [e]
    while todo:
        x = todo.pop()
        if isinstance(x, ast.BinOp) and isinstance(x.op, ast.Add):
            todo += [x.right, x.left]
        else:
            yield x


def small_build(e, num, lens, more: int = 0) -> bool:
    """Whether the tree of `+` rooted at `e` (plus `more` elements: `x += e`'s x) builds at most
    INNER_BUILD elements when no `+` inside it is checked: each operand counts its declared
    length bound (`_len_bound`: a parameter nothing changed in place, its slices, ...), a
    number, character or short literal one, anything else MAX_LEN (what any checked value
    holds at most)."""
    total = more
    for leaf in _add_leaves(e):
        if _is_num(leaf, num) or _is_char(leaf, num) or _bounded_lit(leaf):
            total += 1
        else:
            bound = _len_bound(leaf, num, lens)
            total += MAX_LEN if bound is None else bound
        if total > INNER_BUILD:
            return False
    return True


def _mark_inner_adds(e) -> None:
    """`(a + b) + c` with the outer `+` guarded: the inner sum is a temporary that only the
    outer sum consumes, and the outer check bounds it — so only the outermost `+` of a chain
    is checked, when the whole chain builds at most INNER_BUILD elements unchecked
    (`small_build`; the caller asks). A longer chain or a wider tree (`(xs + xs) + (xs + xs)`
    nested twelve deep builds 4,096 times the bound) checks its inner sums too, each deciding
    the same for its own operands. Marks the `+` operands of the `+` `e`."""
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
        if isinstance(e.op, _SET_OPS) and not (self._flat(e.left) or self._flat(e.right)):
            for x in (e.left, e.right):  # `d.items() | xs` hashes xs (a number: no set, no view)
                setattr(x, WALK, abi.G_DEEP)
        inner = getattr(e, "_races_inner", False)
        guard = None if inner else self.guard_for(e.op, e.left, e.right)
        if inner or guard == abi.G_ADD and small_build(e, self.num, self.fx.scope.lens):
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

    def _deep(self, x, flat: bool = False, guard: str = abi.G_DEEP):
        """`x` measured before it is compared or hashed (`_races_g_deep`), unless `flat`.
        A name, or any operand where `:=` is allowed, gets the flat types' test inline:
        `(t if _races_type(t := x) in _races_FLAT else _races_g_deep(t))`."""
        return self._deep_use(x, flat, guard)[0]

    def _probe_use(self, x):
        """(the node that tests `x`'s value, the node that reads it again): a name twice, or
        `t := x` and then `t`; None where neither can be written (`:=` not allowed)."""
        if isinstance(x, ast.Name):
            return _clone(x), x
        if self.walrus:
            t = self.fx.tmp("t")
            return ast.NamedExpr(target=_name(t, True), value=x), _name(t)
        return None

    def _deep_use(self, x, flat: bool = False, guard: str = abi.G_DEEP):
        """`_deep`, and a node that reads the value again (a name; None when there is none)."""
        if flat or isinstance(x, ast.Constant):
            return x, (x if isinstance(x, (ast.Name, ast.Constant)) else None)
        pair = self._probe_use(x)
        if pair is None:
            return _loc(_call(guard, [x]), x), None
        probe, use = pair
        test = ast.Compare(left=_call(abi.TYPE, [probe]), ops=[ast.In()],
                           comparators=[_name(abi.FLAT)])
        return _loc(ast.IfExp(test=test, body=use, orelse=_call(guard, [_clone(use)])), x), use

    def walked(self, e, out):
        """`out`, the visited `e` that carries the WALK mark, measured by the mark's guard."""
        return self._deep(out, self._flat(e) or self._checked(e) or self._word_tuple(e), getattr(e, WALK))

    def _word_tuple(self, e) -> bool:
        """A short tuple display of numbers (`_is_num`): a walk of it is one node and one per
        element (a number weighs one node, racesl.runtime.measure), nothing to measure."""
        return _short_tuple(e) and all(_is_num(x, self.num) for x in e.elts)

    def _checked(self, e) -> bool:
        """An entry's parameter that nothing in the body stores into and whose declared type
        gives it element or length facts: its caller checked it against that type, which
        measured it (racesl.runtime.contract), so walking it is within MAX_WALK; a view of
        one (`d.values()`) too."""
        if (isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and not e.args
                and not e.keywords and e.func.attr in B.VIEW_METHODS):
            e = e.func.value
        if not isinstance(e, ast.Name):
            return False
        scope = self.fx.scope
        return (e.id in scope.short or e.id in scope.rows or e.id + ELEMS in self.num
                or e.id + ELEM_WORD in self.num)  # (elements that are numbers: n nodes)

    def key(self, k):
        """A subscript's index `k` visited, and measured unless flat or a slice: `d[k]`
        hashes it. A short tuple display is measured element by element (`d[r, c]` with
        numbers: nothing to measure)."""
        if isinstance(k, ast.Slice) or self._flat(k):
            return self.visit(k)
        if _short_tuple(k):
            flat = [self._flat(x) for x in k.elts]
            k.elts = [self._deep(self.visit(x), f) for x, f in zip(k.elts, flat)]
            return k
        return self._deep(self.visit(k))

    def v_Subscript(self, e):
        """`d[k]`: k measured (`key`), unless e indexes a str (a literal, a Str parameter)."""
        text = isinstance(e.value, ast.Constant) or self._flat(e.value)
        e.value = self.visit(e.value)
        e.slice = self.visit(e.slice) if text else self.key(e.slice)
        return e

    # -- calls that walk their values (racesl.types.builtins `walks`)

    @staticmethod
    def _mark(e, guard: str = abi.G_DEEP) -> None:
        """Mark `e` to be measured once visited; a comprehension or generator argument: its
        elements (a dict comprehension's keys); `zip`/`enumerate`/`reversed`: their
        arguments, whose elements theirs carry."""
        if isinstance(e, ast.Starred):
            e = e.value
        if isinstance(e, (ast.GeneratorExp, ast.ListComp, ast.SetComp)):
            setattr(e.elt, WALK, abi.G_DEEP)
        elif isinstance(e, ast.DictComp):
            setattr(e.key, WALK, abi.G_DEEP)
        elif isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id in _MEASURED:
            pass  # (`sorted(set(xs))`: a fresh container of elements measured as it was built)
        elif (isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id in _PASSING
              and e.args):
            _Guards._mark(e.args[0], guard)
            if e.func.id == "zip":
                for a in e.args[1:]:
                    _Guards._mark(a, guard)
        else:
            setattr(e, WALK, guard)

    @staticmethod
    def _mark_key(e) -> None:
        """A `key=` function's results are compared: a lambda's body is measured (a short
        tuple display element by element), anything else wrapped (`_races_g_key`)."""
        for k in e.keywords:
            if k.arg == "key":
                body = k.value.body if isinstance(k.value, ast.Lambda) else None
                if _short_tuple(body):
                    for x in body.elts:  # (`key=lambda c: (-d[c], c)`: each part, as `key` does)
                        setattr(x, WALK, abi.G_DEEP)
                elif body is not None:
                    setattr(body, WALK, abi.G_DEEP)
                elif not (isinstance(k.value, ast.Constant) or isinstance(k.value, ast.Name)
                          and k.value.id in _FLAT_RESULTS):  # (key=len, key=abs: numbers)
                    setattr(k.value, WALK, abi.G_KEY)

    def v_Call(self, e):
        """Calls that compare or hash their values element by element (the table's `walks`)
        get them measured first: a builtin's positional arguments (their elements when a
        generator or a comprehension makes them; an iterator's as `_races_g_walk` draws
        them), the first argument of `get`/`pop`/`setdefault`, the receiver of `sort`, and
        the results of a `key=`. `count`/`index` with neither receiver nor argument flat go
        through their wrapper, which measures both (see `_races_g_in`). The rest: `_Charges`."""
        sized = self._sized_call(e)
        if sized is not None:
            return sized
        f = e.func
        if isinstance(f, ast.Name) and f.id in B.WALKING_BUILTINS and f.id not in self.shadow:
            for a in e.args:
                self._mark(a, abi.G_WALK)
            self._mark_key(e)
        elif isinstance(f, ast.Attribute):
            if f.attr in B.WALK_FIRST_METHODS and e.args:
                self._mark(e.args[0])
            elif f.attr in B.WALK_RECEIVER_METHODS:
                self._mark(f.value)
                self._mark_key(e)
            elif (f.attr in B.SCANNING_METHODS and e.args and not e.keywords
                  and not any(isinstance(a, ast.Starred) for a in e.args)
                  and not self._flat(f.value) and not self._flat(e.args[0])):
                recv = self.visit(f.value)
                return _loc(_call(abi.method(f.attr), [recv, *self._args(e.args)]), e)
        return super().v_Call(e)

    def v_SetComp(self, e):
        setattr(e.elt, WALK, abi.G_DEEP)  # (hashed)
        return super().v_SetComp(e)

    def v_DictComp(self, e):
        setattr(e.key, WALK, abi.G_DEEP)
        return super().v_DictComp(e)

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
        str literal: a non-str left side raises at once; a tuple/list display of constants),
        and then the right side too where scanning it would cost (`_races_g_in`).
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
        e.left, use = self._deep_use(self.visit(e.left), not need[0])
        out = []
        for k, (op, c0, n) in enumerate(zip(e.ops, e.comparators, sizes)):
            c = self.visit(c0)
            if (isinstance(op, (ast.In, ast.NotIn)) and need[k]  # scanning c may cost
                    and not (self._flat(c0) or self._checked(c0) or isinstance(c0, _HASHED))):
                c = _loc(_call(abi.G_IN, [c] + ([_clone(use)] if use is not None else [])), c0)
            use = c if isinstance(c, (ast.Name, ast.Constant)) else None
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
        """An f-string: every field is guarded where its value could be too big to render
        (a container or str: `_races_g_fv`; an int wider than MAX_INT_BITS, whose text
        CPython refuses past 4,300 digits: a number not known to be narrower than that is
        tested inline against 2**30, else `_races_g_fv`), a computed or out-of-bounds spec
        goes through `_races_g_fmt`, and the whole text is bounded by `_joined`."""
        walrus = self.walrus
        c = self.child(nested=self.nested)
        parts = []  # (node, bound on its text)
        for v in e.values:
            if not isinstance(v, ast.FormattedValue):
                parts.append((v, 0))  # (a literal: as long as the source says)
                continue
            numeric = _is_num(v.value, self.num)
            bits = _bits(v.value, self.num) if numeric and "words" in self.fx.fast_paths else None
            val = c.visit(v.value)
            spec = v.format_spec
            dynamic = spec is not None and not all(isinstance(p, ast.Constant) for p in spec.values)
            text = None if spec is None or dynamic else "".join(p.value for p in spec.values)
            conv = {114: 4, 97: 10}.get(v.conversion, 1)  # !r, !a: escapes lengthen a str
            if dynamic or (text is not None and not spec_ok(text)):
                spec_node = c.visit(spec) if dynamic else _const(text)
                v.value = _loc(_call(abi.G_FMT, [val, _const(v.conversion), spec_node]), v)
                v.conversion = -1
                v.format_spec = None
                parts.append((v, conv * MAX_LEN + MAX_LEN))  # (value and spec within MAX_LEN)
                continue
            if numeric:
                if bits is None or bits > MAX_INT_BITS:
                    v.value = self._narrow_int(val, lambda u: u, lambda u: _call(abi.G_FV, [u]), v)
                    bits = MAX_INT_BITS
                else:
                    v.value = val
                parts.append((v, _field_bound(text, _int_text(bits, text))))
                continue
            if walrus:  # (t if type(t := v) in {str, bool} or type(t) is int and -S < t < S else g_fv(t))
                t = self.fx.tmp("t")
                test = ast.Compare(left=_call(abi.TYPE, [ast.NamedExpr(target=_name(t, True), value=val)]),
                                   ops=[ast.In()], comparators=[_name(abi.TEXT)])
                test = ast.BoolOp(op=ast.Or(), values=[test, ast.BoolOp(op=ast.And(), values=[
                    self._is_type(_name(t), abi.INT), self._small(_name(t))])])
                v.value = _loc(ast.IfExp(test=test, body=_name(t), orelse=_call(abi.G_FV, [_name(t)])), v)
            else:
                v.value = _loc(_call(abi.G_FV, [val]), v)
            parts.append((v, _field_bound(text, conv * MAX_LEN)))
        self.absorb(c)
        return self._joined(parts, e)[0]

    def _joined(self, parts, ref):
        """(the f-string of `parts`, a bound on its length). Within MAX_LEN + _SLACK: as it
        is; else checked after it is built (`(t if len(t := f"...") <= MAX_LEN else
        _races_g_szs(t))`); with more than _FIELDS fields of more than _FIELDS values'
        worth, built _FIELDS fields at a time, each part checked, and the parts joined by
        `_races_g_cat` (_FIELDS at a time, checking the total): 21,000 wide fields stop at
        the first few instead of building gigabytes."""
        fields = sum(isinstance(n, ast.FormattedValue) for n, _ in parts)
        total = sum(b for _, b in parts)
        if fields > _FIELDS and total > _FIELDS * MAX_LEN:
            groups, run, n = [], [], 0
            for node, b in parts:
                if isinstance(node, ast.FormattedValue) and n == _FIELDS:
                    groups.append(self._joined(run, ref))
                    run, n = [], 0
                run.append((node, b))
                n += isinstance(node, ast.FormattedValue)
            groups.append(self._joined(run, ref))
            while len(groups) > 1:
                groups = [(_loc(_call(abi.G_CAT, [g for g, _ in groups[i:i + _FIELDS]]), ref), MAX_LEN)
                          for i in range(0, len(groups), _FIELDS)]
            return groups[0]
        node = _loc(ast.JoinedStr(values=[n for n, _ in parts]), ref)
        if total <= MAX_LEN + _SLACK:
            return node, total
        if self.walrus:
            t = self.fx.tmp("t")
            test = ast.Compare(left=_call(abi.LEN, [ast.NamedExpr(target=_name(t, True), value=node)]),
                               ops=[ast.LtE()], comparators=[_const(MAX_LEN)])
            return _loc(ast.IfExp(test=test, body=_name(t), orelse=_call(abi.G_SZS, [_name(t)])), ref), MAX_LEN
        return _loc(_call(abi.G_SZS, [node]), ref), MAX_LEN

    def _narrow_int(self, val, fast, slow, ref):
        """`fast(v)` if the number `val` (visited) is within ±2**30, else `slow(v)` (a guard
        that refuses an int wider than MAX_INT_BITS): `(fast(t) if -S < (t := val) < S else
        slow(t))`; where `:=` is not allowed, a name is read again and anything else goes
        to `slow` at once."""
        if isinstance(val, ast.Constant):
            small = type(val.value) is bool or -_SMALL_INT < val.value < _SMALL_INT
            return _loc(fast(val) if small else slow(val), ref)
        pair = self._probe_use(val)
        if pair is None:
            return _loc(slow(val), ref)
        probe, use = pair
        return _loc(ast.IfExp(test=self._small(probe), body=fast(use), orelse=slow(_clone(use))), ref)

    def _sized_call(self, e):
        """The calls whose guard the inference decides, rewritten, or None: `str(n)` of a
        number not known to be within MAX_INT_BITS (`_narrow_int`: CPython's `str` within
        ±2**30, the guarded one beyond); a case mapping (`s.upper()`; the table's guard
        "factor") of a receiver whose length times the method's growth is within MAX_LEN
        (a character, a short parameter): the method itself, not its wrapper."""
        f = e.func
        if (isinstance(f, ast.Name) and f.id == "str" and f.id not in self.shadow and len(e.args) == 1
                and not e.keywords and _is_num(e.args[0], self.num)):
            b = _bits(e.args[0], self.num) if "words" in self.fx.fast_paths else None
            if b is not None and b <= MAX_INT_BITS:
                return None  # (`_Charges`: CPython's `str`)
            val = self.visit(e.args[0])
            return self._narrow_int(val, lambda u: _call(abi.STR, [u]), lambda u: _call("str", [u]), e)
        if isinstance(f, ast.Attribute) and f.attr in B.GROWING_METHODS and not e.args and not e.keywords:
            if _is_char(f.value, self.num):
                bound = 1
            elif "words" in self.fx.fast_paths:
                bound = _len_bound(f.value, self.num, self.fx.scope.lens)
            else:
                bound = None
            if bound is not None and bound * B.GROWING_METHODS[f.attr] <= MAX_LEN:
                f.value = self.visit(f.value)
                return e
        return None

    # -- displays

    def _display(self, e):
        e = self.generic(e)
        if isinstance(getattr(e, "ctx", None), ast.Load) and any(isinstance(x, ast.Starred) for x in e.elts):
            return _loc(_call(abi.G_SZL, [e]), e)
        return e

    v_List = v_Tuple = _display
    v_Set = _set_display  # elements get hashed: measured first (see _deep)
