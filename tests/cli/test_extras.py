"""A command whose extra is not installed says which extra, and how to install it from the
checkout, in one line (exit 2), before importing anything from it: never a
ModuleNotFoundError traceback, never `pip install 'racesl[...]'` (racesl is on no index)."""

from __future__ import annotations

import sys

import pytest

from racesl.cli.main import main
from tests.support.tasks import REPO

CASES = [
    (["serve", "tasks.jsonl"], "aiohttp", "racesc serve needs the serve extra"),
    (["lsp"], "pygls", "racesc lsp needs the lsp extra"),
    (["train", str(REPO / "train" / "tiny.toml")], "trl", "racesc train needs the train extra"),
    (["eval", "model", "--tasks", "tasks.jsonl"], "transformers", "racesc eval needs the train extra"),
    (["compile", "stdlib", "-n", "5", "--format", "hf", "-o", "out.hf"], "datasets", "--format hf needs the hf extra"),
    (["compile", "stdlib", "-n", "5", "--ray", "local", "-o", "t.jsonl"], "ray", "--ray needs the ray extra"),
    (["audit", "tasks.jsonl", "--model", "m"], "torch", "racesc audit --model needs the train extra"),
]


@pytest.mark.parametrize("argv, blocked, says", CASES, ids=[c[1] + "-" + c[0][0] for c in CASES])
def test_a_missing_extra_is_one_line(argv, blocked, says, monkeypatch, capsys, tmp_path):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tasks.jsonl").write_text('{"id": "a", "operator": "sequential", "size": 2, "prompt": "p", '
                                          '"answer": "1"}\n')
    monkeypatch.setitem(sys.modules, blocked, None)  # as if not installed: imports fail, find_spec says None
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and says in err, err
    assert f"({blocked} is not installed)" in err and "pip install -e '.[" in err and "racesl[" not in err
