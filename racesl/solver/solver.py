"""The refinement solver: implication, satisfiability and edge classification with Z3.

One `Solver` holds a private Z3 context, one reused `z3.Solver` per subject scope (each
query is `push` / `add` / `check` / `pop`), and caches keyed by normalized predicate texts:
conjunct splitting, encodings, query results and whole `classify` answers.

Budget: a deterministic `rlimit` per check (default 250,000: every solved query of the
fragment needs a small fraction of it) plus a wall-clock `timeout` as a backstop only, so
answers do not depend on machine load. `unknown` never proves and never prunes.

Answers are sound: "yes"/"unsat" are proofs over every value; "no"/"sat" are given only when
every conjunct was encoded exactly (no opaque atom) and the subject's variables can take any
value (for `Set[Bool]` and `Dict[Bool, _]` not every length exists); otherwise "unknown".
"""

from __future__ import annotations

import time
from typing import Any, Iterable

from racesl.solver.encode import (
    Conj, Enc, Scope, _free_names, conjuncts_of, flatten, make_conj, scope_of,
)
from racesl.syntax import ast as A
from racesl.types import types as T

__all__ = ["Solver", "PROVED", "GUARDED", "DEFAULT_RLIMIT", "DEFAULT_TIMEOUT_MS", "default_solver", "parse_pred"]

PROVED, GUARDED = "proved", "guarded"
DEFAULT_RLIMIT = 250_000
DEFAULT_TIMEOUT_MS = 1000
_CACHE_CAP = 1_000_000  # entries per cache before it is cleared

Item = tuple[Conj, Scope]


def parse_pred(src: str, module: str = "") -> T.Pred:
    """A `Pred` from source text over `it` (for tests, tools and the REPL)."""
    from racesl.syntax.emit import expr_text
    from racesl.syntax.parser import parse_module

    m, diags = parse_module(f"type T_ = Int where {src}\n", "<pred>")
    if diags or not m.items:
        raise ValueError(f"not a predicate: {src!r}")
    e = m.items[0].type.where
    return T.Pred(e, expr_text(e), module, e.span)


