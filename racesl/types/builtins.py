"""The builtins and methods a body may call: one table, the facts every stage reads.

The checker (racesl.check.names: which calls are allowed, with which arguments), the
lowering (racesl.lower.instrument: which calls it charges, guards and may reason about),
the runtime (racesl.runtime.builtins: what it binds), the language server (completion,
with arity) and docs/language.md §4.3–4.4 all derive their lists from ENTRIES, and
tests/types/test_builtins_table.py checks that no other list of these names exists.

A method the checker allows is one the lowering knows how to charge and guard; a method
the table lacks is refused everywhere. To add one: one entry here, saying how much it can
grow what it is given (`growth`) and the guard that bounds it (`guard`; and, where that is a
runtime wrapper, the wrapper in racesl.runtime.guards). A grower without a guard is refused
when the table is built.
"""

from __future__ import annotations

import attrs

# how fuel is charged (docs/fuel.md, "Charges"), as the instrumenter and runtime do it
COSTS = (
    "free",  # no fuel: CPython's own call, or a guarded wrapper that charges nothing
    "arg",  # len of its (sized) first argument, before it runs, through the box (`_races_bi_<name>`)
    "arg_inline",  # the same, and may be charged on the function's local counter inline
    "shortest",  # len of its shortest sized argument (zip)
    "receiver",  # len of the receiver (list.sort)
)
# which size or width guard keeps its result within the limits (racesl.runtime.limits)
GUARDS = (
    "none",  # its result is bounded by its arguments' size
    "int_bits",  # the Int it builds may not pass MAX_INT_BITS (g_int, g_pow)
    "render",  # the text it renders is size-checked (g_str)
    "arg_len",  # a sized argument (receiver, for sort) over MAX_LEN is refused before it runs
    "arg_len+result_len",  # that, and a result built from an unsized argument is checked after
    "join_len",  # the text it would build may not pass MAX_LEN (g_join)
    "result_len",  # the runtime wrapper `_races_meth_<name>` refuses a result over MAX_LEN
    "width",  # the runtime wrapper refuses a width argument over MAX_LEN (zfill)
    "factor",  # the wrapper passes a receiver of len * growth <= MAX_LEN at once, else
    # builds the result and refuses it past MAX_LEN (case mappings: U+0390 uppercases to 3)
    "count",  # the receiver refuses a count over MAX_LEN (rng.sample, in SafeRng)
)
# what the call evaluates to (what the lowering's inference may assume of it)
RESULTS = ("int", "bool", "str", "list", "tuple", "set", "dict", "view", "range", "iter",
           "elem", "none", "any")
# which of its values one C call compares or hashes element by element: measured first
# (racesl.runtime.measure; docs/fuel.md, "Comparisons and hashing")
WALKS = (
    "none",
    "args",  # its positional arguments' elements (sorted set dict max min), and key= results
    "receiver",  # the receiver's elements, and key= results (list.sort)
    "first",  # its first argument, hashed (dict.get pop setdefault)
    "scan",  # its first argument, compared with each element of the receiver (count index)
)
RECEIVERS = ("Str", "List", "Dict", "Tuple", "rng")  # Sets have no methods


def _receiver(_inst, _attr, value):
    if value is not None and value not in RECEIVERS:
        raise ValueError(f"unknown receiver {value!r}")


def _one_of(choices):
    def check(_inst, attr, value):
        if value not in choices:
            raise ValueError(f"{attr.name}: {value!r} is not one of {choices}")
    return check


