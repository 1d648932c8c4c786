"""Comprehensions charged ahead by their statement.

When a comprehension's source is the first thing `return E` / `x = E` evaluates, the
statement evaluates the source into a temporary first and charges its length to the local
counter right there, in two copies of the statement: one drawing the temporary directly
(charged ahead), one through `_races_tick_iter` (when the length is unknown or the budget
does not cover it). The charged-ahead copy may also pay, with the source, for what each
element evaluates exactly once (leaf calls evaluated in place, literal `in` tests), for
the rows of nested comprehensions, and skip measuring a join of short texts
(docs/fuel.md, "Charges"). `_Ahead` is part of the statement rewrite `_Fx` (statements.py).
"""

from __future__ import annotations

import ast

from racesl.lower.instrument.build import _call, _clone, _const, _invariant_len, _loc, _name
from racesl.lower.instrument.facts import STR
from racesl.lower.instrument.leaves import _Substitute
from racesl.lower.instrument.syntax import (
    _FULL, _INLINE_CHARGED, _comp_nodes, _is_call_to, _literal_tests, _special_iter, _target_names,
    _unconditional,
)
from racesl.runtime import abi
from racesl.runtime.abi import LOC
from racesl.runtime.limits import MAX_LEN


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


class _Ahead:
    """The charged-ahead comprehensions of `_Fx`."""

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
        right there, the steps its elements would tick, instead of element by element;
        when the length is unknown or unaffordable, the statement's
        other copy draws the source through `_races_tick_iter`. `build()` rewrites a copy
        of `s` in box mode; `wrap(stmts)` adds the box synchronisation around it."""
        c = self._first_comp(s) if "ahead" in self.fast_paths else None
        if c is None:
            return None
        g = c.generators[0]
        bound = set()
        for gg in c.generators:
            bound.update(_target_names(gg.target))
        ok = self.scope.list_ok(g.iter, _comp_nodes(c), self.scope.locals | bound)
        n = self.tmp("n")
        pre, t = self._counted(g.iter, s, ok, n)
        nested = self._nested_charge(c, bound) if "rows" in self.fast_paths else None
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
                    size = _call(abi.SUM, [_call(abi.MAP, [_name(abi.LEN), _name(over)])])
                else:
                    size = _call(abi.ROWS_LEN, [_name(t), _name(sized)])
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
        fast = self.fast_paths
        g = c.generators[0]
        roots = g.ifs[:1] if g.ifs else [c.key, c.value] if isinstance(c, ast.DictComp) else [c.elt]
        shadow = self.scope.locals | bound
        sites: list = []

        def site(e) -> bool:
            if "leaf" not in fast:
                return False
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
        if "fold_in" not in fast:
            tests = []
        cost = len(sites) + sum(n for _, n in tests)
        for _, body in sites if "fold_in" in fast else ():
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
        if "join" not in self.fast_paths or not isinstance(c, ast.GeneratorExp) or len(c.generators) != 1:
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
        (`ParamFacts.short_rows`), the row may also be `src[u]` drawn by `for u in range(len(src))`. Returns
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
            return e, "_races_ahead", True, (abi.BUILTIN_SIZED, self._rows_param(g.iter))
        return None

    def _row_source(self, x, row, src, bound, nodes) -> str | None:
        """Is `x` the row drawn by `for row in src`: `row` itself (returns "") or, with `src`
        `range(len(p))` for a parameter p with `short_rows` that `nodes` cannot resize, `p[row]`
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
            return (gen, "_races_src_free", True, (abi.EACH_SIZED_LIST, over)) if ok else None
        sized = abi.EACH_SIZED_LIST if ok else abi.EACH_SIZED
        return gen, "_races_src_free", True, (sized, self._rows_param(src) if ok else None)
