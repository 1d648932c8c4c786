"""Every `racesc` command of docs/integrations.md runs as written (from a fresh folder) and
writes what the page says it writes; the rows it makes are read back by the hub's own
reader here. (The `vf-eval` command runs in test_verifiers.py.)"""

from __future__ import annotations

import json
import re
import shlex

from racesl.integrations import nemo_gym
from racesl.records import read_records
from tests.integrations.conftest import ROOT
from tests.support.tasks import run_racesc

DOC = ROOT / "docs" / "integrations.md"


def doc_commands(program: str) -> list[list[str]]:
    """The `program …` lines of the page's sh blocks, as argument lists (comments cut)."""
    blocks = re.findall(r"```sh\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.DOTALL)
    lines = [ln for b in blocks for ln in b.replace("\\\n", " ").splitlines()]
    return [shlex.split(ln, comments=True) for ln in lines if ln.startswith(program + " ")]


def test_the_racesc_commands_run_as_written(tmp_path):
    commands = doc_commands("racesc")
    outputs = [c[c.index("-o") + 1] for c in commands if c[1] == "compile"]
    assert len(commands) == 3 and outputs == ["data/train.jsonl", "data/races.hf", "data/races_skyrl.parquet"]
    for cmd in commands:
        run_racesc(*cmd[1:], cwd=tmp_path, timeout=600)
    rows = [json.loads(line) for line in (tmp_path / "data" / "train.jsonl").read_text().splitlines()]
    assert len(rows) == 5000 and not any(nemo_gym.row_problems(r) for r in rows[:200])
    assert (tmp_path / "data" / "train.jsonl.library.json").is_file()
    assert (tmp_path / "data" / "races.hf" / "library.json").is_file()
    assert len(read_records(tmp_path / "data" / "races_skyrl.parquet")) == 5000