@attrs.frozen
class Entry:
    """One builtin (receiver None) or one method of one receiver type."""

    name: str
    # None: a builtin; else the receiver type the checker allows the method on
    receiver: str | None = attrs.field(validator=_receiver)
    # positional arguments: the checker's arity test (E504), the completion's "· n arguments"
    min_args: int
    max_args: int | None  # None: any number
    # the keywords the checker accepts (anything else is E504)
    keywords: frozenset[str] = attrs.field(converter=frozenset)
    # how fuel is charged: the lowering routes a non-free call to its charging form
    cost: str = attrs.field(validator=_one_of(COSTS))
    # the guard that bounds what it builds: a method with a runtime wrapper is routed to it
    guard: str = attrs.field(validator=_one_of(GUARDS))
    # what it returns: the lowering takes int/bool results as numbers, str as text, a
    # container as sized (and, but for dict views, as a fresh object), iter as a lazy source
    result: str = attrs.field(validator=_one_of(RESULTS))
    # a generator argument is consumed whole (the lowering charges it as one source)
    drains: bool = False
    # it changes its receiver in place (racesl.lower.effects must know it)
    mutates: bool = False
    # how much it can grow what it is given: its result is at most `growth` times as long
    # as its receiver and arguments (plus a constant; an element at most, for `append`);
    # None: no multiple bounds it (join, replace, zfill, `pow`, `str` of shared structure),
    # its `guard` computes the size. Anything but 1 needs a guard (tests/runtime/test_growth.py)
    growth: int | None = 1
    # what of its values it walks (WALKS)
    walks: str = attrs.field(default="none", validator=_one_of(WALKS))
    # whether the lowering's inference reads `result` (False: not yet — `all any divmod
    # rng.sample`, which the inference has never used; turning it on changes the emitted
    # code (rng.sample: stdlib's samplers), a change to make and measure on its own)
    infer: bool = True

    def __attrs_post_init__(self):
        if self.growth != 1 and self.guard == "none":
            raise ValueError(f"{self.name}: grows what it is given (growth {self.growth}) but has no guard")
        if self.guard == "factor" and not (type(self.growth) is int and self.growth > 1):
            raise ValueError(f"{self.name}: a 'factor' guard needs the growth factor")

    @property
    def is_method(self) -> bool:
        return self.receiver is not None

    @property
    def wrapped(self) -> bool:
        """Whether the lowering routes the method to its runtime wrapper `_races_meth_<name>`."""
        return self.is_method and self.guard in ("result_len", "width", "factor")


def _b(name, lo, hi, kw=(), cost="free", guard="none", result="any", drains=False, infer=True, growth=1,
       walks="none"):
    return Entry(name, None, lo, hi, kw, cost, guard, result, drains, infer=infer, growth=growth, walks=walks)


def _m(receiver, name, lo, hi, kw=(), cost="free", guard="none", result="any", mutates=False, infer=True,
       growth=1, walks="none"):
    return Entry(name, receiver, lo, hi, kw, cost, guard, result, mutates=mutates, infer=infer, growth=growth,
                 walks=walks)


