"""The evolve TOML: defaults, paths, overrides, and errors that name file:line."""

import pytest

from racesl.evolve.config import DEFAULT_PENALTY, REWARD_GATES, load
from racesl.search.config import ConfigError


def _write(tmp_path, text):
    p = tmp_path / "evolve.toml"
    p.write_text(text, encoding="utf-8")
    return p


def test_defaults_and_relative_paths(tmp_path):
    cfg = load(_write(tmp_path, '[pool]\ndir = "p"\n[generator]\nendpoint = "http://127.0.0.1:9/v1"\n'
                                '[admit]\nsamples = 10\nwall = 1\n[train]\nsteps = 2\n'))
    assert cfg.pool.dir == str((tmp_path / "p").resolve())
    assert cfg.pool.seeds == ("stdlib",) and cfg.pool.max_age == 0 and cfg.pool.seed_floor == 0.2
    g = cfg.generator
    assert (g.temperature, g.max_tokens, g.candidates_per_step) == (1.0, 1024, 4)
    assert cfg.admit.samples == 10 and cfg.admit.wall == 1.0 and isinstance(cfg.admit.wall, float)
    assert cfg.reward.generator_weight == 0.3 and cfg.reward.penalty == DEFAULT_PENALTY
    assert cfg.train == {"steps": 2}


@pytest.mark.parametrize("text, line, match", [
    ('[pool]\ndir = "p"\n\n[generator]\ntemprature = 0.5\n', 5, "did you mean temperature"),
    ('[generator]\nmax_tokens = 0\n', 2, r"\[generator\] max_tokens must be a whole number"),
    ('[admit]\nsampels = 3\n', 2, "did you mean samples"),
    ('[admit]\nsamples = "many"\n', 2, r"\[admit\] samples must be a whole number"),
    ('[pool]\nseed_floor = 1.5\n', 2, r"\[pool\] seed_floor must be a number from 0 to 1"),
    ('[reward]\n\n[reward.penalty]\nparse = -0.1\n', 4, "check = -0.9 is below parse = -0.1"),
    ('[reward]\nnovelty_weight = 1\npenalty = {pars = -1.0}\n', 3, "did you mean parse"),
    ('[generatr]\n', None, r"unknown section \[generatr\] \(did you mean \[generator\]"),
])
def test_errors_name_the_line(tmp_path, text, line, match):
    p = _write(tmp_path, text)
    with pytest.raises(ConfigError, match=match) as info:
        load(p)
    if line is not None:
        assert str(info.value).startswith(f"{p}:{line}: ")


def test_generator_overrides_and_exactly_one(tmp_path):
    cfg = load(_write(tmp_path, '[generator]\nendpoint = "http://127.0.0.1:9/v1"\nsteps = 3\n'))
    out = cfg.with_overrides(model="/models/tiny", steps=5, pool=str(tmp_path / "q"))
    assert out.generator.model == "/models/tiny" and out.generator.endpoint is None and out.generator.steps == 5
    assert out.pool.dir == str((tmp_path / "q").resolve())
    with pytest.raises(ConfigError, match="no generator"):
        load(_write(tmp_path, "[generator]\nsteps = 1\n")).with_overrides()
    both = load(_write(tmp_path, '[generator]\nmodel = "m"\nendpoint = "http://x/v1"\n'))
    with pytest.raises(ConfigError, match="both model and endpoint"):
        both.with_overrides()
    assert both.with_overrides(endpoint="http://y/v1").generator.model is None  # the flag replaces the pair


def test_default_penalties_rise_along_the_gates():
    values = [DEFAULT_PENALTY[g] for g in REWARD_GATES]
    assert values == sorted(values) and values[-1] < 0
    assert DEFAULT_PENALTY["parse"] == -1.0 and DEFAULT_PENALTY["novelty"] == -0.2


def test_the_documented_config_loads(tmp_path):
    import re
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "evolve.md").read_text(encoding="utf-8")
    (body,) = re.findall(r"```toml\n(.*?)```", doc, re.DOTALL)
    cfg = load(_write(tmp_path, body))
    assert cfg.generator.endpoint == "http://127.0.0.1:8000/v1" and cfg.reward.penalty["novelty"] == -0.25
    assert cfg.admit.probes == 24
