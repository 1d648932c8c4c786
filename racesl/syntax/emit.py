"""racesl AST → Python `ast`, one-to-one, keeping line numbers.

Bodies already mean what CPython computes for the same text, so lowering is a direct map;
what changes is naming (module-level names are qualified: `numbers__fibonacci`) and
the fuel/guard instrumentation done afterwards by `racesl.lower.instrument`. The checker,
the solver and the samplers print expressions back to text with `expr_text`.
"""

from __future__ import annotations

import ast as py
from typing import Callable

from racesl.syntax import ast as A

_BINOPS = {
    "+": py.Add, "-": py.Sub, "*": py.Mult, "//": py.FloorDiv, "%": py.Mod, "**": py.Pow,
    "<<": py.LShift, ">>": py.RShift, "|": py.BitOr, "&": py.BitAnd, "^": py.BitXor, "/": py.Div,
}
_CMPOPS = {
    "<": py.Lt, "<=": py.LtE, "==": py.Eq, "!=": py.NotEq, ">": py.Gt, ">=": py.GtE,
    "in": py.In, "not in": py.NotIn, "is": py.Is, "is not": py.IsNot,
}
_UNARY = {"-": py.USub, "+": py.UAdd, "not": py.Not, "~": py.Invert}


def qualify(module: str, name: str) -> str:
    """The Python name of a module-level function."""
    return f"{module.replace('.', '_')}__{name}"


class Emitter:
    """Lowers expressions and statements. `resolve(name_node)` maps a global name to its
    Python name (or returns None to keep it: locals and builtins); `resolve_attr` does the
    same for `module.name` references."""

    def __init__(self, resolve: Callable[[A.Name], str | None],
                 resolve_attr: Callable[[A.Attribute], str | None] = lambda a: None):
        self.resolve = resolve
        self.resolve_attr = resolve_attr

    def _at(self, node: py.AST, span) -> py.AST:
        node.lineno, node.col_offset = span.line, span.col - 1
        node.end_lineno, node.end_col_offset = span.end_line, max(span.end_col - 1, 0)
        return node

    # ------------------------------------------------------------ expressions

    def expr(self, e: A.Expr, ctx=None) -> py.expr:
        ctx = ctx or py.Load()
        m = getattr(self, "e_" + type(e).__name__)
        return self._at(m(e, ctx), e.span)

    def e_Name(self, e: A.Name, ctx):
        if isinstance(ctx, py.Load):
            q = self.resolve(e)
            if q is not None:
                return py.Name(q, ctx)
        return py.Name(e.id, ctx)

    def e_Const(self, e: A.Const, ctx):
        return py.Constant(e.value)

    def e_FString(self, e: A.FString, ctx):
        vals = []
        for p in e.parts:
            if isinstance(p, str):
                vals.append(py.Constant(p))
            else:
                conv = {"r": ord("r"), "s": ord("s")}.get(p.conversion or "", -1)
                spec = self.expr(p.spec) if p.spec is not None else None
                vals.append(self._at(py.FormattedValue(self.expr(p.value), conv, spec), p.span))
        return py.JoinedStr(vals)

    def e_BinOp(self, e: A.BinOp, ctx):
        return py.BinOp(self.expr(e.left), _BINOPS[e.op](), self.expr(e.right))

    def e_UnaryOp(self, e: A.UnaryOp, ctx):
        return py.UnaryOp(_UNARY[e.op](), self.expr(e.operand))

    def e_BoolOp(self, e: A.BoolOp, ctx):
        return py.BoolOp(py.And() if e.op == "and" else py.Or(), [self.expr(v) for v in e.values])

    def e_Compare(self, e: A.Compare, ctx):
        return py.Compare(self.expr(e.left), [_CMPOPS[o]() for o in e.ops], [self.expr(c) for c in e.comparators])

    def e_IfExp(self, e: A.IfExp, ctx):
        return py.IfExp(self.expr(e.test), self.expr(e.body), self.expr(e.orelse))

    def e_Lambda(self, e: A.Lambda, ctx):
        args = py.arguments(posonlyargs=[], args=[py.arg(p.name) for p in e.params], kwonlyargs=[],
                            kw_defaults=[], defaults=[])
        return py.Lambda(args, self.expr(e.body))

    def e_Call(self, e: A.Call, ctx):
        return py.Call(self.expr(e.func), [self.expr(a) for a in e.args],
                       [self._at(py.keyword(k.name, self.expr(k.value)), k.span) for k in e.keywords])

    def e_Attribute(self, e: A.Attribute, ctx):
        q = self.resolve_attr(e)
        if q is not None:
            return py.Name(q, py.Load())
        return py.Attribute(self.expr(e.value), e.attr, ctx)

    def e_Subscript(self, e: A.Subscript, ctx):
        return py.Subscript(self.expr(e.value), self.expr(e.index), ctx)

    def e_Slice(self, e: A.Slice, ctx):
        f = lambda x: self.expr(x) if x is not None else None  # noqa: E731
        return py.Slice(f(e.lower), f(e.upper), f(e.step))

    def e_ListExpr(self, e: A.ListExpr, ctx):
        return py.List([self.expr(x, ctx) for x in e.elts], ctx)

    def e_TupleExpr(self, e: A.TupleExpr, ctx):
        return py.Tuple([self.expr(x, ctx) for x in e.elts], ctx)

    def e_SetExpr(self, e: A.SetExpr, ctx):
        return py.Set([self.expr(x) for x in e.elts])

    def e_DictExpr(self, e: A.DictExpr, ctx):
        return py.Dict([self.expr(k) for k in e.keys], [self.expr(v) for v in e.values])

    def e_Comprehension(self, e: A.Comprehension, ctx):
        gens = [
            self._at(py.comprehension(self.expr(g.target, py.Store()), self.expr(g.iter),
                                      [self.expr(c) for c in g.ifs], 0), g.span)
            for g in e.generators
        ]
        if e.kind == "list":
            return py.ListComp(self.expr(e.elt), gens)
        if e.kind == "set":
            return py.SetComp(self.expr(e.elt), gens)
        if e.kind == "dict":
            return py.DictComp(self.expr(e.elt), self.expr(e.value), gens)
        return py.GeneratorExp(self.expr(e.elt), gens)

    # ------------------------------------------------------------ statements

    def stmts(self, body) -> list[py.stmt]:
        out = [self.stmt(s) for s in body]
        return out or [py.Pass()]

    def stmt(self, s: A.Stmt) -> py.stmt:
        m = getattr(self, "s_" + type(s).__name__)
        return self._at(m(s), s.span)

    def s_Assign(self, s: A.Assign):
        return py.Assign([self.expr(t, py.Store()) for t in s.targets], self.expr(s.value))

    def s_AugAssign(self, s: A.AugAssign):
        return py.AugAssign(self.expr(s.target, py.Store()), _BINOPS[s.op](), self.expr(s.value))

    def s_ExprStmt(self, s: A.ExprStmt):
        return py.Expr(self.expr(s.value))

    def s_If(self, s: A.If):
        return py.If(self.expr(s.test), self.stmts(s.body), [self.stmt(x) for x in s.orelse])

    def s_For(self, s: A.For):
        return py.For(self.expr(s.target, py.Store()), self.expr(s.iter), self.stmts(s.body),
                      [self.stmt(x) for x in s.orelse])

    def s_While(self, s: A.While):
        return py.While(self.expr(s.test), self.stmts(s.body), [self.stmt(x) for x in s.orelse])

    def s_Return(self, s: A.Return):
        return py.Return(self.expr(s.value) if s.value is not None else None)

    def s_Assert(self, s: A.Assert):
        return py.Assert(self.expr(s.test), self.expr(s.msg) if s.msg is not None else None)

    def s_Pass(self, s):
        return py.Pass()

    def s_Break(self, s):
        return py.Break()

    def s_Continue(self, s):
        return py.Continue()

    # ------------------------------------------------------------ functions

    def function(self, pyname: str, params: list[str], body, span) -> py.FunctionDef:
        args = py.arguments(posonlyargs=[], args=[py.arg(p) for p in params], kwonlyargs=[],
                            kw_defaults=[], defaults=[])
        fn = py.FunctionDef(pyname, args, self.stmts(body), [], None, type_comment=None)
        return self._at(fn, span)

    def predicate(self, pyname: str, expr: A.Expr, span) -> py.FunctionDef:
        """`def pyname(it): return <expr>` — a refinement as a callable."""
        ret = self._at(py.Return(self.expr(expr)), expr.span)
        args = py.arguments(posonlyargs=[], args=[py.arg("it")], kwonlyargs=[], kw_defaults=[], defaults=[])
        return self._at(py.FunctionDef(pyname, args, [ret], [], None, type_comment=None), span)


