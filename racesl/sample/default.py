"""The default sampler: values of any racesl type, drawn from the bounds its refinements imply,
then checked against every predicate.

    s = sampler_for(t)
    value = s.draw(rng, level, check)     # check(pred, value) -> bool, supplied by the caller

Generation reads ranges, moduli, lengths, alphabets, element bounds, distinctness and order
out of the predicates (`racesl.types.refine`), so that e.g.
`Int where 3 <= it and it % 2 == 1 and it < 40` is drawn directly, with no rejection. Every
candidate is then checked against *every* predicate of its own type (elements are checked by
their own samplers before the container checks its predicates), so a value is returned only
when it belongs to the type, whatever the analysis understood. After `MAX_TRIES` rejected
candidates `draw` raises `NoSample(reason)`; a refinement the analysis proves empty
(`0 <= it and it < 0`) raises at once. Small finite domains (a value set such as `it in {..}`,
`Bool`, or an integer window of at most `ENUM_LIMIT` values once a few candidates were
rejected) are enumerated: every candidate is checked and one is picked among those that hold.

Level rule (`level` = 0, 1, 2, ...; larger reaches further):

- Int: a window of half-width `10 * 5**level` (10, 50, 250, 1250, ...) around the allowed value
  closest to 0, clipped to the bounds; e.g. `0 <= it <= 500` draws from 0..10 at level 0,
  0..50 at level 1, 0..250 at level 2 and the whole range from level 3. Explicit value sets
  (`it in {..}`) ignore the level.
- Lengths (Str, List, Dict): from the lower bound L (the predicate's, else 1) up to
  `L + 2 + 3 * level`, clipped to the upper bound: unbounded strings/lists have 1..3
  elements at level 0, 1..6 at level 1, 1..9 at level 2.
- Elements and tuple components are drawn at the container's level.
- When a window has no allowed value it widens (level + 1) until it covers the bounds; after
  every 50 rejected candidates the level is raised by one as well.

Str's default alphabet is the lowercase ASCII letters; a preferred alphabet read from the
predicates (`it.isupper()`, `all(c in "abc" for c in it)`, `set(it) <= set("01")`) replaces it.
"""

from __future__ import annotations

import random
import string
from typing import Any, Callable

import attrs

from racesl.runtime.contract import conforms, flatten as _flatten
from racesl.text import plural
from racesl.types.refine import Bounds, IntRange, eq_key, extract, lit_key
from racesl.types.types import (
    BoolT, DictT, IntT, ListT, Pred, SetT, StrT, TupleT, Type,
)

__all__ = [
    "NoSample", "Sampler", "SampleStats", "sampler_for", "build_sampler", "draw",
    "int_window", "length_window", "MAX_TRIES", "ENUM_AFTER", "ENUM_LIMIT", "MAX_LEVEL",
]

Check = Callable[[Pred, Any], bool]

MAX_TRIES = 200     # rejected candidates before NoSample
ENUM_AFTER = 8      # rejected candidates before a finite domain is enumerated
ENUM_LIMIT = 256    # largest integer window that is enumerated
MAX_LEVEL = 40      # levels above this are treated as this
# The most one top-level draw may build, rejected candidates included: elements of every
# list, set and dict plus characters of every str (nested ones counted where they are
# built). A length the windows pick past what is left is cut to it; a type whose smallest
# value is larger is refused at once (`NoSample`), never built.
MAX_SAMPLE_SIZE = 10_000
_DEFAULT_ALPHABET = string.ascii_lowercase


class NoSample(Exception):
    """No value of the type could be drawn (unsatisfiable, or too rare for rejection).
    `cause`: "draw" (the type's own sampler found none), or for a @sample helper the status
    that stopped it ("fuel", "timeout", "assert", "error", ...), "size" (a value too large to
    use) or "outside" (a value outside the parameter's type); racesc check counts them."""

    def __init__(self, reason: str, cause: str = "draw"):
        super().__init__(reason)
        self.reason = reason
        self.cause = cause


