"""Refinements, @sample helpers and setting samplers run under the same limits as bodies
(fuel, size guards, the watchdog's wall limit), and in the worker processes under
`--untrusted`: a hostile one is a "false" / "no sample" with its reason, in bounded time,
never a hang, an exception or a parent taken down. A body without loops gets a wall limit
too. Sampling through the pool draws exactly what in-process sampling draws."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from racesl import library as L
from racesl.library import Library
from racesl.runtime.contract import flatten
from racesl.sample.default import NoSample
from racesl.sample.seeding import item_rng
from racesl.sandbox_runner import SandboxRunner

ROOT = Path(__file__).resolve().parents[2]
RACESC = str(Path(sys.executable).with_name("racesc"))

# One 3,900-bit modular power: just under the size guard's bound (POW_MOD_COST), 0.1-0.3 s
# inside one C call that no signal interrupts (by the machine's speed and load); forty make
# a call of several seconds, well past the 1 s wall on a fast machine too (ten took 1.0 s on
# an idle one: at the wall, so the test depended on the load).
_POW = "pow({b}, 2 ** 3900 + 1, 2 ** 3900 + 7)"


def _many(base: str) -> str:
    return " + ".join([_POW.format(b=base)] * 40)


HOSTILE = f'''
type Slow = Int where {_many("it * it + 3")} >= 0

def spin(rng, level) -> Int:
    return {_many("rng.randint(3, 9)")}

def hog(rng, level) -> List[List[Int]]:
    return [[level] * 100000 for i in range(390)]

env refined(n: Slow) -> Int:
    """Return n."""
    return n

@sample(k=spin)
env spun(x: Int where 0 <= it <= 9, k: Int) -> Int:
    """Return x plus {{k}}."""
    return x + k

@sample(xs=hog)
env hogged(xs: List[List[Int]]) -> Int:
    """Return the number of lists in xs."""
    return len(xs)

env slow(n: Int where 0 <= it <= 9) -> Int:
    """Return a big number made from n."""
    return {_many("n + 3")}
'''

FAIR = '''
type Odd = Int where it % 2 == 1 and it % 7 != 3

def pick(rng, level) -> List[Int]:
    xs = [rng.randint(0, 20 + level) for i in range(3)]
    rng.shuffle(xs)
    return xs + [rng.choice([5, 6, 7])]

@sample(xs=pick)
env f(xs: List[Int], k: Odd) -> Int:
    """Add {k} to the length of xs."""
    return len(xs) + k

env odd(xs: List[Int]) -> List[Odd]:
    """Keep the odd elements of xs."""
    return [x for x in xs if x % 2 == 1]
'''


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("limits") / "hostile.races"
    path.write_text(HOSTILE)
    return path


def _lib(path: Path) -> Library:
    lib, checked = Library.from_paths([path])
    assert lib is not None, checked.diagnostics
    return lib


def _pred(lib: Library, env):
    return flatten(env.input)[1][0]


# ---------------------------------------------------------------- in process


def test_slow_refinement_is_false_within_its_wall_and_then_not_run_again(hostile):
    lib = _lib(hostile)
    env = lib.envs["hostile.refined"]
    pred = _pred(lib, env)
    for i in range(L.AUX_STRIKES):
        t0 = time.monotonic()
        assert lib.pred_verdict(pred, i) == (False, "timeout")
        assert time.monotonic() - t0 < L.AUX_WALL + 2.5  # the wall, plus one power at most
    t0 = time.monotonic()
    assert lib.check_pred(pred, 99) is False
    with pytest.raises(NoSample, match="most rejected by"):
        lib.sample_input(env, item_rng(0, "x"), 0)
    assert time.monotonic() - t0 < 1.0  # struck: no longer run
    assert lib.run(env, 3, fuel=400).status == "ok"  # the library still works


def test_setting_sampler_that_spins_is_no_sample_with_its_reason(hostile):
    lib = _lib(hostile)
    env = lib.envs["hostile.spun"]
    t0 = time.monotonic()
    with pytest.raises(NoSample, match=r"sampler spin stopped: timeout"):
        lib.sample_settings(env, item_rng(0, "s"), 0)
    assert time.monotonic() - t0 < L.AUX_WALL + 2.5
    for _ in range(L.AUX_STRIKES):
        with pytest.raises(NoSample):
            lib.sample_settings(env, item_rng(0, "s"), 0)
    t0 = time.monotonic()
    with pytest.raises(NoSample, match="not run again"):
        lib.sample_settings(env, item_rng(0, "s"), 0)
    assert time.monotonic() - t0 < 0.5


def test_loop_free_body_outside_any_session_gets_its_wall_limit(hostile):
    lib = _lib(hostile)
    env = lib.envs["hostile.slow"]
    t0 = time.monotonic()
    r = lib.run(env, 1, wall=0.3)
    assert r.status == "timeout"
    assert time.monotonic() - t0 < 0.3 + 2.0


_HOG_SCRIPT = """
import sys
from racesl.library import Library
from racesl.runtime.children import limit_memory
from racesl.sample.default import NoSample
from racesl.sample.seeding import item_rng
lib, _ = Library.from_paths([sys.argv[1]])
env = lib.envs["hostile.hogged"]
limit_memory(150)
try:
    lib.sample_input(env, item_rng(0, "hog"), 0)
    print("SAMPLED")
