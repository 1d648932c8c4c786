"""Checking bodies: the allowed subset, names, calls, methods by receiver, and a small
local type inference (enough to pick the right method table, catch obvious return-type
mistakes, and show local types in the editor)."""

from __future__ import annotations

from typing import Callable

import attrs

from racesl.check import constants as C
from racesl.check import names as N
from racesl.check import rngs as R
from racesl.check import suggest as SG
from racesl.check.model import declared_name
from racesl.diagnostics import Diagnostic, Severity, Span
from racesl.syntax import ast as A
from racesl.text import article, plural
from racesl.types import types as T
from racesl.types.builtins import ITER_BUILTINS


@attrs.define
class Symbol:
    """A module-level name as a body sees it."""

    kind: str  # "env" | "helper" | "type" | "module" | "const"
    qualname: str  # "numbers.fibonacci" / module name for kind == "module"
    pyname: str | None = None
    nparams: int | None = None  # for functions
    params: tuple[str, ...] = ()
    returns: T.Type | None = None
    type: T.Type | None = None  # for kind == "type"; a constant's declared type for "const"
    span: Span | None = None
    path: str | None = None
    imported: bool = False


class Scope:
    """Module-level names plus access to other modules' exports (for `mod.name`)."""

    def __init__(self, module: str, symbols: dict[str, Symbol],
                 exports: Callable[[str], dict[str, Symbol] | None], skipped: frozenset[str] = frozenset()):
        self.module = module
        self.skipped = skipped
        self.symbols = symbols
        self.exports = exports
        self.used: set[str] = set()

    def lookup(self, name: str) -> Symbol | None:
        s = self.symbols.get(name)
        if s is not None:
            self.used.add(name)
        return s

    def member(self, module_name: str, attr: str) -> Symbol | None:
        ex = self.exports(module_name)
        return None if ex is None else ex.get(attr)


def always_exits(stmts) -> bool:
    """Conservatively: does control never fall off the end of this block?"""
    return any(_exits(s) for s in stmts)


def _exits(last) -> bool:
    if isinstance(last, A.Return):
        return True
    if isinstance(last, A.Assert) and isinstance(last.test, A.Const) and last.test.value is False:
        return True
    if isinstance(last, A.If):
        return always_exits(last.body) and always_exits(last.orelse)
    if isinstance(last, A.While) and isinstance(last.test, A.Const) and last.test.value is True:
        return not any(isinstance(n, A.Break) for s in last.body for n in _walk_loop_body(s))
    return False


def _walk_loop_body(s):
    """Nodes of a loop body, not descending into nested loops (their breaks are theirs)."""
    stack = [s]
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, (A.For, A.While)):
            continue
        stack.extend(A.children(n))


_assigned_names = A.assigned_names


# ---------------------------------------------------------------- the order of sets (E601)
#
# CPython iterates a set of strings in an order that depends on the process's hash seed
# (PYTHONHASHSEED), so a body that lets that order reach its result gives different answers
# in different processes. Ints, Bools and tuples of them hash the same everywhere; any
# element that is or holds a Str (or that the inference cannot see) may not. The checker
# refuses every use that reads such a set's order; `racesc check` runs what it cannot see.

ORDER_MESSAGES = {  # how a use reads the order → the message, {set} being "a Set[Str]" or so
    "for": "a for loop over {set} runs in the set's order",
    "comprehension": "a {kind} over {set} runs in the set's order",
    "call": "'{name}' of {set} keeps the set's order",
    "method": "'.{name}()' of {set} keeps the set's order",
    "unpack": "unpacking {set} assigns in the set's order",
    "text": "the text of {set} lists the set in its order",
    "key": "'{name}' with key= of {set} breaks ties in the set's order",
}
ORDER_REASON = ", which changes from one Python process to the next (PYTHONHASHSEED)"
ORDER_HINTS = {
    "key": "sort first, then by the key: {name}(sorted(set(s)), key=...)",
    "default": "sort first: sorted(set(s))",
}
COMPREHENSION_KINDS = {"list": "list comprehension", "dict": "dict comprehension", "gen": "generator expression"}
# builtins whose result does not depend on the order their argument is read in (without key=,
# and sum without start=): a generator expression passed to one of them is fine too
ORDER_FREE = frozenset({"len", "sorted", "min", "max", "sum", "any", "all", "set", "bool"})
ORDERING_BUILTINS = frozenset({"list", "tuple", "enumerate", "zip", "reversed", "dict"})


def _may_hold_str(t: T.Type) -> bool:
    """Could a hashable value of this type hash differently in another process?"""
    t = T.shape(T.unwrap(t))
    if isinstance(t, (T.IntT, T.BoolT)):
        return False
    if isinstance(t, T.TupleT):
        return any(_may_hold_str(e) for e in t.elems)
    return True  # Str, unknown, and whatever else could stand in a set


def _unordered(t: T.Type) -> bool:
    """A set whose iteration order may change between processes."""
    t = T.shape(T.unwrap(t))
    return isinstance(t, T.SetT) and _may_hold_str(t.elem)


def _parts(t: T.Type, unwrap: bool = False):
    """`t` and every type nested in it (shapes; newtypes unwrapped on request)."""
    stack = [t]
    while stack:
        t = T.shape(T.unwrap(stack.pop()) if unwrap else stack.pop())
        yield t
        if isinstance(t, (T.ListT, T.SetT)):
            stack.append(t.elem)
        elif isinstance(t, T.TupleT):
            stack.extend(t.elems)
        elif isinstance(t, T.DictT):
            stack.extend((t.key, t.value))