_ALL1 = "arg_len+result_len"
ENTRIES: tuple[Entry, ...] = (
    # builtins (docs/language.md §4.3)
    _b("abs", 1, 1, result="int"),
    _b("all", 1, 1, cost="arg_inline", guard="arg_len", result="bool", infer=False),
    _b("any", 1, 1, cost="arg_inline", guard="arg_len", result="bool", infer=False),
    _b("bin", 1, 1, result="str"),
    _b("bool", 0, 1, result="bool"),
    _b("chr", 1, 1, result="str"),
    _b("divmod", 2, 2, result="tuple", infer=False),
    _b("enumerate", 1, 2, {"start"}, cost="arg", guard="arg_len", result="iter"),
    _b("hex", 1, 1, result="str"),
    _b("int", 0, 2, {"base"}, guard="int_bits", result="int"),
    _b("len", 1, 1, result="int"),
    _b("list", 0, 1, cost="arg_inline", guard=_ALL1, result="list", drains=True),
    _b("max", 1, None, {"key", "default"}, cost="arg_inline", guard="arg_len", result="elem", drains=True,
       walks="args"),
    _b("min", 1, None, {"key", "default"}, cost="arg_inline", guard="arg_len", result="elem", drains=True,
       walks="args"),
    _b("ord", 1, 1, result="int"),
    _b("pow", 2, 3, guard="int_bits", result="int", growth=None),
    _b("range", 1, 3, result="range"),
    _b("reversed", 1, 1, cost="arg", guard="arg_len", result="iter"),
    _b("sorted", 1, 1, {"key", "reverse"}, cost="arg_inline", guard=_ALL1, result="list", drains=True,
       walks="args"),
    _b("str", 0, 1, guard="render", result="str", growth=None),
    _b("sum", 1, 2, {"start"}, cost="arg_inline", guard="arg_len", result="any", drains=True, growth=None),
    _b("tuple", 0, 1, cost="arg_inline", guard=_ALL1, result="tuple", drains=True),
    _b("zip", 0, None, cost="shortest", guard="arg_len", result="iter"),
    _b("set", 0, 1, cost="arg_inline", guard=_ALL1, result="set", drains=True, walks="args"),
    _b("dict", 0, 1, cost="arg", guard=_ALL1, result="dict", drains=True, walks="args"),
    # Str methods
    _m("Str", "upper", 0, 0, guard="factor", result="str", growth=3),
    _m("Str", "lower", 0, 0, guard="factor", result="str", growth=2),
    _m("Str", "isalpha", 0, 0, result="bool"),
    _m("Str", "isdigit", 0, 0, result="bool"),
    _m("Str", "islower", 0, 0, result="bool"),
    _m("Str", "isupper", 0, 0, result="bool"),
    _m("Str", "split", 0, 2, {"sep", "maxsplit"}, result="list"),
    _m("Str", "join", 1, 1, cost="arg_inline", guard="join_len", result="str", growth=None),
    _m("Str", "replace", 2, 3, guard="result_len", result="str", growth=None),
    _m("Str", "strip", 0, 1, result="str"),
    _m("Str", "startswith", 1, 3, result="bool"),
    _m("Str", "endswith", 1, 3, result="bool"),
    _m("Str", "find", 1, 3, result="int"),
    _m("Str", "count", 1, 3, result="int"),
    _m("Str", "index", 1, 3, result="int"),
    _m("Str", "zfill", 1, 1, guard="width", result="str", growth=None),
    _m("Str", "title", 0, 0, guard="factor", result="str", growth=3),
    _m("Str", "swapcase", 0, 0, guard="factor", result="str", growth=3),
    # List methods
    _m("List", "append", 1, 1, result="none", mutates=True),
    _m("List", "extend", 1, 1, guard="result_len", result="none", mutates=True, growth=None),
    _m("List", "pop", 0, 1, result="elem", mutates=True),
    _m("List", "insert", 2, 2, guard="result_len", result="none", mutates=True),
    _m("List", "index", 1, 3, result="int", walks="scan"),
    _m("List", "count", 1, 1, result="int", walks="scan"),
    _m("List", "reverse", 0, 0, result="none", mutates=True),
    _m("List", "sort", 0, 0, {"key", "reverse"}, cost="receiver", guard="arg_len", result="none", mutates=True,
       walks="receiver"),
    _m("List", "copy", 0, 0, result="list"),
    # Dict methods
    _m("Dict", "get", 1, 2, result="elem", walks="first"),
    _m("Dict", "keys", 0, 0, result="view"),
    _m("Dict", "values", 0, 0, result="view"),
    _m("Dict", "items", 0, 0, result="view"),
    _m("Dict", "setdefault", 1, 2, result="elem", mutates=True, walks="first"),
    _m("Dict", "pop", 1, 2, result="elem", mutates=True, walks="first"),
    _m("Dict", "copy", 0, 0, result="dict"),
    # Tuple methods
    _m("Tuple", "index", 1, 3, result="int", walks="scan"),
    _m("Tuple", "count", 1, 1, result="int", walks="scan"),
    # the sampler's `rng` (racesl.runtime.builtins.SafeRng; samplers only)
    _m("rng", "randint", 2, 2, result="int"),
    _m("rng", "choice", 1, 1, result="elem"),
    _m("rng", "sample", 2, 2, guard="count", result="list", infer=False, growth=None),
    _m("rng", "shuffle", 1, 1, result="none"),
    _m("rng", "choices", 1, 1, kw=("weights", "k"), guard="count", result="list", infer=False, growth=None),
    _m("rng", "fraction", 0, 0, result="tuple", infer=False),
    _m("rng", "fork", 1, 1, result="any"),
)



# ---------------------------------------------------------------- what to write instead (by meaning)

# receivers a refused method may be called on: the table's, and the values without methods
INSTEAD_RECEIVERS = RECEIVERS + ("Set", "Int", "*")  # "*": any receiver


@attrs.frozen
class Instead:
    """What to write instead of a Python method or builtin the language leaves out, by what
    it means, not by how it is spelled (`.remove()` is not 'reverse'; `isnumeric` is
    'isdigit'; `map` is a comprehension). `use` names an allowed method (of `receiver`) or
    builtin (receiver None) that does the same job where the call can stay as written (the
    language server offers it as a quick fix); otherwise `note` alone says how. The
    checker's E200/E503 hints read this (racesl.check.suggest)."""

    receiver: str | None = attrs.field(validator=lambda _i, _a, v: v is None or _receiver_or_more(v))
    name: str
    use: str | None = None
    note: str = ""

    @property
    def hint(self) -> str:
        if self.use is None:
            return self.note
        return f"did you mean '{self.use}'?" + (f" {self.note}" if self.note else "")


