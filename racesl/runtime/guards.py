"""Size guards: refuse a value before a single C call builds it too big.

Neither fuel nor the watchdog can interrupt one C call (`"a" * 10**9` allocates gigabytes
in one go), so every operation that can grow a value faster than one step at a time is
checked *before* it runs, against the bounds in `racesl.runtime.limits`. The instrumenter
(`racesl.lower.instrument`) routes only the operations that can grow through these functions
(`+` on two non-numeric operands, `*`, `**`, `<<`, `%` with a text left side, f-string
values and specs and the whole f-string's text, `str(n)` and f-string numbers not known to
fit MAX_INT_BITS, `str.replace/zfill`, the case mappings that can grow a str (the table's
`growth`), `pow(a, b, m)` (by the work it takes), `list.extend/insert`, starred displays,
slice assignment); the rest of a body runs as plain Python. Rendering also refuses a
function or iterator, whose text would carry a memory address (`OpaqueText`).

Every guard has the exact semantics of the operation it guards when it lets it through
(same result, same exception for ill-typed operands) and raises `SizeExceeded` otherwise.
"""

from __future__ import annotations

import re

from racesl.runtime.limits import MAX_INT_BITS, MAX_LEN, MAX_RENDER, MAX_WALK, SizeExceeded
from racesl.runtime.measure import CONTAINERS, render_size, walk_size

__all__ = [
    "render_size", "walk_size", "check_result", "g_deep", "g_walk", "g_in", "g_key", "m_count", "m_index", "g_add", "g_iadd", "g_mul", "g_imul", "g_power", "g_pow",
    "g_lshift", "g_mod", "g_fv", "g_fmt", "g_szs", "g_szl", "g_post", "g_str", "g_int", "m_replace",
    "m_zfill", "m_extend", "m_insert", "sized_len", "SIZED_TYPES",
    "g_pow_mod", "POW_MOD_COST", "case_wrappers", "g_cat",
]

# types whose len() is known without iterating them
SIZED_TYPES = CONTAINERS | {str, range}  # (the containers: list tuple set frozenset dict, dict views)
_SEQ = (str, list, tuple)


def sized_len(x) -> int:
    """len(x) for the sized builtin types (a range too long to count: MAX_LEN + 1), -1 for
    anything else (iterators, generators, non-iterables)."""
    if type(x) in SIZED_TYPES:
        try:
            return len(x)
        except OverflowError:
            return MAX_LEN + 1
    return -1


def _refuse(what: str):
    raise SizeExceeded(what)


# ----------------------------------------------------------------- rendering


def check_result(v) -> None:
    """Refuse a returned value whose text form would pass MAX_RENDER characters (or holds an
    int wider than MAX_INT_BITS, which CPython could not even print)."""
    t = type(v)
    if t is int:
        if v.bit_length() > MAX_INT_BITS:
            _refuse(f"result: int of {v.bit_length()} bits")
        return
    if t is str or t is bool:
        return
    if render_size(v, MAX_RENDER, False) > MAX_RENDER:
        _refuse(f"result: text form over {MAX_RENDER} characters")


_FLAT = frozenset({int, str, bool})


def g_deep(v):
    """Comparing or hashing a value is one C call: on structure that shares itself
    (`a = [a, a]` forty times) it runs for ages and no signal can stop it. Values about to be
    compared or hashed are measured first (`walk_size`, on the unfolded tree, memo by id) and
    refused past MAX_WALK nodes. Scalars pass at the cost of one type test (made inline by
    the instrumenter where it can), and operands compared with a flat value (a number, a
    str, None) are not measured at all: see docs/fuel.md, "Comparisons and hashing"."""
    if type(v) in _FLAT or v is None:
        return v
    if walk_size(v, MAX_WALK) > MAX_WALK:
        _refuse(f"comparing or hashing a value of over {MAX_WALK} nodes (unfolded)")
    return v


def g_walk(v):
    """An argument whose elements a builtin compares or hashes (`sorted`, `set`, `dict`,
    `max`, `min`): a container is measured (`g_deep`); an iterator (zip, enumerate, a
    generator) is drawn through `g_deep`, each element measured as the builtin takes it —
    still unsized, so charged as before."""
    t = type(v)
    if t in CONTAINERS:
        return g_deep(v)
    if hasattr(t, "__next__"):
        return map(g_deep, v)
    return v


_SCANNED = (list, tuple, type({}.values()))  # `x in c` compares x with each element
_UNSEEN = object()


