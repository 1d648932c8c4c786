"""`probe_env` (racesl.probe), the sampling half of `racesc check`: E601 (nondeterminism) and friends.

A `.races` body cannot be nondeterministic within one process (set order is fixed by the hash
seed), so E601 is exercised with an injected runner whose answers alternate.
"""

from __future__ import annotations

import itertools

import pytest

from racesl.diagnostics import Severity
from racesl.library import Run, load
from racesl.probe import probe_env

SRC = '''
type Digit = Int where 0 <= it <= 9

env ident(x: Digit) -> Digit:
    """Return x unchanged."""
    return x

@laws(idempotent)
env clamp(x: Digit) -> Digit:
    """Replace x by 5 when it is larger than 5."""
    return min(x, 5)

env shift(x: Digit, k: Int where 1 <= it <= 3) -> Int:
    """Add {k} to x."""
    return x + k
'''


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    p = tmp_path_factory.mktemp("probe") / "probe.races"
    p.write_text(SRC, encoding="utf-8")
    return load([p])


def alternating(lib, outcomes):
    """A runner that ignores the body and answers from `outcomes` in turn."""
    cycle = itertools.cycle(outcomes)
    calls = []

    def runner(env, x, settings=(), **kw):
        calls.append((env.name, x, settings))
        return next(cycle)
    runner.calls = calls
    return runner


def test_alternating_values_give_E601(lib):
    env = lib.envs["probe.ident"]
    runner = alternating(lib, [Run(1, "ok", 1), Run(2, "ok", 1)])
    counts, diags, _ = probe_env(lib, env, 6, 0, runner=runner)
    e601 = [d for d in diags if d.code == "E601"]
    assert len(e601) == 1  # reported once, however many samples disagree
    d = e601[0]
    assert d.severity is Severity.ERROR
    assert d.span == env.span and d.path == env.path
    x = runner.calls[0][1]
    assert d.message == f"ident({x}) gave 1 once and 2 the next time"
    assert d.hint == "environments must be deterministic: avoid iterating over sets, sort first"
    assert d.headline().endswith(f"error[E601]: ident({x}) gave 1 once and 2 the next time")


def test_alternating_statuses_give_E601(lib):
    env = lib.envs["probe.ident"]
    runner = alternating(lib, [Run(4, "ok", 1), Run(None, "fuel", 400, "FuelOut")])
    _, diags, _ = probe_env(lib, env, 3, 0, runner=runner)
    [d] = [d for d in diags if d.code == "E601"]
    x = runner.calls[0][1]
    assert d.message == f"ident({x}) gave 4 once and !fuel the next time"


def test_settings_are_shown_in_E601(lib):
    env = lib.envs["probe.shift"]
    runner = alternating(lib, [Run("a", "ok", 1), Run("b", "ok", 1)])
    _, diags, _ = probe_env(lib, env, 2, 0, runner=runner)
    [d] = [d for d in diags if d.code == "E601"]
    _, x, st = runner.calls[0]
    assert len(st) == 1
    assert d.message == f"shift({x}, {st[0]}) gave 'a' once and 'b' the next time"


def test_each_sample_runs_twice_with_the_same_arguments(lib):
    env = lib.envs["probe.shift"]
    runner = alternating(lib, [Run(3, "ok", 1)])
    counts, diags, _ = probe_env(lib, env, 5, 0, runner=runner)
    assert diags == []
    assert len(runner.calls) == 10
    assert runner.calls[0::2] == runner.calls[1::2]
    assert counts["ok"] == 5


def test_a_body_that_keeps_timing_out_is_run_only_until_the_third_timeout(lib):
    """Each timed-out run costs its whole wall limit: 50 samples of an always-slow body
    would hold `racesc check` for minutes. A timed-out sample is not run a second time."""
    from racesl.probe import TIMEOUTS_TO_STOP

    env = lib.envs["probe.ident"]
    runner = alternating(lib, [Run(None, "timeout", 0, "Timeout")])
    counts, diags, _ = probe_env(lib, env, 50, 0, runner=runner)
    assert len(runner.calls) == TIMEOUTS_TO_STOP == 3
    assert counts["timeout"] == 50
    [w] = [d for d in diags if d.code == "W600"]
    assert "the body ran past its wall-clock limit on 50 of 50 runs; stopped after 3 timeouts, the rest not run" \
        in w.message
    assert not [d for d in diags if d.code == "E601"]


def test_deterministic_runner_is_quiet(lib):
    for name in ("ident", "clamp", "shift"):
        counts, diags, _ = probe_env(lib, lib.envs[f"probe.{name}"], 20, 1)
        assert diags == [], (name, diags)
        assert counts["ok"] == 20


def test_same_seed_same_samples(lib):
    env = lib.envs["probe.shift"]
    a, b = alternating(lib, [Run(0, "ok", 0)]), alternating(lib, [Run(0, "ok", 0)])
    probe_env(lib, env, 8, 7, runner=a)
    probe_env(lib, env, 8, 7, runner=b)
    assert a.calls == b.calls


