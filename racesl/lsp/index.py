"""Every name occurrence of a module, resolved: the shared base of hover, definition,
references, semantic tokens and rename-like features.

An occurrence is a span (of the name only), the name, its role (`kind`) and a *target*
that identifies what it refers to across modules:

- ("sym", module, name)       an environment, helper or type declared at module level
- ("mod", module)             a module (in `import m`, `m.name`, `m.Type`)
- ("local", fid, scope, name) a parameter or local variable (scope 0 = the function body;
                              comprehensions and lambdas open their own scopes)
- ("it", fid)                 the value a refinement talks about
- ("builtin", name), ("method", name), ("decorator", name), ("law", name),
  ("basetype", name), ("unknown", name)

Occurrences are computed per top-level item and cached by (item node, module namespace).
"""

from __future__ import annotations

from typing import Iterable

import attrs

from racesl.check import names as N
from racesl.diagnostics import Span
from racesl.cache import SizedLRU
from racesl.syntax import ast as A

ITEMS_BUDGET = 8_000_000  # characters of items behind the occurrence cache (it keeps old ASTs alive)
BASE_TYPE_NAMES = ("Int", "Bool", "Str", "List", "Tuple", "Dict")


@attrs.frozen(slots=True)
class Occ:
    span: Span
    name: str
    kind: str  # env helper type module param local it builtin method decorator law basetype unknown const
    target: tuple
    is_def: bool = False
    item: A.Node | None = attrs.field(default=None, eq=False, repr=False)
    func: A.FuncDef | None = attrs.field(default=None, eq=False, repr=False)


def name_span(start: Span, name: str, skip: int = 0) -> Span:
    """The span of `name` written at the start of `start` (after `skip` characters)."""
    c = start.col + skip
    o = start.start + skip
    return Span(start.line, c, start.line, c + len(name), o, o + len(name))


@attrs.frozen
class Namespace:
    """What the top-level names of one module refer to: name → (kind, target)."""

    module: str
    names: dict = attrs.field(eq=False)
    key: int = 0  # a fingerprint of `names` (cache keys hash it many times: keep it small)
    kind_of: object = attrs.field(default=None, eq=False)  # (module, name) → kind | None

    def get(self, name: str):
        return self.names.get(name)

    def member_kind(self, module: str, name: str) -> str:
        return (self.kind_of(module, name) if self.kind_of else None) or "member"


def namespace(module_name: str, mod: A.Module, kind_of=None) -> Namespace:
    """Top-level names. `kind_of(module, name)` says what an imported name is (env/helper/type)."""
    names: dict[str, tuple[str, tuple]] = {}
    for it in mod.items:
        if isinstance(it, A.Import):
            short = it.module.split(".")[-1]
            names.setdefault(short, ("module", ("mod", it.module)))
        elif isinstance(it, A.FromImport):
            for n in it.names:
                k = (kind_of(it.module, n.name) if kind_of else None) or "unknown"
                names.setdefault(n.name, (k, ("sym", it.module, n.name)))
    for it in mod.items:  # definitions win over imports (the checker reports the clash)
        if isinstance(it, A.TypeDecl):
            names.setdefault(it.name, ("type", ("sym", module_name, it.name)))
        elif isinstance(it, A.FuncDef):
            names.setdefault(it.name, ("env" if it.is_env else "helper", ("sym", module_name, it.name)))
        elif isinstance(it, A.ConstDef):
            names.setdefault(it.name, ("constant", ("sym", module_name, it.name)))
    key = hash((module_name, tuple(sorted(names.items()))))
    return Namespace(module_name, names, key, kind_of)


