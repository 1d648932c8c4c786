"""Lark parse tree → racesl AST (`racesl.syntax.ast`), with a span on every node."""

from __future__ import annotations

import ast as pyast
import re
import sys
import warnings
from typing import Callable

from lark import Token, Tree
from lark.visitors import Transformer_NonRecursive, v_args

from racesl.diagnostics import Diagnostic, Span
from racesl.syntax import ast as A
from racesl.syntax.lexer import lines_for


def tok_span(t: Token) -> Span:
    if t.end_line is None:  # tokens lark made itself (e.g. borrowed positions) may lack ends
        n = len(str(t))
        return Span(t.line, t.column, t.line, t.column + n, t.start_pos or 0, (t.start_pos or 0) + n)
    return Span(t.line, t.column, t.end_line, t.end_column, t.start_pos, t.end_pos)


def meta_span(meta) -> Span:
    if getattr(meta, "empty", True):
        return Span(1, 1, 1, 1, 0, 0)
    return Span(meta.line, meta.column, meta.end_line, meta.end_column, meta.start_pos, meta.end_pos)


def source_text(text: str, span: Span) -> str:
    """The source of an expression at `span` of `text`, on one line; "" when the span does not
    fit the text (then callers show the normalized text instead)."""
    if not (0 <= span.start < span.end <= len(text)):
        return ""
    s = text[span.start:span.end]
    if s.count("\n") != span.end_line - span.line or not s.strip():
        return ""
    if "\n" in s:
        if "#" in s:
            return ""  # a comment inside a bracketed, multi-line refinement
        s = re.sub(r"([(\[{])[ \t]*\r?\n[ \t]*", r"\1", s)  # a break after an opener,
        s = re.sub(r",?[ \t]*\r?\n[ \t]*([\]}])", r"\1", s)  # before a closer (and its comma;
        s = re.sub(r"[ \t]*\r?\n[ \t]*\)", ")", s)  # kept before `)`: `(x,)` is a tuple)
        s = re.sub(r"\\?[ \t]*\r?\n[ \t]*", " ", s)
    return s.strip()


def span_of(x) -> Span:
    if isinstance(x, Token):
        return tok_span(x)
    return x.span


_STR_PREFIX = re.compile(r"(?i)([rbuf]*)")
_SURROGATE = re.compile("[\ud800-\udfff]")
# Replacement fields in one f-string (nested specs and f-strings in fields included): the
# lowering and CPython's own compiler take time superlinear in them (21,000 fields hung
# `--untrusted` startup), and no task text needs more than a few dozen.
MAX_FSTRING_FIELDS = 256
# What one replacement field costs, in tokens of its declaration's budget
# (parser.MAX_ITEM_TOKENS), besides the tokens of its expression: each field is parsed on
# its own and lowers to a guarded value and a join, several times a token's work.
FIELD_TOKENS = 16
_FIELD_LEX = re.compile(r"\{\{|\}\}|[{}]|\w+|[^\w\s{}]")


def fstring_weight(token: str) -> tuple[int, int]:
    """(fields, tokens) of an f-string token, by one regular-expression pass and before
    anything is parsed: its replacement fields (a brace in a field's expression counts as
    one, so at least the real number) and the tokens their expressions hold. The limits on
    fields are applied to these counts, so that a flood of fields is refused before the
    per-field work (a parse each, then lowering) that scales with it."""
    m = _STR_PREFIX.match(token)
    if "f" not in m.group(1).lower():
        return 0, 0
    fields = inner = depth = 0
    for t in _FIELD_LEX.finditer(token, m.end()):
        g = t.group()
        if depth == 0:
            if g == "{":
                fields += 1
                depth = 1
            continue
        if g in ("{", "{{"):
            fields += len(g)
            depth += len(g)
        elif g in ("}", "}}"):
            depth = max(0, depth - len(g))
        else:
            inner += 1
    return fields, inner


