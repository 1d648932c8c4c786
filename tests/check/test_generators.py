"""Generator environments, `@generate(helper)` (racesl.check.generators, racesl.probe): the
example checks clean, the probe draws through the generator, and each way a generator can be
wrong is a located error (the golden cases in golden/generators.races; E611 here, since no
generator written in the language can draw two pairs from one seed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from racesl.check import check_paths
from racesl.library import Library
from racesl.probe import probe_env
from racesl.runtime.contract import canonical
from racesl.sample.seeding import item_rng

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "generators" / "unscramble.races"


@pytest.fixture(scope="module")
def lib():
    checked = check_paths([EXAMPLE])
    assert checked.ok, [d.headline() for d in checked.diagnostics]
    return Library(checked)


def test_the_example_is_a_generator_environment(lib):
    env = lib.envs["unscramble.unscramble"]
    assert env.source and not env.terminal
    assert env.generate.endswith("scramble") and not env.node.body  # the docstring alone


def test_the_example_probes_clean(lib):
    env = lib.envs["unscramble.unscramble"]
    counts, diags, _ = probe_env(lib, env, 50, 0)
    assert counts["ok"] == 50 and not diags, [d.headline() for d in diags]


def test_words_are_anagram_free_and_scrambled(lib):
    env = lib.envs["unscramble.unscramble"]
    pairs = [lib.draw(env, item_rng(0, "t", i), i % 3) for i in range(200)]
    for x, word in pairs:
        assert x != word and sorted(x) == sorted(word)
    words = {w for _, w in pairs}
    assert len({"".join(sorted(w)) for w in words}) == len(words) > 20


def test_same_seed_same_pair(lib):
    env = lib.envs["unscramble.unscramble"]
    for i in range(20):
        a = lib.draw(env, item_rng(3, "t", i), 2)
        b = lib.draw(env, item_rng(3, "t", i), 2)
        assert canonical(a) == canonical(b)


def test_a_generator_that_draws_differently_from_one_seed_is_E611(lib, monkeypatch):
    env = lib.envs["unscramble.unscramble"]
    real, calls = lib.draw_instance, []

    def flaky(e, rng, level):
        calls.append(1)
        x, o, latent = real(e, rng, level)
        return (x, o + "s", latent) if len(calls) % 2 == 0 else (x, o, latent)

    monkeypatch.setattr(lib, "draw_instance", flaky)  # (the probe draws the instance, latent and all)
    _, diags, _ = probe_env(lib, env, 6, 0)
    assert [d.code for d in diags] == ["E611"]
    assert "from the same seed" in diags[0].message and diags[0].span == env.span


def test_running_a_bodiless_generator_is_outside_its_domain(lib):
    env = lib.envs["unscramble.unscramble"]
    assert lib.run(env, "lppae").status == "assert"  # its answer is drawn, never computed


def test_a_body_that_agrees_with_its_generator_checks_clean(tmp_path):
    src = tmp_path / "rev.races"
    src.write_text('''def draw(rng, level) -> Tuple[Str, Str]:
    w = rng.choice(["abc", "xyz", "mno"])
    return (w[::-1], w)

@generate(draw)
env unreverse(x: Str) -> Str:
    """Reverse the letters of x."""
    return x[::-1]
''')
    checked = check_paths([src])
    assert checked.ok
    lib = Library(checked)
    counts, diags, _ = probe_env(lib, lib.envs["rev.unreverse"], 20, 0)
    assert counts["ok"] == 20 and not diags
