"""The syntax tree of a `.races` module: frozen attrs nodes, each with its source span.

Expressions and statements mirror Python's own shapes (so lowering is a direct map
onto `ast`), items are racesl's own: environments, helpers, type declarations, imports.
"""

from __future__ import annotations

from typing import Union

import attrs

from racesl.diagnostics import Span

node = attrs.frozen(slots=True, eq=False, repr=False)


class Node:
    __slots__ = ()

    def __repr__(self) -> str:  # compact and span-free: easier to read in test failures
        fields = ", ".join(
            f"{a.name}={getattr(self, a.name)!r}" for a in attrs.fields(type(self)) if a.name != "span"
        )
        return f"{type(self).__name__}({fields})"


# ---------------------------------------------------------------- expressions


@node
class Name(Node):
    id: str
    span: Span


@node
class Const(Node):
    """An int, bool or str literal (after implicit concatenation of adjacent strings)."""

    value: Union[int, bool, str]
    span: Span


@node
class FormattedValue(Node):
    value: "Expr"
    conversion: str | None  # "r" | "s" | None
    spec: "FString | None"
    span: Span


@node
class FString(Node):
    parts: tuple[Union[str, FormattedValue], ...]
    span: Span


@node
class BinOp(Node):
    op: str  # "+", "-", "*", "//", "%", "**", "<<", ">>", "|", "&", "^", "/"
    left: "Expr"
    right: "Expr"
    span: Span
    op_span: Span


@node
class UnaryOp(Node):
    op: str  # "-", "+", "not", "~"
    operand: "Expr"
    span: Span


@node
class BoolOp(Node):
    op: str  # "and" | "or"
    values: tuple["Expr", ...]
    span: Span


@node
class Compare(Node):
    left: "Expr"
    ops: tuple[str, ...]  # "<", "<=", "==", "!=", ">", ">=", "in", "not in", "is", "is not"
    comparators: tuple["Expr", ...]
    span: Span


@node
class IfExp(Node):
    test: "Expr"
    body: "Expr"
    orelse: "Expr"
    span: Span


@node
class Lambda(Node):
    params: tuple["Param", ...]
    body: "Expr"
    span: Span


@node
class Keyword(Node):
    name: str
    value: "Expr"
    span: Span


@node
class Call(Node):
    func: "Expr"
    args: tuple["Expr", ...]
    keywords: tuple[Keyword, ...]
    span: Span


@node
class Attribute(Node):
    value: "Expr"
    attr: str
    span: Span
    attr_span: Span


@node
class Slice(Node):
    lower: "Expr | None"
    upper: "Expr | None"
    step: "Expr | None"
    span: Span


@node
class Subscript(Node):
    value: "Expr"
    index: "Expr"  # may be a Slice
    span: Span


@node
class ListExpr(Node):
    elts: tuple["Expr", ...]
    span: Span


@node
class TupleExpr(Node):
    elts: tuple["Expr", ...]
    span: Span


@node
class SetExpr(Node):
    elts: tuple["Expr", ...]
    span: Span


@node
class DictExpr(Node):
    keys: tuple["Expr", ...]
    values: tuple["Expr", ...]
    span: Span


@node
class CompFor(Node):
    target: "Expr"
    iter: "Expr"
    ifs: tuple["Expr", ...]
    span: Span


@node
class Comprehension(Node):
    kind: str  # "list" | "set" | "dict" | "gen"
    elt: "Expr"
    value: "Expr | None"  # dict comprehensions: elt is the key
    generators: tuple[CompFor, ...]
    span: Span


Expr = Union[
    Name, Const, FString, BinOp, UnaryOp, BoolOp, Compare, IfExp, Lambda, Call, Attribute,
    Subscript, Slice, ListExpr, TupleExpr, SetExpr, DictExpr, Comprehension,
]

# ---------------------------------------------------------------- statements


@node
class Assign(Node):
    targets: tuple[Expr, ...]  # a = b = value
    value: Expr
    span: Span


@node
class AugAssign(Node):
    target: Expr
    op: str
    value: Expr
    span: Span


@node
class ExprStmt(Node):
    value: Expr
    span: Span


@node
class If(Node):
    test: Expr
    body: tuple["Stmt", ...]
    orelse: tuple["Stmt", ...]
    span: Span


@node
class For(Node):
    target: Expr
    iter: Expr
    body: tuple["Stmt", ...]
    orelse: tuple["Stmt", ...]
    span: Span


@node
class While(Node):
    test: Expr
    body: tuple["Stmt", ...]
    orelse: tuple["Stmt", ...]
    span: Span


@node
class Return(Node):
    value: Expr | None
    span: Span


@node
class Assert(Node):
    test: Expr
    msg: Expr | None
    span: Span


@node
class Pass(Node):
    span: Span


@node
class Break(Node):
    span: Span


@node
class Continue(Node):
    span: Span


