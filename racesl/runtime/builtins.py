"""The builtins a body can name, and the helpers instrumented code calls.

`SAFE_BUILTINS` is the `__builtins__` of every compiled program: exactly the 25 names of
docs/language.md §4.3, each either the CPython builtin (when it cannot build anything big:
`abs bin bool chr divmod hex len ord range`) or a size-guarded wrapper with the same
behaviour. Nothing else is there: no `__import__`, `__build_class__`, `open`, `eval`,
`exec`, `getattr`, `type`, `object`, `print`, `input`, `globals`, `vars`, exceptions...
(`assert` needs no name: CPython loads AssertionError directly.)

The fuel-charging versions of the sequence builtins take the fuel box first
(`_races_bi_sum(box, xs)`); instrumented code calls them instead of the plain names (or
charges inline, see racesl.lower.instrument). A fuel box is a list whose element 0 holds
the steps left. Charging rules (docs/language.md §4.6): a builtin over one sized argument
(str, list, tuple, dict, set, range, dict views) charges its length before it runs, and
refuses (`SizeExceeded`) an argument longer than MAX_LEN; `zip` charges the shortest sized
argument; an unsized argument (a generator, an enumerate object) charges nothing here,
since its elements are charged as they are produced. `str.join` charges like a builtin,
`list.sort` charges the list's length, `x in y` charges len(y) for a str, list or tuple
(a dict, set or range answers without scanning: no charge). A `key=` function costs one
step a call, like any lambda or helper call; with `key=lambda ...` passed straight to
`sorted`/`max`/`min`/`list.sort` those calls (one an element) are charged up front.

`RUNTIME` maps every `_races_*` name the instrumenter emits (racesl.runtime.abi) to its object.
"""

from __future__ import annotations

import builtins as _b
import random as _random
import sys
import threading as _threading
from functools import partial

from racesl.runtime import abi
from racesl.runtime import guards as G
from racesl.runtime.limits import (
    MAX_DEPTH, MAX_INT_BITS, MAX_LEN, FuelOut, RecursionCut, SizeExceeded,
)
from racesl.runtime.watchdog import WATCHDOG
from racesl.types import builtins as _table

__all__ = ["SAFE_BUILTINS", "safe_builtins", "RUNTIME", "SafeRng", "BUILTIN_NAMES", "CHARGING_BUILTINS"]

BUILTIN_NAMES = [e.name for e in _table.builtins()]  # (racesl.types.builtins: the one table)
# builtins over a sequence: charged, routed to `_races_bi_<name>(box, ...)`
CHARGING_BUILTINS = _table.CHARGING_BUILTINS

_sized_len = G.sized_len
_SIZED_T = G.SIZED_TYPES
_INF = float("inf")
_BIG = 1 << MAX_INT_BITS
_NBIG = -_BIG
_MAIN = _threading.main_thread()


# ----------------------------------------------------------------- the charge
# Every charge this module makes is one of these three. A site on a hot path where the call
# itself would cost (measured: benchmarks/bench_fuel*.py) writes the same lines out and
# says which one it stands for.

_PASSED = "{t} of {n} elements passed to a builtin"


def _pay(box, n) -> None:
    """Take n steps from the fuel box; FuelOut, the box left as it was, when it holds fewer."""
    f = box[0] - n
    if f < 0:
        raise FuelOut
    box[0] = f


def _sized(box, n, x=None, why=_PASSED) -> None:
    """A builtin's charge over `x`, n elements long: refuse it (SizeExceeded, `why` formatted
    with `t`, the name of x's type, and `n`; nothing paid) when n passes MAX_LEN, else
    `_pay(box, n)`."""
    if n > MAX_LEN:
        raise SizeExceeded(why.format(t=type(x).__name__, n=n))
    f = box[0] - n  # (`_pay`, written out: one call, not two)
    if f < 0:
        raise FuelOut
    box[0] = f


def _pre(box, x) -> int:
    """Refuse an oversized sequence argument, then charge its length; -1 for an unsized one
    (a generator's elements were charged as it produced them)."""
    n = _sized_len(x) if type(x) in _SIZED_T else -1  # the common generator: no call
    if n > 0:
        _sized(box, n, x)
    return n


def _post(n: int, r):
    if n < 0 and len(r) > MAX_LEN:
        raise SizeExceeded(f"{type(r).__name__} of {len(r)} elements")
    return r


