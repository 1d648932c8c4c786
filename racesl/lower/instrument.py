"""Fuel and size-guard instrumentation of lowered bodies (an AST → AST rewrite).

Input: an `ast.Module` of plain `FunctionDef`s in the checked body subset (docs/language.md
§4), with line numbers pointing into the `.races` source. Output: a new module whose
functions charge fuel, refuse oversized values and bound recursion, and otherwise compute
exactly what CPython computes for the input.

Calling convention
------------------
Every function gets two leading parameters: `def f(_races_fuel, _races_depth, *params)`.
`_races_fuel` is the *fuel box* of the running execution, a list whose element 0 holds the
steps left and element 1 the call's wall limit in seconds (read by the watchdog; elements
past 1 are a scratch stack for `any`/`all` refunds; an entry variant, below, uses its
caller's meter as the box, with no wall element); `_races_depth` is the helper nesting
depth. The runtime starts an execution with `f([budget + 1, wall], 0, *args)` (the `+ 1`
pays for the outermost call itself) and reads the steps used back as `budget - box[0]`.
Calls between program functions pass the box along: `h(_races_fuel, _races_depth + 1, x)`.
A function of the module used as a value (`key=h`) becomes a lambda doing that call. A
called name that is neither local, builtin nor a function of this module is called with
the same convention (a function merged into the program later) — or fails with NameError.

Each function also gets an *entry* variant for calls from outside (`Program.function`):
`_races_entry__f(*params, _races_wall=None, _races_f=0, _races_meter=None) -> value`,
the same body whose local counter is the budget parameter `_races_f` itself, with no box
unless a statement needs one (then the meter is the box) and no depth test, which leaves
the fuel it has left in `_races_meter[0]` when it returns (the caller's steps: budget -
meter[0]). The three trailing parameters are set per caller through the function's defaults
(`Program.function` copies the function), so a call costs what a call of the plain body
costs. No watchdog session open sends it through `_races_enter_slow`, which runs the
ordinary variant. An entry without loops, comprehensions or calls needs no watchdog
session (no session test either): it runs a number of bytecodes bounded by its own size over
size-guarded values, which a session could only interrupt between bytecodes anyway. One that
charges nothing at all (no charging builtin or charged `in` either) is the body alone: it
never writes its meter (which holds the whole budget: 0 steps).

Fuel sharing
------------
Each function keeps its own counter in a local variable (`_races_f`, fastest per
MEASURED.md): loaded from the box in the prologue (paying one step for the call) and
written back before every `return`. The box is the truth only at *synchronisation points*:
a statement that contains anything charging the box — a helper call, a charging builtin,
a comprehension or generator, `str.join`, `list.sort`, a call of a lambda — is preceded by
`box[0] = _races_f` and followed by `_races_f = box[0]`; inside it, everything (callees,
lambdas called by `sorted`, comprehension elements) charges the box directly. Statements
without such things never touch the box (a literal `in` charges the local counter inline).
The prologue refuses an empty budget (FuelOut) and, in functions that call others, depth
past MAX_DEPTH (RecursionCut).

Charges (docs/language.md §4.6)
-------------------------------
- `for`/`while`: one step an iteration. `for` loops take one of three shapes:
  A. one tick (`if not f: raise FuelOut; f -= 1`) an iteration: `while` loops, loops inside
     a ticking copy, and loops that may leave early (`break` at their level, `return`)
     whose body charges something itself;
  B. no early exit, over a sized iterable (str, tuple, range, dict, set, dict views; a list
     only when nothing in the body can change its length; `enumerate`/`zip`/`reversed` of
     those, whose own charge is added): the whole length times (1 + the literal-`in` costs
     every iteration pays, see `_fold_in`) is charged on entry when the budget covers it,
     and the loop runs with no per-iteration cost; otherwise a ticking copy runs, so the
     cut-off comes at exactly the iteration per-iteration charging would stop at;
  C. early exit, a body that charges nothing: the length is charged on entry, and at a
     `break` or `return` the iterations not run are refunded (the loop's own iterators'
     `__length_hint__`); otherwise the ticking copy.
- comprehensions and generator expressions: one step an element drawn from each `for`
  clause, charged up front when the source is sized, affordable, and the consumer takes
  every element (list/set/dict comprehensions; a generator passed straight to
  `sum list tuple set dict sorted max min str.join`), else element by element. When the
  comprehension is the first thing its statement evaluates (`return C`, `x = C`,
  `return f(C)` with f one of those consumers or `"literal".join`), its first source is
  evaluated into a temporary before the statement and charged to the local counter there
  (the same moment, the same amount), the statement existing in two copies: one drawing
  the temporary directly, one through `_races_tick_iter`; elsewhere `_races_each` charges
  it when the comprehension starts. With one clause, the direct copy also pays, per
  element, for what each element evaluates exactly once (`_Fx._per_element`): calls of
  leaf functions (one `return E`, no program call), evaluated in place instead of called
  (their one step each), and literal `in` tests (their length); the ticking copy calls.
  A `"sep".join` of such a generator whose elements are texts of at most L characters
  (`_bounded_join`) takes the direct copy only for at most MAX_LEN // (L + len(sep))
  elements, and then calls `str.join` without measuring the text first. An inner list,
  set or dict comprehension over a `range` the same for every row (`_invariant_range`) is
  charged with the rows: len(range) once, times the rows. Rows drawn whole, once each
  (`[[… for x in row] for row in src]`, `[sum(row) for row in src]`, `[… for row in src for
  x in row]`, and in entries `… for x in p[u]` with `u in range(len(p))`), are charged with
  the source too: Σ len(row), measured in C when p's rows are declared sized and short
  (ROWS). A generator passed to `sum`,
  `max` or `min` calls CPython's builtin directly (an unsized argument is charged nothing
  by the builtin); `any(gen)` / `all(gen)` charge their sized source up front and refund
  what they did not consume, when the elements themselves charge nothing. A generator
  that escapes its statement (stored in a variable, passed to a helper or to
  zip/enumerate) is charged its whole source when created, or evaluated eagerly (see
  `_Ex.v_GeneratorExp`).
- helper and lambda calls: one step each.
- builtins over a sequence, `str.join`, `list.sort`, `x in y`: see racesl.runtime.builtins.

Result: a run that succeeds reports exactly the steps of these rules, and a budget of
exactly those steps suffices while one less is cut off (status "fuel"). A run that fails
otherwise (error, assert) may report fewer steps (the box lags the local counter) or, in a
precharged loop, more.

Guards
------
A simple local inference marks names that can only hold numbers (int/bool literals, `len`,
`ord`, `int`, `abs`, `sum` of one argument, `max`/`min` of numbers, comparisons, arithmetic
of numbers, `range` loop variables, `enumerate` indices, `Int` parameters from
`int_params`, names only ever assigned numbers). In entry variants, whose callers pass
values that conform to the declared types (the search, `Library.run`, the rewards and
`racesc run` all check), a parameter declared a List or Tuple of numbers (`p[]` in
`int_params`) and never bound again gives numbers too: its elements as loop and
comprehension variables, its subscripts, and the names it is unpacked into; a parameter
declared a Str, List, Tuple, Dict or Set (`p#`) needs no type test before a builtin charges
its length; one declared a Str (`p$`), its subscripts and the variables of loops and
comprehensions over it are flat (see below), and a character of it (such a variable, `p[i]`)
grows a `+` by one, like a short literal. The refinements declared on the parameters
count as well: an `Int` kept within ±2**63 (`p~`), List/Tuple elements kept so (`p[~`), a
length kept at most MAX_LEN (`p#<`: a builtin over p is charged without a size test) and
that bound (`p#:20`: a `+` of values whose lengths `_len_bound` bounds within MAX_LEN
needs no guard), rows of such lengths (`p[#`). Names every binding of which keeps within
WORD_BITS bits (range and `enumerate` indices, `len`, `%` and `//` of such names, ...:
`_bits`) are marked too, and so are counters (`d = 2` ... `d += 1`: no budget passes
MAX_FUEL, see `_COUNTER_BITS`). Locals that only ever hold a str (`_is_str`) or a sized
value (`_is_sized`) need no type test where `+=` grows them, `in` searches them or a
builtin charges their length. Ordinary variants do not trust parameters that much: they
are called by other bodies, whose arguments only the checker's inference vouches for.
`a + b` is guarded only when neither side is a number or a small literal (a literal can
only grow a value by its own size a step) and `_len_bound` does not keep it within
MAX_LEN; `a * b`, `a ** k`, `a << k` not when the bits of their operands keep the result
within MAX_INT_BITS (`_bits`), nor `a * b` when both are numbers and one a small int
literal; `<<` unless bounded by a literal; `%` unless the left side is a number; f-string
values that are not numbers; `str.replace/zfill/join`, `list.extend/insert`, `*`
unpacking in displays, slice assignment. Guards that pay are
inlined with a type test in front (`(a % b) if _races_type(a) is _races_int else
_races_g_mod(a, b)`; `s += t` on a str appends in place and checks the length after, with
no type test for a name that only ever holds a str (`_is_str`), nor in `x in s`;
`x * x` and `x * <literal>` of numbers test x once). See
racesl.runtime.guards for the guards themselves.

Comparisons and hashing (`_races_g_deep`, see `_Ex.v_Compare`): an operand is measured
only where CPython could walk it — a rich comparison whose *other* side is not flat (a
number, a str, None, an f-string: CPython's containers compare only with their own type,
so a container compared with a flat value is answered at once), the left side of `in`
unless it is flat or the right side is a str literal (a non-str left side raises at once)
or a tuple/list display of flat constants, set-display elements and dict-display keys.
`is` measures nothing. The flat types pass inline: `(x if _races_type(x) in _races_FLAT
else _races_g_deep(x))`. Whether an operand is flat is judged on the original expression,
before guards rewrite it.
"""

from __future__ import annotations

import ast
import json
import sys
from collections.abc import Mapping
from contextlib import contextmanager
from itertools import count

from racesl.lower.effects import RESIZING_METHODS
from racesl.runtime.builtins import BUILTIN_NAMES, CHARGING_BUILTINS
from racesl.runtime.guards import spec_ok
from racesl.runtime.limits import MAX_DEPTH, MAX_FUEL, MAX_INT_BITS, MAX_LEN

__all__ = ["instrument", "lower_to_source", "line_map", "LINEMAP_TAG", "BOX", "DEPTH", "WALL",
           "ENTRY"]

def _clone(x):
    """A deep copy of an AST (node attributes, our `_races_*` marks included). Several times
    faster than `copy.deepcopy`, which was most of the lowering time: no memo, no reduce
    protocol; values that are not nodes or lists (names, constants) are immutable here."""
    if isinstance(x, list):
        return [_clone(v) for v in x]
    if not isinstance(x, ast.AST):
        return x
    new = x.__class__.__new__(x.__class__)
    d = new.__dict__
    for k, v in x.__dict__.items():
        d[k] = _clone(v) if isinstance(v, (ast.AST, list)) else v
    return new


BOX = "_races_fuel"
DEPTH = "_races_depth"
LOC = "_races_f"
WALL = "_races_wall"  # entry functions: (*params, wall, budget, meter)
METER = "_races_meter"  # entry functions: the caller's [fuel left] list
ENTRY = "_races_entry__"  # prefix of the entry function of each function
# `p + ELEMS` in `int_params[f]`: parameter p of f holds a List or Tuple of numbers (trusted in
# entry variants only, whose callers pass values that conform to the declared types)
ELEMS = "[]"
# `p + SIZED` in `int_params[f]`: parameter p of f holds a Str, List, Tuple, Dict or Set (trusted
# the same way): `len(p)` works and a builtin over p is charged len(p) with no type test
SIZED = "#"
# `p + STR` in `int_params[f]`: parameter p of f holds a Str (trusted the same way); in the
# inference's set, also a local that only ever holds a str (`_is_str`)
STR = "$"
CHAR = "'"  # in the inference's set: a name that only ever holds a character of a Str parameter
# `p + WORD` in `int_params[f]`: Int parameter p's declared refinement keeps it within
# ±2**63 (trusted the same way); in the inference's set, any name that only ever holds an
# int of at most WORD_BITS bits (see `_bits`)
WORD = "~"
# `p + ELEM_WORD` in `int_params[f]`: every element of List/Tuple parameter p is such an int
ELEM_WORD = "[~"
# `p + SHORT` in `int_params[f]`: sized parameter p's declared refinement keeps len(p) at most
# MAX_LEN, so a builtin over p needs no size test (trusted the same way)
SHORT = "#<"
# `p + ROWS` in `int_params[f]`: every element of List/Tuple parameter p is a Str, List,
# Tuple, Dict or Set of declared length at most MAX_LEN: Σ len(row) is `sum(map(len, p))`
ROWS = "[#"
# `p + LEN + "20"` in `int_params[f]`: sized parameter p's declared length is at most 20 (in
# the inference's set, `p + LEN` alone: p still holds that value there; see `_len_bound`)
LEN = "#:"
WORD_BITS = 63  # |x| < 2**63: a Py_ssize_t (a length, a range that len() can count)
# a counter: assigned ints of at most _COUNTER_BITS bits, moved by `+=`/`-=` of at most
# _STEP_BITS bits; at most MAX_FUEL + 1 moves an execution keep it within WORD_BITS
_COUNTER_BITS, _STEP_BITS, _STEP = 60, 10, "step"
assert (1 << _COUNTER_BITS) + ((MAX_FUEL + 1) << _STEP_BITS) < 1 << (WORD_BITS - 1)
LINEMAP_TAG = "# races-linemap: "

