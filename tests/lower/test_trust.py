"""What the instrumenter trusts, and that nothing unchecked reaches it (issue 17).

Entry variants trust the declared parameter types (facts.py), because every outside caller
checks the arguments; ordinary variants — called by other bodies, with arguments no one
checks — trust none. A parameter's element and length facts hold only while nothing in the
body can store into it. `racesc check` applies a `@laws` environment again only to an output
inside its input type.

The hostile modules below get a wrong-typed value past the checker (an untyped helper's
result, a list element, a dict value, a lambda's result, an environment called from another)
or store one into a parameter declared to hold numbers, then grow it past MAX_LEN by
operations the trusted facts would leave unguarded. They grow it only a little past the
bound (a few hundred thousand characters), so that a regression fails these tests instead
of taking the machine down.
"""

from __future__ import annotations

import ast
import time

import pytest

from racesl.library import Run, load
from racesl.lower.instrument.scope import _Scope
from racesl.lower.program import load_program
from racesl.probe import probe_env
from racesl.runtime.watchdog import WATCHDOG

HOSTILE = '''
def ident(x):
    return x

def rep(n: Int) -> Int:
    return n * 100000

def dbl(n: Int) -> Int:
    for i in range(17):
        n = n + n
    return n

def poke(zs):
    zs[0] = "ab"
    return 0

env via_untyped(s: Str where len(it) <= 5) -> Int:
    """Use s."""
    return rep(ident(s))

env via_list(s: Str where len(it) <= 5) -> Int:
    """Use s."""
    xs = [ident(s)]
    return dbl(xs[0])

env via_dict(s: Str where len(it) <= 5) -> Int:
    """Use s."""
    d = {}
    d[1] = s
    return dbl(d[1])

env via_lambda(s: Str where len(it) <= 5) -> Int:
    """Use s."""
    g = lambda v: v
    return dbl(g(s))

env grow(n: Int) -> Int:
    """Use n."""
    return dbl(n)

env via_env(s: Str where len(it) <= 5) -> Int:
    """Use s."""
    return grow(ident(s))

env store(xs: List[Int] where 1 <= len(it) <= 5) -> Int:
    """Use xs."""
    xs[0] = ident("ab")
    t = xs[0]
    for i in range(17):
        t = t + t
    return len(str(t))

env append(xs: List[Int] where 1 <= len(it) <= 5) -> Int:
    """Use xs."""
    xs.append(ident("ab"))
    t = 0
    for x in xs:
        t = x
    for i in range(17):
        t = t + t
    return len(str(t))

env insert(xs: List[Int] where 1 <= len(it) <= 5) -> Int:
    """Use xs."""
    xs.insert(0, ident("ab"))
    a, b = xs[0], 0
    for i in range(17):
        a = a + a
    return len(str(a))

env extend(xs: List[Int] where 1 <= len(it) <= 5) -> Int:
    """Use xs."""
    xs.extend([ident("ab")])
    t = xs[len(xs) - 1]
    for i in range(17):
        t = t + t
    return len(str(t))

env slice_store(xs: List[Int] where 1 <= len(it) <= 5) -> Int:
    """Use xs."""
    xs[0:1] = [ident("ab")]
    t = xs[0]
    for i in range(17):
        t = t + t
    return len(str(t))

env alias(xs: List[Int] where 1 <= len(it) <= 5) -> Int:
    """Use xs."""
    ys = xs
    ys[0] = ident("ab")
    t = xs[0]
    for i in range(17):
        t = t + t
    return len(str(t))

env passed_on(xs: List[Int] where 1 <= len(it) <= 5) -> Int:
    """Use xs."""
    poke(xs)
    t = xs[0]
    for i in range(17):
        t = t + t
    return len(str(t))

env unpacked(xs: List[Int] where len(it) == 2) -> Int:
    """Use xs."""
    xs[1] = ident("ab")
    a, b = xs
    for i in range(17):
        b = b + b
    return len(str(b))
'''

ATTACKS = ["via_untyped", "via_list", "via_dict", "via_lambda", "via_env", "store", "append", "insert",
           "extend", "slice_store", "alias", "passed_on", "unpacked"]


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    p = tmp_path_factory.mktemp("trust") / "trust.races"
    p.write_text("module trust\n" + HOSTILE, encoding="utf-8")
    return load([p])  # (the checker lets every one of them through)


@pytest.mark.parametrize("name", ATTACKS)
def test_unchecked_values_meet_guards_not_trust(hostile, name):
    """A str where a body trusts numbers grows into a size cut-off, within the wall limit."""
    env = hostile.envs[f"trust.{name}"]
    x = "ab" if env.input_name == "s" else [1, 2]
    t0 = time.perf_counter()
    with WATCHDOG.session():
        run = hostile.run(env, x, (), wall=2.0)
    assert time.perf_counter() - t0 < 2.0
    assert run.status == "size", (run.status, run.detail, str(run.value)[:60])