class Solver:
    """Refinement reasoning for the signature graph, the sampler and the checker.

    Counters (read `stats()`): `queries` (Z3 checks run), `cache_hits` (answers served from a
    cache, queries or whole classifications), `time` (seconds inside the public methods),
    `z3_time` (seconds inside `check`), `unknown` (checks that ran out of budget), and
    `proved` / `guarded` / `dropped` (answers of `classify`, hits included).
    """

    def __init__(self, rlimit: int = DEFAULT_RLIMIT, timeout_ms: int = DEFAULT_TIMEOUT_MS, chars: bool = True):
        self.rlimit = rlimit
        self.timeout_ms = timeout_ms
        self.chars = chars  # False: character classes stay opaque, as before racesl.solver.chars
        self._encoder = None
        self._solvers: dict[str, Any] = {}
        self._optimizers: dict[str, Any] = {}
        self._conj_cache: dict[tuple, tuple[Conj, ...]] = {}
        self._enc_cache: dict[tuple[str, str, bool], Enc] = {}
        self._results: dict[tuple, str] = {}
        self._classified: dict[tuple, str | None] = {}
        self.memo: dict[tuple, Any] = {}  # for helpers built on the solver (prune, bounds)
        self.reset_stats()

    def reset_stats(self) -> None:
        self.queries = 0
        self.cache_hits = 0
        self.time = 0.0
        self.z3_time = 0.0
        self.unknown = 0
        self.proved = 0
        self.guarded = 0
        self.dropped = 0

    def stats(self) -> dict:
        return {"queries": self.queries, "cache_hits": self.cache_hits, "time": self.time,
                "z3_time": self.z3_time, "unknown": self.unknown, "proved": self.proved,
                "guarded": self.guarded, "dropped": self.dropped}

    # ------------------------------------------------------------ plumbing

    @property
    def encoder(self):
        if self._encoder is None:
            from racesl.solver.encode import Encoder  # imports z3 (~0.1 s): only when first needed

            self._encoder = Encoder()
        return self._encoder

    def conjs(self, preds: Iterable) -> list[Conj]:
        """Conjuncts of predicates given as `Pred`s, bare expressions over `it`, or source text."""
        out: list[Conj] = []
        for p in preds:
            if isinstance(p, str):
                key = ("", p)
                hit = self._conj_cache.get(key)
                if hit is None:
                    hit = self._conj_cache[key] = conjuncts_of(parse_pred(p))
            elif isinstance(p, T.Pred):
                key = (p.module, p.text)
                hit = self._conj_cache.get(key)
                if hit is None:
                    hit = self._conj_cache[key] = conjuncts_of(p)
            else:
                hit = conjuncts_of(p)
            out.extend(hit)
        return out

    def encode(self, item: Item, chars: bool | None = None) -> Enc:
        """`chars=False`: character classes left opaque (racesl.solver.bounds)."""
        chars = self.chars if chars is None else chars
        c, s = item
        k = (c.key, s.key, chars)
        e = self._enc_cache.get(k)
        if e is None:
            e = self._enc_cache[k] = self.encoder.encode(c, s, chars)
        return e

    def check(self, root: Scope, formulas: list) -> str:
        """One Z3 check of `formulas` (plus the root scope's base facts): sat | unsat | unknown."""
        enc = self.encoder
        z3 = enc.z3
        s = self._solvers.get(root.key)
        if s is None:
            s = self._solvers[root.key] = z3.Solver(ctx=enc.ctx)
            s.set("rlimit", self.rlimit)
            s.set("timeout", self.timeout_ms)
        self.queries += 1
        s.push()
        try:
            s.add(*enc.base(root))
            if formulas:
                s.add(*formulas)
            t = time.perf_counter()
            try:
                r = s.check()
            finally:
                self.z3_time += time.perf_counter() - t
        except z3.Z3Exception:
            r = z3.unknown
        finally:
            s.pop()
        if r == z3.sat:
            return "sat"
        if r == z3.unsat:
            return "unsat"
        self.unknown += 1
        return "unknown"

    @staticmethod
    def _key(item: Item) -> tuple[str, str]:
        return item[0].key, item[1].path

    # ------------------------------------------------------------ core queries

    def implies_items(self, root: Scope, out: list[Item], inp: list[Item]) -> str:
        okeys = frozenset(self._key(i) for i in out)
        inp = [i for i in inp if self._key(i) not in okeys]  # syntactically present: implied
        if not inp:
            return "yes"
        ck = ("imp", root.key, okeys, frozenset(self._key(i) for i in inp))
        hit = self._results.get(ck)
        if hit is not None:
            self.cache_hits += 1
            return hit
        eo = [self.encode(i) for i in out]
        ei = [self.encode(i) for i in inp]
        z3 = self.encoder.z3
        forms = [e.formula for e in eo] + [a for e in eo + ei for a in e.axioms]
        forms.append(z3.Not(self.encoder.And(e.formula for e in ei)))
        r = self.check(root, forms)
        if len(self._results) > _CACHE_CAP:
            self._results.clear()
        if r == "unsat":
            res = "yes"
        elif r == "sat" and root.realizable() and all(e.exact for e in eo + ei):
            res = "no"
        else:
            res = "unknown"
        self._results[ck] = res
        return res

    def sat_items(self, root: Scope, items: list[Item], extra: tuple = ()) -> str:
        """Satisfiability of the conjunction; `extra`: (key, formula) pairs over the root."""
        keys = frozenset(self._key(i) for i in items)
        ck = ("sat", root.key, keys, frozenset(k for k, _ in extra))
        hit = self._results.get(ck)
        if hit is not None:
            self.cache_hits += 1
            return hit
        es = [self.encode(i) for i in items]
        forms = [e.formula for e in es] + [a for e in es for a in e.axioms] + [f for _, f in extra]
        r = self.check(root, forms)
        if r == "sat" and not (root.realizable() and all(e.exact for e in es)):
            r = "unknown"
        self._results[ck] = r
        return r

    # ------------------------------------------------------------ public API

    def implies(self, out_preds: Iterable, in_preds: Iterable, subject_shape: Any) -> str:
        """Does every value satisfying all of `out_preds` satisfy all of `in_preds`?
        "yes" | "no" | "unknown". Predicates: `Pred`s, bare expressions or source text over
        `it`; `subject_shape`: a type (its refinements are ignored) or "int", "bool", "str",
        "list", "set", "dict"."""
        t = time.perf_counter()
        try:
            root = scope_of(subject_shape)
            return self.implies_items(root, [(c, root) for c in self.conjs(out_preds)],
                                      [(c, root) for c in self.conjs(in_preds)])
        finally:
            self.time += time.perf_counter() - t

    def satisfiable(self, preds: Iterable, subject_shape: Any) -> str:
        """Is there a value satisfying all of `preds`? "sat" | "unsat" | "unknown"."""
        t = time.perf_counter()
        try:
            root = scope_of(subject_shape)
            items = [(c, root) for c in self.conjs(preds)]
            if not items:
                return "sat" if root.realizable() else "unknown"
            return self.sat_items(root, items)
        finally:
            self.time += time.perf_counter() - t

    def classify(self, out_type: T.Type, in_type: T.Type) -> str | None:
        """The edge kind for an output of `out_type` flowing into an input of `in_type` (shapes
        equal): "proved" when every output value satisfies every refinement of the input, at
        every level; None when provably no value satisfies both; else "guarded"."""
        t = time.perf_counter()
        try:
            key = (out_type, in_type)
            res = self._classified.get(key, 0)
            if res == 0:
                res = self._classify(out_type, in_type)
                if len(self._classified) > _CACHE_CAP:
                    self._classified.clear()
                self._classified[key] = res
            else:
                self.cache_hits += 1
            if res == PROVED:
                self.proved += 1
            elif res == GUARDED:
                self.guarded += 1
            else:
                self.dropped += 1
            return res
        finally:
            self.time += time.perf_counter() - t

    def _classify(self, out_type: T.Type, in_type: T.Type) -> str | None:
        if isinstance(T.shape(in_type), T.AnyT):
            return PROVED
        if isinstance(T.shape(out_type), T.AnyT):
            return GUARDED
        if not T.same_shape(out_type, in_type):
            return None
        if _syntactic(out_type, in_type):
            return PROVED  # every input refinement is written on the output too
        implied, disjoint = self._level(out_type, in_type)
        if disjoint:
            return None
        return PROVED if implied else GUARDED

    def _level(self, out_t: T.Type, in_t: T.Type, o_extra: tuple = (), i_extra: tuple = ()) -> tuple[bool, bool]:
        """(every out value satisfies in's refinements at this position and below,
        provably no value satisfies both)."""
        so, po = flatten(out_t)
        si, pi = flatten(in_t)
        if isinstance(si, T.AnyT):
            return True, False
        if isinstance(so, T.AnyT):
            return False, False
        root = scope_of(si)
        oc = self.conjs(po) + list(o_extra)
        ic = self.conjs(pi) + list(i_extra)
        implied, empty_only = True, False
        if isinstance(si, (T.ListT, T.SetT, T.DictT)):
            oc, lo = _lift(oc, root.kind)
            ic, li = _lift(ic, root.kind)
            if isinstance(si, T.DictT):
                pairs = (("key", so.key, si.key), ("value", so.value, si.value))
            else:
                pairs = (("elem", so.elem, si.elem),)
            for pos, a, b in pairs:
                ci, cd = self._level(a, b, tuple(lo.get(pos, ())), tuple(li.get(pos, ())))
                implied = implied and ci
                empty_only = empty_only or cd  # no element fits both: only empty values do
        elif isinstance(si, T.TupleT):
            for a, b in zip(so.elems, si.elems):
                ci, cd = self._level(a, b)
                if cd:
                    return False, True  # a component no value fits: no tuple fits
                implied = implied and ci
        if not oc and not ic and not empty_only:
            return implied, False
        o_items = [(c, root) for c in oc]
        i_items = [(c, root) for c in ic]
        o_assume: list[Item] = []
        i_assume: list[Item] = []
        if isinstance(si, T.TupleT) and (oc or ic):  # cross-component refinements: add each side's components
            for a, b, cs in zip(so.elems, si.elems, root.comps):
                o_assume += [(c, cs) for c in self.conjs(flatten(a)[1])]
                i_assume += [(c, cs) for c in self.conjs(flatten(b)[1])]
        here = self.implies_items(root, o_items + o_assume, i_items) == "yes" if i_items else True
        extra = ()
        if empty_only:
            extra = (("len0", self.encoder.length(root) == 0),)
        if here:  # out ⇒ in: out ∧ in ≡ out
            r = self.sat_items(root, o_items + o_assume, extra)
        else:
            r = self.sat_items(root, o_items + o_assume + i_items + i_assume, extra)
        return implied and here, r == "unsat"

    def unsat_refinement(self, t: T.Type) -> T.Pred | None:
        """A predicate of `t` that no value can satisfy together with the ones written before it
        at the same position (outermost position first, then elements, keys, values, tuple
        components; a newtype's own declaration is not re-examined), or None."""
        start = time.perf_counter()
        try:
            return self._unsat(t)
        finally:
            self.time += time.perf_counter() - start

    def _unsat(self, t: T.Type) -> T.Pred | None:
        preds = T.preds(t)
        base = T.shape(t)
        assume: tuple = ()
        if isinstance(base, T.NewT):
            shape, assume = flatten(base.underlying)
            children = False
        else:
            shape, children = base, True
        if preds and not isinstance(shape, T.AnyT):
            root = scope_of(shape)
            items = [(c, root) for c in self.conjs(assume)]
            if not items or self.sat_items(root, items) != "unsat":
                for p in preds:
                    items = items + [(c, root) for c in self.conjs([p])]
                    if self.sat_items(root, items) == "unsat":
                        return p
        if not children:
            return None
        if isinstance(shape, (T.ListT, T.SetT)):
            return self._unsat(shape.elem)
        if isinstance(shape, T.DictT):
            return self._unsat(shape.key) or self._unsat(shape.value)
        if isinstance(shape, T.TupleT):
            for e in shape.elems:
                p = self._unsat(e)
                if p is not None:
                    return p
        return None