def _charged1(native, name: str, materializes: bool):
    """`native(xs)` for one positional argument: the common call, specialised (no *args)."""
    sized = G.SIZED_TYPES
    why = "{t} of {n} elements passed to " + name + "()"

    def charged(box, xs):
        if type(xs) in sized:
            try:
                n = len(xs)
            except OverflowError:
                n = MAX_LEN + 1
            _sized(box, n, xs, why)
            return native(xs)
        r = native(xs)
        if materializes and len(r) > MAX_LEN:
            raise SizeExceeded(f"{name}() of {len(r)} elements")
        return r

    charged.__name__ = f"bi1_{name}"
    return charged


_ONE_ARG = {
    name: _charged1(getattr(_b, name), name, name in _table.MATERIALIZING_BUILTINS)
    for name in sorted(_table.ONE_ARG_BUILTINS)
}


def bi_sum(box, xs, start=0):
    _pre(box, xs)
    ts = type(start)
    if ts is int or ts is bool or ts is str or ts is float:
        return sum(xs, start)  # numbers; a str start raises as in Python
    acc = start  # `sum(lists, [])`: every `+` is guarded (and interruptible)
    for x in xs:
        acc = G.g_add(acc, x)
    return acc


def bi_max(box, *args, **kw):
    if len(args) == 1:
        _pre(box, args[0])
    return max(*args, **kw)


def bi_min(box, *args, **kw):
    if len(args) == 1:
        _pre(box, args[0])
    return min(*args, **kw)


def bi_any(box, xs):
    _pre(box, xs)
    return any(xs)


def bi_all(box, xs):
    _pre(box, xs)
    return all(xs)


_SORTED = "{t} of {n} elements passed to sorted()"


def bi_sorted(box, xs, *, key=None, reverse=False):
    # (the charge of `charged` in `_charged1`, not `_pre` and `_post`: two more Python calls
    # on a hot path, `sorted(xs, reverse=True)` in a comprehension)
    if type(xs) in _SIZED_T:
        try:
            n = len(xs)
        except OverflowError:
            n = MAX_LEN + 1
        _sized(box, n, xs, _SORTED)
        return sorted(xs, key=key, reverse=reverse)
    return _post(-1, sorted(xs, key=key, reverse=reverse))


def bi_list(box, *args):
    if not args:
        return []
    return _post(_pre(box, args[0]), list(*args))


def bi_tuple(box, *args):
    if not args:
        return ()
    return _post(_pre(box, args[0]), tuple(*args))


def bi_set(box, *args):
    if not args:
        return set()
    return _post(_pre(box, args[0]), set(*args))


def bi_dict(box, *args, **kw):
    n = _pre(box, args[0]) if args else 0
    return _post(-1 if n < 0 else 0, dict(*args, **kw))


def bi_enumerate(box, xs, start=0):
    _pre(box, xs)
    return enumerate(xs, start)


def bi_reversed(box, xs):
    _pre(box, xs)
    return reversed(xs)


def bi_zip(box, *xs):
    sizes = [n for n in map(_sized_len, xs) if n >= 0]
    if sizes:
        _sized(box, min(sizes), None, "zip over {n} elements")
    return zip(*xs)


def g_join(sep, items):
    """`sep.join(items)`, its charge paid: the text it would build may not pass MAX_LEN."""
    if type(sep) is not str:
        return sep.join(items)
    if type(items) is not list and type(items) is not tuple:
        items = list(items)
    try:
        total = sum(map(len, items))
    except TypeError:
        return sep.join(items)  # not all text: Python's own error
    total += len(sep) * (len(items) - 1)
    if total > MAX_LEN:
        raise SizeExceeded(f"str.join: {total} characters")
    return sep.join(items)


def meth_join(box, sep, items):
    """`sep.join(items)`: charges len(items) (a str separator; nothing for a generator, whose
    elements were charged as it produced them), then `g_join`."""
    if type(sep) is str and type(items) in _SIZED_T:
        _pre(box, items)
    return g_join(sep, items)


def meth_sort(box, lst, *args, **kw):
    """`lst.sort(...)`: charges len(lst), as `sorted` does."""
    if type(lst) is list:
        _pre(box, lst)
    return lst.sort(*args, **kw)


# ----------------------------------------------------------------- fuel helpers


def fuel_out():
    raise FuelOut


def clen(x) -> int:
    """The charge of a builtin over `x` when `x` is not one of the plainly sized types: a
    range's length (MAX_LEN + 1 when too long to count), 0 for iterators and generators."""
    n = _sized_len(x)
    return n if n > 0 else 0


def charge_fail(x, n):
    """An inline builtin charge failed: too long (SizeExceeded) or out of fuel."""
    if n > MAX_LEN:
        raise SizeExceeded(f"{type(x).__name__} of {n} elements passed to a builtin")
    raise FuelOut