def _receiver_or_more(value) -> None:
    if value not in INSTEAD_RECEIVERS:
        raise ValueError(f"unknown receiver {value!r}")


def _i(receiver, name, use=None, note=""):
    return Instead(receiver, name, use, note)


_COMPREHENSION = "use a comprehension: [f(x) for x in xs]"
_NO_FLOATS = "there are no floats: Int arithmetic, with // and % for division"
INSTEAD: tuple[Instead, ...] = (
    # Str
    _i("Str", "isnumeric", "isdigit"),
    _i("Str", "isdecimal", "isdigit"),
    _i("Str", "isalnum", None, "test each character: all(c.isalpha() or c.isdigit() for c in s)"),
    _i("Str", "isspace", None, "compare the stripped text: s != '' and s.strip() == ''"),
    _i("Str", "istitle", None, "compare with the title case: s == s.title()"),
    _i("Str", "lstrip", None, "strip() strips both ends; for the left one only, slice the text"),
    _i("Str", "rstrip", None, "strip() strips both ends; for the right one only, slice the text"),
    _i("Str", "casefold", "lower"),
    _i("Str", "capitalize", None, "upper-case the first letter: s[:1].upper() + s[1:].lower()"),
    _i("Str", "rfind", None, "search the reversed text: len(s) - 1 - s[::-1].find(c) for one character c"),
    _i("Str", "rindex", None, "search the reversed text: len(s) - 1 - s[::-1].index(c) for one character c"),
    _i("Str", "splitlines", None, "split at line breaks: s.split('\\n')"),
    _i("Str", "rsplit", "split"),
    _i("Str", "partition", None, "split once: s.split(sep, 1)"),
    _i("Str", "removeprefix", None, "test and slice: s[len(p):] if s.startswith(p) else s"),
    _i("Str", "removesuffix", None, "test and slice: s[:len(s) - len(p)] if p and s.endswith(p) else s"),
    _i("Str", "format", None, "write an f-string: f'{x} and {y}'"),
    _i("Str", "center", None, "pad by hand: ' ' * k + s + ' ' * k"),
    _i("Str", "ljust", None, "pad by hand: s + ' ' * (n - len(s))"),
    _i("Str", "rjust", None, "pad by hand: ' ' * (n - len(s)) + s (zfill pads with zeros)"),
    _i("Str", "translate", None, "map each character: ''.join(table.get(c, c) for c in s)"),
    _i("Str", "encode", None, "there are no bytes: ord(c) gives a character's code point"),
    # List
    _i("List", "remove", None, "pop its index: xs.pop(xs.index(v)) removes the first v; "
                               "[y for y in xs if y != v] leaves out every v"),
    _i("List", "add", "append"),
    _i("List", "push", "append"),
    _i("List", "clear", None, "assign a new empty list: xs = []"),
    _i("List", "discard", None, "leave the item out: [y for y in xs if y != v]"),
    # Dict
    _i("Dict", "update", None, "assign each pair: for k, v in other.items(): d[k] = v"),
    _i("Dict", "has_key", None, "test membership: k in d"),
    _i("Dict", "popitem", None, "pop a key you choose: d.pop(k)"),
    _i("Dict", "clear", None, "assign a new empty dict: d = {}"),
    _i("Dict", "fromkeys", None, "use a dict comprehension: {k: v for k in keys}"),
    _i("Dict", "iteritems", "items"),
    _i("Dict", "iterkeys", "keys"),
    _i("Dict", "itervalues", "values"),
    # Set (no methods: operators)
    _i("Set", "add", None, "build a new set: s | {x}"),
    _i("Set", "update", None, "build a new set: s | t"),
    _i("Set", "union", None, "use the operator: s | t"),
    _i("Set", "intersection", None, "use the operator: s & t"),
    _i("Set", "difference", None, "use the operator: s - t"),
    _i("Set", "symmetric_difference", None, "use the operator: s ^ t"),
    _i("Set", "issubset", None, "use the operator: s <= t"),
    _i("Set", "issuperset", None, "use the operator: s >= t"),
    _i("Set", "isdisjoint", None, "test the intersection: not (s & t)"),
    _i("Set", "remove", None, "build a new set: s - {x}"),
    _i("Set", "discard", None, "build a new set: s - {x}"),
    # Int
    _i("Int", "bit_length", None, "count the binary digits: len(bin(n)) - 2 for n > 0"),
    # any receiver: other languages' habits
    _i("*", "length", None, "use the builtin: len(x)"),
    _i("*", "size", None, "use the builtin: len(x)"),
    _i("*", "len", None, "use the builtin: len(x)"),
    _i("*", "map", None, _COMPREHENSION),
    _i("*", "filter", None, "use a comprehension with a condition: [x for x in xs if p(x)]"),
    # builtins
    _i(None, "map", None, _COMPREHENSION),
    _i(None, "filter", None, "use a comprehension with a condition: [x for x in xs if p(x)]"),
    _i(None, "round", None, _NO_FLOATS),
    _i(None, "float", None, _NO_FLOATS),
    _i(None, "print", None, "a body has no output: return the value"),
    _i(None, "input", None, "the environment's input is its first parameter"),
    _i(None, "isinstance", None, "types are static: the signature says what each value is"),
    _i(None, "type", None, "types are static: the signature says what each value is"),
    _i(None, "iter", None, "loop with `for`, or index the list"),
    _i(None, "next", None, "loop with `for`, or index the list"),
    _i(None, "repr", None, "str(x) gives the text; f'{s!r}' quotes a Str"),
    _i(None, "frozenset", "set"),
    _i(None, "format", None, "write an f-string: f'{x:>5}'"),
)


