"""Inlay hints: what the compiler inferred, written where it applies.

- `xs = [...]`  →  `xs: List[Int] = [...]`: a local's type at its first binding (an
  assignment or a `for` target), from the checker's `local_types` (one type per local of a
  function, agreed by all its bindings: the checker drops a local whose bindings disagree).
  The type is shown without refinements (a local is not refined: a refinement there would
  be one copied from a parameter, not one the value keeps). Not shown where the type is
  plain from the text (noise): a literal (`n = 0`, `s = "ab"`, `a, b = 0, 1`), an
  f-string, a loop over `range(...)`; nor for `_`, parameters, or unknown (`?`) parts.
- `-> Int`  →  `-> Int where 0 <= it <= 54`: an environment's Int output where the body's
  return values are bounded tighter than (or where nothing is) declared, read by
  racesl.lsp.output_bounds over the parameters' refinements (bounded by the solver). The
  result is cached per (function node, signature): unchanged items replay both.

Positions are the ends of racesl spans converted to the client's units (Positions), so
hints land right in UTF-8, UTF-16 and UTF-32 documents alike.
"""

from __future__ import annotations

from collections import Counter

from lsprotocol import types as L

from racesl.cache import SizedLRU
from racesl.check.body import has_unknown
from racesl.check.model import EnvSig
from racesl.lsp import index as I
from racesl.lsp import output_bounds as OB
from racesl.lsp.context import View
from racesl.syntax import ast as A
from racesl.types import types as T

_bounds_cache = SizedLRU(1_000_000, 4096)  # id(fn) → (fn, sig, shadowed, result)


def _obvious(value) -> bool:
    """Is the type plain from the bound expression's text?"""
    if isinstance(value, A.UnaryOp) and value.op in ("-", "+"):
        value = value.operand
    if isinstance(value, (A.Const, A.FString)):
        return True
    if isinstance(value, tuple) and value[0] == "for":  # for i in range(...)
        it = value[1]
        return isinstance(it, A.Call) and isinstance(it.func, A.Name) and it.func.id == "range"
    return False


def first_bindings(fn: A.FuncDef) -> list[tuple[A.Name, object]]:
    """(name node, what it is bound to) for the first binding of each local of `fn`, in
    source order: the assigned expression, ("for", iterable) for a loop target, None where
    the value is not one expression of its own (unpacking a call's result)."""
    seen = {p.name for p in fn.params}
    out: list[tuple[A.Name, object]] = []

    def bind(target, value) -> None:
        if isinstance(target, A.Name):
            if target.id not in seen:
                seen.add(target.id)
                out.append((target, value))
        elif isinstance(target, (A.TupleExpr, A.ListExpr)):
            pair = isinstance(value, (A.TupleExpr, A.ListExpr)) and len(value.elts) == len(target.elts)
            for k, t in enumerate(target.elts):
                bind(t, value.elts[k] if pair else (value if isinstance(value, tuple) else None))

    def visit(stmts) -> None:
        for s in stmts:
            if isinstance(s, A.Assign):
                for t in s.targets:
                    bind(t, s.value)
            elif isinstance(s, A.AugAssign):
                names: list = []
                A.assigned_names(s.target, names)
                seen.update(n.id for n in names)  # (`x += 1` first: the checker infers nothing for it)
            elif isinstance(s, A.For):
                bind(s.target, ("for", s.iter))
                visit(s.body)
                visit(s.orelse)
            elif isinstance(s, (A.If, A.While)):
                visit(s.body)
                visit(s.orelse)

    visit(fn.body)
    return out


def _local_hints(view: View, fn: A.FuncDef, types: dict) -> list[L.InlayHint]:
    out = []
    for name, value in first_bindings(fn):
        t = types.get(name.id)
        if t is None or name.id == "_" or has_unknown(t) or _obvious(value):
            continue
        rng = view.range(name.span)
        if rng is None:
            continue
        shown = str(T.erase(t))
        tip = f"`{name.id}: {shown}`, inferred by the checker"
        out.append(L.InlayHint(
            position=rng.end,
            label=[L.InlayHintLabelPart(": "),
                   L.InlayHintLabelPart(shown, tooltip=L.MarkupContent(L.MarkupKind.Markdown, tip))],
            kind=L.InlayHintKind.Type, padding_left=False, padding_right=False))
    return out


def _bounds(fn: A.FuncDef, sig: EnvSig, shadowed: frozenset[str]):
    hit = _bounds_cache.get(id(fn))
    if hit is not None and hit[0] is fn and hit[1] is sig and hit[2] == shadowed:
        return hit[3]
    res = OB.output_bounds(fn, sig, shadowed)
    _bounds_cache.put(id(fn), (fn, sig, shadowed, res), 64)
    return res


def _side_text(lo: int | None, hi: int | None) -> str:
    if lo is not None and hi is not None:
        return f"{lo} <= it <= {hi}"
    return f"it >= {lo}" if lo is not None else f"it <= {hi}"


def output_hint(view: View, fn: A.FuncDef, sig: EnvSig | None, shadowed: frozenset[str]) -> L.InlayHint | None:
    if sig is None or fn.returns is None or sig.node is not fn:
        return None
    res = _bounds(fn, sig, shadowed)
    if res is None:
        return None
    inferred, declared = res
    sides = OB.tightened(inferred, declared)
    if sides is None:
        return None
    rng = view.range(fn.returns.span)
    if rng is None:
        return None
    word = "and" if fn.returns.where is not None else "where"
    text = f"{word} {_side_text(*sides)}"
    lo, hi = inferred
    tip = (f"Inferred from the return values: every output is within "
           f"{'-∞' if lo is None else lo}..{'∞' if hi is None else hi} (the parameters' refinements "
           f"bounded by the solver).\n\nDeclared: `{sig.output}`")
    return L.InlayHint(position=rng.end,
                       label=[L.InlayHintLabelPart(text, tooltip=L.MarkupContent(L.MarkupKind.Markdown, tip))],
                       kind=L.InlayHintKind.Type, padding_left=True, padding_right=False)


def _inside(p: L.Position, r: L.Range) -> bool:
    return (r.start.line, r.start.character) <= (p.line, p.character) <= (r.end.line, r.end.character)


def inlay_hints(view: View, rng: L.Range) -> list[L.InlayHint]:
    cm = view.a.module
    if cm is None:
        return []
    items = view.a.ast.items
    counts = Counter(it.name for it in items if isinstance(it, A.FuncDef))
    # (a namespace without kind_of: what imported names are does not matter here, and asking
    # may check the whole library)
    ns = I.namespace(view.a.module_name, view.a.ast)
    shadowed = frozenset(n for n, (kind, _) in ns.names.items() if kind != "module")
    out: list[L.InlayHint] = []
    for it in items:
        if not isinstance(it, A.FuncDef) or counts[it.name] > 1:
            continue  # (a duplicate's local types are the other one's: the checker reports it)
        span = view.range(it.span)
        if span is None or span.end.line < rng.start.line or span.start.line > rng.end.line:
            continue
        hints = _local_hints(view, it, cm.local_types.get(it.name) or {})
        if it.is_env:
            h = output_hint(view, it, cm.envs.get(it.name), shadowed)
            if h is not None:
                hints.append(h)
        out.extend(h for h in hints if _inside(h.position, rng))
    out.sort(key=lambda h: (h.position.line, h.position.character))
    return out