def g_in(c, x=_UNSEEN):
    """`c`, about to be scanned for `x` (`x in c`, `c.count(x)`, `c.index(x)`; x already
    measured): each element is compared with x, a walk bounded by the smaller of the two, so
    the scan costs at most len(c) times x's size and at most c's unfolded size. A flat x, a
    hashed c (dict, set: x alone is walked) or a product within MAX_WALK pass at once; else
    c itself is measured (also when x is not known here)."""
    if type(c) not in _SCANNED or not c or type(x) in _FLAT or x is None:
        return c
    if ((x is _UNSEEN or len(c) * walk_size(x, MAX_WALK) > MAX_WALK)
            and walk_size(c, MAX_WALK) > MAX_WALK):
        _refuse(f"scanning {len(c)} elements of over {MAX_WALK} nodes (unfolded) for a value")
    return c


def m_scan(name):
    """The wrapper of the scanning method `name` (`count`, `index`): the argument and the
    receiver measured as for `x in c` (`g_deep`, `g_in`); a str receiver runs at once."""
    def scan(c, *args):
        if type(c) is not str and args:
            g_in(c, g_deep(args[0]))
        return getattr(c, name)(*args)

    scan.__name__ = f"m_{name}"
    return scan


m_count, m_index = m_scan("count"), m_scan("index")


def g_key(key):
    """A `key=` function of `sorted`/`max`/`min`/`list.sort` that is not a lambda (whose
    body the instrumenter measures itself): its results are compared, so measured first."""
    if key is None:
        return None
    return lambda x: g_deep(key(x))


# ----------------------------------------------------------------- arithmetic


def g_add(a, b):
    """`a + b` when neither side is known to be a number."""
    ta = type(a)
    if (ta is str or ta is list or ta is tuple) and type(b) is ta and len(a) + len(b) > MAX_LEN:
        _refuse(f"{ta.__name__} + {ta.__name__}: {len(a) + len(b)} elements")
    return a + b


def g_iadd(a, b):
    """`a += b` (in place for lists, as in Python)."""
    ta = type(a)
    if ta is list:
        n = sized_len(b)
        if n > MAX_LEN or len(a) + n > MAX_LEN:
            _refuse(f"list += : {len(a) + n} elements")
        a += b
        if len(a) > MAX_LEN:
            _refuse(f"list += : {len(a)} elements")
        return a
    if (ta is str or ta is tuple) and type(b) is ta and len(a) + len(b) > MAX_LEN:
        _refuse(f"{ta.__name__} += : {len(a) + len(b)} elements")
    a += b
    return a


def _check_mul(a, b):
    ta, tb = type(a), type(b)
    if ta is int or ta is bool:
        if tb is int or tb is bool:
            if a.bit_length() + b.bit_length() > MAX_INT_BITS:
                _refuse(f"int * int: about {a.bit_length() + b.bit_length()} bits")
        elif (tb is str or tb is list or tb is tuple) and a > 0 and len(b) * a > MAX_LEN:
            _refuse(f"{tb.__name__} * {a}: {len(b) * a} elements")
    elif (ta is str or ta is list or ta is tuple) and (tb is int or tb is bool):
        if b > 0 and len(a) * b > MAX_LEN:
            _refuse(f"{ta.__name__} * {b}: {len(a) * b} elements")


def g_mul(a, b):
    """`a * b`: sequence repetition and int products are bounded."""
    if type(a) is not int or type(b) is not int or a.bit_length() + b.bit_length() > MAX_INT_BITS:
        _check_mul(a, b)  # (two ints that fit: the common case, no second call)
    return a * b


def g_imul(a, b):
    """`a *= b` (in place for lists)."""
    if type(a) is not int or type(b) is not int or a.bit_length() + b.bit_length() > MAX_INT_BITS:
        _check_mul(a, b)
    a *= b
    return a


def g_power(a, b):
    """`a ** b`."""
    if type(a) in (int, bool) and type(b) in (int, bool) and b > 1 and (a > 1 or a < -1):
        bits = a.bit_length()
        if (bits - 1) * b >= MAX_INT_BITS:  # |a| ** b >= 2 ** ((bits - 1) * b)
            _refuse(f"int ** {b}: over {(bits - 1) * b} bits")
        if bits * b > MAX_INT_BITS:  # somewhere between: at most 2 * MAX_INT_BITS, build it
            r = a ** b
            if r.bit_length() > MAX_INT_BITS:
                _refuse(f"int ** {b}: {r.bit_length()} bits")
            return r
    return a ** b