def entry_fail(f, depth):
    """A function's prologue found no fuel for its own call, or nesting too deep."""
    if depth > MAX_DEPTH:
        raise RecursionCut(f"helper calls nested deeper than {MAX_DEPTH}")
    raise FuelOut


def lambda_tick(box):
    """One step for a lambda call; returns None so `tick(box) or body` is `body`."""
    # (`_pay(box, 1)`, written out: every lambda call runs it; a call here would be a second one)
    f = box[0]
    if not f:
        raise FuelOut
    box[0] = f - 1


def tick_iter(box, it):
    """Iterate `it`, one step an element (lazy consumers: any/all, zip, unsized input)."""
    for x in it:
        f = box[0]  # (`_pay(box, 1)`, written out: it runs once an element, on the innermost loop)
        if not f:
            raise FuelOut
        box[0] = f - 1
        yield x


_LOOP_SIZED = frozenset(G.SIZED_TYPES - {list})


_LOOP_SIZED_OR_LIST = _LOOP_SIZED | {list}


def rows_len(xs, sized):
    """Σ len(row) over the elements of xs, when each one's type is in `sized` and its length
    at most MAX_LEN: what the charges it stands for (ticking through a row, `_charged1` of a
    row) would take in all; else infinity, so that the caller ticks instead. (A plain loop:
    for the few rows of a typical value it beats chains of C iterators.)"""
    total = 0
    try:
        for row in xs:
            if type(row) not in sized:
                return _INF
            n = len(row)
            if n > MAX_LEN:
                return _INF
            total += n
    except OverflowError:  # a range too long to count
        return _INF
    return total


def esc(box, it):
    """The source of a generator that escapes its statement: charged whole now (a sized
    source; an unsized one is taken into a list first), so that consuming the generator
    later charges nothing. A list is charged its length now and iterated live, as Python
    would (elements appended before the generator reaches them cost nothing)."""
    t = type(it)
    if t not in _LOOP_SIZED and t is not list:
        it = list(it)
    try:
        n = len(it)
    except OverflowError:
        raise FuelOut from None
    _sized(box, n, None, "generator over {n} elements")
    return it


def enter_slow(fn, wall, budget, meter, *args):
    """An entry function's way in when no watchdog session is open: run the ordinary
    function `fn` with a box, in a one-call session on the main thread when `wall` is not
    None; the fuel left goes to `meter[0]`, as the entry would leave it."""
    box = [budget + 1, _INF if wall is None else wall]
    if wall is not None and not WATCHDOG.depth and _threading.current_thread() is _MAIN:
        with WATCHDOG.session():
            value = fn(box, 0, *args)
    else:
        value = fn(box, 0, *args)
    if type(value) is int and not _NBIG < value < _BIG:
        big_result(value)
    meter[0] = box[0]
    return value


def big_result(value):
    raise SizeExceeded(f"result: int of {value.bit_length()} bits")


def refund(*iters):
    """Iterations a `for` over zip(*iters) had left when it stopped early."""
    return min(i.__length_hint__() for i in iters)


def in_arg(box, y):
    """`x in y`: charge len(y) for a str, list or tuple; returns y."""
    t = type(y)
    if t is str or t is list or t is tuple:
        _pay(box, len(y))
    return y


def in_len(y):
    t = type(y)
    if t is str or t is list or t is tuple:
        return len(y)
    return 0


# ----------------------------------------------------------------- rng


FRACTION_DEN = 1 << 53  # rng.fraction()'s denominator: random.random() is k / 2**53


