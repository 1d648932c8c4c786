"""Loops and what they charge: `while` ticks each iteration; `for` charges its whole length
on entry when it can (refunding what an early exit leaves), and otherwise runs a copy that
ticks (docs/fuel.md, "Charges": shapes A, B and C).

`_Loops` is part of the statement rewrite `_Fx` (statements.py). `_counted`, the source
evaluated once with its length, serves comprehensions charged ahead too (ahead.py).
"""

from __future__ import annotations

import ast

from racesl.lower.instrument.build import (
    _assign, _call, _clone, _const, _len_stmt, _loc, _name, _reload, _tick, _write,
)
from racesl.lower.instrument.facts import WORD_BITS
from racesl.lower.instrument.scope import _bits
from racesl.lower.instrument.syntax import (
    _has_break, _has_return, _is_call_to, _literal_tests, _pure, _special_iter, _unconditional,
)
from racesl.runtime import abi
from racesl.runtime.abi import BOX, LOC
from racesl.runtime.limits import MAX_LEN


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


class _Loops:
    """The loops of `_Fx`."""

    def _counted(self, it, ref, list_ok: bool, n: str) -> tuple[list, str]:
        """(statements, name): the statements evaluate the loop or comprehension source `it`
        once into the name (`it` itself when it is a name known to hold a sized value) and
        its length into `n` (`_len_stmt`; infinity when it has none). `range(k)` of an int k
        of at most WORD_BITS bits (`_bits`) takes its length from k, without calling `len`."""
        if isinstance(it, ast.Name) and it.id in self.scope.sized and list_ok:
            return [_assign(n, _call(abi.LEN, [_name(it.id)]), ref)], it.id
        t = self.tmp("i")
        if ("range_len" in self.fast_paths and _is_call_to(it, {"range"}) and "range" not in self.scope.locals
                and len(it.args) == 1
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
        """Three shapes (docs/fuel.md):
        A. per-iteration ticks (inside a slow copy, or a body that may leave early and
           charges something itself);
        B. no early exit: charge len * (1 + literal `in` costs) up front when affordable,
           else run a ticking copy;
        C. early exit, body charging nothing: charge the length up front, refund what was
           left at `break` / `return` (iterator length hints), else a ticking copy."""
        outer_refund, self.refund = self.refund, None
        try:
            early = _has_break(s.body) or _has_return(s.body)
            if not fast or "counted" not in self.fast_paths or (early and not _pure(s.body, self.scope.locals)):
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
        per_iter = 1 + (0 if early or "fold_in" not in self.fast_paths else _fold_in(fast_body_src))
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
                pre.append(_assign(n, _call(abi.MIN, lens) if len(lens) > 1
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
            slow_pre = [_write(s), _assign(it_slow, _call(abi.builtin(kind), [_name(BOX), *names], kws), s),
                        _reload(s)]
            if early:  # iterate our own iterators, whose length hints give the refund
                iters = []
                srcs = names if kind != "enumerate" else names[:1]
                fast_pre = []
                for a in srcs:
                    j = self.tmp("j")
                    fast_pre.append(_assign(j, _call(abi.REVERSED if kind == "reversed" else abi.ITER,
                                                     [_clone(a)]), s))
                    iters.append(_name(j))
                if kind == "reversed":
                    fast_iter = _clone(iters[0])
                else:
                    rest = names[1:] if kind == "enumerate" else []
                    fast_iter = _call(abi.plain(kind), [*iters, *rest], kws)
            else:
                fast_pre = []
                fast_iter = _call(abi.plain(kind), names, kws)
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
                fast_pre = [_assign(j, _call(abi.ITER, [_name(it_tmp)]), s)]
                iters = [_name(j)]
                fast_iter = _name(j)
            else:
                fast_pre = []
                fast_iter = _name(it_tmp)
        charge = _name(n) if per_iter == 1 else ast.BinOp(left=_name(n), op=ast.Mult(), right=_const(per_iter))
        if early:
            # refund the iterations not run: what the loop's own iterators have left
            back = (_call(abi.REFUND, iters) if len(iters) > 1 else
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
