"""Compiled contract checks agree with the generic walk (racesl.runtime.fastcheck)."""

from __future__ import annotations

import random

from racesl.runtime.contract import check_value, flatten
from racesl.runtime.fastcheck import compile_checker
from racesl.runtime.watchdog import WATCHDOG
from racesl.sample.default import NoSample
from racesl.types.types import IntT
from tests.support.tasks import perturb_value, stdlib


def _values(lib, env, rng):
    for level in (0, 1, 2):
        try:
            x = lib.sample_input(env, rng, level)
        except NoSample:
            continue
        yield env.input, x
        yield env.input, perturb_value(x)
        r = lib.run(env, x, lib.sample_settings(env, rng, level))
        if r.ok:
            yield env.output, r.value
            yield env.output, perturb_value(r.value)
            yield env.input, r.value  # often another type's shape: must be refused or accepted alike


def test_compiled_checkers_never_accept_what_the_walk_refuses():
    lib = stdlib()
    rng = random.Random(5)
    agree = accepted = total = 0
    with WATCHDOG.session():
        for q, env in sorted(lib.envs.items()):
            for t, v in _values(lib, env, rng):
                fast = compile_checker(t, lib.check_pred, lib._plain_pred)
                assert fast is not None, t
                slow = check_value(v, t, lib.check_pred)
                try:
                    quick = fast(v)
                except Exception:
                    quick = False
                if quick:
                    assert slow is None, (q, t, v, slow)
                    accepted += 1
                agree += quick == (slow is None)
                total += 1
    assert accepted > 300
    assert agree >= 0.9 * total  # it answers almost every case itself


def _types(lib):
    for env in lib.envs.values():
        yield from (env.input, env.output, *(s.type for s in env.settings))


def test_simple_refinements_are_inlined_and_others_are_called():
    lib = stdlib()
    calls = []

    def check(p, v):
        calls.append(p.text)
        return lib.check_pred(p, v)

    small = next(t for t in _types(lib) if isinstance(flatten(t)[0], IntT)
                 and [p.text for p in flatten(t)[1]] == ["0 <= it <= 30"])
    fast = compile_checker(small, check, lib._plain_pred)
    assert fast(5) is True and fast(30) is True
    assert fast(31) is False and fast(-1) is False and fast("5") is False and fast(True) is False
    assert not calls  # inlined: no predicate call at all
    graph = next(t for t in _types(lib) if any("all(" in p.text for p in flatten(t)[1]))
    fast = compile_checker(graph, check, lib._plain_pred)
    x = next(lib.sample_input(e, random.Random(1), 1) for e in lib.envs.values() if e.input is graph)
    with WATCHDOG.session():
        assert fast(x) is True
    assert any("all(" in c for c in calls)  # a loop in a refinement stays fuel-metered


def test_unlike_values_fall_back_instead_of_raising_wrong_answers():
    lib = stdlib()
    env = next(e for e in lib.envs.values() if e.module == "strings" and "len(it)" in str(e.input)
               and "isalpha" in str(e.input))
    fast = compile_checker(env.input, lib.check_pred, lib._plain_pred)
    assert fast("abc") is True
    for v in (3, ["a"], "ab1", "", None, ("a",)):
        try:
            ok = fast(v)
        except Exception:
            ok = False
        assert ok is False
        assert lib.conforms(v, env.input) is not None