_BUILTINS = frozenset(BUILTIN_NAMES)
_CONSTS = frozenset({"True", "False", "None"})
# consumers that take every element of a generator passed straight to them
_FULL = frozenset({"sum", "list", "tuple", "set", "dict", "sorted", "max", "min"})
_NUM_CALLS = frozenset({"len", "ord", "abs", "int", "bool", "pow"})
_NUM_METHODS = frozenset({"count", "find", "index", "rfind", "rindex", "isalpha", "isdigit",
                          "islower", "isupper", "isspace", "isalnum", "startswith", "endswith",
                          "randint"})
_FRESH_CALLS = frozenset({"list", "sorted", "dict", "set", "tuple"})
_FRESH_METHODS = frozenset({"split", "copy"})
_GUARDED_METHODS = frozenset({"replace", "zfill", "extend", "insert"})
_INLINE_CHARGED = frozenset({"sum", "max", "min", "any", "all", "sorted", "list", "tuple", "set"})
_NO_POST = frozenset({"sum", "max", "min"})  # builtins whose result is not size-checked
_ONE_ARG = frozenset({"sum", "max", "min", "any", "all", "sorted", "list", "tuple", "set", "dict",
                      "enumerate", "reversed"})
_SMALL = 1 << 64
_SMALL_INT = (1 << 30) - 1  # |x| below it: a one-digit int (CPython's fast int compare)
_LIT_MAX = 256


# ----------------------------------------------------------------- node helpers


def _name(ident: str, store: bool = False) -> ast.Name:
    return ast.Name(id=ident, ctx=ast.Store() if store else ast.Load())


def _call(fn: str, args, keywords=()) -> ast.Call:
    return ast.Call(func=_name(fn), args=list(args), keywords=list(keywords))


def _const(v) -> ast.Constant:
    return ast.Constant(value=v)


def _loc(node, ref):
    """Give `node` the location of `ref` (children without one inherit it later)."""
    for a in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
        if hasattr(ref, a):
            setattr(node, a, getattr(ref, a))
    return node


def _box0(store: bool = False) -> ast.Subscript:
    return ast.Subscript(value=_name(BOX), slice=_const(0), ctx=ast.Store() if store else ast.Load())


def _write(ref) -> ast.stmt:  # box[0] = _races_f
    return _loc(ast.Assign(targets=[_box0(True)], value=_name(LOC)), ref)


def _reload(ref) -> ast.stmt:  # _races_f = box[0]
    return _loc(ast.Assign(targets=[_name(LOC, True)], value=_box0()), ref)


def _assign(ident: str, value, ref) -> ast.stmt:
    return _loc(ast.Assign(targets=[_name(ident, True)], value=value), ref)


def _tick(ref) -> list[ast.stmt]:
    """`if not _races_f: raise FuelOut` / `_races_f -= 1`: one step."""
    return [
        _loc(ast.If(test=ast.UnaryOp(op=ast.Not(), operand=_name(LOC)),
                    body=[ast.Raise(exc=_name("_races_FuelOut"), cause=None)], orelse=[]), ref),
        _loc(ast.AugAssign(target=_name(LOC, True), op=ast.Sub(), value=_const(1)), ref),
    ]


def _lambda_key(call):
    """The `key=lambda ...` of a call, if it has one."""
    for k in call.keywords:
        if k.arg == "key" and isinstance(k.value, ast.Lambda):
            return k.value
    return None


def _is_call_to(e, names) -> bool:
    return isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id in names


def _target_names(t) -> list[str]:
    return [n.id for n in ast.walk(t) if isinstance(n, ast.Name)]


def _small_int_lit(e) -> bool:
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, (ast.USub, ast.UAdd)):
        e = e.operand
    return isinstance(e, ast.Constant) and type(e.value) in (int, bool) and -_SMALL < e.value < _SMALL


def _bounded_lit(e) -> bool:
    """A literal that can grow a value only by its own (small) size."""
    if isinstance(e, ast.Constant):
        v = e.value
        return not isinstance(v, (str, bytes)) or len(v) <= _LIT_MAX
    if isinstance(e, (ast.List, ast.Tuple, ast.Set)):
        return len(e.elts) <= _LIT_MAX and not any(isinstance(x, ast.Starred) for x in e.elts)
    if isinstance(e, ast.Dict):
        return len(e.keys) <= _LIT_MAX and None not in e.keys
    return False


def _static_len(e) -> int | None:
    """len() of a literal `in` right side, known now; 0 for hashed containers."""
    if isinstance(e, ast.Constant) and isinstance(e.value, (str, tuple, bytes)):
        return len(e.value)
    if isinstance(e, (ast.List, ast.Tuple)) and not any(isinstance(x, ast.Starred) for x in e.elts):
        return len(e.elts)
    if isinstance(e, (ast.Set, ast.Dict)):
        return 0
    return None


def _len_stmt(n: str, x, list_ok: bool, ref) -> ast.stmt:
    """`n = len(x)`, or infinity when `x` has no length (iterators, generators; a list whose
    length the loop body might change; a range too long to count):

        try:
            n = _races_len(x)       # or: ... if _races_type(x) is not _races_list else inf
        except _races_LEN_ERRORS:   # (TypeError, OverflowError); zero-cost on 3.11
            n = _races_INF
    """
    size = _call("_races_len", [_clone(x)])
    if not list_ok:
        size = ast.IfExp(test=ast.Compare(left=_call("_races_type", [_clone(x)]), ops=[ast.IsNot()],
                                          comparators=[_name("_races_list")]),
                         body=size, orelse=_name("_races_INF"))
    return _loc(ast.Try(body=[_assign(n, size, ref)],
                        handlers=[ast.ExceptHandler(type=_name("_races_LEN_ERRORS"), name=None,
                                                    body=[_assign(n, _name("_races_INF"), ref)])],
                        orelse=[], finalbody=[]), ref)


def _cheap_num(x, num) -> bool:
    """A number made of known numbers and int literals by `+` and `-` alone: evaluating it
    twice changes nothing and costs less than a guard's call."""
    if isinstance(x, ast.Constant):
        return type(x.value) is int
    if isinstance(x, ast.Name):
        return _is_num(x, num)
    return (isinstance(x, ast.BinOp) and isinstance(x.op, (ast.Add, ast.Sub))
            and _cheap_num(x.left, num) and _cheap_num(x.right, num))


def _paid(cost) -> ast.expr:
    """`(_races_f := _races_f - cost) >= 0`: take `cost` from the local counter and say
    whether it covered it, in one expression."""
    return ast.Compare(left=ast.NamedExpr(target=_name(LOC, True),
                                          value=ast.BinOp(left=_name(LOC), op=ast.Sub(), right=cost)),
                       ops=[ast.GtE()], comparators=[_const(0)])


def _invariant_len(m: str, n: str, x, ref) -> ast.stmt:
    """`m = len(x)` for an inner `range` the same for every one of `n` rows
    (`_Fx._invariant_range`), evaluated once ahead, and only when there are rows: where x
    cannot be evaluated (an error, or a range too long to count) m is infinity, and the copy
    that ticks evaluates it row by row, as the body would.

        try:
            m = _races_len(x) if n else 0
        except _races_Exception:
            m = _races_INF
    """
    size = ast.IfExp(test=_name(n), body=_call("_races_len", [_clone(x)]), orelse=_const(0))
    return _loc(ast.Try(body=[_assign(m, size, ref)],
                        handlers=[ast.ExceptHandler(type=_name("_races_Exception"), name=None,
                                                    body=[_assign(m, _name("_races_INF"), ref)])],
                        orelse=[], finalbody=[]), ref)


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


def _has_break(stmts, kind=ast.Break) -> bool:
    """A `break` (or `continue`, as `kind`) that leaves *this* loop (nested loops' bodies
    excluded, their `else` not)."""
    for s in stmts:
        if isinstance(s, kind):
            return True
        if isinstance(s, ast.If) and (_has_break(s.body, kind) or _has_break(s.orelse, kind)):
            return True
        if isinstance(s, (ast.For, ast.While)) and _has_break(s.orelse, kind):
            return True
    return False


def _has_return(stmts) -> bool:
    return any(isinstance(n, ast.Return) for s in stmts for n in ast.walk(s))


def _walk_many(nodes):
    for n in nodes:
        if n is not None:
            yield from ast.walk(n)


# ----------------------------------------------------------------- analysis


def _is_num(e, num) -> bool:
    """Whether `e` can only evaluate to a number (int, bool) — or raise."""
    if isinstance(e, ast.Constant):
        return type(e.value) in (int, bool, float)
    if isinstance(e, ast.Name):
        return e.id in num
    if isinstance(e, ast.Subscript):  # an element of a parameter whose elements are numbers
        return (isinstance(e.value, ast.Name) and e.value.id + ELEMS in num
                and not isinstance(e.slice, ast.Slice))
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
              and not isinstance(e.slice, ast.Slice))
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


_STR_METHODS = frozenset({"upper", "lower", "strip", "lstrip", "rstrip", "replace", "join", "zfill",
                          "title", "capitalize", "swapcase", "center", "ljust", "rjust"})


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
        return (isinstance(f, ast.Name) and f.id in ("str", "chr", "hex", "bin")
                or isinstance(f, ast.Attribute) and f.attr in _STR_METHODS)
    return False


_SIZED_CALLS = frozenset({"list", "tuple", "set", "dict", "sorted", "str", "chr", "hex", "bin"})
_SIZED_METHODS = _STR_METHODS | {"keys", "values", "items", "split", "copy"}


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


def _comp_nodes(c) -> list:
    """What a comprehension evaluates for each element drawn from its first source: the
    element (key and value), the conditions and the later sources."""
    nodes = [c.elt] if not isinstance(c, ast.DictComp) else [c.key, c.value]
    return nodes + [x for g in c.generators for x in g.ifs] + [g.iter for g in c.generators[1:]]


def _minus(num, names) -> frozenset:
    """`num` inside a scope that binds `names` anew: neither they nor their elements are
    known numbers there."""
    return frozenset(num) - set(names) - {n + m for n in names for m in (ELEMS, STR, CHAR, WORD, ELEM_WORD, LEN)}


def _is_char(e, num) -> bool:
    """A character of a Str parameter: a name marked so, or `p[i]`."""
    if isinstance(e, ast.Name):
        return e.id + CHAR in num
    return (isinstance(e, ast.Subscript) and isinstance(e.value, ast.Name) and e.value.id + STR in num
            and not isinstance(e.slice, ast.Slice))


def _iter_num(it, num) -> bool:
    """Whether iterating `it` yields numbers only: `range(...)`, or a name whose elements
    are numbers (see ELEMS)."""
    return _is_call_to(it, {"range"}) or (isinstance(it, ast.Name) and it.id + ELEMS in num)


def _is_fresh(e) -> bool:
    """Whether `e` evaluates to a new object nothing else refers to."""
    if isinstance(e, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.SetComp, ast.DictComp,
                      ast.Constant, ast.JoinedStr, ast.Tuple)):
        return True
    if isinstance(e, ast.Call):
        if isinstance(e.func, ast.Name):
            return e.func.id in _FRESH_CALLS
        if isinstance(e.func, ast.Attribute):
            return e.func.attr in _FRESH_METHODS
    if isinstance(e, ast.BinOp):
        return isinstance(e.op, (ast.Add, ast.Mult))
    if isinstance(e, ast.Subscript):
        return isinstance(e.slice, ast.Slice)
    if isinstance(e, ast.IfExp):
        return _is_fresh(e.body) and _is_fresh(e.orelse)
    return False