def instead(receiver: str | None, name: str) -> Instead | None:
    """The entry for `name` called on `receiver` (None: as a builtin); a receiver's own entry
    before one for any receiver."""
    own = [e for e in INSTEAD if e.name == name and e.receiver == receiver]
    if own or receiver is None:
        return own[0] if own else None
    return next((e for e in INSTEAD if e.name == name and e.receiver == "*"), None)


def _check_instead() -> None:
    """Every `use` is an allowed name of its receiver; no name is listed twice for one."""
    seen = set()
    for e in INSTEAD:
        if (e.receiver, e.name) in seen:
            raise ValueError(f"{e.name}: listed twice for {e.receiver}")
        seen.add((e.receiver, e.name))
        if e.use is None:
            continue
        allowed = ({x.name for x in ENTRIES if x.receiver is None} if e.receiver in (None, "*")
                   else {x.name for x in ENTRIES if x.receiver == e.receiver})
        if e.use not in allowed:
            raise ValueError(f"{e.name}: '{e.use}' is not an allowed name of {e.receiver or 'the builtins'}")
        if e.receiver is not None and e.receiver != "*" and any(
                x.name == e.name and x.receiver == e.receiver for x in ENTRIES):
            raise ValueError(f"{e.receiver}.{e.name} is allowed: it needs no alternative")


_check_instead()

_NUMBER = ("int", "bool")
_CONTAINER = ("list", "tuple", "set", "dict")
_SIZED = ("str", "view") + _CONTAINER


def builtins() -> tuple[Entry, ...]:
    return tuple(e for e in ENTRIES if e.receiver is None)


def builtin(name: str) -> Entry:
    return next(e for e in builtins() if e.name == name)


def methods(receiver: str) -> tuple[Entry, ...]:
    return tuple(e for e in ENTRIES if e.receiver == receiver)


def builtin_names_where(pred) -> frozenset[str]:
    """The builtins `pred(entry)` holds for."""
    return frozenset(e.name for e in builtins() if pred(e))


def method_names(pred=lambda e: True) -> frozenset[str]:
    """Method names `pred` holds for on every receiver that has them: the lowering sees an
    attribute's name, not its receiver's type, so a fact about a name must hold for all."""
    by_name: dict[str, list[Entry]] = {}
    for e in ENTRIES:
        if e.receiver is not None:
            by_name.setdefault(e.name, []).append(e)
    return frozenset(n for n, es in by_name.items() if all(pred(e) for e in es))