# An int literal wider than this is written in hex: its decimal text could pass CPython's
# int-to-str limit (4,300 digits), and a 20,000-bit hex literal is legal source.
HEX_BITS = 4096

_BaseUnparser = getattr(py, "_Unparser", None)  # (CPython's own, behind `ast.unparse`)

if _BaseUnparser is not None:
    class _Unparser(_BaseUnparser):
        """`ast.unparse`, but an int wider than HEX_BITS is written in hex (`int_text`)."""

        def _write_constant(self, value):
            if type(value) is int and value.bit_length() > HEX_BITS:
                self.write(int_text(value))
            else:
                super()._write_constant(value)


def int_text(v: int) -> str:
    """An int as source text that never meets the int-to-str limit: decimal, or hex when
    wider than HEX_BITS. Every place that shows a user's int (a predicate's text, a bound
    in a message) goes through here."""
    return hex(v) if v.bit_length() > HEX_BITS else str(v)


def unparse(tree: py.AST) -> str:
    """`ast.unparse` with wide ints in hex (plain `ast.unparse` on a Python without
    CPython's unparser class)."""
    return py.unparse(tree) if _BaseUnparser is None else _Unparser().visit(tree)


def expr_text(e: A.Expr) -> str:
    """Normalized Python text of an expression with names kept as written (wide ints in
    hex: `unparse`)."""
    return unparse(Emitter(lambda n: None).expr(e))