class _Scope:
    """What the rewrite needs to know about one function: its locals; in `num`, the names
    that hold only numbers (and, by their marks, ints of known width, strs, parameters'
    declared facts); the names that hold only sized values (`sized`), the parameters of
    declared short length (`short`, `lens`) or rows (`rows`); and the "private" lists
    (fresh, never stored anywhere else)."""

    def __init__(self, fn: ast.FunctionDef, int_params: frozenset[str], funcs: frozenset[str],
                 entry: bool = False, harmless: frozenset[str] = frozenset()):
        self.funcs = funcs
        self.harmless = harmless  # leaf functions that cannot change the length of a list
        self.params = [a.arg for a in fn.args.args]
        elems = {p for p in self.params if entry and p + ELEMS in int_params}
        sized = {p for p in self.params if entry and p + SIZED in int_params}
        declared_sized: set[str] = set()  # those never bound again (known once all bindings are)
        strs = {p for p in self.params if entry and p + STR in int_params}
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
            binders[p].append((lambda num: True) if p in int_params else (lambda num: False))
            word = entry and p + WORD in int_params
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
        declared_sized.update(sized & once)
        strs &= once
        num = set(binders) | {p + ELEMS for p in elems & once} | {p + STR for p in strs}
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
        words = {p + ELEM_WORD for p in elems & once if p + ELEM_WORD in int_params}

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
        self.short = frozenset(p for p in self.sized if p + SHORT in int_params)
        self.rows = frozenset(p for p in self.sized if p + ROWS in int_params)
        self.lens = {p: int(hi) for p, sep, hi in (m.partition(LEN) for m in int_params)
                     if sep and p in declared_sized}
        self.num |= {p + LEN for p in self.lens}
        fresh_only = {n for n, fs in fresh.items() if fs and all(fs)}
        self.private = frozenset(fresh_only - self._escaping(fn, fresh_only))

    @staticmethod
    def _escaping(fn, names) -> set[str]:
        """Names among `names` whose object may end up reachable some other way."""
        if not names:
            return set()
        parent = {}
        for n in ast.walk(fn):
            for c in ast.iter_child_nodes(n):
                parent[c] = n
        out = set()
        for n in ast.walk(fn):
            if not (isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in names):
                continue
            p = parent.get(n)
            ok = False
            if isinstance(p, ast.Attribute) and p.value is n:
                gp = parent.get(p)
                ok = isinstance(gp, ast.Call) and gp.func is p
            elif isinstance(p, ast.Call):
                ok = (n in p.args and isinstance(p.func, ast.Name) and p.func.id in _BUILTINS)
            elif isinstance(p, (ast.Compare, ast.BinOp, ast.UnaryOp, ast.Return, ast.FormattedValue)):
                ok = True
            elif isinstance(p, ast.Subscript):
                ok = p.value is n
            elif isinstance(p, (ast.For, ast.comprehension)):
                ok = p.iter is n
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


# ----------------------------------------------------------------- expressions

_PLAIN_CALLS = frozenset({"len", "abs", "ord", "chr", "bool", "int", "str", "divmod", "hex", "bin",
                          "pow", "range"})
_SPECIAL_ITERS = ("enumerate", "zip", "reversed")


def _special_iter(it, shadow) -> str | None:
    """'enumerate' / 'zip' / 'reversed' when `it` is a plain call of that builtin (whose
    length follows from its arguments), else None."""
    if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name)):
        return None
    kind = it.func.id
    if kind not in _SPECIAL_ITERS or kind in shadow or any(isinstance(a, ast.Starred) for a in it.args):
        return None
    if kind == "enumerate":
        ok = (1 <= len(it.args) + len(it.keywords) <= 2 and len(it.args) >= 1
              and all(k.arg == "start" for k in it.keywords))
    elif kind == "zip":
        ok = not it.keywords
    else:
        ok = len(it.args) == 1 and not it.keywords
    return kind if ok else None


def _pure(stmts, shadow) -> bool:
    """Whether running `stmts` can charge no fuel at all (no loops, helper or charging
    calls, comprehensions, lambdas, charged `in`)."""
    for n in _walk_many(stmts):
        if isinstance(n, (ast.For, ast.While, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
                          ast.GeneratorExp)):
            return False
        if isinstance(n, ast.Call):
            f = n.func
            if isinstance(f, ast.Name):
                if f.id in shadow:
                    return False
                if f.id in ("max", "min"):
                    if len(n.args) < 2 or any(isinstance(a, ast.Starred) for a in n.args):
                        return False
                elif f.id not in _PLAIN_CALLS:
                    return False
            elif not (isinstance(f, ast.Attribute) and f.attr not in ("join", "sort")):
                return False
        elif isinstance(n, ast.Compare):
            for op, c in zip(n.ops, n.comparators):
                if isinstance(op, (ast.In, ast.NotIn)) and _static_len(c) != 0:
                    return False
    return True