class _Retry(Exception):
    """A candidate could not be built (e.g. not enough distinct elements): counts as a
    rejection."""


@attrs.define
class SampleStats:
    """Counters shared by a sampler and its element samplers."""

    draws: int = 0        # draw() calls (elements included)
    rejections: int = 0   # candidates rejected (a predicate failed, or it could not be built)
    checks: int = 0       # check() calls
    left: int | None = None  # of MAX_SAMPLE_SIZE, during a top-level draw (None: none running)


# ---------------------------------------------------------------- windows


def int_window(r: IntRange, level: int) -> tuple[int, int, bool]:
    """(a, b, full): the integer window of `level` (see the module docstring); `full` when it
    covers every value the bounds allow."""
    w = 10 * 5 ** max(0, min(level, MAX_LEVEL))
    anchor = 0
    if r.lo is not None and anchor < r.lo:
        anchor = r.lo
    if r.hi is not None and anchor > r.hi:
        anchor = r.hi
    a = anchor - w if r.lo is None else max(r.lo, anchor - w)
    b = anchor + w if r.hi is None else min(r.hi, anchor + w)
    full = r.lo is not None and r.hi is not None and a <= r.lo and b >= r.hi
    return a, b, full


def length_window(r: IntRange, level: int) -> tuple[int, int, bool]:
    """(a, b, full): the length window of `level`."""
    lo = max(r.lo, 0) if r.lo is not None else None
    start = lo if lo is not None else (1 if r.hi is None or r.hi >= 1 else 0)
    b = start + 2 + 3 * max(0, min(level, MAX_LEVEL))
    if r.hi is not None:
        b = min(b, r.hi)
    full = r.hi is not None and b >= r.hi and start <= (lo or 0)
    return start, b, full


def _pick_int(rng: random.Random, r: IntRange, level: int, what) -> int:
    return _pick(rng, r, level, what, "integer", int_window, widen=False)


def _pick_len(rng: random.Random, r: IntRange, level: int, what) -> int:
    return _pick(rng, r, level, what, "length", length_window, widen=True)


def _pick(rng: random.Random, r: IntRange, level: int, what, noun: str, window, widen: bool) -> int:
    """A value of `r` from the windows of `level` and up. `widen` (lengths): once a window
    reaches the upper bound empty, try every value from 0 to it, since a refinement may
    allow only lengths the windows skipped. `what` (the type) is turned into text only for
    an error message."""
    if r.empty:
        raise NoSample(f"{what}: the refinement allows no {noun}")
    if r.choices is not None:
        return rng.choice(r.choices)
    for lv in range(level, level + MAX_LEVEL):
        a, b, full = window(r, lv)
        v = r.pick(rng, a, b)
        if v is not None:
            return v
        if widen and r.hi is not None and b >= r.hi:
            v = r.pick(rng, 0, r.hi)
            if v is not None:
                return v
            break
        if full and not widen:
            break
    raise NoSample(f"{what}: no {noun} in {r.describe()}")


# ---------------------------------------------------------------- samplers