class _Walker:
    def __init__(self, ns: Namespace, item: A.Node):
        self.ns = ns
        self.item = item
        self.out: list[Occ] = []
        self.func: A.FuncDef | None = None
        self.fid = 0
        self.locals: set[str] = set()
        self.scopes: list[tuple[int, set[str]]] = []
        self.nscopes = 0
        self.defined: set[tuple] = set()

    def add(self, span: Span, name: str, kind: str, target: tuple, is_def: bool = False) -> None:
        self.out.append(Occ(span, name, kind, target, is_def, self.item, self.func))

    # ------------------------------------------------------------ names

    def name(self, e: A.Name, store: bool = False) -> None:
        n = e.id
        for sid, names in reversed(self.scopes):
            if n in names:
                t = ("local", self.fid, sid, n)
                self.add(e.span, n, "local", t, store and self._first(t))
                return
        if self.func is not None and n in self.locals:
            t = ("local", self.fid, 0, n)
            kind = "param" if n in self.params else "local"
            self.add(e.span, n, kind, t, store and self._first(t))
            return
        if n == "it" and self.in_pred:
            self.add(e.span, n, "it", ("it", self.fid))
            return
        if n in ("True", "False"):
            self.add(e.span, n, "const", ("builtin", n))
            return
        hit = self.ns.get(n)
        if hit is not None:
            self.add(e.span, n, hit[0], hit[1])
            return
        if n in N.BUILTINS:
            self.add(e.span, n, "builtin", ("builtin", n))
            return
        self.add(e.span, n, "unknown", ("unknown", n))

    def _first(self, target: tuple) -> bool:
        if target in self.defined:
            return False
        self.defined.add(target)
        return True

    # ------------------------------------------------------------ items

    def run(self) -> list[Occ]:
        it = self.item
        self.params: set[str] = set()
        self.in_pred = False
        if isinstance(it, A.Import):
            self.add(it.module_span, it.module, "module", ("mod", it.module))
        elif isinstance(it, A.FromImport):
            self.add(it.module_span, it.module, "module", ("mod", it.module))
            for n in it.names:
                hit = self.ns.get(n.name)
                kind = hit[0] if hit is not None and hit[1] == ("sym", it.module, n.name) else "unknown"
                self.add(n.span, n.name, kind, ("sym", it.module, n.name))
        elif isinstance(it, A.ModuleDecl):
            pass
        elif isinstance(it, A.TypeDecl):
            self.fid = id(it)
            self.add(it.name_span, it.name, "type", ("sym", self.ns.module, it.name), True)
            self.type_expr(it.type)
        elif isinstance(it, A.FuncDef):
            self.function(it)
        elif isinstance(it, A.ConstDef):  # a module constant: its name, type and value
            self.fid = id(it)
            self.add(it.name_span, it.name, "constant", ("sym", self.ns.module, it.name), True)
            if it.annotation is not None:
                self.type_expr(it.annotation)
            self.expr(it.value)
        return self.out

    def function(self, fn: A.FuncDef) -> None:
        self.func = fn
        self.fid = id(fn)
        self.params = {p.name for p in fn.params}
        self.locals = set(self.params)
        for stmt in fn.body:
            for n in A.walk(stmt):
                targets: list[A.Name] = []
                if isinstance(n, A.Assign):
                    for t in n.targets:
                        _assigned(t, targets)
                elif isinstance(n, A.AugAssign):
                    _assigned(n.target, targets)
                elif isinstance(n, A.For):
                    _assigned(n.target, targets)
                self.locals.update(t.id for t in targets)
        for d in fn.decorators:
            self.decorator(d, fn)
        kind = "env" if fn.is_env else "helper"
        self.add(fn.name_span, fn.name, kind, ("sym", self.ns.module, fn.name), True)
        for p in fn.params:
            t = ("local", self.fid, 0, p.name)
            self.defined.add(t)
            self.add(name_span(p.span, p.name), p.name, "param", t, True)
            if p.annotation is not None:
                self.type_expr(p.annotation)
        if fn.returns is not None:
            self.type_expr(fn.returns)
        for s in fn.body:
            self.stmt(s)

    def decorator(self, d: A.Decorator, fn: A.FuncDef) -> None:
        self.add(name_span(d.span, d.name, 1), d.name, "decorator", ("decorator", d.name))
        for a in d.args:
            if d.name == "laws" and isinstance(a, A.Name) and a.id in N.LAWS:
                self.add(a.span, a.id, "law", ("law", a.id))
            else:
                self.expr(a)
        for k in d.keywords:
            if d.name == "sample" and k.name in self.params:
                self.add(name_span(k.span, k.name), k.name, "param", ("local", self.fid, 0, k.name))
            self.expr(k.value)

    def type_expr(self, te: A.TypeExpr) -> None:
        name = te.name
        if "." in name:
            mod, _, attr = name.rpartition(".")
            hit = self.ns.get(mod)
            target_mod = hit[1][1] if hit is not None and hit[1][0] == "mod" else mod
            self.add(name_span(te.name_span, mod), mod, "module", ("mod", target_mod))
            self.add(name_span(te.name_span, attr, len(mod) + 1), attr, self.ns.member_kind(target_mod, attr),
                     ("sym", target_mod, attr))
        elif name in BASE_TYPE_NAMES:
            self.add(te.name_span, name, "basetype", ("basetype", name))
        else:
            hit = self.ns.get(name)
            if hit is not None:
                self.add(te.name_span, name, hit[0], hit[1])
            else:
                self.add(te.name_span, name, "unknown", ("unknown", name))
        for a in te.args:
            self.type_expr(a)
        if te.where is not None:
            saved, saved_scopes = self.in_pred, self.scopes
            self.in_pred, self.scopes = True, []
            saved_locals = self.locals
            self.locals = set()
            try:
                self.expr(te.where)
            finally:
                self.in_pred, self.scopes, self.locals = saved, saved_scopes, saved_locals

    # ------------------------------------------------------------ statements

    def stmt(self, s) -> None:
        if isinstance(s, A.Assign):
            self.expr(s.value)
            for t in s.targets:
                self.target(t)
        elif isinstance(s, A.AugAssign):
            self.target(s.target)
            self.expr(s.value)
        elif isinstance(s, A.For):
            self.expr(s.iter)
            self.target(s.target)
            for b in s.body + s.orelse:
                self.stmt(b)
        elif isinstance(s, (A.If, A.While)):
            self.expr(s.test)
            for b in s.body + s.orelse:
                self.stmt(b)
        elif isinstance(s, A.Return):
            if s.value is not None:
                self.expr(s.value)
        elif isinstance(s, A.Assert):
            self.expr(s.test)
            if s.msg is not None:
                self.expr(s.msg)
        elif isinstance(s, A.ExprStmt):
            self.expr(s.value)

    def target(self, t) -> None:
        if isinstance(t, A.Name):
            self.name(t, store=True)
        elif isinstance(t, (A.TupleExpr, A.ListExpr)):
            for e in t.elts:
                self.target(e)
        else:
            self.expr(t)

    # ------------------------------------------------------------ expressions

    def expr(self, e) -> None:
        stack = [e]
        while stack:
            e = stack.pop()
            if e is None:
                continue
            if isinstance(e, A.Name):
                self.name(e)
            elif isinstance(e, A.Attribute):
                v = e.value
                hit = self.ns.get(v.id) if isinstance(v, A.Name) else None
                if hit is not None and hit[0] == "module" and not self._is_local(v.id):
                    mod = hit[1][1]
                    self.add(v.span, v.id, "module", ("mod", mod))
                    self.add(e.attr_span, e.attr, self.ns.member_kind(mod, e.attr), ("sym", mod, e.attr))
                else:
                    self.add(e.attr_span, e.attr, "method", ("method", e.attr))
                    stack.append(v)
            elif isinstance(e, A.Call):
                for k in reversed(e.keywords):
                    stack.append(k.value)
                stack.extend(reversed(e.args))
                stack.append(e.func)
            elif isinstance(e, A.Lambda):
                self.lambda_(e)
            elif isinstance(e, A.Comprehension):
                self.comprehension(e)
            elif isinstance(e, A.FString):
                for p in reversed(e.parts):
                    if isinstance(p, A.FormattedValue):
                        stack.append(p.spec)
                        stack.append(p.value)
            elif isinstance(e, A.Node):
                stack.extend(reversed(list(A.children(e))))

    def _is_local(self, n: str) -> bool:
        return any(n in names for _, names in self.scopes) or (self.func is not None and n in self.locals)

    def _open_scope(self, names: set[str]) -> int:
        self.nscopes += 1
        self.scopes.append((self.nscopes, names))
        return self.nscopes

    def lambda_(self, e: A.Lambda) -> None:
        sid = self._open_scope({p.name for p in e.params})
        try:
            for p in e.params:
                self.add(p.span, p.name, "param", ("local", self.fid, sid, p.name), True)
            self.expr(e.body)
        finally:
            self.scopes.pop()

    def comprehension(self, e: A.Comprehension) -> None:
        self.expr(e.generators[0].iter)  # evaluated in the enclosing scope
        names: list[A.Name] = []
        for g in e.generators:
            _assigned(g.target, names)
        self._open_scope({n.id for n in names})
        try:
            for node, is_target in A.comprehension_parts(e):
                (self.target if is_target else self.expr)(node)
        finally:
            self.scopes.pop()