# The most work one `pow(a, b, m)` may take: bits(b) * (bits(m) + 200)**2, about the time
# CPython's modular power takes (a square and a reduction a bit of the exponent, with ~200
# bits' worth of fixed cost a step). 2**36 is a 4,096-bit power modulo a 4,096-bit number,
# a few hundred ms: a larger one could run for tens of seconds inside one C call, which
# neither fuel nor the watchdog can interrupt. Refused (`size`), not charged: what fuel a
# step costs is the same whatever its ints, and no stdlib power comes near the bound.
POW_MOD_COST = MAX_INT_BITS ** 3 // 8


def pow_mod_cost(a_bits: int, b_bits: int, m_bits: int) -> int:
    """The work of `pow(a, b, m)` in POW_MOD_COST's units, from the operands' bit lengths
    (a negative b: count one bit more, for the inverse taken first; a is reduced first).
    The lowering reads it too: operands bounded small enough need no guard."""
    return b_bits * (m_bits + 200) ** 2 + a_bits * m_bits


def g_pow_mod(a, b, m):
    """`pow(a, b, m)`: refused past POW_MOD_COST, whatever built its ints (`+` grows an
    int by a bit a step, unguarded)."""
    if type(b) is int and type(m) is int and type(a) is int:
        cost = pow_mod_cost(a.bit_length(), b.bit_length() + (b < 0), m.bit_length())
        if cost > POW_MOD_COST:
            _refuse(f"pow(a, b, m) of a {b.bit_length()}-bit exponent modulo a {m.bit_length()}-bit "
                    "number: too much work for one step")
    return pow(a, b, m)


def g_pow(*args):
    """The `pow` builtin: `pow(a, b)` is `a ** b`; `pow(a, b, m)` is `g_pow_mod`."""
    if len(args) == 2:
        return g_power(*args)
    if len(args) == 3:
        return g_pow_mod(*args)
    return pow(*args)


def g_lshift(a, b):
    """`a << b`."""
    if type(a) in (int, bool) and type(b) in (int, bool) and b > 0 and a:
        if a.bit_length() + b > MAX_INT_BITS:
            _refuse(f"int << {b}: {a.bit_length() + b} bits")
    return a << b


_PCT = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?[hlL]?(.)", re.S)


def _spec_number(digits: str) -> int:
    return MAX_LEN + 1 if len(digits) > 7 else int(digits)


def _check_percent(fmt: str, args) -> None:
    specs = _PCT.findall(fmt)
    if not specs:
        return
    if type(args) is dict:
        values = list(args.values())
    elif type(args) is tuple:
        values = list(args)
    else:
        values = [args]
    widest = 0
    for width, prec, _ in specs:
        for part in (width, prec):
            if part == "*":
                for v in values:
                    if type(v) is int and (v > MAX_LEN or v < -MAX_LEN):
                        _refuse(f"'%' format: width {v}")
            elif part:
                widest = max(widest, _spec_number(part))
    if widest > MAX_LEN:
        _refuse(f"'%' format: width {widest}")
    for v in values:
        widest = max(widest, render_size(v, MAX_LEN, False))
    if len(fmt) + len(specs) * (widest + 1) > MAX_LEN:
        _refuse(f"'%' format: text over {MAX_LEN} characters")


def g_mod(a, b):
    """`a % b` when `a` may be a format string."""
    if type(a) is str:
        _check_percent(a, b)
    return a % b


# ----------------------------------------------------------------- text


def _check_text(v, top_str: bool = True) -> None:
    """Refuse to render `v` when its text would pass MAX_LEN characters or hold an int wider
    than MAX_INT_BITS (CPython refuses one past 4,300 digits with a ValueError, and renders
    it in quadratic time where a host lifted that limit); a function or iterator in it
    raises `OpaqueText` (racesl.runtime.measure)."""
    t = type(v)
    if t is int:
        if v.bit_length() > MAX_INT_BITS:
            _refuse(f"text of an int of {v.bit_length()} bits")
    elif t is not str and t is not bool and render_size(v, MAX_LEN, top_str) > MAX_LEN:
        _refuse(f"text form over {MAX_LEN} characters")


def g_fv(v):
    """An f-string value `{v}` (no or a constant, checked format spec)."""
    t = type(v)
    if t is not str and t is not bool:
        _check_text(v)
    return v


_DIGITS = re.compile(r"\d+")


def _check_spec(spec) -> None:
    if type(spec) is str:
        for d in _DIGITS.findall(spec):
            if _spec_number(d) > MAX_LEN:
                _refuse(f"format spec {spec[:40]!r}")


def spec_ok(spec: str) -> bool:
    """Whether a constant format spec is within bounds (used by the instrumenter)."""
    return all(_spec_number(d) <= MAX_LEN for d in _DIGITS.findall(spec))


