"""[weights] at the extremes (issue 44): a 401-digit weight used to raise OverflowError, and
two weights of 1e308 overflowed the mean weight to inf, every quota to 0, and compile wrote
0 tasks with exit 0. The one validator (racesl.search.config `_weights`) now refuses any
weight outside 0..MAX_WEIGHT in one line, whichever producer made the config; every weight
it accepts gives finite quotas, and a compile writes tasks."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from racesl.compile import Generator, compile_tasks
from racesl.library import load
from racesl.search.config import MAX_WEIGHT, CompileConfig, ConfigError, from_toml, parse_operators
from tests.support.tasks import run_racesc, toy_library

ENVS = ['''\
env add_k(n: Nat, k: Int where 2 <= it <= 9) -> Nat:
    """Add {k} to n, modulo 300."""
    return (n + k) % 300
''', '''\
env mul_k(n: Nat, k: Int where 2 <= it <= 9) -> Nat:
    """Multiply n by {k}, modulo 293."""
    return (n * k) % 293
''']


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    d = tmp_path_factory.mktemp("wx")
    for m in ("alpha", "beta"):
        (d / f"{m}.races").write_text(toy_library(m, *ENVS), encoding="utf-8")
    return load([d])


@pytest.mark.parametrize("toml, shown", [
    ('"alpha" = 1' + "7" * 400, "a number of 401 digits"),
    ('"alpha" = 1e308\n"beta" = 1e308', "1e+308"),
    ('"alpha" = 1_000_001', "1000001"),
    ('"alpha" = inf', "Infinity"),
    ('"alpha" = nan', "NaN"),
    ('"alpha" = -0.5', "-0.5"),
])
def test_the_cli_refuses_in_one_line(tmp_path, toml, shown):
    (tmp_path / "alpha.races").write_text(toy_library("alpha", *ENVS), encoding="utf-8")
    (tmp_path / "races.toml").write_text(f"[weights]\n{toml}\n", encoding="utf-8")
    p = run_racesc("compile", "alpha.races", "-n", 10, "-o", "t.jsonl", cwd=tmp_path, check=False)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "Traceback" not in p.stderr, p.stderr
    assert '[weights] "alpha" must be a finite number of at least 0' in p.stderr and shown in p.stderr, p.stderr
    assert not (tmp_path / "t.jsonl").exists()


def test_the_largest_weights_write_tasks(lib):
    """MAX_WEIGHT on every environment, and beside 1 and a tiny one: tasks, as with weight 1."""
    ops = parse_operators("individual,sequential=2")
    for table in ({"alpha": MAX_WEIGHT, "beta": MAX_WEIGHT}, {"alpha": MAX_WEIGHT}, {"alpha": 5e-324}):
        tasks, _ = compile_tasks(lib, CompileConfig(n=40, seed=1, operators=ops, weights=table))
        assert len(tasks) == 40, table


_NUMBERS = (st.floats() | st.floats(min_value=0, max_value=1e308) | st.integers()
            | st.integers(min_value=10**300, max_value=10**420) | st.integers(min_value=0, max_value=2 * MAX_WEIGHT))


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(a=_NUMBERS, b=_NUMBERS)
def test_any_number_is_refused_in_one_line_or_gives_finite_quotas(lib, tmp_path_factory, a, b):
    table = {"alpha": a, "beta.add_k": b}
    try:
        cfg = CompileConfig(n=50, seed=0, weights=table)
    except ConfigError as e:
        msg = str(e)
        assert "\n" not in msg and len(msg) < 300 and msg.startswith("[weights] "), msg
        assert not all(type(w) in (int, float) and 0 <= w <= MAX_WEIGHT for w in (a, b))
        with pytest.raises(ConfigError):  # the TOML reader's path meets the same validator
            from_toml({"weights": table}, tmp_path_factory.getbasetemp())
        return
    assert all(0 <= w <= MAX_WEIGHT for w in (a, b))
    quota = Generator(lib, cfg).search.initial_quota(2.0)
    assert quota and all(math.isfinite(q) and q >= 0 for q in quota.values()), quota
    assert max(quota.values()) > 0