_assigned = A.assigned_names


def _chars(item: A.Node) -> int:
    span = getattr(item, "span", None)
    return max(0, span.end - span.start) if span is not None else 0


class Indexer:
    """Occurrences per item, cached by (item, namespace key)."""

    def __init__(self):
        self._cache = SizedLRU(ITEMS_BUDGET, 20000)  # id(item) → (item, ns key, module, occurrences)

    def item(self, item: A.Node, ns: Namespace) -> list[Occ]:
        hit = self._cache.get(id(item))
        if hit is not None and hit[0] is item and hit[1] == ns.key and hit[2] == ns.module:
            return hit[3]
        occs = _Walker(ns, item).run()
        occs.sort(key=lambda o: (o.span.line, o.span.col))
        self._cache.put(id(item), (item, ns.key, ns.module, occs), _chars(item))
        return occs

    def module(self, mod: A.Module, ns: Namespace) -> list[Occ]:
        out: list[Occ] = []
        for it in mod.items:
            if isinstance(it, A.Node):
                out.extend(self.item(it, ns))
        return out


def contains(span: Span, line: int, col: int) -> bool:
    """Is (line, col) inside the span, its end included (a cursor just after a name counts)?"""
    return (span.line, span.col) <= (line, col) <= (span.end_line, span.end_col)


def at(occs: Iterable[Occ], line: int, col: int) -> Occ | None:
    """The occurrence under (line, col); on a tie (cursor between two), the one starting there."""
    best = None
    for o in occs:
        if contains(o.span, line, col):
            if best is None or (o.span.line, o.span.col) == (line, col):
                best = o
    return best


def item_at(items: Iterable[A.Node], line: int, col: int) -> A.Node | None:
    """The top-level item whose span contains (line, col)."""
    for it in items:
        if isinstance(it, A.Node) and contains(it.span, line, col):
            return it
    return None
