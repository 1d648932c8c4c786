"""`@fuel(N)`: a function's own step budget, wherever its body runs (docs/fuel.md, "@fuel").

An environment needing ~10^5 steps checks clean with `@fuel(200000)` and gives CPython's
answer for the same text — in process, in the sandbox's worker processes and through
`racesc run` — and without it is cut off at 400 steps; a sampler helper with `@fuel` draws
where it would otherwise run out; a helper called from a body draws on its caller's counter.
"""

from __future__ import annotations

import random
import textwrap

import pytest

from racesl.check import check_paths
from racesl.cli.main import main
from racesl.library import Library
from racesl.probe import SeedProbe, probe_env
from racesl.runtime.limits import DEFAULT_FUEL, DEFAULT_WALL, FUEL_CAP, MAX_WALL, call_limits, wall_for
from racesl.sample.default import NoSample
from racesl.sandbox_runner import SandboxRunner

# the body of an environment that needs ~10^5 steps at its largest inputs, written once and
# run both as `.races` and as plain Python
COLLATZ = """\
total = 0
for k in range(1, n + 1):
    v = k
    while v != 1:
        if v % 2 == 0:
            v = v // 2
        else:
            v = 3 * v + 1
        total += 1
return total
"""
SIEVE = """\
limit = 3000
sieve = [True] * limit
primes = []
for i in range(2, limit):
    if sieve[i]:
        primes.append(i)
        for j in range(i * i, limit, i):
            sieve[j] = False
return rng.choice(primes)
"""


def _body(text: str) -> str:
    return textwrap.indent(text, "    ")


def source(env_fuel: str = "@fuel(200000)\n", sampler_fuel: str = "@fuel(20000)\n") -> str:
    return (f"{env_fuel}env collatz_total(n: Int where 1 <= it <= 3000) -> Int:\n"
            f'    """Return the total number of Collatz steps taken by all starting values from 1 to n."""\n'
            f"{_body(COLLATZ)}\n\n"
            f"{sampler_fuel}def pick_prime(rng, level) -> Int:\n{_body(SIEVE)}\n\n"
            "@sample(p=pick_prime)\n"
            "env next_square(p: Int where 2 <= it <= 3000) -> Int:\n"
            '    """Return the smallest perfect square that is at least p."""\n'
            "    k = 0\n    while k * k < p:\n        k += 1\n    return k * k\n")


def cpython(body: str, params: str, *args):
    ns: dict = {}
    exec(f"def f({params}):\n{_body(body)}", ns)
    return ns["f"](*args)


def library(tmp_path, name: str, text: str) -> Library:
    path = tmp_path / f"{name}.races"
    path.write_text(text, encoding="utf-8")
    checked = check_paths([path])
    assert checked.ok, [d.headline() for d in checked.diagnostics]
    return Library(checked)


@pytest.fixture(scope="module")
def libs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("fuel")
    return (library(tmp, "fueled", source()), library(tmp, "plain", source("", "")))


# ---------------------------------------------------------------- the rule

def test_the_cap_and_the_wall_rule():
    assert (DEFAULT_FUEL, FUEL_CAP, DEFAULT_WALL, MAX_WALL) == (400, 1_000_000, 2.0, 30.0)
    assert wall_for(400) == wall_for(100) == DEFAULT_WALL
    assert wall_for(800) == 4.0  # in proportion to the budget ...
    assert wall_for(200_000) == wall_for(FUEL_CAP) == MAX_WALL  # ... up to MAX_WALL
    assert wall_for(200_000, None) is None  # no wall stays none
    assert wall_for(200_000, 45.0) == 45.0  # a caller's limit above MAX_WALL is kept
    budgets = {"f": 5000}
    assert call_limits(budgets, "f", 400, 2.0) == (5000, 25.0)
    assert call_limits(budgets, "f", 9000, 2.0) == (9000, 2.0)  # a larger caller budget stands
    assert call_limits(budgets, "g", 400, 2.0) == (400, 2.0)


def test_budgets_reach_the_program(libs):
    lib, plain = libs
    assert lib.budgets == {"fueled__collatz_total": 200000, "fueled__pick_prime": 20000}
    assert plain.budgets == {}
    env = lib.envs["fueled.collatz_total"]
    assert env.fuel == 200000 and lib.budget(env) == 200000 and plain.budget(plain.envs["plain.collatz_total"]) == 400
    assert lib.program.limits(env.pyname, 400, 2.0) == (200000, MAX_WALL)
    assert lib.checked.modules["fueled"].helpers["pick_prime"].fuel == 20000


