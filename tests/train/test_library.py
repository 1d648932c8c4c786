"""The training stream's library: checked as `racesc compile` checks it, so a library that
compile refuses (a worked example the body disagrees with, E604) never trains."""

from __future__ import annotations

import pytest

from racesl.train.config import load
from racesl.train.trainer import TrainError, load_library

SOURCE = '''\
module third

env third(n: Int where 0 <= it <= 100) -> Int:
    """Divide n by three, rounding down. Example: {claim}."""
    return n // 3
'''


def config(tmp_path, claim: str):
    (tmp_path / "lib").mkdir(exist_ok=True)
    (tmp_path / "lib" / "third.races").write_text(SOURCE.format(claim=claim), encoding="utf-8")
    (tmp_path / "run.toml").write_text('[model]\npath = "m"\n\n[data]\nsource = "stream"\npaths = ["lib"]\n',
                                       encoding="utf-8")
    return load(tmp_path / "run.toml")


def test_a_wrong_worked_example_stops_the_stream_before_training(tmp_path):
    with pytest.raises(TrainError) as e:
        load_library(config(tmp_path, "9 -> 4"))
    text = str(e.value)
    assert "does not hold" in text and "third.races:4:" in text
    assert "E604" in text and "the example says 4, the body returns 3" in text


def test_a_library_whose_examples_hold_loads(tmp_path):
    lib = load_library(config(tmp_path, "9 -> 3"))
    assert list(lib.envs) == ["third.third"]