def _unconditional(roots, stop=lambda e: False):
    """The nodes of the expressions `roots` that are evaluated whenever the roots are: not
    behind `and`/`or` (but the first operand), a conditional (but its test) or a chained
    comparison (but its first pair), nor inside a lambda or comprehension; in order of
    evaluation. `stop(e)` keeps the walk out of e's children."""
    stack = list(reversed(roots))
    while stack:
        e = stack.pop()
        yield e
        if stop(e):
            continue
        if isinstance(e, ast.BoolOp):
            kids = [e.values[0]]
        elif isinstance(e, ast.IfExp):
            kids = [e.test]
        elif isinstance(e, ast.Compare):
            kids = [e.left, e.comparators[0]]
        elif isinstance(e, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            kids = []
        else:
            kids = list(ast.iter_child_nodes(e))
        stack.extend(reversed(kids))


def _text_bound(e, chars: set, inline: dict, shadow) -> int | None:
    """The most characters the text `e` can have, or None when unknown: a str literal, a
    `chr(...)`, a name in `chars` (one character each), a literal's `[i]`, a `+` or a
    conditional of those, a leaf call evaluated in place (its expression)."""
    if isinstance(e, ast.Constant):
        return len(e.value) if isinstance(e.value, str) else None
    if isinstance(e, ast.Name):
        return 1 if e.id in chars else None
    if e in inline:
        return _text_bound(inline[e], chars, {}, shadow)
    if isinstance(e, ast.Call):
        f = e.func
        return 1 if isinstance(f, ast.Name) and f.id == "chr" and f.id not in shadow and len(e.args) == 1 else None
    if isinstance(e, ast.Subscript):
        lit = e.value
        return 1 if (isinstance(lit, ast.Constant) and isinstance(lit.value, str)
                     and not isinstance(e.slice, ast.Slice)) else None
    if isinstance(e, ast.IfExp) or (isinstance(e, ast.BinOp) and isinstance(e.op, ast.Add)):
        a, b = (e.body, e.orelse) if isinstance(e, ast.IfExp) else (e.left, e.right)
        x, y = _text_bound(a, chars, inline, shadow), _text_bound(b, chars, inline, shadow)
        if x is None or y is None:
            return None
        return max(x, y) if isinstance(e, ast.IfExp) else x + y
    return None


def _literal_tests(nodes) -> list:
    """(test, length) for the `x in "literal"` / `not in` tests among `nodes`."""
    out = []
    for x in nodes:
        if isinstance(x, ast.Compare) and len(x.ops) == 1 and isinstance(x.ops[0], (ast.In, ast.NotIn)):
            n = _static_len(x.comparators[0])
            if n:
                out.append((x, n))
    return out


def _fold_in(stmts) -> int:
    """Mark the literal `x in "..."` tests that every iteration of a loop over `stmts`
    evaluates exactly once (tests of top-level statements, in unconditionally evaluated
    positions) as free, and return what they cost together: the loop charges it per
    iteration up front. Nothing is folded when the body may `continue`."""
    if _has_break(stmts, ast.Continue):
        return 0
    roots = [s.test for s in stmts if isinstance(s, (ast.If, ast.Assert))]
    roots += [s.value for s in stmts if isinstance(s, (ast.Assign, ast.AugAssign, ast.Expr))]
    tests = _literal_tests(_unconditional(roots))
    for t, _ in tests:
        t._races_free = True
    return sum(n for _, n in tests)


class _Ex:
    """Rewrites one expression.

    mode "local": charges may go to the function's local counter (through `:=`); mode
    "box": every charge goes to the box. `box` / `local` record what was emitted.
    `nested`: inside a lambda or comprehension (only the box is reachable). `walrus`:
    function-scope temporaries may be bound with `:=` here."""

    def __init__(self, fx: "_Fx", mode: str, nested: bool, num, shadow, walrus: bool):
        self.fx = fx
        self.mode = mode
        self.nested = nested
        self.num = num
        self.shadow = shadow
        self.walrus = walrus and not nested
        self.box = False
        self.local = False

    def child(self, *, nested=True, num=None, shadow=None) -> "_Ex":
        """A context charging only the box, without `:=`: lambdas, comprehensions
        (nested=True), a comprehension's first iterable and f-string parts (nested=False)."""
        return _Ex(self.fx, "box", nested, self.num if num is None else num,
                   self.shadow if shadow is None else shadow, False)

    def absorb(self, c: "_Ex") -> None:
        self.box |= c.box
        self.local |= c.local

    def visit(self, e):
        if e is None:
            return None
        m = getattr(self, "v_" + type(e).__name__, None)
        return m(e) if m is not None else self.generic(e)

    def generic(self, e):
        for field, old in ast.iter_fields(e):
            if isinstance(old, list):
                setattr(e, field, [self.visit(x) if isinstance(x, ast.expr) else self.other(x)
                                   for x in old])
            elif isinstance(old, ast.expr):
                setattr(e, field, self.visit(old))
            elif isinstance(old, ast.AST):
                self.other(old)
        return e

    def other(self, x):
        if isinstance(x, ast.keyword):
            x.value = self.visit(x.value)
        return x

    # -- names

    def v_Name(self, e):
        if isinstance(e.ctx, ast.Load) and self.fx.scope.is_function(e.id, self.shadow):
            # a helper used as a value (e.g. key=helper): adapt it to the convention
            self.box = True
            self.fx.calls = True
            star = "_races_args"
            args = ast.arguments(posonlyargs=[], args=[], vararg=ast.arg(arg=star), kwonlyargs=[],
                                 kw_defaults=[], kwarg=None, defaults=[])
            body = ast.Call(func=_name(e.id), args=[_name(BOX), self._depth1(), ast.Starred(
                value=_name(star), ctx=ast.Load())], keywords=[])
            return _loc(ast.Lambda(args=args, body=body), e)
        return e

    def _depth1(self):
        return ast.BinOp(left=_name(DEPTH), op=ast.Add(), right=_const(1))

    # -- arithmetic

    def guard_for(self, op, left, right, inplace=False) -> str | None:
        """The guard `left op right` needs, judged on the original operands, or None."""
        num = self.num
        if isinstance(op, ast.Add):
            if (_is_num(left, num) or _is_num(right, num) or _bounded_lit(left)
                    or _bounded_lit(right) or _is_char(left, num) or _is_char(right, num)):
                return None  # (a character, like a short literal, grows a value by its size)
            a, b = _len_bound(left, num, self.fx.scope.lens), _len_bound(right, num, self.fx.scope.lens)
            if a is not None and b is not None and a + b <= MAX_LEN:
                return None  # two values of known, short lengths
            return "_races_g_iadd" if inplace else "_races_g_add"
        if isinstance(op, (ast.Mult, ast.Pow, ast.LShift)):
            b = _bits(ast.BinOp(left=left, op=op, right=right), num)
            if b is not None and b <= MAX_INT_BITS:
                return None  # ints whose bounds keep the result small (`_bits`)
        if isinstance(op, ast.Mult):
            if _is_num(left, num) and _is_num(right, num) and (
                    _small_int_lit(left) or _small_int_lit(right)):
                return None
            return "_races_g_imul" if inplace else "_races_g_mul"
        if isinstance(op, ast.Pow):
            return "_races_g_pow"
        if isinstance(op, ast.LShift):
            if (_is_num(left, num) and isinstance(right, ast.Constant)
                    and type(right.value) is int and right.value <= 64):
                return None
            return "_races_g_lshift"
        if isinstance(op, ast.Mod):
            return None if _is_num(left, num) else "_races_g_mod"
        return None

    def v_BinOp(self, e):
        inner = getattr(e, "_races_inner", False)
        guard = None if inner else self.guard_for(e.op, e.left, e.right)
        if guard == "_races_g_add" or inner:
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
                    return _loc(ast.IfExp(test=self._is_type(probe, "_races_int"),
                                          body=ast.BinOp(left=_clone(left), op=ast.Add(),
                                                         right=_clone(right)),
                                          orelse=call), ref)
                return call
            t = self.fx.tmp("t")
            built = ast.NamedExpr(target=_name(t, True), value=ast.BinOp(left=left, op=ast.Add(),
                                                                         right=right))
            ok = ast.BoolOp(op=ast.Or(), values=[
                ast.Compare(left=_call("_races_type", [built]), ops=[ast.NotIn()],
                            comparators=[_name("_races_SEQ")]),
                ast.Compare(left=_call("_races_len", [_name(t)]), ops=[ast.LtE()],
                            comparators=[_const(MAX_LEN)])])
            return _loc(ast.IfExp(test=ok, body=_name(t), orelse=_call("_races_g_post", [_name(t)])), ref)
        if not (isinstance(left, simple) and isinstance(right, simple)):
            return call
        if isinstance(op, ast.Mod) and isinstance(left, ast.Name):
            test = self._is_type(left, "_races_int")
        elif isinstance(op, ast.Mult):
            tests, seen = [], set()
            for x in (left, right):
                if isinstance(x, ast.Name):
                    if x.id not in seen:
                        seen.add(x.id)
                        tests += [self._is_type(x, "_races_int"), self._small(x)]
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
        return ast.Compare(left=_call("_races_type", [_clone(x)]), ops=[ast.Is()],
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
            return _loc(_call("_races_g_deep", [x]), x)
        test = ast.Compare(left=_call("_races_type", [probe]), ops=[ast.In()],
                           comparators=[_name("_races_FLAT")])
        return _loc(ast.IfExp(test=test, body=use, orelse=_call("_races_g_deep", [_clone(use)])), x)

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

    def _charge_in(self, c, n):
        if self.mode == "local" and not self.nested:
            self.local = True
            if n is not None:  # literal: charge its known length
                dec, val = _const(n), c
            elif isinstance(c, ast.Name) and c.id + STR in self.num:  # a str: its length
                dec, val = _call("_races_len", [_clone(c)]), c
            else:
                t = self.fx.tmp("t")  # (len(t) if type(t := c) in {str, list, tuple} else 0)
                dec = ast.IfExp(
                    test=ast.Compare(left=_call("_races_type", [ast.NamedExpr(target=_name(t, True), value=c)]),
                                     ops=[ast.In()], comparators=[_name("_races_SEQ")]),
                    body=_call("_races_len", [_name(t)]), orelse=_const(0))
                val = _name(t)
            return _loc(ast.IfExp(test=_paid(dec), body=val, orelse=_call("_races_fuel_out", [])), c)
        self.box = True
        return _loc(_call("_races_in_arg", [_name(BOX), c]), c)

    # -- calls

    def _args(self, args, full_first=False):
        out = []
        for i, a in enumerate(args):
            if i == 0 and full_first and isinstance(a, ast.GeneratorExp):
                out.append(self.v_comp(a, full=True))
            else:
                out.append(self.visit(a))
        return out

    def _kws(self, kws):
        for k in kws:
            k.value = self.visit(k.value)
        return kws

    def v_Call(self, e):
        f = e.func
        if isinstance(f, ast.Name):
            name = f.id
            if name in self.shadow:  # a local holding a lambda
                self.box = True
                return self.generic(e)
            plain = not any(isinstance(a, ast.Starred) for a in e.args)
            if (name in ("max", "min") and plain and len(e.args) >= 2  # not over a sequence
                    and not any(k.arg == "key" for k in e.keywords)):  # (a key may charge)
                return _loc(_call("_races_" + name, self._args(e.args), self._kws(e.keywords)), e)
            if (name in ("any", "all") and len(e.args) == 1 and not e.keywords
                    and isinstance(e.args[0], ast.GeneratorExp)):
                return self._any_all(name, e)
            keyed = self._keyed(name, e)
            if keyed is not None:
                return keyed
            reverse_only = name == "sorted" and all(  # (a name or literal: nothing to charge or raise)
                k.arg == "reverse" and isinstance(k.value, (ast.Name, ast.Constant)) for k in e.keywords)
            if (name in _INLINE_CHARGED and plain and len(e.args) == 1 and (not e.keywords or reverse_only)
                    and self.mode == "local" and self.walrus and not isinstance(e.args[0], ast.GeneratorExp)):
                return self._charged_inline(name, e)
            if getattr(e, "_races_ahead", False) and self.fx.src_fast:  # see `_nested_charge`
                return _loc(_call("_races_" + name, self._args(e.args)), e)
            if name in CHARGING_BUILTINS:
                self.box = True
                args = self._args(e.args, full_first=name in _FULL)
                if name in _ONE_ARG and plain and len(args) == 1 and not e.keywords:
                    if name in _NO_POST and isinstance(e.args[0], ast.GeneratorExp):
                        # an unsized argument: the builtin charges nothing (its elements
                        # are charged as they are drawn) and checks nothing after
                        return _loc(_call("_races_" + name, args), e)
                    return _loc(_call("_races_bi1_" + name, [_name(BOX), *args]), e)
                return _loc(_call("_races_bi_" + name, [_name(BOX), *args], self._kws(e.keywords)), e)
            if name == "str" and len(e.args) == 1 and not e.keywords and _is_num(e.args[0], self.num):
                return _loc(_call("_races_str", self._args(e.args)), e)
            if name == "pow" and plain and len(e.args) == 3 and not e.keywords:
                # `pow(a, b, m)` is bounded by m: the builtin itself (the guard adds nothing)
                return _loc(_call("_races_pow_mod", self._args(e.args)), e)
            if name in _BUILTINS or name in _CONSTS:
                return self.generic(e)
            inline = getattr(e, "_races_inline", None)
            if inline is not None and self.fx.src_fast:  # its step is charged with the source
                return self.visit(_clone(inline))
            self.box = True  # a program function
            self.fx.calls = True
            args = self._args(e.args)
            e.args = [_name(BOX), self._depth1(), *args]
            e.keywords = self._kws(e.keywords)
            return e
        if isinstance(f, ast.Attribute):
            attr = f.attr
            recv = self.visit(f.value)
            if attr == "join" and len(e.args) == 1 and not e.keywords:
                if self.mode == "local" and self.walrus and not isinstance(e.args[0], ast.GeneratorExp):
                    return self._charged_inline("join", e, recv=recv)
                self.box = True
                arg = self._args(e.args, full_first=True)
                if getattr(e, "_races_join_free", False) and self.fx.src_fast:  # see `_bounded_join`
                    f.value, e.args = recv, arg
                    return e
                if (isinstance(e.args[0], ast.GeneratorExp) and isinstance(f.value, ast.Constant)
                        and isinstance(f.value.value, str)):
                    # `"sep".join(gen)`: nothing to charge up front (the generator charges its
                    # elements as it makes them), only the size of the text to check
                    return _loc(_call("_races_g_join", [recv, *arg]), e)
                return _loc(_call("_races_meth_join", [_name(BOX), recv, *arg]), e)
            if attr == "sort" and not e.args and _lambda_key(e) is not None:
                self.box = True
                return _loc(_call("_races_meth_sort_key", [_name(BOX), recv], self._key_kws(e.keywords)), e)
            if attr == "sort":
                self.box = True
                return _loc(_call("_races_meth_sort", [_name(BOX), recv, *self._args(e.args)],
                                  self._kws(e.keywords)), e)
            if attr in _GUARDED_METHODS:
                return _loc(_call("_races_meth_" + attr, [recv, *self._args(e.args)],
                                  self._kws(e.keywords)), e)
            f.value = recv
            e.args = self._args(e.args)
            e.keywords = self._kws(e.keywords)
            return e
        self.box = True
        return self.generic(e)

    def _charged_inline(self, name, e, recv=None):
        """`sum(x)` (also max min any all sorted list tuple set of one argument, and
        `sep.join(x)` with `recv` = sep) charging the local counter:
        `(_races_sum(t) if ((n := (len(t) if _races_type(t := x) in _races_SZ else
        _races_clen(t))) <= MAX_LEN) & ((_races_f := _races_f - n) >= 0) else
        _races_charge_fail(t, n))` — the same charge and bounds as `_races_bi1_sum`, without
        a box sync. (In a statement that needs no box, the argument cannot be a generator
        that charges as it is consumed: see `v_GeneratorExp`.) A list, tuple or set built
        from an unsized argument is checked after (`_races_g_szl`); `join` checks the text
        it would build (`_races_g_join`)."""
        self.local = True
        arg = e.args[0]
        known = _is_sized(arg, self.num, self.fx.scope.sized)  # (no type test)
        x = self.visit(arg)
        if known and isinstance(arg, ast.Name) and arg.id in self.fx.scope.short:
            return self._charged_short(name, e, x, recv)
        t, n = self.fx.tmp("t"), self.fx.tmp("t")
        if known:
            size = _call("_races_len", [ast.NamedExpr(target=_name(t, True), value=x)])
        else:
            size = ast.IfExp(test=ast.Compare(left=_call("_races_type", [ast.NamedExpr(target=_name(t, True), value=x)]),
                                              ops=[ast.In()], comparators=[_name("_races_SZ")]),
                             body=_call("_races_len", [_name(t)]), orelse=_call("_races_clen", [_name(t)]))
        fits = ast.Compare(left=ast.NamedExpr(target=_name(n, True), value=size), ops=[ast.LtE()],
                           comparators=[_const(MAX_LEN)])
        paid = _paid(_name(n))
        kws = self._kws(e.keywords)  # (`reverse=` of sorted: the only keyword taken here)
        if recv is not None:
            body = _call("_races_g_join", [recv, _name(t)])
        elif name in ("sorted", "list", "tuple", "set") and known:
            body = _call("_races_" + name, [_name(t)], kws)
        elif name in ("sorted", "list", "tuple", "set"):
            built = _call("_races_" + name, [_name(t)], kws)
            body = ast.IfExp(test=ast.Compare(left=_call("_races_type", [_name(t)]), ops=[ast.In()],
                                              comparators=[_name("_races_SZ")]),
                             body=built, orelse=_call("_races_g_szl", [_clone(built)]))
        else:
            body = _call("_races_" + name, [_name(t)])
        return _loc(ast.IfExp(test=ast.BinOp(left=fits, op=ast.BitAnd(), right=paid), body=body,
                              orelse=_call("_races_charge_fail", [_name(t), _name(n)])), e)

    def _charged_short(self, name, e, x, recv):
        """`_charged_inline` over a parameter whose declared length is at most MAX_LEN
        (SHORT): no size test, and the name is read again instead of kept in a temporary —
        `(_races_sum(p) if (_races_f := _races_f - _races_len(p)) >= 0 else
        _races_charge_fail(p, _races_len(p)))`."""
        size = _call("_races_len", [_clone(x)])
        paid = _paid(size)
        if recv is not None:
            body = _call("_races_g_join", [recv, _clone(x)])
        else:
            body = _call("_races_" + name, [_clone(x)], self._kws(e.keywords))
        return _loc(ast.IfExp(test=paid, body=body,
                              orelse=_call("_races_charge_fail", [_clone(x), _clone(size)])), e)

    def _keyed(self, name, e):
        """`sorted(xs, key=lambda ...)`, `max/min(xs, key=lambda ...)`: the builtin calls the
        key exactly once an element, so the runtime charges those calls up front with the
        builtin's own charge, and the lambda itself does not tick."""
        if name not in ("sorted", "max", "min") or _lambda_key(e) is None or not e.args:
            return None
        if any(isinstance(a, ast.Starred) for a in e.args):
            return None
        self.box = True
        if len(e.args) == 1:
            args = self._args(e.args, full_first=True)
            fn = "_races_bi_sorted_key" if name == "sorted" else f"_races_bi_{name}_key"
        else:
            if name == "sorted":
                return None
            args = self._args(e.args)
            fn = f"_races_{name}n_key"
        return _loc(_call(fn, [_name(BOX), *args], self._key_kws(e.keywords)), e)

    def _key_kws(self, kws):
        for k in kws:
            if k.arg == "key" and isinstance(k.value, ast.Lambda):
                k.value = self.v_Lambda(k.value, tick=False)
            else:
                k.value = self.visit(k.value)
        return kws

    def _any_all(self, name, e):
        """`any(gen)` / `all(gen)` stop early: each element consumed costs one step. With one
        `for` clause over a sized source and an element that charges nothing itself, the
        source is charged up front and what was not consumed is refunded afterwards
        (`_races_src` / `_races_any_gen`); otherwise the source ticks element by element."""
        self.box = True
        g = e.args[0]
        if len(g.generators) == 1:
            if not self._elements_charge(g):
                gen = self.v_comp(g, full=False, refund=True)
                return _loc(_call(f"_races_{name}_gen", [_name(BOX), gen]), e)
        gen = self.v_comp(g, full=False)
        return _loc(_call("_races_bi_" + name, [_name(BOX), gen]), e)

    def _elements_charge(self, g) -> bool:
        """Do the conditions or the element of `g` (one `for` clause) charge the box? Judged
        on a copy, visited as the clause's own scope."""
        probe = self.child()
        bound = set(_target_names(g.generators[0].target))
        probe.num, probe.shadow = _minus(self.num, bound), self.shadow | bound
        trial = _clone(g)
        for c in trial.generators[0].ifs:
            probe.visit(c)
        probe.visit(trial.elt)
        return probe.box

    # -- nested scopes

    def v_Lambda(self, e, tick: bool = True):
        a = e.args
        params = {x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs)}
        params |= {x.arg for x in (a.vararg, a.kwarg) if x is not None}
        c = self.child(num=_minus(self.num, params), shadow=self.shadow | params)
        body = c.visit(e.body)
        if tick:
            t = _call("_races_lambda_tick", [_name(BOX)])
            body = _loc(ast.BoolOp(op=ast.Or(), values=[t, body]), e.body)
        e.body = body
        return e

    def v_ListComp(self, e):
        return self.v_comp(e, full=True)

    v_SetComp = v_DictComp = v_ListComp

    def v_GeneratorExp(self, e):
        """A generator that escapes the statement creating it (stored, passed to a helper,
        to zip/enumerate, returned) is consumed later, possibly between synchronisation
        points while the local counter is the truth — so it must not charge anything then.
        With one `for` clause and elements that charge nothing themselves, it stays lazy
        (late binding intact) and its source is charged whole when it is created
        (`_races_esc`); otherwise it is evaluated eagerly, `iter([...])`, charged like a
        list comprehension. (Consuming it only partly still costs its whole length.)"""
        if len(e.generators) == 1:
            g = e.generators[0]
            if not self._elements_charge(e):
                bound = set(_target_names(g.target))
                outer = self.child(nested=self.nested)
                g.iter = _loc(_call("_races_esc", [_name(BOX), outer.visit(g.iter)]), g.iter)
                self.absorb(outer)
                inner = self.child(num=_minus(self.num, bound), shadow=self.shadow | bound)
                g.ifs = [inner.visit(c) for c in g.ifs]
                e.elt = inner.visit(e.elt)
                self.box = True
                return e
        comp = _loc(ast.ListComp(elt=e.elt, generators=e.generators), e)
        return _loc(_call("_races_iter", [self.v_comp(comp, full=True)]), e)

    def v_comp(self, e, full: bool, refund: bool = False):
        gens = e.generators
        bound, ranged, chars = set(), set(), set()
        for g in gens:  # targets over `range` or a name whose elements are numbers, or a Str
            names = _target_names(g.target)
            ranged.difference_update(names)
            ranged.difference_update(n + WORD for n in names)
            chars.difference_update(names)
            outer = _minus(self.num, bound) | ranged
            if isinstance(g.target, ast.Name) and _iter_num(g.iter, outer):
                ranged.add(g.target.id)
                b = _range_bits(g.iter, outer) if _is_call_to(g.iter, {"range"}) else (
                    WORD_BITS if g.iter.id + ELEM_WORD in outer else None)
                if b is not None and b <= WORD_BITS:
                    ranged.add(g.target.id + WORD)
            elif isinstance(g.target, ast.Name) and isinstance(g.iter, ast.Name) and g.iter.id + STR in outer:
                chars.add(g.target.id)
            bound.update(names)
        shadow = self.shadow | bound
        inner_nodes = _comp_nodes(e)
        oks = [self.fx.scope.list_ok(g.iter, inner_nodes, shadow) for g in gens]
        lazy = isinstance(e, ast.GeneratorExp) and not full
        outer = self.child(nested=self.nested)  # the first iterable: enclosing scope, box only
        inner = self.child(num=_minus(self.num, bound) | ranged | {c + CHAR for c in chars}, shadow=shadow)

        hoisted = getattr(e, "_races_src", None) if full and not refund else None

        def source(g, ok, ex, first):
            it = g.iter
            if getattr(g, "_races_src_free", False) and self.fx.src_fast:
                return ex.visit(it)  # charged ahead with the rows (`_Fx._nested_charge`)
            if first and hoisted is not None:  # charged ahead by the statement (`_hoist_source`)
                src = _name(hoisted)
                return src if self.fx.src_fast else _loc(_call("_races_tick_iter", [_name(BOX), src]), it)
            kind = None if lazy else _special_iter(it, ex.shadow)
            if kind is not None:  # charge the builtin and the elements together
                args = [ex.visit(a) for a in it.args]
                return _loc(_call(f"_races_each_{kind}", [_name(BOX), _const(ok), *args],
                                  ex._kws(it.keywords)), it)
            it = ex.visit(it)
            if refund and first:
                return _loc(_call("_races_src", [_name(BOX), it, _const(ok)]), it)
            if lazy:
                return _loc(_call("_races_tick_iter", [_name(BOX), it]), it)
            return _loc(_call("_races_each", [_name(BOX), it, _const(ok)]), it)

        gens[0].iter = source(gens[0], oks[0], outer, True)
        self.absorb(outer)
        for g, ok in zip(gens[1:], oks[1:]):
            g.iter = source(g, ok, inner, False)
        for g in gens:
            g.ifs = [inner.visit(c) for c in g.ifs]
        if isinstance(e, ast.DictComp):
            e.key = inner.visit(e.key)
            e.value = inner.visit(e.value)
        else:
            e.elt = inner.visit(e.elt)
        self.absorb(inner)
        self.box = True
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
                v.value = _loc(_call("_races_g_fmt", [val, _const(v.conversion), spec_node]), v)
                v.conversion = -1
                v.format_spec = None
                unbounded += 1
            elif numeric:
                v.value = val
            elif walrus:  # (t if type(t := v) in {str, int, bool} else _races_g_fv(t))
                t = self.fx.tmp("t")
                test = ast.Compare(left=_call("_races_type", [ast.NamedExpr(target=_name(t, True), value=val)]),
                                   ops=[ast.In()], comparators=[_name("_races_TEXT")])
                v.value = _loc(ast.IfExp(test=test, body=_name(t), orelse=_call("_races_g_fv", [_name(t)])), v)
                unbounded += 1
            else:
                v.value = _loc(_call("_races_g_fv", [val]), v)
                unbounded += 1
        self.absorb(c)
        if unbounded < 2:
            return e
        if walrus:
            t = self.fx.tmp("t")
            test = ast.Compare(left=_call("_races_len", [ast.NamedExpr(target=_name(t, True), value=e)]),
                               ops=[ast.LtE()], comparators=[_const(MAX_LEN)])
            return _loc(ast.IfExp(test=test, body=_name(t), orelse=_call("_races_g_szs", [_name(t)])), e)
        return _loc(_call("_races_g_szs", [e]), e)

    # -- displays

    def _display(self, e):
        e = self.generic(e)
        if isinstance(getattr(e, "ctx", None), ast.Load) and any(isinstance(x, ast.Starred) for x in e.elts):
            return _loc(_call("_races_g_szl", [e]), e)
        return e

    v_List = v_Tuple = _display
    v_Set = _set_display  # elements get hashed: measured first (see _deep)

    # -- assignment targets

    def target(self, t):
        """Rewrite the expressions inside an assignment target (subscript bases/indices)."""
        if isinstance(t, (ast.Tuple, ast.List)):
            t.elts = [self.target(x) for x in t.elts]
        elif isinstance(t, ast.Starred):
            t.value = self.target(t.value)
        elif isinstance(t, (ast.Subscript, ast.Attribute)):
            t.value = self.visit(t.value)
            if isinstance(t, ast.Subscript):
                t.slice = self.visit(t.slice)
        return t


# ----------------------------------------------------------------- statements


def _none(e):
    return None


# the operand an expression evaluates first (followed by `_Fx._first_comp`)
_FIRST_EVALUATED = {
    ast.BinOp: lambda e: e.left,
    ast.Compare: lambda e: e.left,
    ast.UnaryOp: lambda e: e.operand,
    ast.BoolOp: lambda e: e.values[0],
    ast.IfExp: lambda e: e.test,
    ast.Subscript: lambda e: e.value,
    ast.Tuple: lambda e: e.elts[0] if e.elts and not isinstance(e.elts[0], ast.Starred) else None,
    ast.List: lambda e: e.elts[0] if e.elts and not isinstance(e.elts[0], ast.Starred) else None,
}


class _MeterReturns(ast.NodeTransformer):
    """An entry's returns: `return v` when its body charges nothing (the meter keeps the
    whole budget: 0 steps) or the box (the meter) holds the fuel left, else `_races_r = v;
    _races_meter[0] = _races_f; return _races_r`."""

    def __init__(self, charges: bool):
        self.charges = charges

    def block(self, stmts: list[ast.stmt]) -> list[ast.stmt]:
        out = []
        for s in stmts:
            r = self.visit(s)
            out.extend(r if isinstance(r, list) else [r])
        return out

    def visit_Return(self, node):
        steps = getattr(node, "_races_left", None)
        if steps is None or not self.charges:
            return node
        tmp = "_races_r"
        meter = ast.Subscript(value=_name(METER), slice=_const(0), ctx=ast.Store())
        return [_assign(tmp, node.value, node),
                _loc(ast.Assign(targets=[meter], value=steps), node),
                _loc(ast.Return(value=_name(tmp)), node)]


class _Fx:
    """Rewrites one function."""

    def __init__(self, fn: ast.FunctionDef, int_params: frozenset[str], counter, funcs,
                 entry: bool = False, leaves: dict | None = None):
        self.fn = fn
        self.entry = entry
        self.leaves = leaves or {}
        self.scope = _Scope(fn, int_params, funcs, entry,
                            frozenset(k for k, (_, _, harmless) in self.leaves.items() if harmless))
        self.counter = counter
        self.calls = False  # calls a program function (so its depth must be checked)
        self.refund = None  # inside a precharged loop that may exit early: the refund stmt
        self.src_fast = True  # building the charged-ahead copy of a statement (`_hoist_source`)

    def tmp(self, kind: str) -> str:
        return f"_races_{kind}{next(self.counter)}"

    def ex(self, mode: str) -> _Ex:
        return _Ex(self, mode, False, self.scope.num, self.scope.locals, True)

    def run(self) -> ast.FunctionDef:
        fn = self.fn
        if fn.args.vararg or fn.args.kwarg or fn.args.kwonlyargs or fn.args.defaults or fn.decorator_list:
            raise ValueError(f"{fn.name}: only plain positional parameters are supported")
        if self.entry:
            return self._run_entry()
        ref = fn
        body = self.block(fn.body, fast=True)
        empty = ast.Compare(left=_name(LOC), ops=[ast.Lt()], comparators=[_const(0)])
        deep = ast.Compare(left=_name(DEPTH), ops=[ast.Gt()], comparators=[_const(MAX_DEPTH)])
        prologue = [
            _assign(LOC, ast.BinOp(left=_box0(), op=ast.Sub(), right=_const(1)), ref),
            _loc(ast.If(  # a function that calls none cannot nest deeper: skip the depth test
                test=ast.BoolOp(op=ast.Or(), values=[empty, deep]) if self.calls else empty,
                body=[ast.Expr(value=_call("_races_entry_fail", [_name(LOC), _name(DEPTH)]))],
                orelse=[]), ref),
        ]
        end = fn.body[-1] if fn.body else ref
        tail = [] if isinstance(end, ast.Return) else [_write(end)]
        fn.body = prologue + body + tail
        fn.args.args = [ast.arg(arg=BOX), ast.arg(arg=DEPTH), *fn.args.args]
        return fn

    def _run_entry(self) -> ast.FunctionDef:
        """`def _races_entry__f(*params, _races_wall=None, _races_f=0,
        _races_meter=None) -> value`: the same body called from outside, without a box
        unless the body needs one, with no depth test, and with the fuel left in
        `_races_meter[0]` when it returns. `Program.function` gives each caller a copy
        of the function whose defaults hold its wall limit, budget and meter, so a call
        has the body's own signature: no extra argument, no result tuple. No watchdog
        session open sends it through `_races_enter_slow` (which runs the ordinary function,
        opening a one-call session when it can)."""
        fn = self.fn
        ref = fn
        params = [a.arg for a in fn.args.args]
        body = self.block(fn.body, fast=True)
        end = fn.body[-1] if fn.body else ref
        tail = [] if isinstance(end, ast.Return) else self._entry_return(_const(None), False, end)
        body = body + tail
        uses = {n.id for s in body for n in ast.walk(s) if isinstance(n, ast.Name)}
        charges = BOX in uses or LOC in uses
        # Only loops, comprehensions and calls can run for long (all charge the box, but
        # loops): a body without them runs a number of bytecodes bounded by its size over
        # size-guarded values, which a session could only interrupt between bytecodes anyway
        loops = BOX in uses or any(isinstance(n, (ast.For, ast.While)) for s in body for n in ast.walk(s))
        prologue = []
        if loops:
            none = ast.UnaryOp(op=ast.Not(), operand=ast.Attribute(value=_name("_races_wd"), attr="depth",
                                                                   ctx=ast.Load()))
            prologue.append(_loc(ast.If(
                test=none,
                body=[ast.Return(value=_call("_races_enter_slow", [
                    _name(fn.name), _name(WALL), _name(LOC), _name(METER), *map(_name, params)]))],
                orelse=[]), ref))
        if BOX in uses:  # the caller's meter serves as the box (no list to build a call);
            # the watchdog reads an entry's wall limit from `_races_wall`, not from its box
            prologue.append(_assign(BOX, _name(METER), ref))
        if DEPTH in uses:
            prologue.append(_assign(DEPTH, _const(0), ref))
        fn.body = _MeterReturns(charges).block(prologue + body)
        # the counter is the budget parameter itself (a copy's default: its budget)
        fn.args.args = [*fn.args.args, ast.arg(arg=WALL), ast.arg(arg=LOC), ast.arg(arg=METER)]
        fn.args.defaults = [_const(None), _const(0), _const(None)]
        fn.name = ENTRY + fn.name
        return fn

    def _entry_return(self, value, via_box: bool, ref) -> list[ast.stmt]:
        """`return value` that also reports the fuel left (see `_MeterReturns`): the value is
        evaluated first, then the counter read. Where the box is in use it is the meter,
        which already holds it."""
        ret = _loc(ast.Return(value=value), ref)
        if not via_box:
            ret._races_left = _name(LOC)
        return [ret]

    def block(self, stmts, fast: bool) -> list[ast.stmt]:
        out = []
        for s in stmts:
            out.extend(self.stmt(s, fast))
        return out or [_loc(ast.Pass(), stmts[0] if stmts else self.fn)]

    def stmt(self, s, fast: bool) -> list[ast.stmt]:
        m = getattr(self, "s_" + type(s).__name__, None)
        if m is None:
            raise ValueError(f"line {getattr(s, 'lineno', '?')}: statement {type(s).__name__} "
                             "is outside the body subset")
        return m(s, fast)

    # -- simple statements: try local charges, fall back to the box with a sync

    def _synced(self, s, build):
        """`build(copy_of_s, ex) -> stmts`; wrapped in a box sync when anything inside
        charges the box."""
        ex = self.ex("local")
        out = build(_clone(s), ex)
        if not ex.box:
            return out
        hoisted = self._hoist_source(s, lambda: build(_clone(s), self.ex("box")),
                                     lambda out: [_write(s), *out, _reload(s)])
        if hoisted is not None:
            return hoisted
        ex = self.ex("box")
        out = build(_clone(s), ex)
        return [_write(s), *out, _reload(s)]

    def _first_comp(self, s):
        """The comprehension whose first iterable is the first thing `return E` / `x = E`
        evaluates, or None. From E it follows first-evaluated operands (a binary operator's
        or comparison's left side, a unary operand, a boolean's first value, a condition's
        test, a subscript's base, a display's first item, a call's first argument when the
        callee is a plain name) to a list, set or dict comprehension (always built whole),
        or to a generator passed straight to a consumer that takes every element (sum list
        tuple set dict sorted max min, or `"literal".join`)."""
        if isinstance(s, ast.Assign):
            if not all(isinstance(t, ast.Name) for t in s.targets):
                return None
        elif not isinstance(s, ast.Return):
            return None
        v, c = s.value, None
        while c is None and v is not None:
            if isinstance(v, (ast.ListComp, ast.SetComp, ast.DictComp)):
                c = v
            elif isinstance(v, ast.Call):
                if not v.args or isinstance(v.args[0], ast.Starred):
                    return None
                f, first = v.func, v.args[0]
                plain = isinstance(f, ast.Name) and f.id not in self.scope.locals
                if isinstance(first, ast.GeneratorExp):
                    if len(v.args) == 1 and not v.keywords and (
                            (plain and f.id in _FULL)
                            or (isinstance(f, ast.Attribute) and f.attr == "join"
                                and isinstance(f.value, ast.Constant) and isinstance(f.value.value, str))):
                        c = first
                    else:
                        return None
                elif plain or (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Constant)):
                    v = first
                else:
                    return None
            else:
                v = _FIRST_EVALUATED.get(type(v), _none)(v)
        if c is None or _special_iter(c.generators[0].iter, self.scope.locals) is not None:
            return None
        return c

    def _hoist_source(self, s, build, wrap):
        """A statement whose first evaluation is a comprehension's source (`_first_comp`):
        evaluate the source into a temporary and charge its length to the local counter
        right there — the moment the comprehension would have charged it — instead of
        through `_races_each`; when the length is unknown or unaffordable, the statement's
        other copy draws the source through `_races_tick_iter`. `build()` rewrites a copy
        of `s` in box mode; `wrap(stmts)` adds the box synchronisation around it."""
        c = self._first_comp(s)
        if c is None:
            return None
        g = c.generators[0]
        bound = set()
        for gg in c.generators:
            bound.update(_target_names(gg.target))
        ok = self.scope.list_ok(g.iter, _comp_nodes(c), self.scope.locals | bound)
        n = self.tmp("n")
        pre, t = self._counted(g.iter, s, ok, n)
        nested = self._nested_charge(c, bound)
        sites, tests, per = self._per_element(c, bound) if nested is None else ([], [], 0)
        join, most = self._bounded_join(s, c, dict(sites)) if nested is None else (None, None)
        c._races_src = t
        if nested is not None:  # the element's own charge, over the element itself
            node, attr, value, _ = nested
            setattr(node, attr, value)
        for call, body in sites:
            call._races_inline = body
        for test in tests:
            test._races_free_fast = True
        if join is not None:
            join._races_join_free = True
        try:
            self.src_fast = True
            fast = build()
            self.src_fast = False
            slow = build()
        finally:
            del c._races_src
            if nested is not None:
                delattr(node, attr)
            for call, _ in sites:
                del call._races_inline
            for test in tests:
                del test._races_free_fast
            if join is not None:
                del join._races_join_free
            self.src_fast = True
        # each element also pays for what it evaluates once in the charged-ahead copy (`_per_element`)
        total = _name(n) if not per else ast.BinOp(left=_name(n), op=ast.Mult(), right=_const(1 + per))
        test = ast.Compare(left=total, ops=[ast.LtE()], comparators=[_name(LOC)])
        if join is not None:  # and a join of so few elements cannot build a text past MAX_LEN
            test = ast.BoolOp(op=ast.And(), values=[test, ast.Compare(
                left=_name(n), ops=[ast.LtE()], comparators=[_const(most)])])
        total = _clone(total)
        if nested is not None:
            # `[[… for x in row] for row in src]`, `[sum(row) for row in src]`: what each row
            # costs when its turn comes is charged up front too (Σ len(row)), when every row
            # is one that would be charged whole and the budget covers them all
            n2 = self.tmp("n")
            if isinstance(nested[3], tuple):  # Σ len(row), taken in the test
                sized, over = nested[3]
                if over is not None:  # the rows of a parameter declared sized and short: in C
                    size = _call("_races_sum", [_call("_races_map", [_name("_races_len"), _name(over)])])
                else:
                    size = _call("_races_rows_len", [_name(t), _name(sized)])
                rows = ast.NamedExpr(target=_name(n2, True), value=size)
                rows_total = _name(n2)
            else:  # `[[… for c in range(w)] for row in src]`: the same inner length for every row
                pre.append(_invariant_len(n2, n, nested[3], s))
                rows = ast.BinOp(left=_name(n), op=ast.Mult(), right=_name(n2))
                rows_total = _clone(rows)
            test = ast.BoolOp(op=ast.And(), values=[test, ast.Compare(
                left=rows, ops=[ast.LtE()], comparators=[ast.BinOp(left=_name(LOC), op=ast.Sub(), right=_name(n))])])
            total = ast.BinOp(left=_name(n), op=ast.Add(), right=rows_total)
        charge = _loc(ast.AugAssign(target=_name(LOC, True), op=ast.Sub(), value=total), s)
        return [*pre, _loc(ast.If(test=test, body=[charge, *wrap(fast)], orelse=wrap(slow)), s)]

    def _per_element(self, c, bound) -> tuple[list, list, int]:
        """What the charged-ahead copy of `c` pays with its source, per element, besides the
        element's own step: in a comprehension of one clause, what is evaluated exactly once
        per element (in its first condition, or in its element when it has none; see
        `_unconditional`). That is the calls of leaf functions (`_leaf_functions`) whose
        arguments are names or constants, which that copy evaluates in place (one step
        each), and the literal `x in "..."` tests, inside those calls too (their length each,
        as in a loop: `_fold_in`). Returns ([(call, expression evaluated in its place)],
        [test], steps per element)."""
        if len(c.generators) != 1:
            return [], [], 0
        g = c.generators[0]
        roots = g.ifs[:1] if g.ifs else [c.key, c.value] if isinstance(c, ast.DictComp) else [c.elt]
        shadow = self.scope.locals | bound
        sites: list = []

        def site(e) -> bool:
            if not (isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id not in shadow):
                return False
            leaf = self.leaves.get(e.func.id)
            if (leaf is None or e.keywords or len(e.args) != len(leaf[0])
                    or not all(isinstance(a, (ast.Name, ast.Constant)) for a in e.args)):
                return False
            body = _Substitute(dict(zip(leaf[0], e.args)), e).visit(_clone(leaf[1]))
            sites.append((e, body))
            return True

        tests = _literal_tests(_unconditional(roots, site))
        cost = len(sites) + sum(n for _, n in tests)
        for _, body in sites:
            for t, n in _literal_tests(_unconditional([body])):
                t._races_free = True  # charged with the source, like the call's step
                cost += n
        return sites, [t for t, _ in tests], cost

    def _bounded_join(self, s, c, inline: dict):
        """(`"sep".join(c)` in `s`, the most elements it may join) when every element of the
        generator `c` (one clause) is a text of at most L characters (`_text_bound`): then
        joining n <= MAX_LEN // (L + len(sep)) of them stays within MAX_LEN, and the
        charged-ahead copy calls `str.join` itself, without `_races_g_join`'s measuring.
        `inline` maps the leaf calls evaluated in place to what replaces them."""
        if not isinstance(c, ast.GeneratorExp) or len(c.generators) != 1:
            return None, None
        join = next((x for x in ast.walk(s) if isinstance(x, ast.Call) and x.args and x.args[0] is c
                     and isinstance(x.func, ast.Attribute) and x.func.attr == "join"
                     and isinstance(x.func.value, ast.Constant) and isinstance(x.func.value.value, str)), None)
        if join is None:
            return None, None
        g = c.generators[0]
        chars = set()
        if isinstance(g.target, ast.Name) and (
                isinstance(g.iter, ast.Name) and g.iter.id + STR in self.scope.num
                or isinstance(g.iter, ast.Call) and isinstance(g.iter.func, ast.Name) and g.iter.func.id == "str"
                and g.iter.func.id not in self.scope.locals):
            chars.add(g.target.id)  # a character of a Str parameter, or of `str(...)`
        most = _text_bound(c.elt, chars, inline, self.scope.locals | set(_target_names(g.target)))
        if most is None:
            return None, None
        return join, MAX_LEN // max(1, most + len(join.func.value.value))

    def _invariant_range(self, x, bound, nodes) -> bool:
        """Is `x` a `range(...)` the same for every element of a comprehension binding
        `bound` whose elements evaluate `nodes`: arguments made of int literals, names it
        does not bind, `len` of such a name or of its `[k]`, `+`, `-`? (A name under `len`
        must be one the elements cannot resize: `_Scope.list_ok`.)"""
        shadow = self.scope.locals | bound

        def ok(a) -> bool:
            if isinstance(a, ast.Constant):
                return type(a.value) is int
            if isinstance(a, ast.Name):
                return a.id not in bound
            if isinstance(a, ast.UnaryOp):
                return isinstance(a.op, ast.USub) and ok(a.operand)
            if isinstance(a, ast.BinOp):
                return isinstance(a.op, (ast.Add, ast.Sub)) and ok(a.left) and ok(a.right)
            if (isinstance(a, ast.Call) and isinstance(a.func, ast.Name) and a.func.id == "len"
                    and a.func.id not in shadow and len(a.args) == 1 and not a.keywords):
                y = a.args[0]
                if isinstance(y, ast.Subscript) and isinstance(y.slice, ast.Constant) and type(y.slice.value) is int:
                    y = y.value
                return (isinstance(y, ast.Name) and y.id not in bound
                        and self.scope.list_ok(y, nodes, shadow))
            return False

        return (isinstance(x, ast.Call) and isinstance(x.func, ast.Name) and x.func.id == "range"
                and x.func.id not in shadow and 1 <= len(x.args) <= 3 and not x.keywords
                and all(ok(a) for a in x.args))

    def _nested_charge(self, c, bound):
        """What `c` charges for its rows besides its first source, when that is len(row) for
        each row exactly once: `[E for row in src]` (no condition) with E an inner list, set
        or dict comprehension whose first source is `row`, or a one-argument charging builtin
        of `row` (`sum(row)`, `sorted(row)`, ...); or `[E for row in src for x in row]` (no
        condition on the rows). With `src` a parameter whose rows are declared sized and short
        (ROWS), the row may also be `src[u]` drawn by `for u in range(len(src))`. Returns
        (node, mark, value, what) — the mark makes the charged-ahead copy draw or call
        directly; `what` is (the row types `_races_rows_len` may charge, or None, and the
        parameter whose rows are measured in C, or None) — or None. An inner comprehension
        over a `range` the same for every row (`_invariant_range`) gives that range as
        `what` instead."""
        g = c.generators[0]
        if len(c.generators) > 2 or g.ifs or not isinstance(g.target, ast.Name) or isinstance(c, ast.DictComp):
            return None
        row, shadow = g.target.id, self.scope.locals | bound
        if len(c.generators) == 2:  # the second clause draws from the row
            g2 = c.generators[1]
            over = self._row_source(g2.iter, row, g.iter, bound, _comp_nodes(c))
            if over is None:
                return None
            ok = self.scope.list_ok(g2.iter, _comp_nodes(c), shadow)
            return self._rows_charge(g2, ok, g.iter, over)
        e = c.elt
        if isinstance(e, (ast.ListComp, ast.SetComp, ast.DictComp)):
            src = e.generators[0].iter
            if self._invariant_range(src, bound, _comp_nodes(c)):
                return e.generators[0], "_races_src_free", True, src
            over = self._row_source(src, row, g.iter, bound, _comp_nodes(c))
            if over is None:
                return None
            for gg in e.generators:
                shadow = shadow | set(_target_names(gg.target))
            ok = self.scope.list_ok(src, _comp_nodes(e), shadow)
            return self._rows_charge(e.generators[0], ok, g.iter, over)
        if (isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id in _INLINE_CHARGED
                and e.func.id not in shadow and not e.keywords and len(e.args) == 1
                and isinstance(e.args[0], ast.Name) and e.args[0].id == row):
            return e, "_races_ahead", True, ("_races_BUILTIN_SIZED", self._rows_param(g.iter))
        return None

    def _row_source(self, x, row, src, bound, nodes) -> str | None:
        """Is `x` the row drawn by `for row in src`: `row` itself (returns "") or, with `src`
        `range(len(p))` for a ROWS parameter p that `nodes` cannot resize, `p[row]`
        (returns p)? Else None."""
        if isinstance(x, ast.Name) and x.id == row:
            return ""
        shadow = self.scope.locals | bound
        if not (isinstance(x, ast.Subscript) and isinstance(x.slice, ast.Name) and x.slice.id == row
                and isinstance(x.value, ast.Name) and x.value.id in self.scope.rows
                and x.value.id not in bound and _is_call_to(src, {"range"}) and "range" not in shadow
                and len(src.args) == 1 and not src.keywords and _is_call_to(src.args[0], {"len"})):
            return None
        arg = src.args[0].args
        if len(arg) == 1 and isinstance(arg[0], ast.Name) and arg[0].id == x.value.id \
                and self.scope.list_ok(x.value, nodes, shadow):
            return x.value.id
        return None

    def _rows_param(self, src) -> str | None:
        return src.id if isinstance(src, ast.Name) and src.id in self.scope.rows else None

    def _rows_charge(self, gen, ok, src, over):
        """The `_nested_charge` of rows drawn by the clause `gen` (`ok`: nothing the rows'
        elements do can change a row's length)."""
        if over:  # `p[u]`: the parameter's own rows (`_row_source` found p not resized either)
            return (gen, "_races_src_free", True, ("_races_EACH_SIZED_LIST", over)) if ok else None
        sized = "_races_EACH_SIZED_LIST" if ok else "_races_EACH_SIZED"
        return gen, "_races_src_free", True, (sized, self._rows_param(src) if ok else None)

    def s_Expr(self, s, fast):
        def build(s, ex):
            s.value = ex.visit(s.value)
            return [s]
        return self._synced(s, build)

    def s_Pass(self, s, fast):
        return [s]

    s_Continue = s_Pass

    def s_Break(self, s, fast):
        return [*self._refund(s), s]

    def _refund(self, ref) -> list[ast.stmt]:
        return [_clone(self.refund)] if self.refund is not None else []

    def s_Assign(self, s, fast):
        def build(s, ex):
            pre, post = [], []
            for t in s.targets:
                for x in ast.walk(t):
                    if isinstance(x, ast.Subscript) and isinstance(x.slice, ast.Slice):
                        if not isinstance(x.value, ast.Name):  # hoist the base once
                            tmp = self.tmp("t")
                            pre.append(_assign(tmp, ex.visit(x.value), s))
                            x.value = _name(tmp)
                        post.append(_loc(ast.Expr(value=_call("_races_g_szl", [_name(x.value.id)])), s))
            s.targets = [ex.target(t) for t in s.targets]
            s.value = ex.visit(s.value)
            return [*pre, s, *post]
        return self._synced(s, build)

    def s_AnnAssign(self, s, fast):
        if s.value is None:
            return []
        return self.s_Assign(_loc(ast.Assign(targets=[s.target], value=s.value), s), fast)

    def s_AugAssign(self, s, fast):
        def build(s, ex):
            t = s.target
            load = _clone(t)
            load.ctx = ast.Load()
            guard = ex.guard_for(s.op, load, s.value, inplace=True)
            if guard is None:
                s.target = ex.target(t)
                s.value = ex.visit(s.value)
                return [s]
            if isinstance(t, ast.Name):
                return self._aug_name(s, t.id, guard, ex)
            if isinstance(t, ast.Subscript):
                return self._aug_subscript(s, t, guard, ex)
            raise ValueError(f"line {s.lineno}: unsupported augmented assignment target")
        return self._synced(s, build)

    def _aug_name(self, s, x, guard, ex):
        if guard == "_races_g_iadd":
            _mark_inner_add(s.value)
        value = ex.visit(s.value)
        if guard == "_races_g_iadd":
            # a str is immutable: `x += v` is `x = x + v` (CPython appends in place), checked
            # after; anything else (an int, a list) goes through the guard
            aug = _loc(ast.AugAssign(target=_name(x, True), op=ast.Add(), value=_clone(value)), s)
            big = _loc(ast.If(test=ast.Compare(left=_call("_races_len", [_name(x)]), ops=[ast.Gt()],
                                               comparators=[_const(MAX_LEN)]),
                              body=[ast.Expr(value=_call("_races_g_post", [_name(x)]))], orelse=[]), s)
            if x + STR in ex.num:  # known to hold a str
                return [aug, big]
            other = _loc(ast.Assign(targets=[_name(x, True)], value=_call(guard, [_name(x), value])), s)
            return [_loc(ast.If(test=ex._is_type(_name(x), "_races_str"), body=[aug, big],
                                orelse=[other]), s)]
        if guard in ("_races_g_imul", "_races_g_mod"):
            new = ex.guarded(guard, s.op, _name(x), value, s)
        else:
            new = _call(guard, [_name(x), value])
        return [_loc(ast.Assign(targets=[_name(x, True)], value=new), s)]

    def _aug_subscript(self, s, t, guard, ex):
        pre = []
        base = self.tmp("t")
        pre.append(_assign(base, ex.visit(t.value), s))
        if isinstance(t.slice, ast.Slice):
            parts = {}
            for field in ("lower", "upper", "step"):
                part = getattr(t.slice, field)
                if part is not None:
                    name = self.tmp("t")
                    pre.append(_assign(name, ex.visit(part), s))
                    parts[field] = _name(name)

            def index():
                return ast.Slice(**{f: _clone(parts.get(f)) for f in ("lower", "upper", "step")})
        else:
            idx = self.tmp("t")
            pre.append(_assign(idx, ex.visit(t.slice), s))

            def index():
                return _name(idx)
        value = _call(guard, [ast.Subscript(value=_name(base), slice=index(), ctx=ast.Load()),
                              ex.visit(s.value)])
        store = ast.Subscript(value=_name(base), slice=index(), ctx=ast.Store())
        post = []
        if isinstance(t.slice, ast.Slice):
            post.append(_loc(ast.Expr(value=_call("_races_g_szl", [_name(base)])), s))
        return [*pre, _loc(ast.Assign(targets=[store], value=value), s), *post]

    def s_Assert(self, s, fast):
        def build(s, ex):
            s.test = ex.visit(s.test)
            s.msg = ex.visit(s.msg)
            return [s]
        return self._synced(s, build)

    def s_Return(self, s, fast):
        refund = self._refund(s)
        value = s.value if s.value is not None else _loc(_const(None), s)
        ex = self.ex("local")
        v = ex.visit(_clone(value))
        if ex.box:
            def wrap(v):
                if self.entry:
                    if not any(isinstance(x, ast.Name) and x.id == BOX for x in ast.walk(v)):
                        return self._entry_return(v, False, s)  # a charged-ahead copy: the counter is the truth
                    return [_write(s), *self._entry_return(v, True, s)]
                return [_write(s), _loc(ast.Return(value=v), s)]
            hoisted = self._hoist_source(s, lambda: self.ex("box").visit(_clone(value)), wrap)
            if hoisted is not None:
                return [*refund, *hoisted]
            ex = self.ex("box")
            v = ex.visit(_clone(value))
            return [*refund, *wrap(v)]
        if self.entry:
            return [*refund, *self._entry_return(v, False, s)]
        if ex.local:
            tmp = "_races_r"
            return [_assign(tmp, v, s), *refund, _write(s), _loc(ast.Return(value=_name(tmp)), s)]
        return [*refund, _write(s), _loc(ast.Return(value=v), s)]

    def _counted(self, it, ref, list_ok: bool, n: str) -> tuple[list, str]:
        """(statements, name): the statements evaluate the loop or comprehension source `it`
        once into the name (`it` itself when it is a name known to hold a sized value) and
        its length into `n` (`_len_stmt`; infinity when it has none). `range(k)` of an int k
        of at most WORD_BITS bits (`_bits`) takes its length from k, without calling `len`."""
        if isinstance(it, ast.Name) and it.id in self.scope.sized and list_ok:
            return [_assign(n, _call("_races_len", [_name(it.id)]), ref)], it.id
        t = self.tmp("i")
        if (_is_call_to(it, {"range"}) and "range" not in self.scope.locals and len(it.args) == 1
                and not it.keywords and (b := _bits(it.args[0], self.scope.num)) is not None
                and b <= WORD_BITS):
            pre, v = self._expr_hoisted(it.args[0], ref, "a")
            k = v if isinstance(v, ast.Name) else _name(self.tmp("a"))
            if k is not v:
                pre.append(_assign(k.id, v, ref))
            size = _name(k.id) if _is_call_to(it.args[0], {"len"}) else ast.IfExp(
                test=ast.Compare(left=_name(k.id), ops=[ast.Gt()], comparators=[_const(0)]),
                body=_name(k.id), orelse=_const(0))
            return pre + [_assign(t, _call("range", [_name(k.id)]), ref), _assign(n, size, ref)], t
        pre, v = self._expr_hoisted(it, ref, "a")
        return pre + [_assign(t, v, ref), _len_stmt(n, _name(t), list_ok, ref)], t

    def _expr_hoisted(self, e, ref, kind: str):
        """(statements, expression) evaluating `e` once; statements sync the box if needed."""
        ex = self.ex("local")
        v = ex.visit(_clone(e))
        if not ex.box:
            return [], v
        ex = self.ex("box")
        v = ex.visit(_clone(e))
        tmp = self.tmp(kind)
        return [_write(ref), _assign(tmp, v, ref), _reload(ref)], _name(tmp)

    def s_If(self, s, fast):
        pre, test = self._expr_hoisted(s.test, s, "c")
        s.test = test
        s.body = self.block(s.body, fast)
        s.orelse = self.block(s.orelse, fast) if s.orelse else []
        return [*pre, s]

    def s_While(self, s, fast):
        outer_refund, self.refund = self.refund, None
        pre, test = self._expr_hoisted(s.test, s, "c")
        body = self.block(s.body, fast)
        orelse = self.block(s.orelse, fast) if s.orelse else []
        self.refund = outer_refund
        if not pre:
            s.test, s.body, s.orelse = test, [*_tick(s), *body], orelse
            return [s]
        # the test charges the box: evaluate it inside the loop, exit through a flag so
        # that `else` keeps its meaning
        flag = self.tmp("w")
        stop = _loc(ast.If(test=ast.UnaryOp(op=ast.Not(), operand=test),
                           body=[_assign(flag, _const(False), s), _loc(ast.Continue(), s)],
                           orelse=[]), s)
        loop = _loc(ast.While(test=_name(flag), body=[*pre, stop, *_tick(s), *body], orelse=orelse), s)
        return [_assign(flag, _const(True), s), loop]

    def s_For(self, s, fast):
        """Three shapes (see the module docstring):
        A. per-iteration ticks (inside a slow copy, or a body that may leave early and
           charges something itself);
        B. no early exit: charge len * (1 + literal `in` costs) up front when affordable,
           else run a ticking copy;
        C. early exit, body charging nothing: charge the length up front, refund what was
           left at `break` / `return` (iterator length hints), else a ticking copy."""
        outer_refund, self.refund = self.refund, None
        try:
            early = _has_break(s.body) or _has_return(s.body)
            if not fast or (early and not _pure(s.body, self.scope.locals)):
                pre, it = self._expr_hoisted(s.iter, s, "i")
                orelse = self.block(s.orelse, fast) if s.orelse else []
                loop = _loc(ast.For(target=s.target, iter=it, body=[*_tick(s), *self.block(s.body, fast)],
                                    orelse=orelse), s)
                return [*pre, loop]
            return self._for_precharged(s, early)
        finally:
            self.refund = outer_refund

    def _for_precharged(self, s, early: bool):
        scope = self.scope
        it0 = s.iter
        kind = _special_iter(it0, scope.locals)
        pre: list[ast.stmt] = []
        n = self.tmp("n")
        fast_body_src = _clone(s.body)
        per_iter = 1 + (0 if early else _fold_in(fast_body_src))
        if kind is not None:
            sources = it0.args if kind != "enumerate" else it0.args[:1]
            oks = [scope.list_ok(a, s.body, scope.locals) for a in sources]
            names, kws = [], []
            for a in it0.args:
                stmts, v = self._expr_hoisted(a, s, "a")
                tmp = self.tmp("a")
                pre += [*stmts, _assign(tmp, v, s)]
                names.append(_name(tmp))
            for k in it0.keywords:
                stmts, v = self._expr_hoisted(k.value, s, "a")
                tmp = self.tmp("a")
                pre += [*stmts, _assign(tmp, v, s)]
                kws.append(ast.keyword(arg=k.arg, value=_name(tmp)))
            if kind == "zip":
                size = None
                lens = []
                for a, ok_a in zip(names, oks):
                    m = self.tmp("n")
                    pre.append(_len_stmt(m, a, ok_a, s))
                    lens.append(_name(m))
                pre.append(_assign(n, _call("_races_min", lens) if len(lens) > 1
                                   else (lens[0] if lens else _const(0)), s))
            else:
                size = None
                pre.append(_len_stmt(n, names[0], oks[0], s))
            if size is not None:
                pre.append(_assign(n, size, s))
            per_iter += 1  # the builtin's own charge: its argument's length
            cond = ast.BoolOp(op=ast.And(), values=[
                ast.Compare(left=ast.BinOp(left=_name(n), op=ast.Mult(), right=_const(per_iter)),
                            ops=[ast.LtE()], comparators=[_name(LOC)]),
                ast.Compare(left=_name(n), ops=[ast.LtE()], comparators=[_const(MAX_LEN)])])
            it_slow = self.tmp("i")
            slow_pre = [_write(s), _assign(it_slow, _call("_races_bi_" + kind, [_name(BOX), *names], kws), s),
                        _reload(s)]
            if early:  # iterate our own iterators, whose length hints give the refund
                iters = []
                srcs = names if kind != "enumerate" else names[:1]
                fast_pre = []
                for a in srcs:
                    j = self.tmp("j")
                    fast_pre.append(_assign(j, _call("_races_reversed" if kind == "reversed" else "_races_iter",
                                                     [_clone(a)]), s))
                    iters.append(_name(j))
                if kind == "reversed":
                    fast_iter = _clone(iters[0])
                else:
                    rest = names[1:] if kind == "enumerate" else []
                    fast_iter = _call("_races_" + kind, [*iters, *rest], kws)
            else:
                fast_pre = []
                fast_iter = _call("_races_" + kind, names, kws)
        else:
            ok = scope.list_ok(it0, s.body, scope.locals)
            stmts, it_tmp = self._counted(it0, s, ok, n)
            pre += stmts
            cost = _name(n) if per_iter == 1 else ast.BinOp(left=_name(n), op=ast.Mult(),
                                                            right=_const(per_iter))
            cond = ast.Compare(left=cost, ops=[ast.LtE()], comparators=[_name(LOC)])
            slow_pre, it_slow = [], it_tmp
            if early:
                j = self.tmp("j")
                fast_pre = [_assign(j, _call("_races_iter", [_name(it_tmp)]), s)]
                iters = [_name(j)]
                fast_iter = _name(j)
            else:
                fast_pre = []
                fast_iter = _name(it_tmp)
        charge = _name(n) if per_iter == 1 else ast.BinOp(left=_name(n), op=ast.Mult(), right=_const(per_iter))
        if early:
            # refund the iterations not run: what the loop's own iterators have left
            back = (_call("_races_refund", iters) if len(iters) > 1 else
                    ast.Call(func=ast.Attribute(value=_clone(iters[0]), attr="__length_hint__",
                                                ctx=ast.Load()), args=[], keywords=[]))
            self.refund = _loc(ast.AugAssign(target=_name(LOC, True), op=ast.Add(), value=back), s)
        body_fast = self.block(fast_body_src, True)
        self.refund = None
        orelse_fast = self.block(_clone(s.orelse), True) if s.orelse and early else []
        body_slow = [*_tick(s), *self.block(_clone(s.body), False)]
        orelse_slow = self.block(_clone(s.orelse), False) if s.orelse and early else []
        fast_branch = [
            _loc(ast.AugAssign(target=_name(LOC, True), op=ast.Sub(), value=charge), s),
            *fast_pre,
            _loc(ast.For(target=_clone(s.target), iter=fast_iter, body=body_fast,
                         orelse=orelse_fast), s),
        ]
        slow_branch = [*slow_pre,
                       _loc(ast.For(target=_clone(s.target), iter=_name(it_slow), body=body_slow,
                                    orelse=orelse_slow), s)]
        after = self.block(s.orelse, True) if s.orelse and not early else []
        return [*pre, _loc(ast.If(test=cond, body=fast_branch, orelse=slow_branch), s), *after]