except NoSample as e:
    print("NOSAMPLE", e)
print("ALIVE", sum(range(1000)))
"""


def test_sampler_that_allocates_past_the_memory_limit_leaves_the_process_healthy(hostile):
    """In process, under an address-space limit (as `ulimit -v` sets): MemoryError is the
    sampler's "size", not the process's end."""
    p = subprocess.run([sys.executable, "-c", _HOG_SCRIPT, str(hostile)], capture_output=True, check=False,
                       text=True, timeout=120, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    assert "Traceback" not in p.stderr
    assert "NOSAMPLE sampler hog stopped: size" in p.stdout
    assert "ALIVE 499500" in p.stdout


# ---------------------------------------------------------------- worker processes


def test_pool_sampling_draws_what_in_process_sampling_draws(tmp_path):
    path = tmp_path / "fair.races"
    path.write_text(FAIR)
    lib = _lib(path)
    env = lib.envs["fair.f"]

    def draws(lib):
        out = []
        for i in range(30):
            rng = item_rng(7, env.qualname, i)
            x = lib.sample_input(env, rng, i % 3)
            st = lib.sample_settings(env, rng, i % 3)
            out.append((x, st, rng.getstate()))
        return out

    here = draws(lib)
    lib2 = _lib(path)
    with SandboxRunner(lib2) as runner:
        assert lib2.aux is runner

        def refuse(*a, **k):
            raise AssertionError("a predicate or sampler ran in the parent")

        lib2.program.function = refuse  # anything run here, not in the worker, fails loudly
        there = draws(lib2)
    assert lib2.aux is None
    assert there == here
    assert len({repr(x) for x, _, _ in here}) > 5 and len({st for _, st, _ in here}) > 5


def test_the_rng_call_kind_returns_the_generators_state():
    import ast

    from racesl.lower.instrument import lower_to_source
    from racesl.runtime import Program, WorkerPool
    from racesl.runtime.builtins import rng_over

    src = lower_to_source(ast.parse("def pick(rng, level):\n    return [rng.randint(0, 9 + level) for i in range(5)]\n"))
    mine = random.Random(11)
    value = Program.from_source(src, "p").call("pick", (2,), rng=rng_over(mine)).value
    want = (value, mine.getstate())
    with WorkerPool(src, "p", workers=1) as pool:
        [out] = pool.run_batch([("pick", (random.Random(11), 2), 400, None, "rng")])
    assert (out.status, out.value) == ("ok", want)


def test_pool_checks_the_refinements_of_many_outputs_in_one_batch(tmp_path):
    path = tmp_path / "fair.races"
    path.write_text(FAIR)
    lib = _lib(path)
    env = lib.envs["fair.odd"]
    rng = random.Random(3)
    inputs = [[rng.randint(-40, 40) for _ in range(rng.randint(0, 6))] for _ in range(40)]
    here = [lib.run(env, xs) for xs in inputs]
    lib2 = _lib(path)
    with SandboxRunner(lib2) as runner:
        batches = []
        real = runner.aux_batch
        runner.aux_batch = lambda calls: batches.append(len(calls)) or real(calls)
        there = runner.run_many([(env, xs, (), 400) for xs in inputs])
    assert [(r.status, r.value, r.detail) for r in there] == [(r.status, r.value, r.detail) for r in here]
    assert {r.status for r in here} == {"ok", "contract"}
    assert len(batches) == 1 and batches[0] > 10  # one round trip for every output's checks


def test_pool_refinement_and_samplers_are_cut_off_in_the_worker(hostile):
    lib = _lib(hostile)
    with SandboxRunner(lib, memory_mb=100) as runner:
        env = lib.envs["hostile.hogged"]
        with pytest.raises(NoSample, match="sampler hog stopped"):
            lib.sample_input(env, item_rng(0, "hog"), 0)
        env = lib.envs["hostile.refined"]
        t0 = time.monotonic()
        assert lib.pred_verdict(_pred(lib, env), 2) == (False, "timeout")
        assert time.monotonic() - t0 < 5.0
        out = runner.run(lib.envs["hostile.spun"], 1, (2,))  # the pool still runs bodies
        assert (out.status, out.value) == ("ok", 3)


# ---------------------------------------------------------------- the command line


def _racesc(*args, cwd) -> tuple[subprocess.CompletedProcess, float]:
    env = dict(os.environ, PYTHONHASHSEED="0", NO_COLOR="1")
    t0 = time.monotonic()
    p = subprocess.run([RACESC, *map(str, args)], cwd=cwd, capture_output=True, text=True, env=env, check=False,
                       timeout=90)
    took = time.monotonic() - t0
    assert "Traceback" not in p.stderr + p.stdout, p.stderr
    return p, took


@pytest.fixture(scope="module")
def cli_hostile(tmp_path_factory) -> Path:
    """The hostile module without the hog (its 300 MB of values take seconds to measure)
    and `slow` (every sampled run of a body that times out takes its wall limit)."""
    path = tmp_path_factory.mktemp("cli") / "h.races"
    start, end = HOSTILE.index("def hog"), HOSTILE.index("env refined")
    text = HOSTILE[:start] + HOSTILE[end:]
    path.write_text(text[:text.index("@sample(xs=hog)")])
    (path.parent / "slow.races").write_text(HOSTILE[HOSTILE.index("env slow"):])
    return path


@pytest.mark.parametrize("mode", [[], ["--untrusted"]], ids=["in-process", "untrusted"])
def test_check_reports_hostile_refinements_and_samplers(cli_hostile, mode):
    p, took = _racesc("check", *mode, "--samples", "20", "-q", cli_hostile.name, cwd=cli_hostile.parent)
    assert p.returncode == 1
    assert "could not sample inputs for 'refined': checking the refinement" in p.stderr
    assert "ran past its wall-clock limit" in p.stderr
    assert "could not sample inputs for 'spun': sampler spin stopped: timeout" in p.stderr
    assert took < 40  # (~7 s: three strikes each, then no more runs; a loaded machine is slower)


@pytest.mark.parametrize("mode", [[], ["--untrusted"]], ids=["in-process", "untrusted"])
def test_run_with_hostile_refinement_and_setting_sampler(cli_hostile, mode):
    p, took = _racesc("run", *mode, cli_hostile.name, "spun", "--input", "1", cwd=cli_hostile.parent)
    assert p.returncode == 2
    assert "cannot sample setting k: sampler spin stopped: timeout" in p.stderr
    assert took < 20
    p, took = _racesc("run", *mode, cli_hostile.name, "refined", "--input", "1", cwd=cli_hostile.parent)
    assert (p.returncode, p.stdout) == (0, "!input\n")
    assert "was stopped: timeout, which counts as false" in p.stderr
    assert took < 20


def test_run_of_a_loop_free_body_stops_at_the_wall(cli_hostile):
    p, took = _racesc("run", "slow.races", "slow", "--input", "1", "--wall", "0.5",
                      cwd=cli_hostile.parent)
    assert (p.returncode, p.stdout) == (0, "!timeout\n")
    assert "ran past the wall-clock limit of 0.5 s" in p.stderr
    assert took < 15