def methods_all() -> dict[str, tuple[int, int | None, frozenset[str]]]:
    """Every method of the body's receivers (not rng's), arities merged: what the checker
    allows on a value of unknown type."""
    out: dict[str, tuple[int, int | None, frozenset[str]]] = {}
    for e in ENTRIES:
        if e.receiver is None or e.receiver == "rng":
            continue
        lo, hi, kw = out.get(e.name, (e.min_args, e.max_args, e.keywords))
        top = None if hi is None or e.max_args is None else max(hi, e.max_args)
        out[e.name] = (min(lo, e.min_args), top, kw | e.keywords)
    return out


def _result(kinds):
    return lambda e: e.infer and e.result in kinds


# the lowering's views (racesl.lower.instrument reads these)
NUMBER_BUILTINS = builtin_names_where(_result(_NUMBER))
NUMBER_METHODS = method_names(_result(_NUMBER))
TEXT_BUILTINS = builtin_names_where(_result(("str",)))
TEXT_METHODS = method_names(_result(("str",)))
SIZED_BUILTINS = builtin_names_where(_result(_SIZED))
SIZED_METHODS = method_names(_result(_SIZED))
FRESH_BUILTINS = builtin_names_where(_result(_CONTAINER))
FRESH_METHODS = method_names(_result(_CONTAINER))
FREE_BUILTINS = builtin_names_where(lambda e: e.cost == "free")
CHARGING_BUILTINS = builtin_names_where(lambda e: e.cost != "free")
ONE_ARG_BUILTINS = builtin_names_where(lambda e: e.cost in ("arg", "arg_inline"))
INLINE_BUILTINS = builtin_names_where(lambda e: e.cost == "arg_inline")
DRAINING_BUILTINS = builtin_names_where(lambda e: e.drains)
UNCHECKED_RESULT_BUILTINS = builtin_names_where(lambda e: e.drains and e.guard == "arg_len")
MATERIALIZING_BUILTINS = builtin_names_where(lambda e: e.guard == "arg_len+result_len")
ITER_BUILTINS = builtin_names_where(_result(("iter",)))
WRAPPED_METHODS = method_names(lambda e: e.wrapped)
# name -> growth of the methods whose wrapper a receiver of known short length skips
GROWING_METHODS = {e.name: e.growth for e in ENTRIES if e.guard == "factor"}
MUTATING_METHODS = frozenset(e.name for e in ENTRIES if e.mutates)
VIEW_METHODS = method_names(lambda e: e.result == "view")  # keys values items
# whose result may be one of the values passed (`max(xs, ys)`, `d.get(k, xs)`): an alias
ELEM_BUILTINS = builtin_names_where(lambda e: e.result == "elem")
ELEM_METHODS = frozenset(e.name for e in ENTRIES if e.is_method and e.result == "elem")
# what the lowering measures before the call (a method name: when any receiver walks)
WALKING_BUILTINS = builtin_names_where(lambda e: e.walks == "args")
WALK_FIRST_METHODS = frozenset(e.name for e in ENTRIES if e.is_method and e.walks == "first")
SCANNING_METHODS = frozenset(e.name for e in ENTRIES if e.is_method and e.walks == "scan")
WALK_RECEIVER_METHODS = frozenset(e.name for e in ENTRIES if e.is_method and e.walks == "receiver")


def arity_text(lo: int, hi: int | None) -> str:
    """"1", "0..2", "1..": the arity as completion shows it."""
    return f"{lo}" if lo == hi else f"{lo}..{hi if hi is not None else ''}"


def docs_builtins(width: int = 88) -> str:
    """docs/language.md §4.3's list of builtins (a fenced block's body)."""
    lines = [""]
    for name in sorted(e.name for e in builtins()):
        if lines[-1] and len(lines[-1]) + 2 + len(name) > width:
            lines.append("")
        lines[-1] += f"  {name}" if lines[-1] else name
    return "\n".join(lines)


_DOC_RECEIVERS = (("Str", "`Str`", ""), ("List", "`List`", ""), ("Dict", "`Dict`", ""),
                  ("Tuple", "`Tuple`", ""), ("rng", "sampler `rng`", " (samplers only)"))


def docs_methods() -> str:
    """docs/language.md §4.4's table of methods per receiver."""
    rows = ["| receiver | methods |", "|---|---|"]
    for r, shown, note in _DOC_RECEIVERS:
        rows.append(f"| {shown} | `{' '.join(e.name for e in methods(r))}`{note} |")
    return "\n".join(rows)