# ----------------------------------------------------------------- entry points


@contextmanager
def _deep_trees():
    """The rewrite recurses over the tree (a few Python frames a level; no C stack in
    CPython 3.11): allow long `elif` chains and operator chains thousands deep."""
    old = sys.getrecursionlimit()
    if old < _TREE_RECURSION:
        sys.setrecursionlimit(_TREE_RECURSION)
    try:
        yield
    finally:
        if old < _TREE_RECURSION:
            sys.setrecursionlimit(old)


_TREE_RECURSION = 100_000


def instrument(module: ast.Module, *, int_params: Mapping[str, frozenset[str]] = {}) -> ast.Module:
    """A new module implementing fuel, size guards and the recursion bound (see the module
    docstring); `module` is not modified. `int_params[f]` names f's `Int` parameters, `p[]`
    for each parameter p declared a List or Tuple of numbers (see ELEMS), `p#` for each one
    of a sized type (see SIZED) and `p$` for each Str (see STR)."""
    with _deep_trees():
        return _instrument(module, int_params)


def _instrument(module, int_params):
    mod = _clone(module)
    counter = count(1)
    body = []
    for fn in mod.body:
        if not isinstance(fn, ast.FunctionDef):
            raise ValueError(f"line {getattr(fn, 'lineno', '?')}: only function definitions "
                             "can be instrumented")
    funcs = frozenset(fn.name for fn in mod.body)
    leaves = _leaf_functions(mod.body, funcs)
    for fn in mod.body:
        ints = frozenset(int_params.get(fn.name, ()))
        entry = _clone(fn)
        body.append(_Fx(fn, ints, counter, funcs, leaves=leaves).run())
        body.append(_Fx(entry, ints, counter, funcs, entry=True, leaves=leaves).run())
    mod.body = body
    return ast.fix_missing_locations(mod)