def _holds_unordered(t: T.Type) -> bool:
    """Does a value of this type contain such a set anywhere (so its text shows that order)?"""
    return any(isinstance(p, T.SetT) and _may_hold_str(p.elem) for p in _parts(t, unwrap=True))


def _describe_set(t: T.Type) -> str:
    t = T.erase(T.unwrap(t))
    if isinstance(t, T.SetT) and not has_unknown(t):
        return f"a {t}"
    if isinstance(t, T.SetT):
        return "a set whose elements may be strings"
    return f"a {t}" if not has_unknown(t) else "a value holding a set that may hold strings"


def has_unknown(t: T.Type) -> bool:
    """Does the type hold a part the checker could not resolve (shown as "?")?"""
    return any(isinstance(p, T.AnyT) for p in _parts(t))


_CONVERT = {T.IntT: "int", T.BoolT: "bool", T.StrT: "str", T.ListT: "list", T.TupleT: "tuple", T.DictT: "dict"}


def _short(e: A.Expr) -> str:
    """An operand as hint text: a name as it is, anything longer as `x`."""
    if isinstance(e, A.Name):
        return e.id
    if isinstance(e, A.Const) and not isinstance(e.value, bool) and \
            not (isinstance(e.value, int) and e.value.bit_length() > 64):  # (repr fails past 4,300 digits)
        return repr(e.value)
    return "x"


def _injective_key(key: A.Expr) -> bool:
    """`lambda v: v` or `lambda v: (..., v, ...)`: equal keys mean equal elements, no ties."""
    if not isinstance(key, A.Lambda) or len(key.params) != 1:
        return False
    p, body = key.params[0].name, key.body
    if isinstance(body, A.Name):
        return body.id == p
    return isinstance(body, A.TupleExpr) and any(isinstance(x, A.Name) and x.id == p for x in body.elts)


