"""The train TOML's environment settings: [data] envs and exclude (races.toml's [compile]
ones, kept in [data]), [weights], and `individual` in [operators]; the stream builds from
them as compile does, and a wrong one is one line with the train TOML's file:line."""

from __future__ import annotations

import itertools

import pytest

from racesl.search.config import ConfigError
from racesl.train.config import load, located
from racesl.train.stream import TaskStream
from tests.support.tasks import stdlib

HEAD = '[model]\npath = ""\n\n[data]\nsource = "stream"\nseed = 3\n'


def _write(tmp_path, text: str):
    p = tmp_path / "train.toml"
    p.write_text(text, encoding="utf-8")
    return p


def test_settings_reach_the_compile_config(tmp_path):
    (tmp_path / "envs.txt").write_text("numbers\nlists.sum_all\n", encoding="utf-8")
    p = _write(tmp_path, HEAD + 'envs = "envs.txt"\nexclude = ["numbers.factor_pair"]\n\n'
               '[operators]\nindividual = "1"\nsequential = "2-3"\n\n[weights]\n"numbers" = 2.0\nlists.sum_all = 0.5\n')
    cfg = load(p).compile
    assert cfg.envs == str(tmp_path / "envs.txt")  # relative to the train TOML
    assert cfg.exclude == ("numbers.factor_pair",)
    assert cfg.weights == (("lists.sum_all", 0.5), ("numbers", 2.0))
    assert cfg.operators == (("individual", 1, 1), ("sequential", 2, 3))
    assert load(_write(tmp_path, HEAD + "envs = 12\n")).compile.envs == 12


def test_the_stream_uses_only_the_chosen_environments(tmp_path):
    p = _write(tmp_path, HEAD + 'envs = 6\nexclude = ["strings"]\n\n[operators]\nindividual = "1"\n'
               'sequential = "2-3"\n\n[weights]\n"numbers" = 0\n')
    cfg = load(p).compile
    stream = TaskStream(stdlib(), cfg)
    chosen = set(stream.gen.choice.chosen)
    assert len(chosen) == 6 and not any(q.startswith(("strings.", "numbers.")) for q in chosen)
    records = [r for r, _ in itertools.islice(stream.records(), 40)]
    assert {q for r in records for q in r["chain"]} <= chosen
    assert {r["operator"] for r in records} == {"individual", "sequential"}


@pytest.mark.parametrize("body, message", [
    ("envs = 0\n", "train.toml:7: [data] envs must be a count of at least 1"),
    ('exclude = "numbers"\n', "train.toml:7: [data] exclude must be a list of environment or module names"),
    ('\n[weights]\n"numbers" = -2\n', "train.toml:9: [weights] \"numbers\" must be a finite number of at least 0"),
    ('\n[operators]\nindividual = "1-2"\n', "train.toml:9: size 1-2 for individual"),
])
def test_bad_values_are_located(tmp_path, body, message):
    with pytest.raises(ConfigError) as e:
        load(_write(tmp_path, HEAD + body))
    assert str(e.value).startswith(str(tmp_path / message.split(":", 1)[0]) + ":" + message.split(":", 1)[1])


@pytest.mark.parametrize("body, message", [
    ('exclude = ["numbrs"]\n', "train.toml:7: [data] exclude: no environment or module 'numbrs' "
                               "(did you mean 'numbers'"),
    ('\n[weights]\n"lists.sum_al" = 2\n', "train.toml:9: [weights] \"lists.sum_al\": no environment or module"),
])
def test_unknown_names_are_located_once_the_library_is_known(tmp_path, body, message):
    p = _write(tmp_path, HEAD + body)
    cfg = load(p)
    with pytest.raises(ConfigError) as e:
        TaskStream(stdlib(), cfg.compile)
    assert str(located(e.value, p)).startswith(str(tmp_path / message.split(":", 1)[0]) + ":"
                                               + message.split(":", 1)[1])
