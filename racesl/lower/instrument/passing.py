"""Checked-argument variants: a helper called with values its caller holds checked trusts them.

An entry variant trusts its parameters' declared facts because its callers check the
arguments; an ordinary variant, called by other bodies, trusts none. Between the two: a
call `g(q)` from a body that trusts its parameter `q` (an entry, or a variant made here),
where q still holds the value its caller checked, passes g a value whose facts are known —
q's own facts, as far as g's declaration asks for them (`passed`). Such a call goes to a
variant of g compiled with exactly those facts trusted (`Variants.callee`): the same
calling convention, charges and steps as the ordinary variant, fewer guards. Nothing is
trusted that no one checked: the facts are those an entry's caller checked, carried from
parameter to parameter by name, each step only where nothing can have changed the value
(`keeping`).
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

import attrs

from racesl.lower.instrument.facts import NO_FACTS, ROW_WORDS, ParamFacts
from racesl.lower.instrument.scope import _bound_names, _fresh_locals, _rows_stay, _Scope

VARIANT = "_races_v{k}__{name}"  # the name of the k-th checked-argument variant of `name`

_KIND_FIELDS = ("is_int", "word", "is_str", "sized")  # what the value is: no store changes it
_HELD_FIELDS = ("int_elems", "word_elems", "short", "short_rows")  # what it holds: a store can


def keeping(fns: list[ast.FunctionDef]) -> frozenset[tuple[str, int]]:
    """The (function, position) pairs whose parameter the function never changes in place,
    stores, aliases, returns or binds again, and passes only to positions that keep it too:
    the greatest such set (a fixed point over the module). A value passed there is the same,
    unchanged, when the call returns — so a caller's element and length facts about it
    survive the call (`_Scope._escaping`). Each body is read once: what escapes even if
    every call kept its arguments, and the (callee, position) pairs each parameter is
    passed to; the fixed point runs over those."""
    every = frozenset((f.name, i) for f in fns for i in range(len(f.args.args)))
    funcs = {f.name for f in fns}
    needs: dict[tuple[str, int], set] = {}
    for f in fns:
        params = [a.arg for a in f.args.args]
        bound = _bound_names(f)
        returned = {s.value.id for s in ast.walk(f) if isinstance(s, ast.Return) and isinstance(s.value, ast.Name)}
        bad = _Scope._escaping(f, set(params), held=True, keeps=every, bound=bound) | bound | returned
        passes: dict[str, set] = {p: set() for p in params}
        for c in ast.walk(f):
            if (isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id in funcs
                    and c.func.id not in bound and not c.keywords):
                for at, a in enumerate(c.args):
                    if isinstance(a, ast.Name) and a.id in passes:
                        passes[a.id].add((c.func.id, at))
        for i, p in enumerate(params):
            if p not in bad:
                needs[(f.name, i)] = passes[p]
    return _greatest(needs)


def row_safe(fns: list[ast.FunctionDef], funcs: frozenset[str]) -> frozenset[str]:
    """The functions that change no row of any value they are given, nor call one that may
    (`_Scope._rows_stay` of each, with no declared facts): the greatest such set. A caller
    whose rows' facts hold keeps them across a call of one (`ParamFacts.row_words`). Each
    body is read once (safe if every call were; the program functions it calls)."""
    calls = {}
    for f in fns:
        bound = _bound_names(f)
        if _rows_stay(f, _fresh_locals(f), frozenset(), funcs, bound, funcs):
            calls[f.name] = {c.func.id for c in ast.walk(f) if isinstance(c, ast.Call)
                             and isinstance(c.func, ast.Name) and c.func.id in funcs and c.func.id not in bound}
    return _greatest(calls)


def _greatest(needs: dict) -> frozenset:
    """The greatest set of `needs`' keys each of whose needs lies within the set: drop what
    needs something outside until nothing does."""
    keep = set(needs)
    while True:
        drop = {k for k in keep if not needs[k] <= keep}
        if not drop:
            return frozenset(keep)
        keep -= drop


def passed(mine: ParamFacts, theirs: ParamFacts, held: bool, rows: bool = False) -> ParamFacts:
    """What a callee declaring `theirs` (not NO_FACTS) may trust of an argument its caller
    trusts as `mine`: the caller's facts — about the value, whatever the callee declares
    (a caller's refinements may be narrower) — the element and length facts only when the
    caller still `held` the value, and its rows' facts only when they hold in the caller
    (`rows`: its inference marks them)."""
    kw = {f: getattr(mine, f) for f in _KIND_FIELDS}
    if held:
        kw.update({f: getattr(mine, f) for f in _HELD_FIELDS})
        kw["max_len"] = mine.max_len
        kw["row_words"] = rows and mine.row_words
    return ParamFacts(**kw)


@attrs.define
class Variants:
    """The checked-argument variants a module's rewrite asks for, in the order asked."""

    params: Mapping[str, list[str]]  # function → its parameters' names
    declared: Mapping[str, Mapping[str, ParamFacts]]  # function → its parameters' declared facts
    keeps: frozenset  # `keeping`
    rowsafe: frozenset  # `row_safe`
    made: dict = attrs.field(factory=dict)  # (function, facts by position) → variant name
    todo: list = attrs.field(factory=list)  # [(function, {parameter: facts}, variant name)]

    def callee(self, scope: _Scope, name: str, call: ast.Call) -> str:
        """The function `call` (in a body whose inference is `scope`) should call: a variant
        of `name` trusting what the caller's trusted parameters pass it, or `name` itself.
        An argument passes facts only as a bare name of a parameter the caller trusts and
        never binds again (`_Scope.trusted`; element and length facts: one it still holds,
        `_Scope.held`, passed once in this call), at a plain positional place."""
        params = self.params.get(name)
        if (not scope.trusted or params is None or name in scope.bound or call.keywords
                or len(params) != len(call.args) or any(isinstance(a, ast.Starred) for a in call.args)):
            return name
        declared = self.declared.get(name, {})
        names = [a.id if isinstance(a, ast.Name) else None for a in call.args]
        facts = []
        for p, a in zip(params, names):
            theirs = declared.get(p, NO_FACTS)
            if a is None or a not in scope.trusted or theirs == NO_FACTS:
                facts.append(NO_FACTS)
                continue
            held = a in scope.held and names.count(a) == 1
            facts.append(passed(scope.facts.get(a, NO_FACTS), theirs, held, a + ROW_WORDS in scope.num))
        if all(f == NO_FACTS for f in facts):
            return name
        key = (name, tuple(facts))
        got = self.made.get(key)
        if got is None:
            got = self.made[key] = VARIANT.format(k=len(self.made) + 1, name=name)
            self.todo.append((name, dict(zip(params, facts)), got))
        return got
