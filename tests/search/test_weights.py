"""[weights] (issue 35.3): an environment's share of appearances follows its weight, through
the search's usage quotas; weight 0 leaves it out; weights of 1 change nothing.

The library is two modules with the same four environments (alpha and beta), each with a
setting and a few hundred inputs, so no environment runs out of distinct tasks and the two
modules differ only in their weight. The tolerance: were each appearance an independent
draw with P(alpha) = 3/4, alpha's share of n = 2,000 appearances would have standard error
sqrt(0.75 · 0.25 / 2000) = 0.0097; three of those around 0.75 bound the share to
[0.721, 0.779], i.e. the ratio alpha : beta to [2.58, 3.52]. The quotas draw without
replacement from each environment's allowance, which spreads appearances more evenly
than independent draws, so the bound is conservative (seen: 2.91 to 2.98).
"""

from __future__ import annotations

from collections import Counter

import pytest

from racesl.compile import Generator, compile_tasks
from racesl.library import load
from racesl.search.config import CompileConfig, ConfigError, from_toml, parse_operators
from tests.support.tasks import toy_library

ENVS = ['''\
env add_k(n: Nat, k: Int where 2 <= it <= 9) -> Nat:
    """Add {k} to n, modulo 400."""
    return (n + k) % 400
''', '''\
env sub_k(n: Nat, k: Int where 2 <= it <= 9) -> Nat:
    """Subtract {k} from n, modulo 400."""
    return (n + 400 - k) % 400
''', '''\
env mul_k(n: Nat, k: Int where 2 <= it <= 9) -> Nat:
    """Multiply n by {k}, modulo 397."""
    return (n * k) % 397
''', '''\
env mix_k(n: Nat, k: Int where 2 <= it <= 9) -> Nat:
    """Multiply n by {k} and add 7, modulo 389."""
    return (n * k + 7) % 389
''']
LO, HI = 2.58, 3.52  # the ratio's bounds for weights 3 : 1 (module docstring)


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    d = tmp_path_factory.mktemp("weights")
    for m in ("alpha", "beta"):
        (d / f"{m}.races").write_text(toy_library(m, *ENVS, top=400, pick_top=390), encoding="utf-8")
    return load([d])


def _by_module(tasks) -> Counter:
    return Counter(q.split(".")[0] for t in tasks for q in t.chain)


@pytest.mark.parametrize("ops", ["individual", "individual,sequential=2-3,parallel=2-3"])
def test_a_module_of_weight_3_appears_3_times_as_often(lib, ops):
    tasks, summary = compile_tasks(lib, CompileConfig(n=2000, seed=0, operators=parse_operators(ops),
                                                      weights={"alpha": 3.0}))
    assert len(tasks) == 2000
    use = _by_module(tasks)
    assert LO <= use["alpha"] / use["beta"] <= HI, use
    # and each environment within a module alike (the four are equally easy)
    for m in ("alpha", "beta"):
        mine = [n for q, n in summary.usage.items() if q.startswith(m + ".")]
        assert max(mine) <= 1.35 * min(mine), summary.usage
    assert summary.environments["effective_weights"] == {f"alpha.{e}": 3.0 for e in
                                                         ("add_k", "mix_k", "mul_k", "sub_k")}


def test_an_environment_weight_overrides_its_module(lib):
    """"alpha" = 3 and "alpha.add_k" = 1: add_k's quota is beta's, the others' three times it."""
    gen = Generator(lib, CompileConfig(n=400, operators=parse_operators("individual"),
                                       weights={"alpha": 3, "alpha.add_k": 1.0}))
    q = gen.search.initial_quota(1.0)
    assert q["alpha.add_k"] == q["beta.add_k"] == q["beta.mix_k"]
    assert q["alpha.mul_k"] == pytest.approx(3 * q["beta.mul_k"])
    # the total allowance stays what it was without weights
    plain = Generator(lib, CompileConfig(n=400, operators=parse_operators("individual"))).search.initial_quota(1.0)
    assert sum(q.values()) == pytest.approx(sum(plain.values()))


def test_weight_0_never_uses(lib):
    tasks, summary = compile_tasks(lib, CompileConfig(n=300, seed=1, operators=parse_operators(
        "individual,sequential=2-3,parallel=2-3"), weights={"beta": 0, "alpha.mix_k": 0.0}))
    used = {q for t in tasks for q in t.chain}
    assert len(tasks) == 300 and used == {"alpha.add_k", "alpha.sub_k", "alpha.mul_k"}
    assert summary.unused["beta.add_k"] == summary.unused["alpha.mix_k"] == "its weight is 0 ([weights])"
    assert "alpha.mix_k" not in summary.environments["chosen"]


def test_weights_of_one_change_nothing(lib):
    cfg = CompileConfig(n=200, seed=3, operators=parse_operators("individual,sequential=2-3"))
    a, _ = compile_tasks(lib, cfg)
    b, s = compile_tasks(lib, CompileConfig(n=200, seed=3, operators=cfg.operators, weights={"alpha": 1.0}))
    assert a == b and s.environments["effective_weights"] == {}


def test_weighted_output_does_not_depend_on_workers(lib):
    cfg = CompileConfig(n=300, seed=5, batch=64, operators=parse_operators("individual,sequential=2-3"),
                        weights={"alpha": 2.5, "beta.add_k": 0.5})
    one, _ = compile_tasks(lib, cfg)
    two, _ = compile_tasks(lib, cfg, workers=2)
    assert one == two


@pytest.mark.parametrize("table, why", [
    ({"alpha": -1}, "finite number of at least 0"),
    ({"alpha": float("inf")}, "finite number of at least 0"),
    ({"alpha": "2"}, "finite number of at least 0"),
    ({"alpha": True}, "finite number of at least 0"),
])
def test_bad_weights_are_refused(tmp_path, table, why):
    with pytest.raises(ConfigError, match=why) as e:
        from_toml({"weights": table}, tmp_path)
    assert (e.value.section, e.value.key) == ("weights", "alpha")


def test_unknown_names_are_refused_with_a_hint(lib):
    with pytest.raises(ConfigError, match=r"\[weights\] \"alpha.ad_k\": no environment or module 'alpha.ad_k' "
                                          r"\(did you mean 'alpha.add_k'"):
        Generator(lib, CompileConfig(n=10, weights={"alpha.ad_k": 2}))


def test_dotted_keys_read_as_names(tmp_path):
    import tomllib

    data = tomllib.loads('[weights]\n"alpha" = 2.0\nbeta.add_k = 0.5\n')
    assert from_toml(data, tmp_path)["weights"] == {"alpha": 2.0, "beta.add_k": 0.5}
