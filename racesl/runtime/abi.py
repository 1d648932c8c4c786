"""The names instrumented code and the runtime share: the lowering's ABI.

The instrumenter (racesl.lower.instrument) emits code that takes these parameters and calls
into the runtime by these names; `racesl.runtime.builtins.RUNTIME` binds each runtime name
to its object, the watchdog finds instrumented calls on the stack by the parameter names,
and `Program` finds entry variants and the line map by theirs. Both sides import them from
here, a leaf module (it imports nothing), so neither has to copy a string or import the
other. The rules the emitted code follows are in docs/fuel.md.
"""

from __future__ import annotations

# ---------------------------------------------------------------- calling convention
# def f(_races_fuel, _races_depth, *params); an entry variant:
# def _races_entry__f(*params, _races_wall=None, _races_f=0, _races_meter=None)

BOX = "_races_fuel"  # first parameter: the fuel box ([steps left, wall limit, scratch...])
DEPTH = "_races_depth"  # second parameter: the helper nesting depth
LOC = "_races_f"  # the function's local fuel counter (an entry's budget parameter)
WALL = "_races_wall"  # entry variants: the call's wall limit in seconds
METER = "_races_meter"  # entry variants: the caller's [fuel left] list
ENTRY = "_races_entry__"  # name prefix of the entry variant of each function
LINEMAP_TAG = "# races-linemap: "  # last line of `lower_to_source` text: the line map (JSON)

PREFIX = "_races_"  # every name below starts with it

# ---------------------------------------------------------------- fuel
FUEL_OUT_ERROR = "_races_FuelOut"  # the exception class (`raise`)
FUEL_OUT = "_races_fuel_out"  # a call that raises it (inside an expression)
ENTRY_FAIL = "_races_entry_fail"  # the prologue's refusal: empty budget or depth past MAX_DEPTH
ENTER_SLOW = "_races_enter_slow"  # an entry called with no watchdog session open
WATCHDOG = "_races_wd"
LAMBDA_TICK = "_races_lambda_tick"
TICK_ITER = "_races_tick_iter"  # one step an element drawn
ROWS_LEN = "_races_rows_len"  # Σ len(row), for rows charged ahead
EACH_SIZED = "_races_EACH_SIZED"  # the row types `rows_len` may charge ahead (lists excluded)
EACH_SIZED_LIST = "_races_EACH_SIZED_LIST"  # ... lists included
BUILTIN_SIZED = "_races_BUILTIN_SIZED"  # ... those a one-argument charging builtin charges
ESC = "_races_esc"  # an escaping generator's source: charged whole when created
REFUND = "_races_refund"  # what a precharged loop's iterators have left
IN_ARG = "_races_in_arg"  # `x in y` charging the box
IN_LEN = "_races_in_len"
CLEN = "_races_clen"  # the length a builtin charges for an argument that is not sized
CHARGE_FAIL = "_races_charge_fail"  # an inline charge that did not fit: raise what the builtin would
SZ = "_races_SZ"  # sized types, `range` excepted
INF = "_races_INF"  # the length of what has none
EXCEPTION = "_races_Exception"
LEN_ERRORS = "_races_LEN_ERRORS"  # what `len` of an unsized value raises


# ---------------------------------------------------------------- CPython's own callables
# (for what needs neither charge nor guard at that point: a charge already paid inline,
# max(a, b), str(number), a loop's own iterators)
PLAIN = ("sum", "map", "max", "min", "any", "all", "sorted", "list", "tuple", "set", "str", "len",
         "iter", "enumerate", "zip", "reversed", "type", "int", "pow")


def plain(name: str) -> str:
    """`_races_sum`, ...: the CPython builtin `name` (one of PLAIN) under a runtime name."""
    return PREFIX + name


SUM = "_races_sum"
MAP = "_races_map"  # `sum(map(len, p))`: rows of a parameter declared sized and short
MIN = "_races_min"
STR = "_races_str"
LEN = "_races_len"
ITER = "_races_iter"
LIST = "_races_list"
REVERSED = "_races_reversed"
TYPE = "_races_type"  # inline type tests: `_races_type(a) is _races_int`
INT = "_races_int"
SEQ = "_races_SEQ"  # str, list, tuple
TEXT = "_races_TEXT"  # str, bool: what an f-string renders without measuring
FLAT = "_races_FLAT"  # what `g_deep` passes at once

# ---------------------------------------------------------------- guards
G_DEEP = "_races_g_deep"
G_WALK = "_races_g_walk"  # a builtin's argument whose elements it compares or hashes
G_IN = "_races_g_in"  # the right side of `x in c`, c measured when scanning it for x costs
G_KEY = "_races_g_key"  # a key= function that is not a lambda: its results measured
G_ADD = "_races_g_add"
G_IADD = "_races_g_iadd"
G_MUL = "_races_g_mul"
G_IMUL = "_races_g_imul"
G_POW = "_races_g_pow"
POW_MOD = "_races_pow_mod"  # three-argument pow: bounded by the work it takes (g_pow_mod)
G_LSHIFT = "_races_g_lshift"
G_MOD = "_races_g_mod"
G_FV = "_races_g_fv"
G_FMT = "_races_g_fmt"
G_SZS = "_races_g_szs"
G_CAT = "_races_g_cat"  # the parts of a long f-string, joined with their total checked
G_SZL = "_races_g_szl"
G_POST = "_races_g_post"
G_JOIN = "_races_g_join"

# ---------------------------------------------------------------- charging builtins and methods


def builtin(name: str) -> str:
    """`_races_bi_<name>(box, ...)`: the charging version of a sequence builtin."""
    return f"{PREFIX}bi_{name}"


def builtin1(name: str) -> str:
    """`_races_bi1_<name>(box, x)`: the same, of exactly one positional argument."""
    return f"{PREFIX}bi1_{name}"


def method(attr: str) -> str:
    """`_races_meth_<attr>`: join, sort (charged), replace, zfill, extend, insert, the case
    mappings (guarded: racesl.types.builtins, `Entry.wrapped`)."""
    return f"{PREFIX}meth_{attr}"