@v_args(meta=True)
class Builder(Transformer_NonRecursive):
    def __init__(self, text: str, path: str, diags: list[Diagnostic], parse_fexpr: Callable):
        super().__init__()
        self.text = text
        self.path = path
        self.diags = diags
        self._parse_fexpr = parse_fexpr

    def build(self, tree: Tree):
        return self.transform(tree)

    def _err(self, code: str, msg: str, span: Span, hint: str | None = None) -> None:
        self.diags.append(Diagnostic(code, msg, span, self.path, hint=hint))

    # ------------------------------------------------------------ items

    def module_decl(self, meta, c):
        return A.ModuleDecl(c[0][0], meta_span(meta))

    def import_decl(self, meta, c):
        return A.Import(c[0][0], meta_span(meta), c[0][1])

    def from_import(self, meta, c):
        names = tuple(x for x in c[1:] if isinstance(x, A.ImportName))
        return A.FromImport(c[0][0], names, meta_span(meta), c[0][1])

    def import_name(self, meta, c):
        return A.ImportName(str(c[0]), tok_span(c[0]))

    def dotted_name(self, meta, c):
        return ".".join(str(t) for t in c), meta_span(meta)

    type_name = dotted_name

    def type_decl(self, meta, c):
        return A.TypeDecl(str(c[0]), c[1], False, meta_span(meta), tok_span(c[0]))

    def newtype_decl(self, meta, c):
        return A.TypeDecl(str(c[0]), c[1], True, meta_span(meta), tok_span(c[0]))

    def const_def(self, meta, c):
        return A.ConstDef(str(c[0]), c[1], c[2], meta_span(meta), tok_span(c[0]))

    def decorated(self, meta, c):
        fn: A.FuncDef = c[-1]
        import attrs

        return attrs.evolve(fn, decorators=tuple(c[:-1]), span=meta_span(meta))

    def decorator(self, meta, c):
        args = c[1] or ()
        pos = tuple(a for a in args if not isinstance(a, A.Keyword))
        kws = tuple(a for a in args if isinstance(a, A.Keyword))
        return A.Decorator(str(c[0]), pos, kws, meta_span(meta))

    def _func(self, kind, meta, name, params, returns, body):
        doc = None
        if body and isinstance(body[0], A.ExprStmt) and isinstance(body[0].value, A.Const) \
                and isinstance(body[0].value.value, str):
            doc = body[0].value
            body = body[1:]
        return A.FuncDef(kind, str(name), tuple(params or ()), returns, doc, tuple(body), (),
                         meta_span(meta), tok_span(name))

    def env_def(self, meta, c):
        return self._func("env", meta, c[0], c[1], c[2], c[3])

    def func_def(self, meta, c):
        return self._func("def", meta, c[0], c[1], c[2], c[3])

    def params(self, meta, c):
        return tuple(c)

    def param(self, meta, c):
        return A.Param(str(c[0]), c[1], meta_span(meta))

    def type_expr(self, meta, c):
        name, name_span = c[0]
        args = tuple(x for x in c[1:] if isinstance(x, A.TypeExpr))
        rest = [x for x in c[1:] if x is not None and not isinstance(x, A.TypeExpr)]
        where = rest[-1] if rest else None
        shown = source_text(self.text, where.span) if isinstance(where, A.Node) else ""
        return A.TypeExpr(name, args, where, meta_span(meta), name_span, shown)

    # ------------------------------------------------------------ statements

    def suite(self, meta, c):
        out = []
        for x in c:
            if isinstance(x, list):
                out.extend(x)
            elif x is not None:
                out.append(x)
        return out

    def expr_stmt(self, meta, c):
        return A.ExprStmt(c[0], meta_span(meta))

    def assign(self, meta, c):
        return A.Assign(tuple(c[:-1]), c[-1], meta_span(meta))

    def aug_assign(self, meta, c):
        op = str(c[1])[:-1]
        if op == "/":
            self._err("E505", "'/=' is true division, which produces floats", tok_span(c[1]),
                      hint="use '//=' for integer division")
        return A.AugAssign(c[0], op, c[2], meta_span(meta))

    def pass_stmt(self, meta, c):
        return A.Pass(meta_span(meta))

    def break_stmt(self, meta, c):
        return A.Break(meta_span(meta))

    def continue_stmt(self, meta, c):
        return A.Continue(meta_span(meta))

    def return_stmt(self, meta, c):
        return A.Return(c[0], meta_span(meta))

    def assert_stmt(self, meta, c):
        return A.Assert(c[0], c[1], meta_span(meta))

    def if_stmt(self, meta, c):
        test, body, elifs, orelse = c
        tail = tuple(orelse or ())
        for etest, ebody, espan in reversed(elifs):
            tail = (A.If(etest, tuple(ebody), tail, espan),)
        return A.If(test, tuple(body), tail, meta_span(meta))

    def elifs(self, meta, c):
        return list(c)

    def elif_(self, meta, c):
        return (c[0], c[1], meta_span(meta))

    def while_stmt(self, meta, c):
        return A.While(c[0], tuple(c[1]), tuple(c[2] or ()), meta_span(meta))

    def for_stmt(self, meta, c):
        return A.For(c[0], c[1], tuple(c[2]), tuple(c[3] or ()), meta_span(meta))

    # ------------------------------------------------------------ expressions

    def ifexp(self, meta, c):
        return A.IfExp(c[1], c[0], c[2], meta_span(meta))

    def lambdef(self, meta, c):
        params = tuple(A.Param(str(t), None, tok_span(t)) for t in (c[0] or ()))
        return A.Lambda(params, c[1], meta_span(meta))

    lambdef_nocond = lambdef

    def lambda_params(self, meta, c):
        return list(c)

    def or_test(self, meta, c):
        return A.BoolOp("or", tuple(c), meta_span(meta))

    def and_test(self, meta, c):
        return A.BoolOp("and", tuple(c), meta_span(meta))

    def not_op(self, meta, c):
        return A.UnaryOp("not", c[0], meta_span(meta))

    def comparison(self, meta, c):
        return A.Compare(c[0], tuple(c[1::2]), tuple(c[2::2]), meta_span(meta))

    def comp_op(self, meta, c):
        return " ".join(str(t) for t in c)

    def _binops(self, meta, c):
        left = c[0]
        for k in range(1, len(c), 2):
            op, right = c[k], c[k + 1]
            if str(op) == "/":
                self._err("E505", "'/' is true division, which produces floats", tok_span(op),
                          hint="use '//' for integer division")
            elif str(op) == "@":
                self._err("E500", "'@' (matrix multiplication) is not supported", tok_span(op))
            left = A.BinOp(str(op), left, right, left.span.cover(right.span), tok_span(op))
        return left

    expr = xor_expr = and_expr = shift_expr = arith_expr = term = _binops

    def unary(self, meta, c):
        op, operand = str(c[0]), c[1]
        if op == "-" and isinstance(operand, A.Const) and type(operand.value) is int:
            return A.Const(-operand.value, meta_span(meta))
        return A.UnaryOp(op, operand, meta_span(meta))

    def power(self, meta, c):
        return A.BinOp("**", c[0], c[2], meta_span(meta), tok_span(c[1]))

    def call(self, meta, c):
        args = c[1] or ()
        pos = tuple(a for a in args if not isinstance(a, A.Keyword))
        kws = tuple(a for a in args if isinstance(a, A.Keyword))
        return A.Call(c[0], pos, kws, meta_span(meta))

    def call_gen(self, meta, c):
        elt, gens, sp = c[1]
        return A.Call(c[0], (A.Comprehension("gen", elt, None, gens, sp),), (), meta_span(meta))

    def arguments(self, meta, c):
        return list(c)

    def kwarg(self, meta, c):
        return A.Keyword(str(c[0]), c[1], meta_span(meta))

    def getitem(self, meta, c):
        return A.Subscript(c[0], c[1], meta_span(meta))

    def getitem_tuple(self, meta, c):
        idx = [x for x in c[1:] if x is not None]
        sp = idx[0].span.cover(idx[-1].span)
        return A.Subscript(c[0], A.TupleExpr(tuple(idx), sp), meta_span(meta))

    def getattr(self, meta, c):
        return A.Attribute(c[0], str(c[1]), meta_span(meta), tok_span(c[1]))

    def subscript(self, meta, c):
        return c[0]

    def slice(self, meta, c):
        c = list(c) + [None] * (3 - len(c))
        return A.Slice(c[0], c[1], c[2], meta_span(meta))

    def empty_tuple(self, meta, c):
        return A.TupleExpr((), meta_span(meta))

    def paren(self, meta, c):
        return c[0]

    def tuple(self, meta, c):
        return A.TupleExpr((c[0],) + tuple(c[1] or ()), meta_span(meta))

    def testlist_tail(self, meta, c):
        return [x for x in c if x is not None]

    def genexp(self, meta, c):
        elt, gens, _ = c[0]
        return A.Comprehension("gen", elt, None, gens, meta_span(meta))

    def empty_list(self, meta, c):
        return A.ListExpr((), meta_span(meta))

    def list(self, meta, c):
        return A.ListExpr(tuple(x for x in c if x is not None), meta_span(meta))

    def listcomp(self, meta, c):
        elt, gens, _ = c[0]
        return A.Comprehension("list", elt, None, gens, meta_span(meta))

    def empty_dict(self, meta, c):
        return A.DictExpr((), (), meta_span(meta))

    def set(self, meta, c):
        return A.SetExpr(tuple(x for x in c if x is not None), meta_span(meta))

    def setcomp(self, meta, c):
        elt, gens, _ = c[0]
        return A.Comprehension("set", elt, None, gens, meta_span(meta))

    def dict(self, meta, c):
        items = [x for x in c if x is not None]
        return A.DictExpr(tuple(k for k, _ in items), tuple(v for _, v in items), meta_span(meta))

    def dict_item(self, meta, c):
        return (c[0], c[1])

    def dictcomp(self, meta, c):
        return A.Comprehension("dict", c[0], c[1], tuple(c[2]), meta_span(meta))

    def comprehension(self, meta, c):
        return (c[0], tuple(c[1]), meta_span(meta))

    def comp_for(self, meta, c):
        target, it = c[0], c[1]
        ifs = tuple(x[1] for x in c[2:] if isinstance(x, tuple) and x and x[0] == "if")
        nested = next((x for x in c[2:] if isinstance(x, list)), [])
        return [A.CompFor(target, it, ifs, meta_span(meta))] + nested

    def comp_if(self, meta, c):
        return ("if", c[0])

    def _seq(self, meta, c):
        items = [x for x in c if not isinstance(x, Token) and x is not None]
        commas = [x for x in c if isinstance(x, Token)]
        if len(items) == 1 and not commas:
            return items[0]
        return A.TupleExpr(tuple(items), meta_span(meta))

    exprlist = testlist = _seq

    def fexpr(self, meta, c):
        return c[0]

    def name(self, meta, c):
        t = c[0]
        if str(t) in ("True", "False"):
            return A.Const(str(t) == "True", tok_span(t))
        return A.Name(str(t), tok_span(t))

    def int(self, meta, c):
        t = c[0]
        text = str(t)
        leading_zeros = len(text) > 1 and text[0] == "0" and text[1].isdigit() and text.strip("0_")
        if leading_zeros:
            self._err("E100", "leading zeros are not allowed in decimal numbers", tok_span(t),
                      hint=f"write {text.lstrip('0_') or '0'}, or 0o{text.lstrip('0_')} for octal")
        try:
            value = int(text, 0)
        except ValueError:  # leading zeros (E100 above), or past CPython's digit limit: never read as 0
            value = 0
            if not leading_zeros:
                digits = len(text.replace("_", ""))
                self._err("E113", f"this decimal literal has {digits:,} digits; CPython reads at most "
                          f"{sys.get_int_max_str_digits():,}", tok_span(t),
                          hint="a number that long is past the runtime's int size bound anyway "
                               "(docs/language.md, size limits): use a smaller one")
        return A.Const(value, tok_span(t))

    def float(self, meta, c):
        t = c[0]
        self._err("E107", f"float literal {t} is not supported", tok_span(t),
                  hint="values are Int, Bool or Str; scale to integers (e.g. per-mille) instead")
        return A.Const(0, tok_span(t))

    def bytes(self, meta, c):
        t = c[0]
        self._err("E108", "bytes literals are not supported", tok_span(t), hint="use a Str literal")
        return A.Const("", tok_span(t))

    def string(self, meta, c):
        parts: list = []
        is_f = False
        fields = sum(fstring_weight(str(t))[0] for t in c)
        if fields > MAX_FSTRING_FIELDS:  # counted before any field is parsed
            sp = span_of(c[0]).cover(span_of(c[-1]))
            self._fields_refused(fields, sp)
            return A.Const("", sp)
        for t in c:
            prefix = _STR_PREFIX.match(str(t)).group(1).lower()
            if "f" in prefix:
                is_f = True
                parts.extend(self._fstring_parts(t, prefix))
            else:
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        parts.append(self._encodable(pyast.literal_eval(str(t)), tok_span(t)))
                except (ValueError, SyntaxError) as e:
                    self._err("E102", f"invalid string literal: {e.msg if hasattr(e, 'msg') else e}",
                              tok_span(t), hint="check the escape sequences")
                    parts.append("")
        sp = span_of(c[0]).cover(span_of(c[-1]))
        if not is_f:
            return A.Const("".join(parts), sp)
        merged: list = []
        for p in parts:
            if isinstance(p, str) and merged and isinstance(merged[-1], str):
                merged[-1] += p
            elif p != "":
                merged.append(p)
        node = A.FString(tuple(merged), sp)
        fields = sum(isinstance(n, A.FormattedValue) for n in A.walk(node))
        if fields > MAX_FSTRING_FIELDS:  # (nested f-strings included)
            self._fields_refused(fields, sp)
            return A.Const("", sp)
        return node

    def _fields_refused(self, fields: int, sp: Span) -> None:
        self._err("E112", f"this f-string has {fields:,} replacement fields; the limit is "
                  f"{MAX_FSTRING_FIELDS:,}", sp,
                  hint="build the text from parts, e.g. \"\".join(...) over a list")

    # ------------------------------------------------------------ f-strings

    def _fstring_parts(self, t: Token, prefix: str) -> list:
        raw = str(t)
        q = raw[len(prefix):]
        quote = q[:3] if q[:3] in ('"""', "'''") else q[:1]
        body_start = t.start_pos + len(prefix) + len(quote)
        body = raw[len(prefix) + len(quote): len(raw) - len(quote)]
        return self._fparts(body, body_start, "r" in prefix, tok_span(t))

    def _literal_piece(self, s: str, raw: bool, span: Span) -> str:
        if raw or "\\" not in s:
            return self._encodable(s, span)
        try:
            return self._encodable(pyast.literal_eval('"""' + s.replace('"', '\\"') + '"""'), span)
        except (ValueError, SyntaxError):
            self._err("E111", "invalid escape in f-string", span)
            return s

    def _encodable(self, s: str, span: Span) -> str:
        """`s`, or "" with E114 when it holds a lone surrogate (from an escape such as
        `\\ud800`, or from editor text): such text cannot be written as UTF-8, so it
        would pass the checker and only fail when a record is written."""
        m = _SURROGATE.search(s)
        if m is None:
            return s
        self._err("E114", f"this string holds the lone surrogate U+{ord(m.group()):04X}, "
                  "which cannot be encoded as UTF-8", span,
                  hint="remove the escape, or write the character itself (a pair of \\u surrogate "
                       "escapes is two lone surrogates, not one character: use \\U0001XXXX)")
        return ""

    def _fparts(self, body: str, base: int, raw: bool, span: Span, depth: int = 0) -> list:
        parts: list = []
        i, n = 0, len(body)
        lit: list[str] = []
        while i < n:
            ch = body[i]
            if ch == "{" and body.startswith("{{", i):
                lit.append("{")
                i += 2
            elif ch == "}" and body.startswith("}}", i):
                lit.append("}")
                i += 2
            elif ch == "}":
                self._err("E111", "single '}' is not allowed in an f-string", self._sub_span(base + i, 1),
                          hint="write '}}' for a literal brace")
                i += 1
            elif ch == "{":
                if lit:
                    parts.append(self._literal_piece("".join(lit), raw, span))
                    lit = []
                end, field = self._fstring_field(body, i, base, raw, span, depth)
                if field is not None:
                    parts.append(field)
                i = end
            else:
                lit.append(ch)
                i += 1
        if lit:
            parts.append(self._literal_piece("".join(lit), raw, span))
        return parts

    def _sub_span(self, start: int, length: int) -> Span:
        return lines_for(self.text).span(start, start + length)

    def _fstring_field(self, body: str, i: int, base: int, raw: bool, span: Span, depth: int):
        """Parse `{expr[!c][:spec]}` starting at body[i] == '{'. Returns (end, FormattedValue|None)."""
        j = i + 1
        n = len(body)
        nest = 0
        quote = None
        expr_end = conv = spec_start = None
        while j < n:
            ch = body[j]
            if quote:
                if ch == quote:
                    quote = None
            elif ch in "'\"":
                quote = ch
            elif ch in "([{":
                nest += 1
            elif ch in ")]}" and nest:
                nest -= 1
            elif nest == 0 and ch == "!" and not body.startswith("!=", j):
                expr_end = j
                conv = body[j + 1: j + 2]
                j += 2
                if j < n and body[j] == ":":
                    spec_start = j + 1
                break
            elif nest == 0 and ch == ":":
                expr_end = j
                spec_start = j + 1
                break
            elif nest == 0 and ch == "}":
                expr_end = j
                break
            j += 1
        if expr_end is None:
            self._err("E111", "unterminated replacement field in f-string", self._sub_span(base + i, 1),
                      hint="close the field with '}'")
            return n, None
        spec = None
        end = expr_end + 1
        if spec_start is not None:
            k, lvl = spec_start, 0
            while k < n and not (body[k] == "}" and lvl == 0):
                lvl += body[k] == "{"
                lvl -= body[k] == "}"
                k += 1
            if depth >= 1:
                self._err("E111", "format specs nest at most one level", self._sub_span(base + spec_start, max(1, k - spec_start)))
            else:
                sp = self._sub_span(base + spec_start, max(0, k - spec_start))
                spec = A.FString(tuple(self._fparts(body[spec_start:k], base + spec_start, raw, sp, depth + 1)), sp)
            end = k + 1
        elif conv is not None:
            end = j + 1 if j < n and body[j] == "}" else j
        if conv is not None and conv not in ("r", "s"):
            self._err("E111", f"conversion '!{conv}' is not supported", self._sub_span(base + expr_end, 2),
                      hint="use !r or !s")
            conv = None
        src = body[i + 1: expr_end]
        if src.rstrip().endswith("=") and not src.rstrip().endswith(("==", "!=", "<=", ">=")):
            self._err("E111", "self-documenting '=' in f-strings is not supported",
                      self._sub_span(base + i, expr_end - i + 1), hint="write the name out: f\"x={x}\"")
            src = src.rstrip()[:-1]
        value = self._parse_fexpr(src, base + i + 1, self.text, self.path, self.diags)
        if value is None:
            return end, None
        return end, A.FormattedValue(value, conv, spec, self._sub_span(base + i, end - i))