def _leaf_functions(fns, funcs) -> dict:
    """name → (parameters, expression, harmless) of the functions whose body is one
    `return E` with no call of a program function, no comprehension, lambda or `:=` in E: a
    call of one costs its one step and E, so a charged-ahead comprehension can pay the step
    with its elements and evaluate E in place (`_Fx._inline_sites`). `harmless`: E calls
    builtins and non-resizing methods only, so a call cannot change a list's length (see
    `_Scope.list_ok`). A plain copy, taken before any function is rewritten."""
    out = {}
    for fn in fns:
        body = fn.body[1:] if fn.body and _is_docstring(fn.body[0]) else fn.body
        if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
            continue
        e = body[0].value
        if any(isinstance(n, _NOT_LEAF) or (isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                                            and n.func.id in funcs) for n in ast.walk(e)):
            continue
        a = fn.args
        if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs or a.defaults:
            continue
        # harmless: calls only builtins, and no method that resizes (so no list changes length)
        harmless = all(not isinstance(n, ast.Call) or (isinstance(n.func, ast.Name) and n.func.id in _BUILTINS)
                       or (isinstance(n.func, ast.Attribute) and n.func.attr not in RESIZING_METHODS)
                       for n in ast.walk(e))
        out[fn.name] = (tuple(x.arg for x in a.args), _clone(e), harmless)
    return out


