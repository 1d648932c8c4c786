"""Differential tests: racesc against CPython running the same text.

The language contract (docs/language.md §1): every body the compiler accepts means exactly
what CPython computes for the same text. Two oracles:

- the bundled stdlib: each environment runs through `Library.run` (instrumented, fuel-metered,
  size-guarded) and, on deep copies of the same sampled inputs and settings, through the
  plain uninstrumented lowering (`Lowered(cm).module`) compiled with normal builtins;
- a corpus of tricky bodies written once as `.races` and once as plain Python `def`s with the
  very same body text, so the parser, checker, emitter and instrumenter are all on trial.

Results must be equal (same canonical text, same Python value); a dropped run must be one that
CPython fails on too (an `assert` drop is an AssertionError there, an `error` drop another
exception); a `contract` result must carry CPython's value.
"""

from __future__ import annotations

import builtins
import copy
from collections import Counter

import pytest

from racesl.library import load
from racesl.resources import stdlib_dir
from racesl.runtime.builtins import SafeRng
from racesl.runtime.contract import canonical
from racesl.sample.seeding import item_rng

SAMPLES = 10
SEED = 11


def plain_namespace(lib) -> dict:
    """Every checked module's uninstrumented lowering, in one namespace, with real builtins."""
    ns: dict = {"__builtins__": builtins}
    for name, low in lib.lowered.items():
        exec(compile(low.module, f"<plain {name}>", "exec", dont_inherit=True), ns)
    return ns


def cpython(fn, *args):
    """(value, exception) of a plain call on deep copies."""
    try:
        return fn(*copy.deepcopy(args)), None
    except Exception as e:  # noqa: BLE001 - any exception is an outcome here
        return None, e


def agree(r, value, exc) -> str | None:
    """None when a racesc Run and a CPython outcome agree; else why not."""
    if r.status in ("ok", "contract"):
        if exc is not None:
            return f"racesc {r.status} {canonical(r.value)}, CPython raised {exc!r}"
        if canonical(r.value) != canonical(value) or r.value != value:
            return f"racesc {canonical(r.value)}, CPython {canonical(value)}"
        return None
    if r.status == "assert":
        return None if isinstance(exc, AssertionError) else f"racesc !assert ({r.detail}), CPython {exc!r}"
    if r.status == "error":
        if exc is None or isinstance(exc, AssertionError):
            return f"racesc !error ({r.detail}), CPython {exc!r} / {canonical(value)}"
        if type(exc).__name__ not in (r.detail or ""):
            return f"racesc !error ({r.detail}), CPython {exc!r}"
        return None
    return None  # fuel / timeout / size / recursion: limits CPython does not have


# ---------------------------------------------------------------- the stdlib

@pytest.fixture(scope="module")
def stdlib():
    lib = load(sorted(stdlib_dir().glob("*.races")))
    return lib, plain_namespace(lib)