class Sampler:
    """Draws values of one type. Build with `sampler_for(t)` (cached) or `build_sampler(t)`.

    `bounds` is what generation uses (the type's own predicates met with any element bounds
    of an enclosing container); `preds` are every predicate of the type after unwrapping
    newtypes, all checked on each candidate; `stats` counts draws, rejections and checks for
    this sampler and its element samplers.
    """

    def __init__(self, t: Type, extra: Bounds | None = None, stats: SampleStats | None = None):
        self.type = t
        self.shape, self.preds = _flatten(t)
        own = extract(self.preds)
        self.bounds = own.meet(extra) if extra is not None else own
        self.stats = stats if stats is not None else SampleStats()
        self._choices: list | None = None
        self._setup()
        if self.bounds.choices is not None and self._uses_choices():
            bad = {eq_key(x) for x in self.bounds.excluded}
            self._choices = [c for c in self.bounds.choices
                             if conforms(c, self.shape) and eq_key(c) not in bad and self._choice_ok(c)]

    @property
    def rejections(self) -> int:
        return self.stats.rejections

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.type})"

    # -- hooks

    def _setup(self) -> None:
        pass

    def _uses_choices(self) -> bool:
        return True

    def _choice_ok(self, c: Any) -> bool:
        return True

    def _generate(self, rng: random.Random, level: int, check: Check) -> Any:
        raise NotImplementedError

    def domain_size(self) -> int | None:
        """An upper bound on how many different values the bounds allow, when small and known."""
        if self._choices is not None:
            return len(self._choices)
        return self._domain_size()

    def _domain_size(self) -> int | None:
        return None

    def all_values(self) -> list | None:
        """Every value the bounds allow (predicates not yet checked), when at most
        ENUM_LIMIT; else None."""
        if self._choices is not None:
            return list(self._choices)
        return self._all_values()

    def _all_values(self) -> list | None:
        return None

    def _finite_gen(self, level: int) -> tuple[list, bool] | None:
        """(values, full) when the window of `level` is small enough to enumerate; `full`
        when the values are every value the bounds allow."""
        return None

    # -- drawing

    def _candidate(self, rng: random.Random, level: int, check: Check) -> Any:
        if self._choices is not None:
            if not self._choices:
                raise NoSample(f"{self.type}: no listed value fits the type")
            return rng.choice(self._choices)
        return self._generate(rng, level, check)

    def _finite(self, level: int) -> tuple[list, bool] | None:
        if self._choices is not None:
            return self._choices, True
        return self._finite_gen(level)

    def _failing(self, v: Any, check: Check) -> Pred | None:
        for p in self.preds:
            self.stats.checks += 1
            if not check(p, v):
                return p
        return None

    def min_size(self) -> int:
        """The size (MAX_SAMPLE_SIZE's units) of the smallest value the bounds allow."""
        return 0

    def draw(self, rng: random.Random, level: int, check: Check) -> Any:
        """A value of the type: generated from the bounds, checked against every predicate.
        Raises NoSample after MAX_TRIES rejected candidates (or at once when the bounds are
        provably empty, or its smallest value is past MAX_SAMPLE_SIZE). A top-level draw
        builds at most MAX_SAMPLE_SIZE in all (`_budgeted`)."""
        if self.stats.left is not None:
            return self._draw(rng, level, check)
        smallest = self.min_size()
        if smallest > MAX_SAMPLE_SIZE:
            self.stats.draws += 1
            raise NoSample(f"{self.type}: its smallest value has {smallest:,} elements and characters; "
                           f"sampled values have at most {MAX_SAMPLE_SIZE:,}")
        self.stats.left = MAX_SAMPLE_SIZE
        try:
            return self._draw(rng, level, check)
        finally:
            self.stats.left = None

    def _draw(self, rng: random.Random, level: int, check: Check) -> Any:
        level = max(0, min(int(level), MAX_LEVEL))
        self.stats.draws += 1
        if self.bounds.empty:
            raise NoSample(f"{self.type}: the refinement is unsatisfiable")
        fails: dict[str, int] = {}
        enumerated: set[int] = set()
        lv = level
        for tries in range(1, MAX_TRIES + 1):
            try:
                v = self._candidate(rng, lv, check)
            except _Retry:
                self.stats.rejections += 1
            else:
                bad = self._failing(v, check)
                if bad is None:
                    return v
                self.stats.rejections += 1
                fails[bad.text] = fails.get(bad.text, 0) + 1
            if tries >= ENUM_AFTER and lv not in enumerated:
                enumerated.add(lv)
                fin = self._finite(lv)
                if fin is not None:
                    values, full = fin
                    ok = [x for x in values if self._failing(x, check) is None]
                    if ok:
                        return rng.choice(ok)
                    if full:
                        raise NoSample(f"{self.type}: none of its {plural(len(values), 'candidate value')} "
                                       f"satisfies the refinement")
                    lv = min(lv + 1, MAX_LEVEL)
                    continue
            if tries % 50 == 0:
                lv = min(lv + 1, MAX_LEVEL)
        reason = f"{self.type}: no value found in {MAX_TRIES} tries from level {level}"
        if fails:
            worst = max(fails, key=fails.get)
            reason += f"; most rejected by `{worst}` ({fails[worst]}x)"
        raise NoSample(reason)


