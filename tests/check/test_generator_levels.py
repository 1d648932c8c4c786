"""Generator environments are checked where compile uses them (issue 45): `racesc check`
samples every level a compile may draw (races.toml's `max_level`), so a helper that agrees
with the body at levels 0-2 and is wrong from level 3 on is an E612; and it draws each
generator again under other hash seeds (racesl.probe.SeedProbe), so a helper that reads a
set of strings through an untyped helper is an E601."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from racesl.check import check_paths
from racesl.library import Library
from racesl.probe import SeedProbe, _level, generator_draws, probe_env, set_builders
from tests.support.generators import LIAR
from tests.support.tasks import run_racesc

# the word it draws is the first of a set of strings in this process's iteration order
HASHY = '''\
def pool():
    return {"penguin", "journey", "thunder", "volcano", "dolphin", "giraffe", "blanket", "chicken"}

def first(s):
    for w in s:
        return w
    return "apple"

def draw(rng, level) -> Tuple[Str, Str]:
    w = first(pool())
    k = rng.randint(1, 3)
    return (w[k:] + w[:k], w)

@generate(draw)
env unrotate(s: Str) -> Str:
    """Rotate s back into the common English word it was made from."""
'''


def _lib(tmp_path: Path, name: str, text: str) -> Library:
    (tmp_path / f"{name}.races").write_text(text, encoding="utf-8")
    checked = check_paths([tmp_path / f"{name}.races"])
    assert checked.ok, [d.headline() for d in checked.diagnostics]
    return Library(checked)


@given(st.integers(0, 40), st.integers(1, 400))
@settings(max_examples=200, deadline=None)
def test_every_level_up_to_max_level_is_sampled(max_level, samples):
    n = generator_draws(samples, max_level)
    levels = [_level(i, n, max_level) for i in range(n)]
    assert set(levels) == set(range(max_level + 1))
    assert levels == sorted(levels)


def test_the_default_levels_are_what_they_were():
    assert [_level(i, 6) for i in range(6)] == [0, 0, 1, 1, 2, 2]


def test_a_generator_wrong_from_level_3_is_E612_where_compile_draws_level_3(tmp_path):
    lib = _lib(tmp_path, "liar", LIAR)
    env = lib.envs["liar.add_up"]
    _, quiet, _ = probe_env(lib, env, 50, 0)  # levels 0-2: it agrees
    assert [d.code for d in quiet] == []
    counts, diags, _ = probe_env(lib, env, 50, 0, max_level=6)
    assert [d.code for d in diags] == ["E612"]
    assert "at level 3" in diags[0].message and "drew the answer" in diags[0].message
    assert counts["ok"] == 50


def test_few_samples_still_reach_every_level(tmp_path):
    lib = _lib(tmp_path, "liar", LIAR)
    counts, diags, _ = probe_env(lib, lib.envs["liar.add_up"], 2, 0, max_level=6)
    assert counts["ok"] == 7 and [d.code for d in diags] == ["E612"]


def test_racesc_check_reads_max_level_from_races_toml(tmp_path):
    (tmp_path / "liar.races").write_text(LIAR, encoding="utf-8")
    p = run_racesc("check", ".", "-q", cwd=tmp_path)  # no races.toml: levels 0-2
    assert "E612" not in p.stderr
    (tmp_path / "races.toml").write_text("[compile]\nmax_level = 6\n", encoding="utf-8")
    p = run_racesc("check", ".", "-q", cwd=tmp_path, check=False)
    assert p.returncode == 1 and "error[E612]" in p.stderr and "at level 3" in p.stderr, p.stderr
    cfg = tmp_path / "other.toml"
    cfg.write_text("[compile]\nmax_level = 4\n", encoding="utf-8")
    (tmp_path / "races.toml").unlink()
    p = run_racesc("check", str(tmp_path / "liar.races"), "--config", str(cfg), "--json", check=False)
    assert p.returncode == 1 and json.loads(p.stdout)["errors"] == 1


@pytest.mark.parametrize("text", ["[compile]\nmax_level = -1\n", "[compile]\nmax_level = 'six'\n",
                                  "[compile\n", "[compile]\nmax_level = 1e400\n"])
def test_a_bad_races_toml_is_one_line_and_exit_2(tmp_path, text):
    (tmp_path / "liar.races").write_text(LIAR, encoding="utf-8")
    (tmp_path / "races.toml").write_text(text, encoding="utf-8")
    p = run_racesc("check", ".", cwd=tmp_path, check=False)
    assert p.returncode == 2 and p.stderr.startswith("racesc: error: ") and "Traceback" not in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1, p.stderr


def test_racesc_check_config_that_is_a_folder_is_refused(tmp_path):
    (tmp_path / "liar.races").write_text(LIAR, encoding="utf-8")
    p = run_racesc("check", ".", "--config", str(tmp_path), cwd=tmp_path, check=False)
    assert p.returncode == 2 and p.stderr.startswith("racesc: error: ") and "Traceback" not in p.stderr


def test_a_generator_that_depends_on_the_hash_seed_is_E601(tmp_path):
    lib = _lib(tmp_path, "hashy", HASHY)
    env = lib.envs["hashy.unrotate"]
    assert set_builders(lib, lib.root_envs) == [env]  # its helper reaches a set
    seeds = SeedProbe(lib, [env])
    try:
        counts, diags, _ = probe_env(lib, env, 12, 0, seeds=seeds, max_level=4)
        assert not [d for d in diags if d.is_error]  # one process: it draws the same pair twice
        found = seeds.finish()
    finally:
        seeds.close()
    assert [d.code for d in found] == ["E601"]
    assert "the generator draw of 'unrotate'" in found[0].message and "PYTHONHASHSEED=" in found[0].message


def test_a_sorted_set_draws_the_same_under_every_hash_seed(tmp_path):
    lib = _lib(tmp_path, "sorted", HASHY.replace("first(pool())", "first(sorted(pool()))"))
    env = lib.envs["sorted.unrotate"]
    seeds = SeedProbe(lib, set_builders(lib, lib.root_envs))
    try:
        probe_env(lib, env, 12, 0, seeds=seeds, max_level=4)
        assert len(seeds.runs) == 12  # every draw, every level, was compared
        assert seeds.finish() == []
    finally:
        seeds.close()


def test_racesc_check_reports_the_hash_seed_generator(tmp_path):
    (tmp_path / "hashy.races").write_text(HASHY, encoding="utf-8")
    p = run_racesc("check", ".", "-q", cwd=tmp_path, check=False)
    assert p.returncode == 1 and "error[E601]" in p.stderr, p.stderr


def test_a_generator_run_is_never_compared_as_a_body_run(tmp_path):
    """`add` takes body runs only: a generator's recorded run holds the drawn answer, which
    its (absent) body would never give."""
    lib = _lib(tmp_path, "hashy", HASHY.replace("first(pool())", "first(sorted(pool()))"))
    env = lib.envs["hashy.unrotate"]
    seeds = SeedProbe(lib, [env])
    try:
        from racesl.library import Run

        seeds.add(env, "enguinp", (), Run("penguin", "ok", 0))
        assert seeds.runs == []
        seeds.draws(env, 0, 5, 3)
        assert Counter(r[1][0] for r in seeds.runs) == Counter({env.generate: 5})
        assert seeds.finish() == []
    finally:
        seeds.close()