def test_stdlib_environments_agree_with_cpython(stdlib):
    lib, ns = stdlib
    assert len(lib.root_envs) >= 50
    problems: list[str] = []
    statuses: Counter = Counter()
    for env in lib.root_envs:
        fn = ns[env.pyname]
        for i in range(SAMPLES):
            rng = item_rng(SEED, env.qualname, i)
            level = min(2, i * 3 // SAMPLES)
            x = lib.sample_input(env, rng, level)
            st = lib.sample_settings(env, rng, level)
            shown = f"{env.qualname}({', '.join(canonical(v) for v in (x, *st))})"
            r = lib.run(env, copy.deepcopy(x), copy.deepcopy(st))
            statuses[r.status] += 1
            if r.status in ("fuel", "timeout", "size", "recursion"):
                continue
            value, exc = cpython(fn, x, *st)
            why = agree(r, value, exc)
            if why:
                problems.append(f"{shown}: {why}")
    assert not problems, "\n".join(problems[:20])
    total = sum(statuses.values())
    assert statuses["contract"] == 0, statuses  # the stdlib keeps its own contracts
    assert statuses["ok"] >= 0.9 * total, statuses


def test_stdlib_inputs_are_not_mutated(stdlib):
    """An environment that mutates its input must not change the caller's value (racesc hands
    over what it was given; a chain reuses values)."""
    lib, _ = stdlib
    changed = []
    for env in lib.root_envs:
        for i in range(3):
            rng = item_rng(SEED, env.qualname, i)
            x = lib.sample_input(env, rng, 1)
            st = lib.sample_settings(env, rng, 1)
            before = canonical((x, st))
            lib.run(env, x, st)
            if canonical((x, st)) != before:
                changed.append(env.qualname)
                break
    assert not changed, f"environments that mutate their input: {changed}"


def test_stdlib_samplers_agree_with_cpython(stdlib):
    """@sample helpers run through racesc and through CPython with the same seeded rng."""
    lib, ns = stdlib
    helpers = sorted({h for env in lib.root_envs for _, h in env.samplers})
    assert helpers
    problems = []
    for h in helpers:
        for seed in range(5):
            for level in (0, 2):
                out = lib.program.call(h, (SafeRng(seed), level))
                value, exc = cpython(ns[h], SafeRng(seed), level)
                if out.status != "ok" or exc is not None or canonical(out.value) != canonical(value):
                    problems.append(f"{h}(seed {seed}, level {level}): racesc {out.status} "
                                    f"{canonical(out.value)} {out.error or ''}; CPython {canonical(value)} {exc!r}")
    assert not problems, "\n".join(problems[:20])


# ---------------------------------------------------------------- a corpus of tricky bodies

PUSH_RACES = "def push(xs: List[Int]) -> Int:\n    xs.append(len(xs))\n    return len(xs)\n"
PUSH_PY = "def push(xs):\n    xs.append(len(xs))\n    return len(xs)\n"

# (name, typed parameters, return type, body (4-space indented after its first line), inputs)
CORPUS = [
    ("floor_mod", "x: Int", "Tuple[Int, Int, Int, Int]",
     "return (x // -3, x % -3, -x // 7, divmod(x, -4)[1])", [(7,), (-7,), (0,), (12,)]),
    ("slices", "s: Str", "List[Str]",
     "return [s[::-1], s[1:-1], s[::2], s[-3:], s[5:2], s[::-2], s[-100:100]]", [("abcdefg",), ("",), ("x",)]),
    ("chained", "x: Int", "Bool", "return 0 < x <= 10 != x - 5", [(5,), (3,), (11,), (0,)]),
    ("precedence", "x: Int", "Int",
     "return -x ** 2 + 2 * x % 3 - (x - 1) // 2 ** 1 + (x & 6 | 1 ^ x << 2 >> 1) - ~x", [(3,), (-4,), (0,)]),
    ("and_or_values", "x: Int", "Int", "return (x and 5) or 7", [(0,), (2,)]),
    ("fstrings", "x: Int, s: Str", "Str",
     'return f"{x:>5}|{x:05d}|{x!r}|{s!r:>6}|{x:+}|{x:x}|{x:#b}|{{}}|{s:^7}|{x:,}"',
     [(42, "ab"), (-5, "q'"), (1234567, "")]),
    ("fstring_nested_spec", "x: Int", "Str",
     "w = x % 7 + 1\n    return f'{x:>{w}}|{x:^{w}d}|{str(x) + str(w)}|{[x, w]}|{(x, w)!r}|{x * 2 if x > 0 else -x}'",
     [(5,), (-12,)]),
    ("percent", "x: Int, s: Str", "Str", 'return "%5d|%-4s|%x|%r|%%|%03d" % (x, s, x, s, x)',
     [(42, "ab"), (-5, "q'")]),
    ("percent_one", "x: Int", "List[Str]",
     'return ["%s" % (x,), "%s" % [x], "%s" % ((x, x),), "%(a)s" % {"a": x}, "%c" % 65, "%-5d|" % x]', [(3,)]),
    ("str_methods", "s: Str", "List[Str]",
     'return s.split(",", 1) + s.split() + [s.replace("a", "xy", 1), s.strip("a,"), str(s.find("b")), '
     'str(s.count("")), s.zfill(6), s.title(), s.swapcase(), str(s.startswith("a")), str(s.endswith(""))]',
     [("a,b, c a",), ("",), ("-12",), ("it's a DOG",)]),
    ("list_methods", "xs: List[Int]", "List[Int]",
     "ys = list(xs)\n    ys.sort(key=lambda v: v % 3, reverse=True)\n    ys.insert(-1, 99)\n    ys.extend(xs[:2])\n"
     "    ys.reverse()\n    p = ys.pop(0)\n    ys.append(p * 2)\n    ys[1:3] = [7, 7, 7]\n    ys[0] += 1\n"
     "    ys.append(ys.count(7))\n    ys.append(ys.index(7, 1))\n    return ys",
     [([3, 1, 4, 1, 5, 9, 2, 6],), ([5, 4, 3],)]),
    ("aliasing", "n: Int", "List[List[Int]]",
     "g = [[0] * 2] * 2\n    g[0][1] = n\n    h = [row[:] for row in g]\n    h[1][0] = 5\n    return g + h", [(3,)]),
    ("dicts", "xs: List[Int]", "List[Tuple[Int, Int]]",
     "d = {}\n    for v in xs:\n        d[v % 4] = d.get(v % 4, 0) + v\n        d.setdefault(v, 1)\n"
     "    e = {k: v for k, v in d.items() if k != 2}\n"
     "    return list(e.items()) + [(len(d), max(d, key=lambda k: (d[k], k)))]",
     [([3, 1, 4, 1, 5, 9, 2, 6],), ([7],)]),
    ("dict_order", "n: Int", "List[Int]",
     "d = {i % 3: i for i in range(n)}\n    d[0] = -1\n"
     "    return list(d) + list(d.values()) + [d.pop(1) if 1 in d else 0] + list(d.keys())", [(7,), (1,)]),
    ("sets", "xs: List[Int]", "List[Int]",
     "a = set(xs)\n    b = {v * 2 for v in xs}\n"
     "    return sorted(a | {1}) + sorted(a & b) + sorted(a - b) + sorted(a ^ b) + [len({v % 3 for v in xs})]",
     [([3, 1, 4, 1, 5, 9, 2, 6],), ([],)]),
    ("comprehensions", "n: Int", "List[Tuple[Int, Int]]",
     "return [(i, j) for i in range(n) if i % 2 == 0 for j in range(i) if (i + j) % 3 != 1]", [(6,), (0,)]),
    ("comprehension_scope", "xs: List[Int]", "List[Int]", "v = 100\n    ys = [v for v in xs]\n    return ys + [v]",
     [([1, 2],)]),
    ("generator_late_binding", "xs: List[Int]", "List[Int]",
     "k = 2\n    g = (v * k for v in xs)\n    k = 10\n    return list(g)", [([1, 2],)]),
    ("lambda_late_binding", "xs: List[Int]", "List[Int]",
     "k = 3\n    f = lambda v: v * k\n    k = 4\n    return [f(v) for v in xs]", [([1, 2],)]),
    ("lambdas_in_a_loop", "n: Int", "List[Int]", "fs = [lambda: i for i in range(n)]\n    return [f() for f in fs]",
     [(3,)]),
    ("aggregates", "xs: List[Int]", "List[Int]",
     "return [min(xs, default=-1), max(xs, key=lambda v: -v, default=-2), sum(xs, 10), "
     "int(any(v > 5 for v in xs)), int(all(v > 0 for v in xs)), int(all([]))] + "
     "sorted(xs, key=lambda v: (v % 2, -v))",
     [([3, 1, 4, 1, 5, 9, 2, 6],), ([],)]),
    ("iterators", "xs: List[Int]", "List[Tuple[Int, Int]]",
     "return list(enumerate(xs, 1)) + list(zip(xs, range(10, 0, -3))) + [(v, 0) for v in reversed(xs)] + "
     "[(v, v) for v in range(5, -5, -2)]", [([3, 1, 4],), ([],)]),
    ("conversions", "x: Int", "List[Str]",
     'return [bin(x), hex(x), str(int("-12")), str(int("101", 2)), str(True + True), str(pow(x, 3, 7)), '
     'str(pow(-2, 3)), str(abs(x)), str(2 ** 100 % 97), str(divmod(-7, 2)), chr(ord("a") + 1), str(int(True))]',
     [(5,), (-5,), (0,)]),
    ("conversions_2", "s: Str", "List[Str]",
     "return [str(int(' 12 ')), str(int('1_000')), str(list('abc')), str(tuple('ab')), str(dict([(1, 2)])), "
     "str(sorted(set('aab'))), str([1, 'a']), str((1,)), str({'a': 1}), str(sum([True, True, False])), "
     "str(max(3, 5, key=lambda v: -v)), str(min([[]])), str([0] * -1), str('ab' * 0), hex(-1), str(abs(-0)), "
     "s.strip(), str(s.split(',', maxsplit=1)), f'{True}|{s!s:>{len(s) + 2}}|{3:{len(s)}}']",
     [(" a,b ",)]),
    ("str_predicates", "s: Str", "List[Bool]",
     'return ["" in s, "ab" in s, "a" < "B", s * -1 == "", s.isalpha(), s.isdigit(), s.islower(), '
     's.isupper(), s == s[::-1]]', [("abc",), ("",), ("ABA",), ("12",)]),
    ("membership", "s: Str", "List[Bool]",
     "return [s in ['a', 'b'], s in ('a',), s in {'a': 1}, s in {'a'}, s not in 'xyz']", [("a",), ("y",)]),
    ("for_while_else", "n: Int", "Int",
     "t = 0\n    for i in range(n):\n        if i == 3:\n            break\n        t += i\n    else:\n        t = -t\n"
     "    while t > 100:\n        t -= 7\n    else:\n        t += 1000\n    return t", [(2,), (5,), (0,)]),
    ("nested_continue", "n: Int", "List[Int]",
     "out = []\n    for i in range(n):\n        j = 0\n        while j < i:\n            j += 1\n"
     "            if j % 2 == 0:\n                continue\n            if j > 3:\n                break\n"
     "            out.append(i * 10 + j)\n    return out", [(6,)]),
    ("loop_variable", "n: Int", "Int", "for i in range(n):\n        i += 10\n    return i", [(3,), (0,)]),
    ("unpacking", "xs: List[Int]", "Tuple[Int, Int, Int]",
     "a, b = xs[0], xs[-1]\n    (c, d), e = (a, b), a + b\n    a, b = b, a\n    return (a - b, c * d, e)",
     [([3, 1, 4],), ([2],)]),
    ("conditional_expr", "x: Int", "Str", 'return "neg" if x < 0 else "zero" if x == 0 else "pos"',
     [(-1,), (0,), (1,)]),
    ("joins", "xs: List[Int]", "Str",
     'return "-".join(str(v) for v in xs) + "|" + ",".join(sorted(str(v) for v in xs)) + "|" + "".join(reversed("abc"))',
     [([10, 9, 100],), ([],)]),
    ("augmented", "x: Int", "List[Int]",
     "a = x\n    a += 3\n    a -= 1\n    a *= 2\n    a //= 3\n    a %= 5\n    a **= 2\n    b = x\n    b <<= 2\n"
     "    b >>= 1\n    b |= 8\n    b &= 13\n    b ^= 5\n    return [a, b]", [(7,), (-3,)]),
    ("augmented_str", "s: Str", "Str", "t = s\n    t += t\n    t *= 2\n    return t", [("ab",)]),
    # a subscript target of an augmented assignment is evaluated once
    ("aug_index_once", "n: Int", "List[Int]",
     "ys = [0, 1]\n    xs = [10, 20]\n    xs[ys.pop()] += 5 + n\n    return xs + ys", [(1,)]),
    ("aug_dict_once", "n: Int", "List[Int]",
     "ks = [1, 2, 3]\n    d = {1: 0, 2: 0, 3: 0}\n    d[ks.pop()] += n\n    return list(d.values()) + ks", [(4,)]),
    ("aug_str_once", "n: Int", "List[Str]",
     "ks = [0, 1]\n    ss = ['a', 'b']\n    ss[ks.pop()] += 'z' * n\n    return ss", [(2,)]),
    ("aug_list_once", "n: Int", "List[List[Int]]",
     "ks = [0, 1]\n    ls = [[1], [2]]\n    ls[ks.pop()] += [n]\n    ls[ks.pop()] *= 2\n    return ls", [(9,)]),
    # in-place operators keep aliases
    ("alias_iadd", "n: Int", "List[Int]", "a = [1]\n    b = a\n    a += [n]\n    c = b\n    c *= 2\n    return a + b + c",
     [(5,)]),
    ("alias_tuple", "n: Int", "List[Int]", "a = (1, n)\n    b = a\n    a += (3,)\n    return list(a) + list(b)", [(5,)]),
    ("list_iadd_str", "s: Str", "List[Str]", "ys = ['q']\n    ys += s\n    ys.extend(s)\n    return ys", [("ab",)]),
    ("slice_assignment", "xs: List[Int]", "List[Int]",
     "ys = list(xs)\n    ys[1:3] += [9]\n    ys[:1] = []\n    ys[len(ys):] = [7, 7]\n    ys[::2] = [0] * len(ys[::2])\n"
     "    return ys", [([1, 2, 3, 4, 5],), ([1, 2],)]),
    ("helper_mutates", "n: Int", "List[Int]", "ys = [0]\n    k = push(ys)\n    k = push(ys) + k\n    return ys + [k, n]",
     [(3,)]),
    ("sort_in_place_alias", "xs: List[Int]", "List[Int]", "ys = xs\n    ys.sort()\n    return xs", [([3, 1, 2],)]),
    ("enumerate_dict", "s: Str", "Dict[Str, Int]", "return {c: i for i, c in enumerate(s)}", [("abca",)]),
    ("sorting_stability", "xs: List[Str]", "List[Str]",
     "return sorted(xs, key=len) + sorted(xs, key=lambda w: w[-1:], reverse=True)", [(["bb", "a", "cc", "d", "ab"],)]),
    ("min_max_str", "xs: List[Str]", "List[Str]",
     "return [min(xs), max(xs), min(xs, key=len), max(xs, key=len), max('abc')]", [(["bb", "a", "cc", "d", "ab"],)]),
    ("comparisons", "xs: List[Int]", "List[Bool]",
     "return [(1, 2) < (1, 3), [1, 2] == [1, 2], (xs, 1) > (xs, 0), [] < [0]]", [([1],)]),
    ("negative_index", "xs: List[Int]", "Int", "return xs[-1] * 100 + xs[len(xs) // 2]", [([1, 2, 3],), ([7],)]),
    ("bool_result", "x: Int", "Bool", "return not x or x > 3", [(0,), (2,), (4,)]),
    ("big_ints", "x: Int", "List[Int]",
     "a = 3 ** 200\n    return [a % 1000, (a * x) // 7 % 1000, len(str(a)), (a << 5) >> 200, -a // 3 ** 199]", [(7,)]),
    ("big_division", "x: Int", "List[Int]", "return [(-x) // 10 ** 20, x ** 3 // -7, -(x % -9), x % 1]",
     [(123456789012345678901234,), (-5,)]),
    # failures: racesc drops exactly where CPython raises
    ("zero_division", "x: Int", "Int", "return 10 // x", [(0,), (3,)]),
    ("failed_assert", "x: Int", "Int", "assert x > 0, 'positive'\n    return x", [(0,), (3,)]),
    ("index_error", "xs: List[Int]", "Int", "return xs[5]", [([1],)]),
    ("key_error", "x: Int", "Int", "d = {1: 2}\n    return d[x]", [(1,), (2,)]),
    ("value_errors", "x: Int", "Int", "return [1 << -x, 'abc'.index('z'), int('x'), [].pop(), divmod(x, 0)[0]][x]",
     [(1,), (0,)]),
    ("dict_changed_in_loop", "n: Int", "Int", "d = {1: 1}\n    for k in d:\n        d[k + n] = 1\n    return len(d)", [(1,)]),
    ("negative_power", "x: Int", "Int", "return pow(2, -1, 5) + 2 ** x", [(3,), (-1,)]),  # -1: a float, !contract
]


def _py_params(params: str) -> str:
    return ", ".join(p.split(":")[0].strip() for p in params.split(","))


def corpus_sources() -> tuple[str, str]:
    races, py = [PUSH_RACES], [PUSH_PY]
    for name, params, ret, body, _ in CORPUS:
        settings = _py_params(params).split(", ")[1:]
        doc = "Compute something from the input" + "".join(f" with {{{s}}}" for s in settings) + "."
        races.append(f'env {name}({params}) -> {ret}:\n    """{doc}"""\n    {body}\n')
        py.append(f"def {name}({_py_params(params)}):\n    {body}\n")
    return "\n".join(races), "\n".join(py)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    races, py = corpus_sources()
    path = tmp_path_factory.mktemp("corpus") / "corpus.races"
    path.write_text(races, encoding="utf-8")
    lib = load([path])
    ns: dict = {"__builtins__": builtins}
    exec(compile(py, "<corpus>", "exec", dont_inherit=True), ns)
    return lib, ns, plain_namespace(lib)


def test_corpus_names_are_unique():
    names = [c[0] for c in CORPUS]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("case", CORPUS, ids=[c[0] for c in CORPUS])
def test_corpus_agrees_with_cpython(case, corpus):
    name, _, _, _, inputs = case
    lib, ns, plain = corpus
    env = lib.envs[f"corpus.{name}"]
    for args in inputs:
        r = lib.run(env, copy.deepcopy(args[0]), copy.deepcopy(args[1:]))
        assert r.status in ("ok", "contract", "assert", "error"), (args, r)
        for oracle, fn in (("source text", ns[name]), ("plain lowering", plain[env.pyname])):
            value, exc = cpython(fn, *args)
            why = agree(r, value, exc)
            assert why is None, f"{name}{args} vs CPython on the {oracle}: {why}"


def test_corpus_contract_drop_keeps_the_value(corpus):
    lib, _, _ = corpus
    r = lib.run(lib.envs["corpus.negative_power"], -1)
    assert r.status == "contract" and r.value == 3.5


def test_corpus_with_sampled_inputs(corpus):
    """The same corpus on inputs from the default samplers (levels 0 to 2)."""
    lib, ns, _ = corpus
    problems = []
    for name, *_ in CORPUS:
        env = lib.envs[f"corpus.{name}"]
        for i in range(6):
            rng = item_rng(SEED, env.qualname, i)
            try:
                x = lib.sample_input(env, rng, i % 3)
                st = lib.sample_settings(env, rng, i % 3)
            except Exception:  # noqa: BLE001 - an unsamplable type is not this test's business
                continue
            r = lib.run(env, copy.deepcopy(x), copy.deepcopy(st))
            if r.status in ("fuel", "timeout", "size", "recursion"):
                continue
            value, exc = cpython(ns[name], x, *st)
            why = agree(r, value, exc)
            if why:
                problems.append(f"{name}({canonical(x)}, {canonical(st)}): {why}")
    assert not problems, "\n".join(problems[:20])