def test_laws_are_checked_through_the_runner(lib):
    """The law check applies the environment again through the same runner: a runner that
    answers a constant makes `clamp(clamp(x)) == clamp(x)` hold; one that counts breaks it."""
    env = lib.envs["probe.clamp"]
    counter = itertools.count()

    def counting(env, x, settings=(), **kw):
        n = next(counter)
        return Run(n // 2 % 10, "ok", 1)  # the two runs of one sample agree; a third does not
    _, diags, _ = probe_env(lib, env, 1, 0, runner=counting)
    assert [d.code for d in diags] == ["E603"]
    assert diags[0].message.startswith("law idempotent fails: clamp(clamp(x)) == clamp(x) is false for x = ")


def test_contract_from_the_runner_gives_E600(lib):
    env = lib.envs["probe.ident"]
    runner = alternating(lib, [Run(12, "contract", 1, "12 violates 0 <= it <= 9")])
    counts, diags, _ = probe_env(lib, env, 4, 0, runner=runner)
    codes = sorted(d.code for d in diags)
    assert codes == ["E600", "W600"]
    e600 = next(d for d in diags if d.code == "E600")
    assert e600.message.endswith("returned 12, outside Int where 0 <= it <= 9: 12 violates 0 <= it <= 9")
    assert counts["contract"] == 4


def test_few_samples_never_warn(lib):
    env = lib.envs["probe.ident"]
    runner = alternating(lib, [Run(None, "assert", 1, "AssertionError")])
    _, diags, _ = probe_env(lib, env, 3, 0, runner=runner)
    assert diags == []  # W600 needs at least 4 samples
    _, diags, _ = probe_env(lib, env, 4, 0, runner=runner)
    assert [d.code for d in diags] == ["W600"]
    assert "succeeds on only 0 of 4 sampled inputs: an assert failed on 4 of 4 runs" in diags[0].message


# ---------------------------------------------------------------- E602: why nothing could be sampled

SAMPLERS = '''
def word(rng, level) -> Str:
    return "a"

def big(rng, level) -> Int:
    return rng.randint(100, 200)

def forever(rng, level) -> Int:
    i = 0
    while i >= 0:
        i = i + 1
    return i

def slow(x: Int) -> Bool:
    i = 0
    while i >= 0:
        i = i + 1
    return True

@sample(n=word)
env wrong_type(n: Int where 0 <= it <= 5) -> Int:
    """Add one to n."""
    return n + 1

@sample(n=big)
env wrong_range(n: Int where 0 <= it <= 5) -> Int:
    """Add one to n."""
    return n + 1

@sample(n=forever)
env looping_sampler(n: Int where 0 <= it <= 5) -> Int:
    """Add one to n."""
    return n + 1

env looping_refinement(n: Int where 0 <= it <= 5 and slow(it)) -> Int:
    """Add one to n."""
    return n + 1

env never(n: Int where 0 <= it <= 5, k: Int where it > 5 and it < 3) -> Int:
    """Add {k} to n."""
    return n + k
'''


@pytest.fixture(scope="module")
def samplers(tmp_path_factory):
    p = tmp_path_factory.mktemp("probe") / "samplers.races"
    p.write_text(SAMPLERS, encoding="utf-8")
    return load([p])


def e602(lib, name):
    counts, diags, _ = probe_env(lib, lib.envs[f"samplers.{name}"], 6, 0)
    assert counts["no sample"] == 6
    [d] = diags
    assert d.code == "E602" and d.severity is Severity.ERROR
    return d


def test_sampler_of_the_wrong_declared_type_is_named(samplers):
    d = e602(samplers, "wrong_type")
    assert d.message.startswith(
        "could not sample inputs for 'wrong_type': sampler returned 'a', outside Int where 0 <= it <= 5")
    assert d.hint == ("the sampler 'word' is declared to return Str (it returned 'a'), but 'n' is "
                      "Int where 0 <= it <= 5: make 'word' return values of the parameter's type")
    assert "add @sample" not in d.hint


def test_sampler_outside_the_refinement_is_named(samplers):
    d = e602(samplers, "wrong_range")
    assert d.message.startswith("could not sample inputs for 'wrong_range': sampler returned 1")
    assert d.hint.startswith("the sampler 'big' returned 1")
    assert d.hint.endswith(", which is not in Int where 0 <= it <= 5: make 'big' return only values of 'n' "
                           "(its refinement included)")


def test_sampler_out_of_fuel_says_so(samplers):
    d = e602(samplers, "looping_sampler")
    assert d.message == ("could not sample inputs for 'looping_sampler': sampler forever for 'n' ran out of fuel "
                         "(a budget of 400 steps a call)")
    assert d.hint == ("a sampler gets 400 steps a call: bound the loops of 'forever' (by `level`, say), "
                      "draw directly with rng.randint or rng.choice, or declare the budget it needs with "
                      "@fuel(N) on 'forever'")


def test_refinement_out_of_fuel_says_so(samplers):
    d = e602(samplers, "looping_refinement")
    assert "candidate value" not in d.message
    assert d.message == ("could not sample inputs for 'looping_refinement': checking the refinement "
                         "`0 <= it <= 5 and slow(it)` of 'n' ran out of fuel (a budget of 400 steps) "
                         "on every value tried")
    assert d.hint == ("each refinement check gets 400 steps: make `0 <= it <= 5 and slow(it)` cheaper "
                      "(bound its loops), or check the condition in the body instead")


def test_unsatisfiable_setting_names_the_parameter(samplers):
    d = e602(samplers, "never")
    assert "unsatisfiable" in d.message
    assert d.hint == "the refinement may be unsatisfiable or too narrow; add @sample(k=helper)"