class SafeRng:
    """The `rng` a sampler receives: `randint`, `choice`, `sample`, `shuffle`, `choices`,
    `fraction`, `fork` (a child SafeRng) and nothing else reachable from a body (the checker allows no other attribute), backed by a
    `random.Random(seed)` — deterministic for a given seed."""

    __slots__ = ("_random",)

    def __init__(self, seed=0):
        self._random = _random.Random(seed)

    def randint(self, a, b):
        return self._random.randint(a, b)

    def choice(self, seq):
        return self._random.choice(seq)

    def sample(self, population, k):
        if type(k) is int and k > MAX_LEN:
            raise SizeExceeded(f"rng.sample of {k} elements")
        return self._random.sample(population, k)

    def shuffle(self, x):
        self._random.shuffle(x)

    def choices(self, population, weights=None, k=1):
        """`k` elements drawn with replacement, each in proportion to its integer weight
        (`weights=[3, 1]`: the first three times as often). Integer weights only: the
        language has no floats, and integer weights make the draw exact (Python's float
        cumulative sums round)."""
        if type(k) is not int or isinstance(k, bool) or k < 0:
            raise ValueError("rng.choices: k must be a whole number of at least 0")
        if k > MAX_LEN:
            raise SizeExceeded(f"rng.choices of {k} elements")
        if weights is None:
            return [self._random.choice(population) for _ in range(k)]
        if len(weights) != len(population) or not population:
            raise ValueError("rng.choices: one weight for each element of a non-empty population")
        if any(type(w) is not int or w < 0 for w in weights) or not any(weights):
            raise ValueError("rng.choices: weights are whole numbers of at least 0, not all 0")
        total, cum = 0, []
        for w in weights:
            total += w
            cum.append(total)
        out = []
        for _ in range(k):
            r = self._random.randrange(total)  # exact: an integer below the total weight
            lo, hi = 0, len(cum) - 1
            while lo < hi:
                mid = (lo + hi) // 2
                if cum[mid] > r:
                    hi = mid
                else:
                    lo = mid + 1
            out.append(population[lo])
        return out

    def fraction(self):
        """A fraction in [0, 1) as `(numerator, 2**53)`: exactly the value of one
        `random.Random.random()` call (which draws two 32-bit words, keeps 27 + 26 bits and
        returns k / 2**53), as a rational, since the language has no floats. A port of
        `if random.random() < 0.3:` reads `num, den = rng.fraction()` then `num * 10 < 3 * den`."""
        return int(self._random.random() * FRACTION_DEN), FRACTION_DEN

    def fork(self, label):
        """An independent sub-stream: a new rng seeded from one `getrandbits(64)` drawn from
        this one (two 32-bit words) and `label` (an Int or a Str), through CPython's
        str/bytes seeding (SHA-512, the same in every process and hash seed). The parent
        advances by exactly those two words, whatever the child draws later."""
        if type(label) is str:
            if len(label) > MAX_LEN:
                raise SizeExceeded("rng.fork label")
            tag = "s" + label
        elif type(label) is int:
            if label.bit_length() > 64:
                raise ValueError("rng.fork: an Int label has at most 64 bits")
            tag = "i" + str(label)
        else:
            raise TypeError("rng.fork: the label is an Int or a Str")
        word = self._random.getrandbits(64)
        child = SafeRng.__new__(SafeRng)
        child._random = _random.Random(f"racesl.fork\0{word}\0{tag}".encode("utf-8", "surrogatepass"))
        return child

    def __repr__(self):
        return "SafeRng(...)"


def rng_over(source: _random.Random) -> SafeRng:
    """A SafeRng drawing from an existing generator (the caller's per-item stream) instead
    of seeding its own: a new Mersenne Twister state costs ~10 µs a sampler call. A module
    function, not a method, so a body's `rng` shows nothing but its listed methods."""
    rng = SafeRng.__new__(SafeRng)
    rng._random = source
    return rng


# ----------------------------------------------------------------- tables


class _Unlimited:
    """A fuel box that never runs out: the size-only builtins of SAFE_BUILTINS use it."""

    __slots__ = ()

    def __getitem__(self, i):
        return 1 << 62

    def __setitem__(self, i, v):
        pass


_UNLIMITED = _Unlimited()
_CHARGED = {
    "sum": bi_sum, "max": bi_max, "min": bi_min, "any": bi_any, "all": bi_all,
    "sorted": bi_sorted, "list": bi_list, "tuple": bi_tuple, "set": bi_set, "dict": bi_dict,
    "enumerate": bi_enumerate, "reversed": bi_reversed, "zip": bi_zip,
}
assert set(_CHARGED) == CHARGING_BUILTINS

SAFE_BUILTINS: dict = {
    "abs": _b.abs, "bin": _b.bin, "bool": _b.bool, "chr": _b.chr, "divmod": _b.divmod,
    "hex": _b.hex, "len": _b.len, "ord": _b.ord, "range": _b.range,
    "int": G.g_int, "pow": G.g_pow, "str": G.g_str,
    **{name: partial(fn, _UNLIMITED) for name, fn in _CHARGED.items()},
}
assert sorted(SAFE_BUILTINS) == sorted(BUILTIN_NAMES)