def test_a_chain_budget_is_the_sum_of_its_steps(libs):
    lib, _ = libs
    a, b = lib.envs["fueled.collatz_total"], lib.envs["fueled.next_square"]
    assert lib.chain_budget([a, b]) == 200000 + 400
    assert lib.chain_budget([b, b, a], fuel=1000) == 1000 + 1000 + 200000


# ---------------------------------------------------------------- ~10^5 steps: in process

def test_an_environment_needing_1e5_steps_gives_cpythons_answer(libs):
    lib, plain = libs
    want = cpython(COLLATZ, "n", 2000)
    r = lib.run(lib.envs["fueled.collatz_total"], 2000)
    assert r.ok and r.value == want == 134100
    assert 100_000 < r.steps <= 200_000
    cut = plain.run(plain.envs["plain.collatz_total"], 2000)
    assert cut.status == "fuel" and cut.steps == 400


def test_it_checks_clean(libs):
    lib, plain = libs
    for env in lib.root_envs:
        counts, diags, _ = probe_env(lib, env, 30, 0)
        assert diags == [] and counts["ok"] == 30, (env.name, counts, diags)
    counts, diags, _ = probe_env(plain, plain.envs["plain.collatz_total"], 30, 0)
    assert counts["fuel"] > 0  # the larger sampled inputs are cut off without @fuel


# ---------------------------------------------------------------- samplers

def test_a_sampler_with_fuel_draws_and_without_runs_out(libs):
    lib, plain = libs
    env = lib.envs["fueled.next_square"]
    p = lib.sample_input(env, random.Random(3), 0)
    assert all(p % d for d in range(2, p))  # a prime from the sieve
    want = cpython(SIEVE, "rng", random.Random(3))
    assert p == want
    with pytest.raises(NoSample, match="fuel"):
        plain.sample_input(plain.envs["plain.next_square"], random.Random(3), 0)
    _, diags, _ = probe_env(plain, plain.envs["plain.next_square"], 10, 0)
    assert [d.code for d in diags] == ["E602"]
    assert "ran out of fuel" in diags[0].message and "@fuel(N) on 'pick_prime'" in diags[0].hint


# ---------------------------------------------------------------- which counter a helper draws on

HELPER_CALL = """\
@fuel(50000)
def spin(n: Int) -> Int:
    t = 0
    for i in range(n):
        t += i
    return t

{env_fuel}env uses(n: Int where 0 <= it <= 5000) -> Int:
    \"\"\"Return the sum of the numbers below n.\"\"\"
    return spin(n)

type Spun = Int where 0 <= it <= 5000 and spin(it) >= 0

env spun(n: Spun) -> Int:
    \"\"\"Return n.\"\"\"
    return n
"""


def test_a_helper_called_from_a_body_draws_on_its_callers_counter(tmp_path):
    lib = library(tmp_path, "calls", HELPER_CALL.format(env_fuel=""))
    r = lib.run(lib.envs["calls.uses"], 3000)
    assert r.status == "fuel" and r.steps == 400  # the helper's @fuel is not the caller's
    lib2 = library(tmp_path, "calls2", HELPER_CALL.format(env_fuel="@fuel(10000)\n"))
    r2 = lib2.run(lib2.envs["calls2.uses"], 3000)
    assert r2.ok and r2.value == sum(range(3000))


def test_a_refinement_that_calls_a_fueled_helper_gets_its_budget(tmp_path):
    lib = library(tmp_path, "refined", HELPER_CALL.format(env_fuel=""))
    [pred] = [name for (_, text), name in lib.preds.items() if "spin" in text]
    assert lib.budgets[pred] == 50000
    spun = lib.envs["refined.spun"]
    assert lib.conforms(3000, spun.input) is None  # 3,000 steps of `spin`, within its @fuel
    bare = library(tmp_path, "bare", HELPER_CALL.format(env_fuel="").replace("@fuel(50000)\n", ""))
    assert "spin(it)" in bare.conforms(3000, bare.envs["bare.spun"].input)  # cut off: counts as false


# ---------------------------------------------------------------- worker processes

def test_the_sandbox_workers_apply_the_budget(libs):
    lib, plain = libs
    with SandboxRunner(lib) as runner:
        env = lib.envs["fueled.collatz_total"]
        r = runner.run(env, 2000)
        assert r.ok and r.value == cpython(COLLATZ, "n", 2000)
        assert r.steps == lib.run(env, 2000).steps  # the same count in the worker
        assert runner.pool._raised(("fueled__collatz_total", (5,), 400)) == \
            ("fueled__collatz_total", (5,), 200000, MAX_WALL)
        # a sampler drawn in the worker (its @fuel too)
        assert lib.sample_input(lib.envs["fueled.next_square"], random.Random(3), 0) == \
            cpython(SIEVE, "rng", random.Random(3))
    with SandboxRunner(plain) as runner:
        cut = runner.run(plain.envs["plain.collatz_total"], 2000)
        assert cut.status == "fuel"