# ---------------------------------------------------------------- helpers


def _syntactic(out: T.Type, inp: T.Type) -> bool:
    """Every input predicate at every position is written on the output at that position."""
    so, po = flatten(out)
    si, pi = flatten(inp)
    if isinstance(si, T.AnyT):
        return True
    if not set(pi) <= set(po):
        return False
    if isinstance(si, (T.ListT, T.SetT)):
        return _syntactic(so.elem, si.elem)
    if isinstance(si, T.DictT):
        return _syntactic(so.key, si.key) and _syntactic(so.value, si.value)
    if isinstance(si, T.TupleT):
        return all(_syntactic(a, b) for a, b in zip(so.elems, si.elems))
    return True


def _lift(conjs: list[Conj], kind: str) -> tuple[list[Conj], dict[str, list[Conj]]]:
    """Move `all(P(x) for x in it)` conjuncts (P not mentioning `it`) to the element level:
    for a list or set, `x` ranges over the elements; for a dict over its keys (`it`,
    `it.keys()`) or values (`it.values()`). At the top level this is exact."""
    rest: list[Conj] = []
    lifted: dict[str, list[Conj]] = {}
    for c in conjs:
        got = _lift_one(c, kind)
        if got is None:
            rest.append(c)
        else:
            lifted.setdefault(got[0], []).append(got[1])
    return rest, lifted