class IntSampler(Sampler):
    def _setup(self) -> None:
        self._range = _solver_tightened(self.bounds.value, self.bounds.opaque, self.preds)

    def _uses_choices(self) -> bool:
        return False  # the value range already holds the integer choices

    def _generate(self, rng, level, check):
        return _pick_int(rng, self._range, level, self.type)

    def _domain_size(self):
        r = self._range
        if r.empty:
            return 0
        if r.choices is not None:
            return len(r.choices)
        if r.lo is not None and r.hi is not None:
            return r.count_in(r.lo, r.hi)
        return None

    def _all_values(self):
        r = self._range
        if r.empty:
            return []
        if r.choices is not None:
            return list(r.choices)
        if r.lo is None or r.hi is None:
            return None
        return r.candidates(r.lo, r.hi, ENUM_LIMIT)

    def _finite_gen(self, level):
        r = self._range
        if r.empty:
            return [], True
        if r.choices is not None:
            return list(r.choices), True
        a, b, full = int_window(r, level)
        c = r.candidates(a, b, ENUM_LIMIT)
        return None if c is None else (c, full)

    def draw(self, rng, level, check):
        if self._range.empty:
            self.stats.draws += 1
            raise NoSample(f"{self.type}: the refinement is unsatisfiable ({self._range.describe()})")
        return super().draw(rng, level, check)


def _solver_tightened(r: IntRange, opaque: tuple, preds) -> IntRange:
    """Close open ends of an Int range with Z3 Optimize when our own reading of the
    predicates left some conjuncts opaque (e.g. `it + 2 * (it // 3) < 50`): a bounded
    window samples without rejection storms. The solver is imported only when needed."""
    if not opaque or r.empty or (r.lo is not None and r.hi is not None) or not preds:
        return r
    try:
        from racesl.solver.bounds import int_bounds

        lo, hi = int_bounds(preds)
    except Exception:  # the solver is an optimisation here, never a requirement
        return r
    if lo is not None and hi is not None and lo > hi:
        return attrs.evolve(r, empty=True)
    new_lo = lo if r.lo is None else (r.lo if lo is None else max(r.lo, lo))
    new_hi = hi if r.hi is None else (r.hi if hi is None else min(r.hi, hi))
    return attrs.evolve(r, lo=new_lo, hi=new_hi)


class BoolSampler(Sampler):
    def _setup(self) -> None:
        r = self.bounds.value
        self._values = [b for b in (False, True) if r.allows(int(b))]

    def _uses_choices(self) -> bool:
        return False

    def _generate(self, rng, level, check):
        if not self._values:
            raise NoSample(f"{self.type}: the refinement allows neither False nor True")
        return rng.choice(self._values)

    def _domain_size(self):
        return len(self._values)

    def _all_values(self):
        return list(self._values)

    def _finite_gen(self, level):
        return list(self._values), True