def test_well_typed_calls_still_compute_what_cpython_computes(hostile):
    with WATCHDOG.session():
        assert hostile.run(hostile.envs["trust.grow"], 3, ()) == Run(3 << 17, "ok", 18)  # (dbl: 1 + 17)
        assert hostile.run(hostile.envs["trust.store"], [1, 2], ()).status == "size"  # (still the str)


def test_ordinary_variants_guard_what_a_declared_int_would_leave_unguarded():
    """Called the way another body calls it (no one checks the argument), a helper declared
    `n: Int` meets a str with guards: no checker in between, so this holds whatever it lets
    through."""
    src = ("def rep(n):\n    return n * 100000\n"
           "def dbl(n):\n    for i in range(17):\n        n = n + n\n    return n\n"
           "def mod(n):\n    return n % ('x' * 99999, 'y' * 99999)\n")
    prog = load_program(ast.parse(src), "t", int_params={"rep": {"n"}, "dbl": {"n"}, "mod": {"n"}})
    assert prog.call("rep", ("ab",)).status == "size"
    assert prog.call("dbl", ("ab",)).status == "size"
    assert prog.call("mod", ("%s%s",)).status == "size"  # (a format string, not a remainder)
    assert prog.call("dbl", (3,)).value == 3 << 17
    assert prog.function("dbl")(3) == 3 << 17  # (the entry, whose callers check, still trusts it)


# ---------------------------------------------------------------- the inference's view

def _scope(src: str, marks, entry: bool = True) -> _Scope:
    fn = ast.parse(src).body[0]
    return _Scope(fn, marks, frozenset({"f", "h"}), entry)


def test_ordinary_variants_trust_no_declared_int():
    src = "def f(n):\n    return n * 3\n"
    assert "n" in _scope(src, {"n"}, entry=True).num
    assert "n" not in _scope(src, {"n"}, entry=False).num


LIST_MARKS = {"xs[]", "xs[~", "xs#", "xs#<", "xs#:5", "xs[#"}
READS = "t = 0\n    for x in xs:\n        t += x\n    return t + xs[0] + len(xs) + sum(xs) + xs.count(1)\n"


@pytest.mark.parametrize("store", [
    "xs[0] = 'abc'",
    "xs.append('abc')",
    "xs.insert(0, 'abc')",
    "xs.extend(['abc'])",
    "xs.pop()",
    "xs.sort()",
    "xs[0:1] = ['abc']",
    "xs[0] += 1",
    "ys = xs\n    ys[0] = 'a'",
    "zs = [xs]",
    "h(xs)",
    "g = lambda: xs",
    "ys = xs if len(xs) else []",
    "ys, k = xs, 0",
    "xs += ['abc']",
    "ys = max(xs, [0])\n    ys[0] = 'a'",
    "ys = {}.get(0, xs)\n    ys[0] = 'a'",
])
def test_element_and_length_marks_die_on_any_store_into_the_value(store):
    held = _scope(f"def f(xs):\n    {READS}", LIST_MARKS)
    assert {"xs[]", "xs[~", "xs#:"} <= held.num and {"xs"} <= held.short & held.rows  # (the control)
    s = _scope(f"def f(xs):\n    {store}\n    {READS}", LIST_MARKS)
    assert not {"xs[]", "xs[~", "xs#:"} & s.num
    assert "xs" not in s.short | s.rows | set(s.lens)
    assert "xs" in s.sized or store.startswith("xs +=")  # (a list stays a list; bound again, it is a new value)


def test_unpacking_and_reads_keep_the_marks():
    s = _scope("def f(xs):\n    a, b = xs\n    ys = sorted(xs)\n    return a * b + ys[0] + xs.index(1)\n",
               {"xs[]", "xs#", "xs#:2"})
    assert {"xs[]", "a", "b", "xs#:"} <= s.num
    # a method that stores nothing and cannot return its argument only reads it
    s = _scope("def f(xs):\n    return '-'.join(xs) + str(max(xs)) + str({}.get(xs[0], 0))\n", LIST_MARKS)
    assert "xs" in s.short


# ---------------------------------------------------------------- @laws applies again only inside the input type

LAWS = '''module lawful

@laws(idempotent)
env twice(s: Str where 1 <= len(it) <= 3) -> Str:
    """Repeat s."""
    return s + s
'''


def test_laws_apply_again_only_to_outputs_inside_the_input_type(tmp_path):
    p = tmp_path / "lawful.races"
    p.write_text(LAWS, encoding="utf-8")
    lib = load([p])
    env = lib.envs["lawful.twice"]
    seen = []

    def runner(env, x, settings=(), **kw):
        seen.append(x)
        return lib.run(env, x, settings)
    _, diags, _ = probe_env(lib, env, 3, 0, runner=runner)
    assert all(lib.conforms(x, env.input) is None for x in seen), seen
    assert [d.code for d in diags] == ["E603"]
    assert "outside the input type" in diags[0].message