Stmt = Union[Assign, AugAssign, ExprStmt, If, For, While, Return, Assert, Pass, Break, Continue]

# ---------------------------------------------------------------- types


@node
class TypeExpr(Node):
    """`Name`, `Name[args]` or `module.Name`, optionally refined: `T where pred`."""

    name: str  # possibly qualified: "numbers.Small"
    args: tuple["TypeExpr", ...]
    where: Expr | None
    span: Span
    name_span: Span
    where_text: str = ""  # the refinement as written (one line), what messages show; "" if unknown


# ---------------------------------------------------------------- items


@node
class Param(Node):
    name: str
    annotation: TypeExpr | None
    span: Span


@node
class Decorator(Node):
    name: str
    args: tuple[Expr, ...]
    keywords: tuple[Keyword, ...]
    span: Span


@node
class ModuleDecl(Node):
    name: str
    span: Span


@node
class ImportName(Node):
    name: str
    span: Span


@node
class Import(Node):
    module: str
    span: Span
    module_span: Span


@node
class FromImport(Node):
    module: str
    names: tuple[ImportName, ...]
    span: Span
    module_span: Span


@node
class TypeDecl(Node):
    """`type N = T` (alias, transparent) or `newtype N = T` (nominal)."""

    name: str
    type: TypeExpr
    nominal: bool
    span: Span
    name_span: Span


@node
class FuncDef(Node):
    """A module-level helper (`def`) or an environment (`env`)."""

    kind: str  # "def" | "env"
    name: str
    params: tuple[Param, ...]
    returns: TypeExpr | None
    docstring: Const | None
    body: tuple[Stmt, ...]
    decorators: tuple[Decorator, ...]
    span: Span
    name_span: Span

    @property
    def is_env(self) -> bool:
        return self.kind == "env"


@node
class ConstDef(Node):
    """`NAME: TYPE = EXPR` at the top level: a module constant, evaluated once when a library
    is loaded (racesl.runtime.constants) and never changed by a body (racesl.check.constants).
    `annotation` is None only when the source left the type out (an error, E440)."""

    name: str
    annotation: TypeExpr | None
    value: Expr
    span: Span
    name_span: Span


Item = Union[ModuleDecl, Import, FromImport, TypeDecl, FuncDef, ConstDef]


@node
class Module(Node):
    name: str | None  # from `module NAME`, else None (the loader uses the file stem)
    items: tuple[Item, ...]
    span: Span
    # names in statements that syntax recovery skipped: the checker does not call them
    # unknown, since their definition may be what was skipped
    skipped_names: frozenset[str] = frozenset()


def children(n: Node):
    """Direct child nodes, in source order — the one generic walker every pass can use."""
    for a in attrs.fields(type(n)):
        v = getattr(n, a.name)
        if isinstance(v, Node):
            yield v
        elif isinstance(v, tuple):
            for x in v:
                if isinstance(x, Node):
                    yield x


def walk(n: Node):
    """Pre-order traversal without recursion (deeply nested input must not blow the stack)."""
    stack = [n]
    while stack:
        cur = stack.pop()
        yield cur
        stack.extend(reversed(list(children(cur))))


def comprehension_parts(e: Comprehension):
    """(node, is_target) for what a comprehension evaluates in its own scope, in Python's
    order: every generator's iterable but the first (which the enclosing scope evaluates),
    its target, its conditions; then the element (and a dict comprehension's value)."""
    for k, g in enumerate(e.generators):
        if k:
            yield g.iter, False
        yield g.target, True
        for c in g.ifs:
            yield c, False
    yield e.elt, False
    if e.value is not None:
        yield e.value, False


def assigned_names(target: Expr, out: list) -> None:
    """The names a target binds (`a`, `a, (b, c)`), appended to `out` in order."""
    stack = [target]
    while stack:
        t = stack.pop()
        if isinstance(t, Name):
            out.append(t)
        elif isinstance(t, (TupleExpr, ListExpr)):
            stack.extend(reversed(t.elts))


def conjuncts(e: Expr) -> list[Expr]:
    """Top-level `and` operands, flattened in order (without recursion: long chains)."""
    stack = [e]
    out = []
    while stack:
        cur = stack.pop()
        if isinstance(cur, BoolOp) and cur.op == "and":
            stack.extend(reversed(cur.values))
        else:
            out.append(cur)
    return out


def depth(n: Node, limit: int) -> tuple[int, Node]:
    """Nesting depth of a tree (without recursion), and its deepest node; stops past `limit`.

    Every later pass walks trees recursively, so the parser refuses trees deeper than a
    bound rather than letting a long `a + a + ... + a` overflow the stack downstream."""
    best, deepest = 0, n
    stack = [(n, 1)]
    while stack:
        cur, d = stack.pop()
        if d > best:
            best, deepest = d, cur
            if best > limit:
                break
        stack.extend((c, d + 1) for c in children(cur))
    return best, deepest