def _lift_one(c: Conj, kind: str) -> tuple[str, Conj] | None:
    e = c.expr
    if not (c.var == "it" and isinstance(e, A.Call) and isinstance(e.func, A.Name) and e.func.id == "all"
            and len(e.args) == 1 and not e.keywords):
        return None
    g = e.args[0]
    if not (isinstance(g, A.Comprehension) and g.kind in ("gen", "list") and len(g.generators) == 1):
        return None
    gen = g.generators[0]
    if gen.ifs or not isinstance(gen.target, A.Name) or gen.target.id == "it":
        return None
    x = gen.target.id
    src = gen.iter
    pos = None
    if isinstance(src, A.Name) and src.id == "it":
        pos = "key" if kind == "dict" else "elem"
    elif (kind == "dict" and isinstance(src, A.Call) and isinstance(src.func, A.Attribute)
          and isinstance(src.func.value, A.Name) and src.func.value.id == "it" and not src.args
          and not src.keywords and src.func.attr in ("keys", "values")):
        pos = "key" if src.func.attr == "keys" else "value"
    if pos is None:
        return None
    if "it" in _free_names(g.elt):
        return None
    return pos, make_conj(g.elt, "truthy", c.scoped, var=x)


_DEFAULT: Solver | None = None


def default_solver() -> Solver:
    """One process-wide solver (its caches are shared by every caller)."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = Solver()
    return _DEFAULT
