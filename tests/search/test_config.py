"""Compile configuration: operator specs, races.toml, and the command line winning."""

from __future__ import annotations

import pytest

from racesl.search.config import (DEFAULT_OPERATORS, DEFAULT_SIZES, OPERATORS, CompileConfig, ConfigError, Filters, from_toml,
                                  load_toml, parse_operators)


def test_parse_operators_ranges_and_defaults():
    assert parse_operators("sequential=2-12,sort=3,loop") == (
        ("sequential", 2, 12), ("sort", 3, 3), ("loop", *DEFAULT_SIZES["loop"]))
    assert parse_operators(" parallel = 4-5 , ") == (("parallel", 4, 5),)
    assert CompileConfig().sizes("select") == DEFAULT_SIZES["select"]
    # every operator but `individual`, which is asked for by name
    assert {o for o, _, _ in CompileConfig().operators} == set(DEFAULT_OPERATORS) == set(OPERATORS) - {"individual"}


@pytest.mark.parametrize("spec", ["", ",", "nosuch", "sort=a-b", "sort=5-2", "sort=0-3", "sort=2-65"])
def test_parse_operators_rejects(spec):
    with pytest.raises(ConfigError):
        parse_operators(spec)


def test_from_toml(tmp_path):
    (tmp_path / "seq.txt").write_text("X0={x0}\n{steps}\n", encoding="utf-8")
    (tmp_path / "races.toml").write_text(
        '[compile]\nn = 7\nseed = 3\n\n[operators]\nsequential = "2-3"\nloop = true\n\n'
        '[filters]\ndrop_values = []\nmax_int = 900\n\n[templates]\nsequential = "seq.txt"\n', encoding="utf-8")
    kw = from_toml(load_toml(tmp_path / "races.toml"), tmp_path)
    cfg = CompileConfig(**kw)
    assert (cfg.n, cfg.seed) == (7, 3)
    assert cfg.operators == (("sequential", 2, 3), ("loop", *DEFAULT_SIZES["loop"]))
    assert cfg.filters == Filters(drop_values=(), max_int=900)
    assert cfg.templates == {"sequential": "X0={x0}\n{steps}\n"}


@pytest.mark.parametrize("text", ["[filters]\nnosuch = 1\n", "[filters]\nmax_steps = 1125899906842625\n",
                                  "[filters]\nmax_steps = -1\n", "[filters]\nmax_steps = '400'\n",
                                  "[templates]\nnosuch = 'x'\n",
                                  "[operators]\nnosuch = true\n", "[compile\n"])
def test_from_toml_rejects(tmp_path, text):
    (tmp_path / "races.toml").write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError):
        from_toml(load_toml(tmp_path / "races.toml"), tmp_path)