def test_a_worker_pool_batch_of_long_calls(libs):
    """Calls raised to MAX_WALL go out in chunks whose walls fit the worker's CPU limit (two
    of 30 s under 60 s), and each runs with its function's budget."""
    from racesl.lower.instrument import lower_to_source
    from racesl.runtime.sandbox import WorkerPool

    lib, _ = libs
    source = lower_to_source(lib.module, int_params=lib.param_facts)
    with WorkerPool(source, "<races>", workers=1, cpu_s=60, budgets=lib.budgets) as pool:
        outs = pool.run_batch([("fueled__collatz_total", (n,), 400) for n in (2000, 1500, 1000, 3)])
        assert [o.value for o in outs] == [cpython(COLLATZ, "n", n) for n in (2000, 1500, 1000, 3)]
        assert all(o.status == "ok" for o in outs) and outs[0].steps > 100_000
        assert pool.restarts == 0


def test_the_hash_seed_children_apply_the_budget(tmp_path):
    """E601's children run the program again: with the budgets, or every run there would be
    cut off where it succeeded here, and differ."""
    text = ("def big(rng, level) -> Int:\n    return rng.randint(1000, 3000)\n\n"
            "@sample(n=big)\n@fuel(20000)\nenv distinct(n: Int where 1 <= it <= 3000) -> Int:\n"
            '    """Return how many distinct values k * k % 1000 takes for k below n."""\n'
            "    return len(set([k * k % 1000 for k in range(n)]))\n")
    lib = library(tmp_path, "seeds", text)
    env = lib.envs["seeds.distinct"]
    seeds = SeedProbe(lib, [env])
    try:
        counts, diags, _ = probe_env(lib, env, 12, 0, seeds=seeds)
        assert counts["ok"] == 12 and diags == []
        assert seeds.runs and min(lib.run(env, call[1][0]).steps for _, call, _, _, _ in seeds.runs) > DEFAULT_FUEL
        assert seeds.finish() == []
    finally:
        seeds.close()


# ---------------------------------------------------------------- racesc run

def test_racesc_run_in_process_and_untrusted(tmp_path, capsys):
    path = tmp_path / "run.races"
    path.write_text(source(), encoding="utf-8")
    want = str(cpython(COLLATZ, "n", 2000))
    for extra in ([], ["--untrusted"]):
        assert main(["run", str(path), "collatz_total", "--input", "2000", *extra]) == 0
        out, err = capsys.readouterr()
        assert out.split() == [want], err
    bare = tmp_path / "bare.races"
    bare.write_text(source("", ""), encoding="utf-8")
    assert main(["run", str(bare), "collatz_total", "--input", "2000"]) == 0
    out, err = capsys.readouterr()
    assert out.split() == ["!fuel"] and "budget of 400 steps; raise --fuel" in err


# ---------------------------------------------------------------- score time

def test_the_rewards_reexecution_gives_each_step_its_budget(libs):
    """`sort` answers are re-executed step by step (racesl.operators.orders, as the reward
    does): a step with @fuel gets its budget there too."""
    from racesl.operators.orders import accepting_orders
    from racesl.runtime.contract import canonical

    for lib, mod in zip(libs, ("fueled", "plain")):
        a, b = lib.envs[f"{mod}.collatz_total"], lib.envs[f"{mod}.next_square"]
        target = canonical(cpython("k = 0\nwhile k * k < p:\n    k += 1\nreturn k * k", "p",
                                   cpython(COLLATZ, "n", 60)))
        hits, tried = accepting_orders(lib, 60, [(a, ()), (b, ())], target, random.Random(0))
        assert (hits, tried) == ((1, 2) if mod == "fueled" else (0, 2))


def test_the_language_servers_probe_applies_the_budget(tmp_path):
    from racesl.lsp.sampling import probe_document

    path = str(tmp_path / "doc.races")
    assert [d.code for d in probe_document(path, source(), samples=12)] == []
    cut = probe_document(path, source("", ""), samples=12)  # collatz_total mostly cut off, no prime drawn
    assert [d.code for d in cut] == ["W600", "E602"] and "fuel" in cut[0].message