class _SizedSampler(Sampler):
    def _setup(self) -> None:
        self._len = self.bounds.length
        self._children()

    def _cap_length(self, n: int | None) -> None:
        """At most `n` elements fit (e.g. distinct elements from a domain of n values)."""
        if n is not None:
            capped = self._len.meet(IntRange(hi=n))
            if not capped.empty:
                self._len = capped

    def _children(self) -> None:
        pass

    def _choice_ok(self, c):
        try:
            return self._len.allows(len(c))
        except TypeError:
            return False

    def _length(self, rng, level) -> int:
        return self._budgeted(_pick_len(rng, self._len, level, self.type))

    def _budgeted(self, n: int) -> int:
        """`n`, cut to what is left of the draw's MAX_SAMPLE_SIZE and taken from it: the same
        length whenever the bound is not reached (no random number is drawn here). Past it, a
        candidate that cannot be that short is a rejection."""
        left = self.stats.left
        if left is None:
            return n
        if n > left:
            lo = self._len.lo or 0
            if lo > left:
                self.stats.left = 0
                raise _Retry()
            n = left
        self.stats.left = left - n
        return n

    def min_size(self) -> int:
        return (self._len.lo or 0) * (1 + self._elem_min())

    def _elem_min(self) -> int:
        return 0

    def _distinct_fill(self, rng, n, level, check, elem: "Sampler") -> list:
        """n pairwise different values drawn by `elem`. When they must cover most of a small
        domain, the domain is enumerated, checked, and n values are picked from it."""
        size = elem.domain_size()
        if size is not None and 2 * n > size:
            pool = elem.all_values()
            if pool is not None:
                ok = [x for x in pool if elem._failing(x, check) is None]
                if len(ok) < n:
                    raise _Retry()
                return rng.sample(ok, n)
        out, keys = [], set()
        misses, lv = 0, level
        while len(out) < n:
            v = elem.draw(rng, lv, check)
            k = lit_key(v)
            if k in keys:
                misses += 1
                if misses % (n + 4) == 0:
                    lv = min(lv + 1, MAX_LEVEL)
                if misses > 4 * n + 20:
                    raise _Retry()
                continue
            keys.add(k)
            out.append(v)
        return out

    def _order(self, xs: list) -> list:
        if self.bounds.order is None:
            return xs
        try:
            return sorted(xs, reverse=self.bounds.order == "desc")
        except TypeError:
            return xs


class StrSampler(_SizedSampler):
    def _children(self) -> None:
        b = self.bounds
        preferred = b.alphabet
        sound: set | None = None
        excluded: set = set()
        e = b.elem
        if e is not None:
            if e.choices is not None:
                sound = {c for c in e.choices if isinstance(c, str) and len(c) == 1}
            if e.alphabet is not None:
                preferred = e.alphabet if preferred is None else preferred & e.alphabet
            excluded = {x for x in e.excluded if isinstance(x, str) and len(x) == 1}
        if sound is not None:
            both = sound & preferred if preferred is not None else sound
            alpha = both or sound
            if not alpha:  # every character is excluded: only the empty string
                self._len = self._len.meet(IntRange(hi=0))
        else:
            alpha = set(preferred) if preferred else set(_DEFAULT_ALPHABET)
        if alpha - excluded:
            alpha = alpha - excluded
        self.alphabet = "".join(sorted(alpha))
        if b.distinct and self.alphabet:
            self._cap_length(len(self.alphabet))

    def _generate(self, rng, level, check):
        n = self._length(rng, level)
        if n and not self.alphabet:
            raise _Retry()
        if self.bounds.distinct:
            if n > len(self.alphabet):
                raise _Retry()
            chars = rng.sample(self.alphabet, n)
        else:
            chars = [rng.choice(self.alphabet) for _ in range(n)]
        return "".join(self._order(chars))


class ListSampler(_SizedSampler):
    def _children(self) -> None:
        self.elem = _build(self.shape.elem, self.bounds.elem, self.stats)
        if self.bounds.distinct:
            self._cap_length(self.elem.domain_size())

    def _elem_min(self) -> int:
        return self.elem.min_size()

    def _elements(self, rng, n, level, check, distinct) -> list:
        if n == 0:
            return []
        try:
            if distinct:
                return self._distinct_fill(rng, n, level, check, self.elem)
            return [self.elem.draw(rng, level, check) for _ in range(n)]
        except NoSample:
            if self._len.allows(0):
                return []
            raise

    def _generate(self, rng, level, check):
        n = self._length(rng, level)
        return self._order(self._elements(rng, n, level, check, self.bounds.distinct))


class SetSampler(ListSampler):
    def _generate(self, rng, level, check):
        n = self._length(rng, level)
        xs = self._elements(rng, n, level, check, True)
        try:
            return set(xs)
        except TypeError:
            raise _Retry() from None