class BodyChecker:
    def __init__(self, scope: Scope, path: str, diags: list[Diagnostic]):
        self.scope = scope
        self.path = path
        self.diags = diags
        self.local_types: dict[str, T.Type] = {}
        self.locals: set[str] = set()
        self.scopes: list[dict[str, T.Type]] = []  # comprehension / lambda scopes
        # resolutions the lowering needs: id(node) -> python name
        self.resolved: dict[int, str] = {}
        self._order_free: set[int] = set()  # generator expressions handed to an ORDER_FREE builtin
        self.rngs: set[str] = set()  # locals that hold a sampler's rng: `rng`, and `sub = rng.fork(...)`
        self._roots: list[A.Node] = []  # the statements (or expression) being checked, innermost last
        self._parent_maps: dict[int, dict[int, A.Node]] = {}  # id(root) -> id(node) -> its parent
        self._const_seen: set[int] = set()  # constant references already judged

    def err(self, code: str, msg: str, span: Span, hint: str | None = None,
            severity: Severity = Severity.ERROR) -> None:
        self.diags.append(Diagnostic(code, msg, span, self.path, severity, hint))

    # ------------------------------------------------------------ entry points

    def check_function(self, fn: A.FuncDef, params: dict[str, T.Type | None],
                       returns: T.Type | None) -> dict[str, T.Type]:
        self.locals = set(params)
        self.local_types = {k: v for k, v in params.items() if v is not None}
        for stmt in fn.body:
            for n in A.walk(stmt):
                targets: list[A.Name] = []
                if isinstance(n, A.Assign):
                    for t in n.targets:
                        _assigned_names(t, targets)
                elif isinstance(n, (A.AugAssign,)):
                    _assigned_names(n.target, targets)
                elif isinstance(n, A.For):
                    _assigned_names(n.target, targets)
                for t in targets:
                    self.locals.add(t.id)
        self.rngs = R.rng_locals(fn.body, params)
        self._infer_locals(fn.body, params)
        self._stmts(fn.body)
        if returns is not None and not always_exits(fn.body) and "#recovered" not in self.scope.skipped \
                and "#indent" not in self.scope.skipped:
            self.err("E507", f"'{fn.name}' can reach the end of its body without returning a value",
                     fn.name_span, "add a return statement at the end (or `assert False` for unreachable ends)")
        if returns is not None:
            self._check_returns(fn.body, returns, fn.returns)
        return dict(self.local_types)

    def check_constant(self, value: A.Expr, declared: T.Type | None) -> T.Type:
        """A module constant's value: the expression's rules, with no locals (it may read the
        constants above it and call helpers); E440 when its type is not the declared one.
        Returns the inferred type."""
        self.locals, self.local_types = set(), {}
        self._roots.append(value)
        try:
            self.expr(value)
        finally:
            self._roots.pop()
        t = self.infer(value)
        if declared is not None and not (T.compatible(t, declared) or T.compatible(T.unwrap(t), T.unwrap(declared))):
            self.err("E440", f"this value is {article(str(T.erase(t)))}, but the constant is declared {declared}",
                     value.span, "change the value or the declared type")
        return t

    def check_predicate(self, e: A.Expr, subject: T.Type = T.ANY) -> None:
        self.locals = {"it"}
        self.local_types = {"it": subject}
        self._roots.append(e)
        try:
            self.expr(e)
        finally:
            self._roots.pop()
        t = self.infer(e)
        if not isinstance(t, (T.BoolT, T.AnyT)):
            self.err("E302", f"a refinement must be a Bool predicate over 'it', this is {t}", e.span,
                     "compare it with something, e.g. `where 0 <= it <= 9`")

    # ------------------------------------------------------------ inference

    def _infer_locals(self, body, params) -> None:
        seen: dict[str, T.Type] = {}
        conflict: set[str] = set()
        for _ in range(2):
            for stmt in body:
                for n in A.walk(stmt):
                    pairs: list[tuple[str, T.Type]] = []
                    if isinstance(n, A.Assign):
                        for tgt in n.targets:
                            if isinstance(tgt, A.Name):
                                pairs.append((tgt.id, self.infer(n.value)))
                            elif isinstance(tgt, A.TupleExpr) and isinstance(n.value, A.TupleExpr) \
                                    and len(tgt.elts) == len(n.value.elts):
                                for a, b in zip(tgt.elts, n.value.elts):
                                    if isinstance(a, A.Name):
                                        pairs.append((a.id, self.infer(b)))
                    elif isinstance(n, A.For) and isinstance(n.target, A.Name):
                        pairs.append((n.target.id, self._elem_type(n.iter)))
                    for name, t in pairs:
                        if name in params:
                            continue
                        if isinstance(t, T.AnyT):
                            conflict.add(name)
                        elif name in seen and not T.compatible(seen[name], t):
                            conflict.add(name)
                        else:
                            seen.setdefault(name, t)
            for name, t in seen.items():
                if name not in conflict:
                    self.local_types[name] = t
                else:
                    self.local_types.pop(name, None)

    def _elem_type(self, it: A.Expr) -> T.Type:
        if isinstance(it, A.Call) and isinstance(it.func, A.Name) and self._is_builtin(it.func.id):
            name, args = it.func.id, it.args
            if name == "range":
                return T.INT
            if name == "enumerate" and len(args) == 1:
                return T.TupleT((T.INT, T.erase(self._elem_type(args[0]))))
            if name == "zip" and args and not it.keywords:
                return T.TupleT(tuple(T.erase(self._elem_type(a)) for a in args))
            if name == "reversed" and len(args) == 1:
                return self._elem_type(args[0])
        if isinstance(it, A.Call) and isinstance(it.func, A.Attribute) and not it.args \
                and it.func.attr in ("keys", "values", "items"):
            dt = T.shape(T.unwrap(self.infer(it.func.value)))
            if isinstance(dt, T.DictT):
                return {"keys": dt.key, "values": dt.value,
                        "items": T.TupleT((T.erase(dt.key), T.erase(dt.value)))}[it.func.attr]
        if isinstance(it, A.Comprehension) and it.kind == "gen":
            self._push_comp_scope(it)
            try:
                return self.infer(it.elt)
            finally:
                self.scopes.pop()
        t = T.shape(T.unwrap(self.infer(it)))
        if isinstance(t, T.StrT):
            return T.STR
        if isinstance(t, (T.ListT, T.SetT)):
            return t.elem
        if isinstance(t, T.DictT):
            return t.key
        return T.ANY

    def _lookup_local(self, name: str) -> T.Type | None:
        for s in reversed(self.scopes):
            if name in s:
                return s[name]
        return self.local_types.get(name)

    def _is_local(self, name: str) -> bool:
        return any(name in s for s in self.scopes) or name in self.locals

    def _is_builtin(self, name: str) -> bool:
        return not self._is_local(name) and name in N.BUILTINS and self.scope.symbols.get(name) is None

    def infer(self, e: A.Expr) -> T.Type:
        if isinstance(e, A.Const):
            return T.BOOL if isinstance(e.value, bool) else T.INT if isinstance(e.value, int) else T.STR
        if isinstance(e, A.FString):
            return T.STR
        if isinstance(e, A.Name):
            if self._is_local(e.id):
                return self._lookup_local(e.id) or T.ANY
            sym = self.scope.symbols.get(e.id)
            if sym is not None and sym.kind == "const" and sym.type is not None:
                return sym.type
            return T.ANY
        if isinstance(e, A.Attribute) and isinstance(e.value, A.Name) and not self._is_local(e.value.id):
            mod = self.scope.symbols.get(e.value.id)
            if mod is not None and mod.kind == "module":
                sym = self.scope.member(mod.qualname, e.attr)
                if sym is not None and sym.kind == "const" and sym.type is not None:
                    return sym.type
            return T.ANY
        if isinstance(e, A.Compare):
            return T.BOOL
        if isinstance(e, A.UnaryOp):
            if e.op == "not":
                return T.BOOL
            t = T.shape(self.infer(e.operand))
            return T.INT if isinstance(t, (T.IntT, T.BoolT)) else T.ANY
        if isinstance(e, A.BoolOp):
            ts = [self.infer(v) for v in e.values]
            return T.BOOL if all(isinstance(T.shape(t), T.BoolT) for t in ts) else T.ANY
        if isinstance(e, A.BinOp):
            lt, rt = T.shape(T.unwrap(self.infer(e.left))), T.shape(T.unwrap(self.infer(e.right)))
            ints = (T.IntT, T.BoolT)
            if isinstance(lt, ints) and isinstance(rt, ints) and e.op != "/":
                return T.INT
            if e.op == "+" and type(lt) is type(rt) and isinstance(lt, (T.StrT, T.ListT)):
                return T.erase(lt)
            if e.op == "*" and {type(lt), type(rt)} == {T.StrT, T.IntT}:
                return T.STR
            if e.op == "*" and isinstance(lt, T.ListT) and isinstance(rt, T.IntT):
                return T.erase(lt)
            if e.op == "%" and isinstance(lt, T.StrT):
                return T.STR
            if e.op in ("|", "&", "^", "-"):
                ls, rs = self._as_set(e.left, lt), self._as_set(e.right, rt)
                if isinstance(ls, T.SetT) and (isinstance(rs, T.SetT) or isinstance(rt, T.AnyT)):
                    if e.op in ("-", "&"):
                        return T.SetT(T.erase(ls.elem))
                    return T.SetT(self._common([ls.elem, rs.elem]) if isinstance(rs, T.SetT) else T.ANY)
                if isinstance(rs, T.SetT) and isinstance(lt, T.AnyT) and e.op != "-":
                    return T.SetT(T.ANY)
            return T.ANY
        if isinstance(e, A.IfExp):
            a, b = self.infer(e.body), self.infer(e.orelse)
            return a if T.erase(a) == T.erase(b) else T.ANY
        if isinstance(e, A.ListExpr):
            return T.ListT(self._common([self.infer(x) for x in e.elts]))
        if isinstance(e, A.TupleExpr):
            return T.TupleT(tuple(T.erase(self.infer(x)) for x in e.elts))
        if isinstance(e, A.SetExpr):
            return T.SetT(self._common([self.infer(x) for x in e.elts]))
        if isinstance(e, A.DictExpr):
            return T.DictT(self._common([self.infer(k) for k in e.keys]),
                           self._common([self.infer(v) for v in e.values]))
        if isinstance(e, A.Comprehension):
            self._push_comp_scope(e)
            try:
                elt = T.erase(self.infer(e.elt))
                val = T.erase(self.infer(e.value)) if e.value is not None else None
            finally:
                self.scopes.pop()
            if e.kind == "list":
                return T.ListT(elt)
            if e.kind == "set":
                return T.SetT(elt)
            if e.kind == "dict":
                return T.DictT(elt, val)
            return T.ANY
        if isinstance(e, A.Subscript):
            vt = T.shape(T.unwrap(self.infer(e.value)))
            if isinstance(vt, T.StrT):
                return T.STR
            if isinstance(vt, T.ListT):
                return T.erase(vt) if isinstance(e.index, A.Slice) else vt.elem
            if isinstance(vt, T.DictT):
                return vt.value
            if isinstance(vt, T.TupleT):
                if isinstance(e.index, A.Const) and type(e.index.value) is int and -len(vt.elems) <= e.index.value < len(vt.elems):
                    return vt.elems[e.index.value]
                if isinstance(e.index, A.Slice):
                    return T.ANY
            return T.ANY
        if isinstance(e, A.Call):
            return self._infer_call(e)
        return T.ANY

    def _as_set(self, e: A.Expr, t: T.Type) -> T.Type:
        """`t`, or the set a dict view stands for on either side of `| & ^ -`."""
        if isinstance(e, A.Call) and isinstance(e.func, A.Attribute) and not e.args \
                and e.func.attr in ("keys", "items") \
                and isinstance(T.shape(T.unwrap(self.infer(e.func.value))), T.DictT):
            return T.SetT(T.erase(self._elem_type(e)))
        return t

    def _common(self, ts: list[T.Type]) -> T.Type:
        es = {T.erase(t) for t in ts}
        return es.pop() if len(es) == 1 else T.ANY

    def _infer_call(self, e: A.Call) -> T.Type:
        f = e.func
        if isinstance(f, A.Name):
            if self._is_builtin(f.id):
                arg = self.infer(e.args[0]) if e.args else T.ANY
                ash = T.shape(T.unwrap(arg))
                simple = {"len": T.INT, "str": T.STR, "int": T.INT, "bool": T.BOOL, "ord": T.INT,
                          "chr": T.STR, "bin": T.STR, "hex": T.STR, "all": T.BOOL, "any": T.BOOL,
                          "sum": T.INT if not e.keywords and len(e.args) == 1 else T.ANY}
                if f.id in simple:
                    return simple[f.id]
                if f.id == "abs" and isinstance(ash, (T.IntT, T.BoolT)):
                    return T.INT
                if f.id in ("sorted", "list"):
                    if isinstance(ash, (T.ListT, T.SetT)):
                        return T.ListT(T.erase(ash.elem))
                    if isinstance(ash, T.StrT):
                        return T.ListT(T.STR)
                    if f.id == "list" and not e.args:
                        return T.ListT(T.ANY)
                    return T.ListT(T.erase(self._elem_type(e.args[0]))) if e.args else T.ANY
                if f.id == "set":
                    return T.SetT(T.erase(self._elem_type(e.args[0])) if e.args else T.ANY)
                if f.id in ("min", "max") and len(e.args) == 1 and isinstance(ash, (T.ListT, T.SetT)):
                    return T.erase(ash.elem)
                if f.id in ("min", "max") and len(e.args) > 1:
                    return self._common([self.infer(a) for a in e.args])
                if f.id == "divmod":
                    return T.TupleT((T.INT, T.INT))
                if f.id == "pow" and all(isinstance(T.shape(self.infer(a)), T.IntT) for a in e.args):
                    return T.INT
                return T.ANY
            if not self._is_local(f.id):
                sym = self.scope.symbols.get(f.id)
                if sym is not None and sym.kind in ("env", "helper") and sym.returns is not None:
                    return sym.returns
            return T.ANY
        if isinstance(f, A.Attribute):
            if isinstance(f.value, A.Name) and not self._is_local(f.value.id):
                mod = self.scope.symbols.get(f.value.id)
                if mod is not None and mod.kind == "module":
                    sym = self.scope.member(mod.qualname, f.attr)
                    return sym.returns if sym is not None and sym.returns is not None else T.ANY
            m = f.attr
            if isinstance(f.value, A.Name) and f.value.id in self.rngs and self._is_local(f.value.id):
                return {"randint": T.INT, "fraction": T.TupleT((T.INT, T.INT))}.get(m, T.ANY)
            rt = T.shape(T.unwrap(self.infer(f.value)))
            if isinstance(rt, T.StrT):
                if m in ("upper", "lower", "strip", "replace", "zfill", "title", "swapcase", "join"):
                    return T.STR
                if m.startswith("is") or m in ("startswith", "endswith"):
                    return T.BOOL
                if m in ("find", "count", "index"):
                    return T.INT
                if m == "split":
                    return T.ListT(T.STR)
            if isinstance(rt, T.ListT):
                if m in ("index", "count"):
                    return T.INT
                if m == "pop":
                    return rt.elem
                if m == "copy":
                    return T.erase(rt)
            if isinstance(rt, T.DictT):
                if m in ("get", "setdefault", "pop"):
                    return rt.value if len(e.args) == 1 or m == "pop" else T.ANY
                if m == "copy":
                    return T.erase(rt)
        return T.ANY

    def _push_comp_scope(self, e: A.Comprehension) -> None:
        scope: dict[str, T.Type] = {}
        self.scopes.append(scope)
        for g in e.generators:
            names: list[A.Name] = []
            _assigned_names(g.target, names)
            et = self._elem_type(g.iter) if isinstance(g.target, A.Name) else T.ANY
            for n in names:
                scope[n.id] = et if isinstance(g.target, A.Name) else T.ANY

    # ------------------------------------------------------------ the order of sets (E601)

    def _opaque(self, e: A.Expr) -> None:
        """Report E509 at `e`, about to be rendered (`str`, an f-string field, `%`), when it is
        a lambda, a generator expression or an iterator a builtin makes (the table's result
        "iter": zip enumerate reversed), or a display holding one: CPython's text of one
        shows a memory address, which differs between processes (the runtime refuses the
        cases the checker cannot see: racesl.runtime.measure.OpaqueText)."""
        x = e
        stack = [e]
        while stack:
            x = stack.pop()
            if isinstance(x, (A.ListExpr, A.TupleExpr, A.SetExpr)):
                stack.extend(x.elts)
                continue
            what = ("a lambda" if isinstance(x, A.Lambda)
                    else "a generator" if isinstance(x, A.Comprehension) and x.kind == "gen"
                    else f"the iterator {x.func.id}() returns" if isinstance(x, A.Call)
                    and isinstance(x.func, A.Name) and x.func.id in ITER_BUILTINS and self._is_builtin(x.func.id)
                    else None)
            if what is not None:
                self.err("E509", f"{what} has no text form: its text would show a memory address", x.span,
                         "render the values it gives, e.g. list(...) of them")
                return

    def _order(self, use: str, e: A.Expr, t: T.Type | None = None, **what) -> None:
        """Report E601 at `e` when it is (`use` = "text": holds) a set whose order may vary."""
        if use == "text":
            self._opaque(e)
        t = self.infer(e) if t is None else t
        if not (_holds_unordered(t) if use == "text" else _unordered(t)):
            return
        msg = ORDER_MESSAGES[use].format(set=_describe_set(t), **what) + ORDER_REASON
        hint = ORDER_HINTS.get(use, ORDER_HINTS["default"]).format(**what)
        self.err("E601", msg, e.span, hint)

    def _order_call(self, e: A.Call) -> None:
        """The builtins and methods that read their argument's order (see ORDER_MESSAGES)."""
        f, args = e.func, e.args
        kws = {k.name: k.value for k in e.keywords}
        if isinstance(f, A.Name) and self._is_builtin(f.id):
            name = f.id
            if name in ORDER_FREE:
                if name in ("sorted", "min", "max") and "key" in kws and len(args) == 1 \
                        and not _injective_key(kws["key"]):
                    self._order("key", args[0], name=name)
                elif name == "sum" and (len(args) > 1 or "start" in kws) and args:
                    self._order("call", args[0], name=name)
                elif len(args) == 1 and isinstance(args[0], A.Comprehension) and args[0].kind == "gen" \
                        and not (name in ("sorted", "min", "max") and "key" in kws):
                    self._order_free.add(id(args[0]))
            elif name == "str" and args:
                self._order("text", args[0], name=name)
            elif name in ORDERING_BUILTINS:
                for a in (args if name == "zip" else args[:1]):
                    self._order("call", a, name=name)
        elif isinstance(f, A.Attribute) and f.attr in ("join", "extend") and len(args) == 1:
            rt = T.shape(T.unwrap(self.infer(f.value)))
            if isinstance(rt, T.AnyT) or isinstance(rt, T.StrT if f.attr == "join" else T.ListT):
                self._order("method", args[0], name=f.attr)

    # ------------------------------------------------------------ statements

    def _stmts(self, stmts) -> None:
        dead = False
        for s in stmts:
            if dead:
                if "#indent" not in self.scope.skipped:  # after an E103 the blocks are a guess
                    self.err("W602", "unreachable code", s.span, "remove it, or move it before the "
                             "return/break/continue", Severity.WARNING)
                dead = False  # one warning per block
                break
            self._stmt(s)
            if isinstance(s, (A.Return, A.Break, A.Continue)):
                dead = True
        if dead:
            return

    def _stmt(self, s) -> None:
        self._roots.append(s)
        try:
            self._stmt_inner(s)
        finally:
            self._roots.pop()

    def _is_constant_name(self, name: str) -> bool:
        sym = self.scope.symbols.get(name)
        return sym is not None and sym.kind == "const"

    def _constant_use(self, ref: A.Expr, shown: str, sym: Symbol) -> None:
        """E441/E442 when this read of a mutable constant could change it or hand it on
        (racesl.check.constants.use_diagnostic); reading it is free."""
        if id(ref) in self._const_seen or not self._roots or not C.is_mutable(sym.type):
            return
        self._const_seen.add(id(ref))
        root = self._roots[0]
        parents = self._parent_maps.get(id(root))
        if parents is None:
            parents = self._parent_maps[id(root)] = C.parent_map(root)
        found = C.use_diagnostic(ref, shown, sym.type, parents, self._is_builtin,
                                 lambda r: isinstance(r, A.Name) and r.id in self.rngs and self._is_local(r.id))
        if found is not None:
            self.err(found[0], found[1], ref.span, found[2])

    def _stmt_inner(self, s) -> None:
        if isinstance(s, A.Assign):
            for t in s.targets:
                self._target(t)
            if any(isinstance(t, (A.TupleExpr, A.ListExpr)) for t in s.targets):
                self._order("unpack", s.value)
            self.expr(s.value)
        elif isinstance(s, A.AugAssign):
            self._target(s.target)
            if not isinstance(s.target, A.Name):
                pass
            self.expr(s.target)
            self.expr(s.value)
        elif isinstance(s, A.ExprStmt):
            self.expr(s.value)
        elif isinstance(s, A.If):
            self.expr(s.test)
            self._stmts(s.body)
            self._stmts(s.orelse)
        elif isinstance(s, A.For):
            self._target(s.target)
            self._order("for", s.iter)
            self.expr(s.iter)
            self._stmts(s.body)
            self._stmts(s.orelse)
        elif isinstance(s, A.While):
            self.expr(s.test)
            self._stmts(s.body)
            self._stmts(s.orelse)
        elif isinstance(s, A.Return):
            if s.value is not None:
                self.expr(s.value)
        elif isinstance(s, A.Assert):
            self.expr(s.test)
            if s.msg is not None:
                self.expr(s.msg)

    def _check_returns(self, body, returns: T.Type, written=None) -> None:
        """E303 for a return of another type. The message names the return type as the
        signature writes it (`Word`), with what it refines where that differs (`a Str`)."""
        full = str(returns)
        said = declared_name(written, full) if written is not None else full
        if said != full and said != str(T.erase(returns)):  # a declared name: say what it stands for
            said = f"{said} ({article(full)})"
        elif said != full:  # an inline refinement: as written
            said = full
        for stmt in body:
            for n in A.walk(stmt):
                if isinstance(n, A.Return):
                    if n.value is None:
                        self.err("E303", f"bare return, but the signature promises {said}", n.span,
                                 "return a value")
                        continue
                    t = self.infer(n.value)
                    # a newtype's body builds its representation; the return makes it nominal
                    if not (T.compatible(t, returns) or T.compatible(T.unwrap(t), T.unwrap(returns))):
                        self.err("E303", f"returns {T.erase(t)}, but the signature says {said}",
                                 n.value.span, "change the returned value or the declared return type")

    def _target(self, t: A.Expr, comprehension: bool = False) -> None:
        """A name a statement or a comprehension binds. A comprehension's variable may reuse a
        module-level name: as in Python it shadows it inside the comprehension only (its scope
        is pushed by `_push_comp_scope`, and the lowering keeps Python's comprehension scope).
        A builtin is never rebound: the instrumenter reads builtin calls by name."""
        if isinstance(t, A.Name):
            p = N.name_problem(t.id)
            if p:
                self.err(p[0], p[1], t.span, p[2])
            elif t.id in N.BUILTINS or t.id in N.CONSTANTS:
                self.err("E508", f"assignment to '{t.id}' would shadow a builtin", t.span,
                         "pick another name")
            elif not comprehension and self._is_constant_name(t.id):
                self.err("E441", f"'{t.id}' is a module constant; assigning to it would change it", t.span,
                         f"constants are fixed when the library loads; use a local of another name, "
                         f"e.g. {t.id.lower()}_left = list({t.id})")
            elif not comprehension and self.scope.symbols.get(t.id) is not None:
                self.err("E508", f"assignment to '{t.id}' would shadow a module-level name", t.span,
                         "pick another name; only a comprehension's variable may reuse it "
                         "(it shadows the module-level name inside the comprehension only)")
        elif isinstance(t, (A.TupleExpr, A.ListExpr)):
            for e in t.elts:
                self._target(e, comprehension)
        elif isinstance(t, A.Subscript):
            self.expr(t.value)
            self.expr(t.index)
        elif isinstance(t, A.Attribute):
            self.err("E501", "assigning to an attribute is not allowed", t.span,
                     "values are immutable records; build a new value instead")
        else:
            self.err("E500", "cannot assign to this expression", t.span, "assign to a name, a tuple of names or a subscript")

    # ------------------------------------------------------------ expressions

    def expr(self, e) -> None:
        """Check an expression tree. Iterative over the common recursive shapes."""
        m = getattr(self, "_e_" + type(e).__name__, None)
        if m is not None:
            m(e)
        else:
            for c in A.children(e):
                self.expr(c)

    def _e_Name(self, e: A.Name) -> None:
        p = N.name_problem(e.id)
        if p:
            self.err(p[0], p[1], e.span, p[2])
            return
        if self._is_local(e.id):
            return
        sym = self.scope.lookup(e.id)
        if sym is not None:
            if sym.kind == "type":
                self.err("E305", f"'{e.id}' is a type, not a value", e.span,
                         "types appear in signatures; sample or build a value instead")
            elif sym.kind == "module":
                self.err("E305", f"module '{e.id}' is not a value", e.span,
                         f"refer to one of its names: {e.id}.NAME")
            else:
                self.resolved[id(e)] = sym.pyname
                if sym.kind == "const":
                    self._constant_use(e, e.id, sym)
            return
        if e.id in N.BUILTINS:
            return
        if e.id in self.scope.skipped:
            return  # probably defined in a statement that did not parse
        if e.id == "None":
            self.err("E200", "there is no None in racesl", e.span,
                     "every value has a type; use an empty value, -1, or an assert for 'no answer'")
            return
        visible = set(self.locals) | set(self.scope.symbols) | set(N.BUILTINS)
        for s in self.scopes:
            visible |= set(s)
        self.err("E200", f"unknown name '{e.id}'", e.span, SG.name_hint(e.id, visible))

    def _e_Attribute(self, e: A.Attribute) -> None:
        if self._module_member(e) is not None:
            return
        p = N.name_problem(e.attr)
        if p:
            self.err("E502" if p[0] == "E502" else "E501", f"attribute '{e.attr}' is not allowed", e.attr_span, p[2])
            return
        self.err("E501", f"attribute access '.{e.attr}' is not allowed", e.attr_span,
                 "only calls of the listed methods are allowed, e.g. s.upper()")
        self.expr(e.value)

    def _module_member(self, e: A.Attribute) -> Symbol | None:
        """`mod.name` where mod is an imported module: resolve it (reporting E204 if missing)."""
        if not isinstance(e.value, A.Name) or self._is_local(e.value.id):
            return None
        sym = self.scope.symbols.get(e.value.id)
        if sym is not None and sym.kind == "error":
            return Symbol("error", "")  # a name whose import failed (reported there): nothing to add
        if sym is None or sym.kind != "module":
            return None
        self.scope.used.add(e.value.id)
        member = self.scope.member(sym.qualname, e.attr)
        if member is None:
            ex = self.scope.exports(sym.qualname) or {}
            close = N.suggest(e.attr, ex)
            self.err("E204", f"module '{sym.qualname}' has no name '{e.attr}'", e.attr_span,
                     f"did you mean '{close}'?" if close else None)
            return Symbol("error", "")
        if member.kind == "type":
            self.err("E305", f"'{e.value.id}.{e.attr}' is a type, not a value", e.span)
        elif member.pyname:
            self.resolved[id(e)] = member.pyname
            if member.kind == "const":
                self._constant_use(e, f"{e.value.id}.{e.attr}", member)
        return member

    def _e_Compare(self, e: A.Compare) -> None:
        for op in e.ops:
            if op in ("is", "is not"):
                self.err("E500", f"'{op}' compares object identity, which is not part of the language", e.span,
                         "use '==' or '!='" if op == "is" else "use '!='")
                break
        self.expr(e.left)
        for c in e.comparators:
            self.expr(c)

    def _e_BinOp(self, e: A.BinOp) -> None:
        # left-nested chains (a + b + c + ...) are walked iteratively
        stack = [e]
        while stack:
            b = stack.pop()
            if isinstance(b, A.BinOp):
                lt, rt = T.erase(self.infer(b.left)), T.erase(self.infer(b.right))
                if b.op == "+" and not T.compatible(lt, rt) and not (
                        isinstance(lt, (T.IntT, T.BoolT)) and isinstance(rt, (T.IntT, T.BoolT))):
                    self.err("E303", f"cannot add {lt} and {rt}", b.op_span, self._add_hint(b, lt, rt))
                if b.op == "%" and isinstance(lt, T.StrT):  # "%s" % xs formats the text of xs
                    for x in (b.right.elts if isinstance(b.right, A.TupleExpr) else (b.right,)):
                        self._order("text", x)
                stack.append(b.right)
                stack.append(b.left)
            else:
                self.expr(b)

    def _add_hint(self, b: A.BinOp, lt: T.Type, rt: T.Type) -> str:
        """How to make `left + right` add: unwrap a newtype with its representation's
        constructor (int(n), str(s), list(xs)), or convert between Int and Str."""
        for side, t in ((b.left, lt), (b.right, rt)):
            if isinstance(t, T.NewT):
                rep = T.erase(T.unwrap(t))
                conv = _CONVERT.get(type(rep))
                text = _short(side)
                mod, _, short = t.name.rpartition(".")
                name = short if mod == self.scope.module else t.name
                if conv is not None:
                    return (f"{text} is {article(name)}, a newtype of {rep}: write {conv}({text}) to compute "
                            f"with its {rep} value (see the language reference, §2.3)")
                return f"{text} is {article(name)}, a newtype of {rep}: `+` needs both sides of one type"
        kinds = {type(lt): b.left, type(rt): b.right}
        if set(kinds) == {T.StrT, T.IntT}:
            n, s = _short(kinds[T.IntT]), _short(kinds[T.StrT])
            return f"write str({n}) to join texts, or int({s}) to add numbers"
        return "convert one side, e.g. str(n) or int(s)"

    def _e_Lambda(self, e: A.Lambda) -> None:
        scope = {}
        for p in e.params:
            prob = N.name_problem(p.name)
            if prob:
                self.err(prob[0], prob[1], p.span, prob[2])
            scope[p.name] = T.ANY
        self.scopes.append(scope)
        try:
            self.expr(e.body)
        finally:
            self.scopes.pop()

    def _e_FormattedValue(self, e: A.FormattedValue) -> None:
        self._order("text", e.value)
        for c in A.children(e):
            self.expr(c)

    def _e_Comprehension(self, e: A.Comprehension) -> None:
        # a set comprehension's result has no order, and ORDER_FREE builtins do not read it
        ordered = e.kind != "set" and id(e) not in self._order_free
        kind = COMPREHENSION_KINDS.get(e.kind, e.kind)
        # the first iterable is evaluated in the enclosing scope, as in Python
        if ordered:
            self._order("comprehension", e.generators[0].iter, kind=kind)
        self.expr(e.generators[0].iter)
        self._push_comp_scope(e)
        try:
            if ordered:
                for g in e.generators[1:]:
                    self._order("comprehension", g.iter, kind=kind)
            for node, is_target in A.comprehension_parts(e):
                if is_target:
                    self._target(node, comprehension=True)
                else:
                    self.expr(node)
        finally:
            self.scopes.pop()

    def _e_Call(self, e: A.Call) -> None:
        for k in e.keywords:
            p = N.name_problem(k.name)
            if p:
                self.err(p[0], p[1], k.span, p[2])
        f = e.func
        nargs, kws = len(e.args), {k.name for k in e.keywords}
        self._order_call(e)
        if isinstance(f, A.Name) and not self._is_local(f.id):
            sym = self.scope.lookup(f.id)
            if sym is not None and sym.kind in ("env", "helper"):
                self.resolved[id(f)] = sym.pyname
                self._check_fn_call(e, f.id, sym)
            elif sym is not None:
                self._e_Name(f)
            elif f.id in N.BUILTINS:
                lo, hi, allowed = N.BUILTINS[f.id]
                self._arity(e, f.id, lo, hi, allowed, nargs, kws)
            else:
                self._e_Name(f)
        elif isinstance(f, A.Attribute):
            member = self._module_member(f)
            if member is not None:
                if member.kind in ("env", "helper"):
                    self._check_fn_call(e, f"{f.value.id}.{f.attr}", member)
            else:
                self._method_call(e, f, nargs, kws)
        elif isinstance(f, (A.Const, A.FString, A.ListExpr, A.DictExpr, A.TupleExpr, A.SetExpr)):
            self.err("E506", "this value is not callable", f.span)
        else:
            self.expr(f)
        for a in e.args:
            self.expr(a)
        for k in e.keywords:
            self.expr(k.value)

    def _check_fn_call(self, e: A.Call, shown: str, sym: Symbol) -> None:
        nparams = sym.nparams or 0
        for k in e.keywords:
            if k.name not in sym.params:
                self.err("E504", f"'{shown}' has no parameter '{k.name}'", k.span,
                         f"parameters: {', '.join(sym.params)}")
        given = len(e.args) + len(e.keywords)
        if given != nparams:
            self.err("E504", f"'{shown}' takes {plural(nparams, 'argument')}, {given} given", e.span,
                     f"signature: {shown}({', '.join(sym.params)})")

    def _arity(self, e, shown, lo, hi, allowed, nargs, kws) -> None:
        bad = sorted(kws - allowed)
        if bad:
            self.err("E504", f"'{shown}' does not take the keyword '{bad[0]}'", e.span,
                     f"allowed keywords: {', '.join(sorted(allowed))}" if allowed else "pass arguments by position")
        if nargs < lo or (hi is not None and nargs > hi):
            want = f"{lo}" if lo == hi else f"{lo} to {hi}" if hi is not None else f"at least {lo}"
            noun = "positional argument" if want == "1" else "positional arguments"
            self.err("E504", f"'{shown}' takes {want} {noun}, {nargs} given", e.span)

    def _method_call(self, e: A.Call, f: A.Attribute, nargs: int, kws: set[str]) -> None:
        name = f.attr
        p = N.name_problem(name)
        if p:
            self.err("E502" if p[0] == "E502" else "E501", f"attribute '{name}' is not allowed", f.attr_span, p[2])
            return
        self.expr(f.value)
        rt = T.shape(T.unwrap(self.infer(f.value)))
        is_rng = isinstance(f.value, A.Name) and f.value.id in self.rngs and self._is_local(f.value.id)
        if is_rng:
            table, what = N.RNG_METHODS, "rng"
        elif isinstance(rt, T.StrT):
            table, what = N.STR_METHODS, "Str"
        elif isinstance(rt, T.ListT):
            table, what = N.LIST_METHODS, "List"
        elif isinstance(rt, T.DictT):
            table, what = N.DICT_METHODS, "Dict"
        elif isinstance(rt, T.TupleT):
            table, what = N.TUPLE_METHODS, "Tuple"
        elif isinstance(rt, (T.IntT, T.BoolT, T.SetT)):
            table, what = {}, str(rt).split("[")[0]
        else:
            table, what = N.ALL_METHODS, None
        if name not in table:  # the hint by meaning, then spelling, else the list (racesl.check.suggest)
            hint = SG.method_hint(what, name, table)
            if what is None:
                self.err("E503", f"'.{name}()' is not an allowed method", f.attr_span, hint)
            else:
                self.err("E503", f"{what} has no allowed method '{name}'", f.attr_span, hint)
            return
        lo, hi, allowed = table[name]
        self._arity(e, f".{name}()", lo, hi, allowed, nargs, kws)