def g_fmt(v, conv: int, spec):
    """An f-string value `{v!conv:spec}` with a computed (or out-of-bounds) spec."""
    if conv == 114:  # !r
        _check_text(v, False)
        v = repr(v)
    elif conv == 97:  # !a
        _check_text(v, False)
        v = ascii(v)
    else:
        _check_text(v, True)
        if conv == 115:
            v = str(v)
    _check_spec(spec)
    return format(v, spec)


def g_szs(s):
    """Post-check of an f-string joining two or more values (each already bounded)."""
    if len(s) > MAX_LEN:
        _refuse(f"f-string of {len(s)} characters")
    return s


def g_cat(*parts):
    """The parts of an f-string of many wide fields (each part already checked), joined:
    refused past MAX_LEN before the join builds it."""
    total = sum(map(len, parts))
    if total > MAX_LEN:
        _refuse(f"f-string of {total} characters")
    return "".join(parts)


def g_post(r):
    """After `a + b` was built (from two bounded operands): refuse a too-long sequence."""
    if type(r) in _SEQ and len(r) > MAX_LEN:
        _refuse(f"{type(r).__name__} of {len(r)} elements")
    return r


def g_szl(x):
    """Post-check of a display with `*` unpacking, or of a list after slice assignment."""
    if len(x) > MAX_LEN:
        _refuse(f"{type(x).__name__} of {len(x)} elements")
    return x


_BIG = 1 << MAX_INT_BITS
_NBIG = -_BIG
_MISSING = object()


def g_str(*args):
    """The `str` builtin."""
    if len(args) == 1:
        v = args[0]
        t = type(v)
        if t is str:
            return v
        if t is not int or not _NBIG < v < _BIG:
            _check_text(v, True)
    return str(*args)


def g_int(x=0, base=_MISSING):
    """The `int` builtin: the result may not pass MAX_INT_BITS."""
    r = int(x) if base is _MISSING else int(x, base)
    if not _NBIG < r < _BIG:
        _refuse(f"int() of {r.bit_length()} bits")
    return r


# ----------------------------------------------------------------- methods


def m_replace(s, *args):
    """`s.replace(old, new[, count])`."""
    if type(s) is str and len(args) >= 2 and type(args[0]) is str and type(args[1]) is str:
        grow = len(args[1]) - len(args[0])
        if grow > 0:
            n = s.count(args[0])
            if len(args) > 2 and type(args[2]) is int and 0 <= args[2] < n:
                n = args[2]
            if len(s) + n * grow > MAX_LEN:
                _refuse(f"str.replace: {len(s) + n * grow} characters")
    return s.replace(*args)


def m_zfill(s, *args):
    """`s.zfill(width)`."""
    if type(s) is str and args and type(args[0]) is int and args[0] > MAX_LEN:
        _refuse(f"str.zfill({args[0]})")
    return s.zfill(*args)


def m_extend(lst, *args):
    """`lst.extend(xs)`."""
    if type(lst) is list and len(args) == 1:
        n = sized_len(args[0])
        if n > MAX_LEN or len(lst) + n > MAX_LEN:
            _refuse(f"list.extend: {len(lst) + n} elements")
        lst.extend(args[0])
        if len(lst) > MAX_LEN:
            _refuse(f"list.extend: {len(lst)} elements")
        return None
    return lst.extend(*args)


def _case_wrapper(name: str, growth: int):
    """The guard of a method whose result is at most `growth` times as long as its receiver
    (racesl.types.builtins: guard "factor"; U+0390 uppercases to 3 characters): a short
    receiver runs at once, a longer one is mapped and its result refused past MAX_LEN — at
    most `growth` times the limit is built (every guard keeps a str within MAX_LEN)."""
    short = MAX_LEN // growth
    method = getattr(str, name)

    def guarded(s):
        if type(s) is str and len(s) <= short:
            return method(s)
        r = getattr(s, name)()  # (not a str: Python's own error)
        if len(r) > MAX_LEN:
            _refuse(f"str.{name}: {len(r)} characters")
        return r

    guarded.__name__ = f"m_{name}"
    guarded.__doc__ = f"`s.{name}()`: at most {growth} times as long as `s`."
    return guarded


def case_wrappers(growing: dict) -> dict:
    """name -> guard for each method of `growing` (name -> growth: the table's)."""
    return {name: _case_wrapper(name, k) for name, k in growing.items()}


def m_insert(lst, *args):
    """`lst.insert(i, x)`."""
    if type(lst) is list and len(lst) >= MAX_LEN:
        _refuse(f"list.insert into {len(lst)} elements")
    return lst.insert(*args)