class TupleSampler(Sampler):
    def _setup(self) -> None:
        self.components = [_build(t, None, self.stats) for t in self.shape.elems]

    def _generate(self, rng, level, check):
        return tuple(c.draw(rng, level, check) for c in self.components)

    def min_size(self) -> int:
        return sum(c.min_size() for c in self.components)


def _hashable_shape(t: Type) -> bool:
    s, _ = _flatten(t)
    if isinstance(s, (IntT, BoolT, StrT)):
        return True
    if isinstance(s, TupleT):
        return all(_hashable_shape(e) for e in s.elems)
    return False


class DictSampler(_SizedSampler):
    def _children(self) -> None:
        self.key = _build(self.shape.key, self.bounds.elem, self.stats)
        self.value = _build(self.shape.value, self.bounds.values, self.stats)
        if not _hashable_shape(self.shape.key):
            self._len = self._len.meet(IntRange(hi=0))  # only {} has such keys
        else:
            self._cap_length(self.key.domain_size())

    def _elem_min(self) -> int:
        return self.key.min_size() + self.value.min_size()

    def _generate(self, rng, level, check):
        n = self._length(rng, level)
        if n == 0:
            return {}
        try:
            keys = self._distinct_fill(rng, n, level, check, self.key)
        except NoSample:
            if self._len.allows(0):
                return {}
            raise
        if self.bounds.order is not None:
            keys = self._order(keys)
        return {k: self.value.draw(rng, level, check) for k in keys}


class _Unsampleable(Sampler):
    def _generate(self, rng, level, check):
        raise NoSample(f"cannot sample values of type {self.type}")


def _build(t: Type, extra: Bounds | None, stats: SampleStats) -> Sampler:
    s, _ = _flatten(t)
    cls = {
        IntT: IntSampler, BoolT: BoolSampler, StrT: StrSampler, ListT: ListSampler,
        SetT: SetSampler, TupleT: TupleSampler, DictT: DictSampler,
    }.get(type(s), _Unsampleable)
    return cls(t, extra, stats)


def build_sampler(t: Type) -> Sampler:
    """A fresh sampler for `t` with its own counters."""
    return _build(t, None, SampleStats())


def _type_key(t: Type, depth: int = 0) -> Any:
    """A cache key that, unlike type equality, also sees a newtype's representation."""
    if depth > 50:
        return repr(t)
    s, preds = _flatten(t) if depth < 50 else (t, ())
    texts = tuple((p.module, p.text) for p in preds)
    if isinstance(s, (ListT, SetT)):
        return (type(s).__name__, _type_key(s.elem, depth + 1), texts)
    if isinstance(s, TupleT):
        return ("Tuple", tuple(_type_key(e, depth + 1) for e in s.elems), texts)
    if isinstance(s, DictT):
        return ("Dict", _type_key(s.key, depth + 1), _type_key(s.value, depth + 1), texts)
    return (type(s).__name__, texts)


_CACHE: dict[Any, Sampler] = {}
_CACHE_MAX = 4096


_BY_ID: dict[int, tuple[Type, Sampler]] = {}


def sampler_for(t: Type) -> Sampler:
    """The (cached) sampler of `t`. Its `stats` accumulate over every user of the cache; use
    `build_sampler` for private counters."""
    hit = _BY_ID.get(id(t))
    if hit is not None and hit[0] is t:  # the same type object: skip hashing the type tree
        return hit[1]
    key = (t, _type_key(t))
    s = _CACHE.get(key)
    if s is None:
        if len(_CACHE) >= _CACHE_MAX:
            _CACHE.clear()
        s = _CACHE[key] = build_sampler(t)
    if len(_BY_ID) >= _CACHE_MAX:
        _BY_ID.clear()
    _BY_ID[id(t)] = (t, s)
    return s


def draw(t: Type, rng: random.Random, level: int, check: Check) -> Any:
    """`sampler_for(t).draw(rng, level, check)`."""
    return sampler_for(t).draw(rng, level, check)
