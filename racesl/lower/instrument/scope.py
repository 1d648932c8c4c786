"""The inference: what a function's names can hold, from its bindings and its parameters'
declared facts.

`_is_num`, `_bits`, `_is_str`, `_is_sized` and `_len_bound` judge one expression against a
set of known facts, `num`: names that hold only numbers, and names with a mark suffix (see
facts.py: `x~` an int of at most WORD_BITS bits, `x$` a str, `c'` a character of a Str
parameter, `p[]` a parameter whose elements are numbers, `p#:` a parameter still holding
its value of declared length). `_Scope` finds the greatest such set for a function (an
inductive invariant over all its bindings); the rewrites ask it which guards and type tests
a value needs, and which lists are private.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping

from racesl.lower.effects import RESIZING_METHODS
from racesl.lower.instrument.build import _name
from racesl.lower.instrument.facts import (
    ELEM_WORD, ELEMS, LEN, NO_FACTS, ROW_WORDS, STR, WORD, WORD_BITS, ParamFacts, as_facts,
)
from racesl.lower.instrument.syntax import _BUILTINS, _is_call_to, _is_fresh, _target_names, _walk_many
from racesl.runtime.limits import MAX_FUEL
from racesl.types import builtins as B

CHAR = "'"  # in the inference's set: a name that only ever holds a character of a Str parameter
# a counter: assigned ints of at most _COUNTER_BITS bits, moved by `+=`/`-=` of at most
# _STEP_BITS bits; at most MAX_FUEL + 1 moves an execution keep it within WORD_BITS
_COUNTER_BITS, _STEP_BITS, _STEP = 60, 10, "step"
assert (1 << _COUNTER_BITS) + ((MAX_FUEL + 1) << _STEP_BITS) < 1 << (WORD_BITS - 1)
_NUM_CALLS = B.NUMBER_BUILTINS
_NUM_METHODS = B.NUMBER_METHODS


def _is_num(e, num) -> bool:
    """Whether `e` can only evaluate to a number (int, bool) — or raise."""
    if isinstance(e, ast.Constant):
        return type(e.value) in (int, bool, float)
    if isinstance(e, ast.Name):
        return e.id in num
    if isinstance(e, ast.Subscript):  # an element of a parameter whose elements are numbers
        return (isinstance(e.value, ast.Name) and e.value.id + ELEMS in num
                and not isinstance(e.slice, ast.Slice)) or _row_cell(e, num)
    if isinstance(e, ast.BinOp):
        op = e.op
        if isinstance(op, (ast.FloorDiv, ast.Pow, ast.LShift, ast.RShift, ast.Div)):
            return True
        if isinstance(op, ast.Mod):
            return _is_num(e.left, num)
        if isinstance(op, ast.Mult):
            return _is_num(e.left, num) and _is_num(e.right, num)
        return _is_num(e.left, num) or _is_num(e.right, num)  # + - & | ^
    if isinstance(e, ast.UnaryOp):
        return True
    if isinstance(e, ast.Compare):
        return True
    if isinstance(e, ast.BoolOp):
        return all(_is_num(v, num) for v in e.values)
    if isinstance(e, ast.IfExp):
        return _is_num(e.body, num) and _is_num(e.orelse, num)
    if isinstance(e, ast.NamedExpr):
        return _is_num(e.value, num)
    if isinstance(e, ast.Call):
        f = e.func
        if isinstance(f, ast.Name):
            if f.id in _NUM_CALLS:
                return True
            if f.id in ("max", "min") and len(e.args) >= 2:
                return all(_is_num(a, num) for a in e.args)
            return f.id == "sum" and len(e.args) == 1 and not e.keywords
        if isinstance(f, ast.Attribute):
            return f.attr in _NUM_METHODS
    return False


def _row_cell(e, num) -> bool:
    """`p[i][j]` of a parameter whose rows hold words (ROW_WORDS in `num`): a word."""
    row = e.value
    return (not isinstance(e.slice, ast.Slice) and isinstance(row, ast.Subscript)
            and not isinstance(row.slice, ast.Slice) and isinstance(row.value, ast.Name)
            and row.value.id + ROW_WORDS in num)


def _bits(e, num) -> int | None:
    """An upper bound on the bit length of the int `e` evaluates to (if it does not raise),
    or None when unknown or not an int: int literals, names marked WORD in `num`, elements
    of ELEM_WORD parameters, `len`, `ord`, `abs`, comparisons, and arithmetic of those
    (a sum grows by one bit, a product adds, `%` is below its divisor, `//` and `>>` never
    grow). `a * b` with known bounds adding up to at most MAX_INT_BITS needs no guard."""
    if isinstance(e, ast.Constant):
        v = e.value
        return max(1, v.bit_length()) if type(v) in (int, bool) else None
    if isinstance(e, ast.Name):
        return WORD_BITS if e.id + WORD in num else None
    if isinstance(e, ast.Subscript):
        ok = (isinstance(e.value, ast.Name) and e.value.id + ELEM_WORD in num
              and not isinstance(e.slice, ast.Slice)) or _row_cell(e, num)
        return WORD_BITS if ok else None
    if isinstance(e, ast.Compare):
        return 1
    if isinstance(e, ast.UnaryOp):
        if isinstance(e.op, ast.Not):
            return 1
        b = _bits(e.operand, num)
        return None if b is None else b + 1
    if isinstance(e, (ast.IfExp, ast.BoolOp)):
        parts = [e.body, e.orelse] if isinstance(e, ast.IfExp) else e.values
        bs = [_bits(x, num) for x in parts]
        return None if None in bs else max(bs)
    if isinstance(e, ast.BinOp):
        op, l = e.op, _bits(e.left, num)
        if l is None:
            return None
        if isinstance(op, (ast.Pow, ast.LShift)):
            k = e.right.value if isinstance(e.right, ast.Constant) else None
            if type(k) is not int or not 0 <= k <= 64:
                return None
            return (l * k if k else 1) if isinstance(op, ast.Pow) else l + k
        r = _bits(e.right, num)
        if r is None:
            return None
        if isinstance(op, (ast.Add, ast.Sub, ast.BitOr, ast.BitXor, ast.BitAnd)):
            return max(l, r) + 1
        if isinstance(op, ast.Mult):
            return l + r
        if isinstance(op, ast.Mod):
            return r  # |a % b| < |b|
        if isinstance(op, (ast.FloorDiv, ast.RShift)):
            return l  # |a // b| <= |a| for an int b != 0
        return None
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and not e.keywords:
        f, args = e.func.id, e.args  # (builtin names cannot be rebound: E508)
        if f == "len" and len(args) == 1:
            return WORD_BITS  # a length is a Py_ssize_t
        if f == "ord" and len(args) == 1:
            return 21
        if f == "bool":
            return 1
        if f == "abs" and len(args) == 1:
            return _bits(args[0], num)
        if f in ("max", "min") and len(args) >= 2:
            bs = [_bits(a, num) for a in args]
            return None if None in bs else max(bs)
    return None


_STR_METHODS = B.TEXT_METHODS


def _is_str(e, num) -> bool:
    """Whether `e` can only evaluate to a str (or raise): str literals and f-strings, names
    marked STR in `num`, their characters and slices, `str chr hex bin`, str-only methods,
    `+ * %` with a str operand (a str with anything else is a str or a TypeError)."""
    if isinstance(e, ast.Constant):
        return isinstance(e.value, str)
    if isinstance(e, ast.JoinedStr):
        return True
    if isinstance(e, ast.Name):
        return e.id + STR in num
    if isinstance(e, ast.Subscript):
        return _is_str(e.value, num)
    if isinstance(e, ast.BinOp):
        if isinstance(e.op, (ast.Add, ast.Mult)):
            return _is_str(e.left, num) or _is_str(e.right, num)
        return isinstance(e.op, ast.Mod) and _is_str(e.left, num)
    if isinstance(e, ast.IfExp):
        return _is_str(e.body, num) and _is_str(e.orelse, num)
    if isinstance(e, ast.Call):
        f = e.func  # (builtin names cannot be rebound: E508; only a str has these methods)
        return (isinstance(f, ast.Name) and f.id in B.TEXT_BUILTINS
                or isinstance(f, ast.Attribute) and f.attr in _STR_METHODS)
    return False


_SIZED_CALLS = B.SIZED_BUILTINS
_SIZED_METHODS = B.SIZED_METHODS


def _is_sized(e, num, sized) -> bool:
    """Whether `e` can only evaluate to a value `len` takes without fail (a str, list, tuple,
    dict, set or dict view; not a range, whose length may not fit) — or raise: displays,
    comprehensions, names in `sized`, slices, `+` and `*` of such values, strs (`_is_str`),
    `list tuple set dict sorted` calls, and methods only those values have."""
    if isinstance(e, (ast.List, ast.Tuple, ast.Set, ast.Dict, ast.ListComp, ast.SetComp, ast.DictComp)):
        return True
    if isinstance(e, ast.Name):
        return e.id in sized
    if isinstance(e, ast.Subscript):
        return isinstance(e.slice, ast.Slice) and _is_sized(e.value, num, sized)
    if isinstance(e, ast.BinOp) and isinstance(e.op, (ast.Add, ast.Mult)):
        return _is_sized(e.left, num, sized) or _is_sized(e.right, num, sized)
    if isinstance(e, ast.IfExp):
        return _is_sized(e.body, num, sized) and _is_sized(e.orelse, num, sized)
    if isinstance(e, ast.Call):
        f = e.func  # (builtin names cannot be rebound: E508)
        if (isinstance(f, ast.Name) and f.id in _SIZED_CALLS
                or isinstance(f, ast.Attribute) and f.attr in _SIZED_METHODS):
            return True
    return _is_str(e, num)


def _len_bound(e, num, lens) -> int | None:
    """An upper bound on len() of the str, list or tuple `e` evaluates to, or None: literals
    and displays, parameters of declared length (`lens`, valid where `num` still marks them
    LEN), their slices and characters, `+` of bounded values, `*` by an int literal, and
    `sorted list tuple set` or a one-clause list comprehension of a bounded value."""
    if isinstance(e, ast.Constant):
        return len(e.value) if isinstance(e.value, (str, tuple)) else None
    if isinstance(e, (ast.List, ast.Tuple, ast.Set)):
        return None if any(isinstance(x, ast.Starred) for x in e.elts) else len(e.elts)
    if isinstance(e, ast.Name):
        return lens.get(e.id) if e.id + LEN in num else None
    if isinstance(e, ast.Subscript):
        if isinstance(e.slice, ast.Slice):
            return _len_bound(e.value, num, lens)
        return 1 if _is_str(e.value, num) else None
    if isinstance(e, ast.BinOp):
        if isinstance(e.op, ast.Add):
            a, b = _len_bound(e.left, num, lens), _len_bound(e.right, num, lens)
            return None if a is None or b is None else a + b
        if isinstance(e.op, ast.Mult):
            for x, k in ((e.left, e.right), (e.right, e.left)):
                if isinstance(k, ast.Constant) and type(k.value) is int:
                    a = _len_bound(x, num, lens)
                    return None if a is None else a * max(k.value, 0)
        return None
    if isinstance(e, ast.IfExp):
        a, b = _len_bound(e.body, num, lens), _len_bound(e.orelse, num, lens)
        return None if a is None or b is None else max(a, b)
    if (isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and len(e.args) == 1
            and e.func.id in ("sorted", "list", "tuple", "set")):
        return _len_bound(e.args[0], num, lens)
    if isinstance(e, ast.ListComp) and len(e.generators) == 1:
        g = e.generators[0]
        return _len_bound(g.iter, _minus(num, _target_names(g.target)), lens)
    return None


def _range_bits(it, num) -> int | None:
    """The bits of the numbers `range(...)` (or `reversed(range(...))`) yields: at most
    those of its arguments."""
    if _is_call_to(it, {"reversed"}) and len(it.args) == 1:
        it = it.args[0]
    if not (_is_call_to(it, {"range"}) and 1 <= len(it.args) <= 3 and not it.keywords):
        return None
    bs = [_bits(a, num) for a in it.args]
    return None if None in bs else max(bs)


def _greatest(names, holds) -> set:
    """The greatest subset S of `names` with `holds(n, S)` for every n in S (`holds` is
    monotone in S): drop the names that fail until none does."""
    keep = set(names)
    changed = True
    while changed:
        changed = False
        for n in list(keep):
            if not holds(n, frozenset(keep)):
                keep.discard(n)
                changed = True
    return keep


def _minus(num, names) -> frozenset:
    """`num` inside a scope that binds `names` anew: neither they nor their elements are
    known numbers there."""
    return frozenset(num) - set(names) - {n + m for n in names
                                          for m in (ELEMS, STR, CHAR, WORD, ELEM_WORD, LEN, ROW_WORDS)}


def _is_char(e, num) -> bool:
    """A character of a Str parameter: a name marked so, or `p[i]`."""
    if isinstance(e, ast.Name):
        return e.id + CHAR in num
    return (isinstance(e, ast.Subscript) and isinstance(e.value, ast.Name) and e.value.id + STR in num
            and not isinstance(e.slice, ast.Slice))


def _bound_names(fn) -> frozenset[str]:
    """Every name `fn` binds anywhere (assignments, loop and comprehension targets, lambda
    parameters): a call through one of them is not a call of a program function."""
    out = set()
    for n in ast.walk(fn):
        if type(n) is ast.Name:
            if type(n.ctx) is not ast.Load:
                out.add(n.id)
        elif type(n) is ast.Lambda:
            out.update(a.arg for a in n.args.args)
    return frozenset(out)


_CHANGING = B.MUTATING_METHODS | {"remove", "clear", "update", "add", "discard", "popitem"}


def _rows_stay(fn, fresh_only, num, funcs, bound, rowsafe=frozenset()) -> bool:
    """Whether nothing in `fn` can change a row of a parameter in place — the condition of
    trusting `ParamFacts.row_words`, which `_escaping` does not give (it lets `p[0][0] = x`
    and `r = p[0]; r.append(x)` through): every subscript store, changing method and `+=`
    acts on a local bound only to new values (`fresh_only`, not also a comprehension's or a
    lambda's name: an object made after the rows were, so none of them) or a number or str
    (`x += n` of a number n changes no list: a TypeError first; `*=` does), and every
    program function called is in `rowsafe` (passing.py, `row_safe`: the same holds of it
    and of all it calls)."""
    mine = fresh_only - _comp_names(fn)
    for n in ast.walk(fn):
        if isinstance(n, ast.Subscript) and not isinstance(n.ctx, ast.Load):
            if not (isinstance(n.value, ast.Name) and n.value.id in mine):
                return False
        elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
            t = n.target.id
            if not (t in num or t + STR in num or t in mine
                    or not isinstance(n.op, ast.Mult) and _is_num(n.value, num)):
                return False
        elif isinstance(n, ast.Call):
            f = n.func
            if isinstance(f, ast.Attribute) and f.attr in _CHANGING:
                if not (isinstance(f.value, ast.Name) and f.value.id in mine):
                    return False
            elif isinstance(f, ast.Name) and f.id in funcs and f.id not in bound and f.id not in rowsafe:
                return False
    return True


def _stored(t) -> list[str]:
    """The names an assignment target binds (not those a subscript store only reads)."""
    return [n.id for n in ast.walk(t) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]


def _fresh_locals(fn) -> set[str]:
    """The locals of `fn` every binding of which is a new object (`_is_fresh`; `+=` keeps
    the object or makes a new one); parameters never."""
    binds: dict[str, list[bool]] = {a.arg: [False] for a in fn.args.args}
    for n in ast.walk(fn):
        if isinstance(n, (ast.Assign, ast.AnnAssign, ast.NamedExpr)):
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                fresh = isinstance(t, ast.Name) and n.value is not None and _is_fresh(n.value)
                for x in _stored(t):
                    binds.setdefault(x, []).append(fresh)
        elif isinstance(n, (ast.For, ast.comprehension)):
            for x in _stored(n.target):
                binds.setdefault(x, []).append(False)
        elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
            binds.setdefault(n.target.id, []).append(True)
    return {x for x, fs in binds.items() if all(fs)}


def _rows_of(it, row_params) -> bool:
    """Whether iterating `it` draws rows of a parameter in `row_params`: the name itself, or
    `sorted list tuple reversed` of it (the same row objects, in another order)."""
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.args and not isinstance(
            it.args[0], ast.Starred) and it.func.id in ("sorted", "list", "tuple", "reversed"):
        it = it.args[0]
    return isinstance(it, ast.Name) and it.id in row_params


def _comp_names(fn) -> set[str]:
    """The names comprehensions and lambdas in `fn` bind (in scopes of their own)."""
    out = set()
    for n in ast.walk(fn):
        if isinstance(n, ast.comprehension):
            out.update(_target_names(n.target))
        elif isinstance(n, ast.Lambda):
            out.update(a.arg for a in n.args.args)
    return out


def _row_names(fn, row_params, params) -> set[str]:
    """The locals every binding of which is a row of a parameter in `row_params` (a loop
    over it, `p[i]`, or another such local): the greatest such set."""
    binds: dict[str, list] = {p: [None] for p in params}
    for n in ast.walk(fn):
        if isinstance(n, (ast.Assign, ast.AnnAssign, ast.NamedExpr)):
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                if isinstance(t, ast.Name):
                    binds.setdefault(t.id, []).append(n.value)
                else:
                    for x in _stored(t):
                        binds.setdefault(x, []).append(None)
        elif isinstance(n, ast.For):
            if isinstance(n.target, ast.Name):
                ok = _rows_of(n.iter, row_params)
                binds.setdefault(n.target.id, []).append(("row",) if ok else None)
            else:
                for x in _stored(n.target):
                    binds.setdefault(x, []).append(None)
        elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
            binds.setdefault(n.target.id, []).append(None)
    # (a comprehension's or lambda's own names are other variables: its scope drops their
    # marks, `_minus`)

    def row(b, known) -> bool:
        if b is None:
            return False
        if b == ("row",):
            return True
        if isinstance(b, ast.Subscript):
            return (isinstance(b.value, ast.Name) and b.value.id in row_params
                    and not isinstance(b.slice, ast.Slice))
        return isinstance(b, ast.Name) and b.id in known

    return _greatest(binds, lambda n, known: all(row(b, known) for b in binds[n]))


def _kept_at(call, n, keeps, bound) -> bool:
    """Whether `n` is a plain positional argument of a program function `call` that keeps
    that parameter (`keeps`, passing.py)."""
    f = call.func
    if not keeps or not isinstance(f, ast.Name) or f.id in bound or call.keywords:
        return False
    if any(isinstance(a, ast.Starred) for a in call.args):
        return False
    at = next(i for i, a in enumerate(call.args) if a is n)
    return (f.id, at) in keeps


def _iter_num(it, num) -> bool:
    """Whether iterating `it` yields numbers only: `range(...)`, or a name whose elements
    are numbers (see ELEMS)."""
    return _is_call_to(it, {"range"}) or (isinstance(it, ast.Name) and it.id + ELEMS in num)


class _Scope:
    """What the rewrite needs to know about one function: its locals; in `num`, the names
    that hold only numbers (and, by their marks, ints of known width, strs, parameters'
    declared facts); the names that hold only sized values (`sized`), the parameters of
    declared short length (`short`, `lens`) or rows (`rows`); and the "private" lists
    (fresh, never stored anywhere else)."""

    def __init__(self, fn: ast.FunctionDef, params: Mapping[str, ParamFacts] | Iterable[str],
                 funcs: frozenset[str], entry: bool = False, harmless: frozenset[str] = frozenset(),
                 keeps: frozenset = frozenset(), rowsafe: frozenset = frozenset()):
        """`params`: the declared facts of fn's parameters, by name (or as marks: see facts.py);
        `entry`: fn trusts them — an entry variant, whose callers check the arguments, or a
        checked-argument variant (passing.py), whose callers pass what they hold checked (an
        ordinary variant, called by other bodies with arguments no one checks, trusts none);
        `keeps`: the (function, position) pairs whose parameter no call can change, `rowsafe`:
        the functions that change no row of anything they are given (passing.py)."""
        facts = as_facts(params)
        self.facts = facts
        self.keeps = keeps

        def fact(p: str) -> ParamFacts:
            return facts.get(p, NO_FACTS)

        self.funcs = funcs
        self.harmless = harmless  # leaf functions that cannot change the length of a list
        self.params = [a.arg for a in fn.args.args]
        # a parameter's declared elements and length hold only while nothing can store into
        # it: not changed in place, aliased or passed on anywhere in the body (`_escaping`)
        self.bound = _bound_names(fn)
        held = (set(self.params) - self._escaping(fn, set(self.params), held=True, keeps=keeps, bound=self.bound)
                if entry else set())
        elems = {p for p in held if fact(p).int_elems}
        sized = {p for p in self.params if entry and fact(p).sized}
        declared_sized: set[str] = set()  # those never bound again (known once all bindings are)
        strs = {p for p in self.params if entry and fact(p).is_str}
        chars: dict[str, list[str]] = {}  # loop targets over a Str parameter: the names iterated
        binders: dict[str, list] = {p: [] for p in self.params}
        bits: dict[str, list] = {p: [] for p in self.params}  # num → bit bound of each binding
        texts: dict[str, list] = {p: [] for p in self.params}  # num → whether each binds a str
        sizes: dict[str, list] = {p: [] for p in self.params}  # (num, sized) → whether ... sized
        fresh: dict[str, list[bool]] = {p: [False] for p in self.params}
        lambdas: set[str] = set()

        def bind(name, is_num, is_fresh, bits_of=lambda num: None, is_str=lambda num: False,
                 is_sized=lambda num, sized: False):
            binders.setdefault(name, []).append(is_num)
            bits.setdefault(name, []).append(bits_of)
            texts.setdefault(name, []).append(is_str)
            sizes.setdefault(name, []).append(is_sized)
            fresh.setdefault(name, []).append(is_fresh)

        def bind_target(t, v):
            if isinstance(t, ast.Name):
                bind(t.id, lambda num, v=v: _is_num(v, num), v is not None and _is_fresh(v),
                     lambda num, v=v: None if v is None else _bits(v, num),
                     lambda num, v=v: v is not None and _is_str(v, num),
                     lambda num, sized, v=v: v is not None and _is_sized(v, num, sized))
                if isinstance(v, ast.Lambda):
                    lambdas.add(t.id)
            elif isinstance(t, (ast.Tuple, ast.List)):
                if (isinstance(v, (ast.Tuple, ast.List)) and len(v.elts) == len(t.elts)
                        and not any(isinstance(x, ast.Starred) for x in (*t.elts, *v.elts))):
                    for tt, vv in zip(t.elts, v.elts):
                        bind_target(tt, vv)
                elif (isinstance(v, ast.Name) and v.id in elems
                      and not any(isinstance(x, ast.Starred) for x in t.elts)):
                    for tt in t.elts:  # `a, b = p`, p a tuple of numbers
                        if isinstance(tt, ast.Name):
                            bind(tt.id, lambda num, n=v.id: n + ELEMS in num, False,
                                 lambda num, n=v.id: WORD_BITS if n + ELEM_WORD in num else None)
                        else:
                            bind_target(tt, None)
                elif _is_call_to(v, {"divmod"}) and len(t.elts) == 2 and len(v.args) == 2:
                    for tt in t.elts:  # (both parts within the larger argument's bits)
                        for n in _target_names(tt):
                            bind(n, lambda num, a=v.args: all(_is_num(x, num) for x in a), False,
                                 lambda num, a=v.args: _bits(ast.BoolOp(op=ast.Or(), values=a), num))
                else:
                    for tt in t.elts:
                        bind_target(tt, None)
            elif isinstance(t, ast.Starred):
                bind_target(t.value, None)

        for p in self.params:
            binders[p].append((lambda num: True) if entry and fact(p).is_int else (lambda num: False))
            word = entry and fact(p).word
            bits[p].append(lambda num, word=word: WORD_BITS if word else None)
            texts[p].append(lambda num, p=p: p in strs)  # (declared, and never bound again)
            sizes[p].append(lambda num, sized, p=p: p in declared_sized)

        def visit(stmts):
            for s in stmts:
                if isinstance(s, ast.Assign):
                    for t in s.targets:
                        bind_target(t, s.value)
                elif isinstance(s, ast.AnnAssign) and s.value is not None:
                    bind_target(s.target, s.value)
                elif isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Name):
                    t = s.target
                    e = ast.BinOp(_name(t.id), s.op, s.value)
                    if isinstance(s.op, (ast.Add, ast.Sub)):  # a step of a counter, when small
                        def bits_of(num, v=s.value):
                            b = _bits(v, num)
                            return _STEP if b is not None and b <= _STEP_BITS else None
                    else:
                        bits_of = lambda num, e=e: _bits(e, num)
                    bind(t.id, lambda num, e=e: _is_num(e, num), True, bits_of,
                         is_str=lambda num, e=e: _is_str(e, num),
                         is_sized=lambda num, sized, e=e: _is_sized(e, num, sized))
                elif isinstance(s, ast.For):
                    it, tg = s.iter, s.target
                    if isinstance(tg, ast.Name) and (_is_call_to(it, {"range"}) or (
                            _is_call_to(it, {"reversed"}) and it.args and _is_call_to(it.args[0], {"range"}))):
                        bind(tg.id, lambda num: True, False, lambda num, it=it: _range_bits(it, num))
                    elif isinstance(tg, ast.Name) and isinstance(it, ast.Name) and it.id in elems:
                        bind(tg.id, lambda num, n=it.id: n + ELEMS in num, False,
                             lambda num, n=it.id: WORD_BITS if n + ELEM_WORD in num else None)
                    elif isinstance(tg, ast.Name) and isinstance(it, ast.Name) and it.id in strs:
                        bind(tg.id, lambda num: False, False, is_str=lambda num: True)
                        chars.setdefault(tg.id, []).append(it.id)
                    elif isinstance(tg, ast.Name) and isinstance(it, ast.Name):  # over a str local?
                        bind(tg.id, lambda num: False, False, is_str=lambda num, n=it.id: n + STR in num)
                    elif (_is_call_to(it, {"enumerate"}) and isinstance(tg, ast.Tuple)
                          and len(tg.elts) == 2 and isinstance(tg.elts[0], ast.Name)):
                        bind(tg.elts[0].id, lambda num: True, False,
                             lambda num, it=it: WORD_BITS if len(it.args) == 1 and not it.keywords else None)
                        bind_target(tg.elts[1], None)
                    else:
                        bind_target(tg, None)
                for field in ("body", "orelse"):
                    visit(getattr(s, field, ()) or ())

        visit(fn.body)
        for n in ast.walk(fn):
            if isinstance(n, ast.NamedExpr):
                bind_target(n.target, n.value)
        self.locals = frozenset(binders)
        self.lambdas = frozenset(lambdas)
        # what a parameter's declared type says holds only while it is never bound again
        once = {p for p in self.params if len(binders[p]) == 1}
        # parameters whose facts hold throughout (not bound again, nor shadowed by a comprehension's or lambda's)
        self.trusted = frozenset(once - self.bound) if entry else frozenset()
        self.held = frozenset(held & once)  # ... and their element and length facts too
        declared_sized.update(sized & once)
        strs &= once
        num = set(binders) | {p + ELEMS for p in elems & once} | {p + STR for p in strs}
        # rows of words: marks of the parameters and of the locals bound only to their rows
        row_params = {p for p in held & once if fact(p).row_words}
        if row_params and _rows_stay(fn, {n for n, fs in fresh.items() if fs and all(fs)}, frozenset(),
                                     funcs, self.bound, rowsafe):
            num |= {p + ROW_WORDS for p in row_params}
            num |= {r + m for r in _row_names(fn, row_params, self.params) for m in (ELEMS, ELEM_WORD)}
        num |= {c + CHAR for c, its in chars.items() if len(its) == len(binders[c]) and set(its) <= strs}
        marks = frozenset(n for n in num if n not in binders)
        numbers = _greatest([n for n in num if n in binders],
                            lambda n, known: all(b(marks | known) for b in binders[n]))
        num = marks | numbers
        # ints of at most WORD_BITS bits, names holding only strs, then only sized values:
        # each the greatest set of names all bindings of which keep the property when the
        # names in the set have it (an inductive invariant). A counter (`x += 1`) keeps within
        # WORD_BITS when its assignments stay within _COUNTER_BITS and its steps within
        # _STEP_BITS: an execution runs a statement at most MAX_FUEL + 1 times.
        words = {p + ELEM_WORD for p in elems & once if fact(p).word_elems}

        def word(n, known):
            got = [f(num | words | {k + WORD for k in known}) for f in bits[n]]
            values = [b for b in got if b is not _STEP]
            limit = _COUNTER_BITS if len(values) < len(got) else WORD_BITS
            return None not in values and max(values, default=0) <= limit

        words |= {n + WORD for n in _greatest([n for n in num if n in bits], word)}
        known_strs = _greatest(texts, lambda n, known: all(f(num | {k + STR for k in known}) for f in texts[n]))
        self.num = frozenset(num | words | {n + STR for n in known_strs})
        # (a parameter only when declared and never bound again)
        self.sized = frozenset(_greatest(sizes, lambda n, known: all(f(self.num, known) for f in sizes[n])))
        self.short = frozenset(p for p in self.sized & held if fact(p).short)
        self.rows = frozenset(p for p in self.sized & held if fact(p).short_rows)
        self.lens = {p: f.max_len for p, f in facts.items()
                     if f.max_len is not None and p in declared_sized and p in held}
        self.num |= {p + LEN for p in self.lens}
        fresh_only = {n for n, fs in fresh.items() if fs and all(fs)}
        self.private = frozenset(fresh_only - self._escaping(fn, fresh_only))

    @staticmethod
    def _escaping(fn, names, held: bool = False, keeps: frozenset = frozenset(), bound=None) -> set[str]:
        """Names among `names` whose object may end up reachable some other way; with `held`,
        also those it may be changed through in place (a subscript store, a mutating method:
        B.MUTATING_METHODS) — the names a parameter's declared element and length facts no
        longer hold for (the unpacking `a, b = p` binds its elements, not p). With `held`, an
        argument of a program function at a position in `keeps` stays held: that function
        neither changes, stores, returns nor passes on that parameter except where the same
        holds (passing.py, `keeping`)."""
        if not names:
            return set()
        parent = {}
        for n in ast.walk(fn):
            for c in ast.iter_child_nodes(n):
                parent[c] = n
        if bound is None:
            bound = _bound_names(fn) if keeps else frozenset()
        out = set()
        for n in ast.walk(fn):
            if not (isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in names):
                continue
            p = parent.get(n)
            ok = False
            if isinstance(p, ast.Attribute) and p.value is n:
                gp = parent.get(p)
                ok = isinstance(gp, ast.Call) and gp.func is p and not (held and p.attr in B.MUTATING_METHODS)
            elif isinstance(p, ast.Call):
                f = p.func  # an argument of a builtin, or of a method that stores nothing;
                # held: not one that may be the result, an alias (`max(xs, ys)`, `d.get(k, xs)`;
                # one argument of max/min or the key of get: an element is, not the argument)
                ok = n in p.args and (
                    isinstance(f, ast.Name) and f.id in _BUILTINS
                    and not (held and f.id in B.ELEM_BUILTINS and len(p.args) > 1)
                    or isinstance(f, ast.Attribute) and f.attr not in B.MUTATING_METHODS
                    and not (held and f.attr in B.ELEM_METHODS and n is not p.args[0])
                    or held and _kept_at(p, n, keeps, bound))
            elif isinstance(p, (ast.Compare, ast.BinOp, ast.UnaryOp, ast.Return, ast.FormattedValue)):
                ok = True
            elif isinstance(p, ast.Subscript):
                ok = p.value is n and not (held and not isinstance(p.ctx, ast.Load))
            elif isinstance(p, (ast.For, ast.comprehension)):
                ok = p.iter is n
            elif isinstance(p, ast.Assign) and held:
                ok = all(isinstance(t, (ast.Tuple, ast.List)) for t in p.targets)
            if not ok:
                out.add(n.id)
        return out

    def is_function(self, name: str, shadow) -> bool:
        """A name of one of the module's functions (not shadowed by a local)."""
        return name in self.funcs and name not in shadow

    def list_ok(self, it, nodes, shadow) -> bool:
        """Whether iterating `it` as a list is safe to charge up front: nothing in `nodes`
        (the loop or comprehension body) can change the list's length."""
        if _is_fresh(it):
            return True
        src = it.id if isinstance(it, ast.Name) else None
        callees = set()  # the names of harmless calls (walked after the call itself)
        for n in _walk_many(nodes):
            if isinstance(n, ast.Call):
                f = n.func
                if isinstance(f, ast.Name):
                    if f.id in self.harmless and f.id not in shadow:
                        callees.add(id(f))
                    elif f.id in shadow or f.id not in _BUILTINS:
                        return False
                elif isinstance(f, ast.Attribute):
                    if f.attr in RESIZING_METHODS and not (
                            isinstance(f.value, ast.Name) and f.value.id != src
                            and f.value.id in self.private):
                        return False
                else:
                    return False
            elif isinstance(n, ast.AugAssign):
                if isinstance(n.op, (ast.Add, ast.Mult)) and not _is_num(n.value, self.num):
                    t = n.target
                    if not (isinstance(t, ast.Name) and t.id != src and (t.id in self.private or t.id in self.num)):
                        return False
            elif isinstance(n, ast.Assign):
                for t in n.targets:
                    if any(isinstance(x, ast.Subscript) and isinstance(x.slice, ast.Slice) for x in ast.walk(t)):
                        return False
            elif isinstance(n, ast.Delete):
                return False
            elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and id(n) not in callees:
                if n.id in self.lambdas or self.is_function(n.id, shadow):
                    return False
        return True