def safe_builtins() -> dict:
    """A fresh copy of SAFE_BUILTINS for one program. `int` is CPython's own while its
    int/str digit limit (Python 3.11: 4,300 digits) is on — it bounds `int(text)` — and the
    guarded `g_int` (result at most MAX_INT_BITS) when a host switched the limit off. (An int
    wider than MAX_INT_BITS from `int()` cannot do harm: every operation that could grow it
    further is guarded, and rendering it is refused.)"""
    table = dict(SAFE_BUILTINS)
    limit = getattr(sys, "get_int_max_str_digits", lambda: 0)()
    if 0 < limit <= 5000:
        table["int"] = _b.int
    return table


RUNTIME: dict = {
    # fuel
    abi.FUEL_OUT_ERROR: FuelOut,
    abi.FUEL_OUT: fuel_out,
    abi.ENTRY_FAIL: entry_fail,
    abi.ENTER_SLOW: enter_slow,
    abi.WATCHDOG: WATCHDOG,
    abi.LAMBDA_TICK: lambda_tick,
    abi.TICK_ITER: tick_iter,
    abi.ROWS_LEN: rows_len,
    # the rows `rows_len` may charge ahead: sized rows, with or without lists, and those a
    # one-argument charging builtin does
    abi.EACH_SIZED: _LOOP_SIZED,
    abi.EACH_SIZED_LIST: _LOOP_SIZED_OR_LIST,
    abi.BUILTIN_SIZED: _SIZED_T,
    abi.ESC: esc,
    abi.REFUND: refund,
    abi.IN_ARG: in_arg,
    abi.IN_LEN: in_len,
    abi.CLEN: clen,
    abi.CHARGE_FAIL: charge_fail,
    abi.SZ: frozenset(G.SIZED_TYPES - {range}),
    abi.INF: _INF,
    abi.EXCEPTION: Exception,  # (not Cutoff: a BaseException)
    abi.LEN_ERRORS: (TypeError, OverflowError),
    # CPython's own callables, for what needs neither charge nor guard at that point
    # (a charge already paid inline, max(a, b), str(number), a loop's own iterators)
    abi.SUM: sum,
    abi.MAP: map,  # (`sum(map(len, p))`: rows of a parameter declared sized and short)
    abi.plain("max"): max,
    abi.MIN: min,
    abi.plain("any"): any,
    abi.plain("all"): all,
    abi.plain("sorted"): sorted,
    abi.LIST: list,
    abi.plain("tuple"): tuple,
    abi.plain("set"): set,
    abi.STR: str,
    abi.LEN: len,
    abi.ITER: iter,
    abi.plain("enumerate"): enumerate,
    abi.plain("zip"): zip,
    abi.REVERSED: reversed,
    abi.plain("pow"): pow,  # (pow(a, b, m) of operands whose bounds keep it cheap)
    # inline guard fast paths: `(a % b) if _races_type(a) is _races_int else ...`
    abi.TYPE: type,
    abi.INT: int,
    abi.SEQ: frozenset((str, list, tuple)),
    abi.TEXT: frozenset((str, bool)),  # (an int may be too wide to render: tested apart)
    abi.FLAT: G._FLAT,  # what g_deep passes at once
    # guards
    abi.G_DEEP: G.g_deep,
    abi.G_WALK: G.g_walk,
    abi.G_IN: G.g_in,
    abi.G_KEY: G.g_key,
    abi.G_ADD: G.g_add,
    abi.G_IADD: G.g_iadd,
    abi.G_MUL: G.g_mul,
    abi.G_IMUL: G.g_imul,
    abi.G_POW: G.g_power,
    abi.POW_MOD: G.g_pow_mod,  # three arguments: bounded by the work it takes
    abi.G_LSHIFT: G.g_lshift,
    abi.G_MOD: G.g_mod,
    abi.G_FV: G.g_fv,
    abi.G_FMT: G.g_fmt,
    abi.G_SZS: G.g_szs,
    abi.G_CAT: G.g_cat,
    abi.G_SZL: G.g_szl,
    abi.G_POST: G.g_post,
    abi.G_JOIN: g_join,
    # charging builtins and methods
    abi.method("join"): meth_join,
    abi.method("sort"): meth_sort,
    abi.method("replace"): G.m_replace,
    abi.method("zfill"): G.m_zfill,
    abi.method("extend"): G.m_extend,
    abi.method("insert"): G.m_insert,
    **{abi.method(name): fn for name, fn in G.case_wrappers(_table.GROWING_METHODS).items()},
    abi.method("count"): G.m_count,  # (scanning: the argument and receiver measured)
    abi.method("index"): G.m_index,
    **{abi.builtin(name): fn for name, fn in _CHARGED.items()},
    **{abi.builtin1(name): fn for name, fn in _ONE_ARG.items()},
}