_NOT_LEAF = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.NamedExpr,
             ast.Yield, ast.YieldFrom, ast.Await)


def _is_docstring(s) -> bool:
    return isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and isinstance(s.value.value, str)


class _Substitute(ast.NodeTransformer):
    """A leaf function's expression with its parameters replaced by the call's arguments
    (names or constants: evaluating them again, or not at all, changes nothing), every node
    located at the call."""

    def __init__(self, args: dict, ref):
        self.args, self.ref = args, ref

    def visit_Name(self, n):
        arg = self.args.get(n.id)
        return ast.copy_location(_clone(arg), self.ref) if arg is not None else ast.copy_location(n, self.ref)

    def generic_visit(self, node):
        super().generic_visit(node)
        return ast.copy_location(node, self.ref) if hasattr(node, "lineno") else node


def _stmts(tree):
    return [n for n in ast.walk(tree) if isinstance(n, ast.stmt)]


def line_map(instrumented: ast.Module, source: str) -> dict:
    """How lines (and, for multi-line statements, positions) of `source` — the unparsed
    text of `instrumented` — map back to the `.races` lines `instrumented` carries."""
    gen = ast.parse(source)
    a, b = list(ast.walk(instrumented)), list(ast.walk(gen))
    if len(a) != len(b) or any(type(x) is not type(y) for x, y in zip(a, b)):
        a, b = _stmts(instrumented), _stmts(gen)
        if len(a) != len(b):
            return {"lines": [], "cols": []}
    lines: dict[int, int] = {}
    for x, y in zip(a, b):
        if isinstance(y, ast.stmt) and hasattr(x, "lineno"):
            lines.setdefault(y.lineno, x.lineno)
    cols = set()
    for x, y in zip(a, b):
        if isinstance(y, ast.expr) and hasattr(x, "lineno") and hasattr(y, "lineno"):
            if lines.get(y.lineno) != x.lineno:
                cols.add((y.lineno, y.col_offset, y.end_lineno, y.end_col_offset, x.lineno))
    return {"lines": sorted(lines.items()), "cols": sorted(cols)}


def lower_to_source(module: ast.Module, **kw) -> str:
    """The instrumented module as Python text (deterministic), ending in a
    `# races-linemap: {...}` comment that `Program.from_source` reads to report `.races`
    line numbers."""
    inst = instrument(module, **kw)
    with _deep_trees():
        src = ast.unparse(inst)
        lm = json.dumps(line_map(inst, src), separators=(",", ":"))
    return f"{src}\n{LINEMAP_TAG}{lm}\n"
