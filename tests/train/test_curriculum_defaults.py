"""Curriculum defaults: off unless a [curriculum] section asks for it, the documented
defaults are the code's, every decision lands in curriculum.jsonl as a whole line, and the
tiny config makes a move."""

import json
import re
import tomllib

import attrs

from racesl.curriculum import Curriculum, CurriculumConfig, append_decisions
from racesl.train.config import load, parse
from racesl.train.trainer import grpo_kwargs, start_curriculum_log

from .conftest import ROOT, TRAIN_DIR


def test_off_unless_a_section_asks():
    assert CurriculumConfig().enabled is False
    # before: a file source with no [curriculum] trained only on size-2 tasks
    cfg = parse({"data": {"source": "file", "tasks": "t.jsonl"}}, ROOT)
    assert not cfg.curriculum.enabled
    assert "shuffle_dataset" not in grpo_kwargs(cfg)  # a plain dataset: no stream, no max_steps needed
    assert parse({"curriculum": {"window": 8}}, ROOT).curriculum.enabled
    assert parse({"curriculum": {"enabled": True}}, ROOT).curriculum.enabled
    assert not parse({"curriculum": {"enabled": False, "window": 8}}, ROOT).curriculum.enabled
    assert not load(TRAIN_DIR / "paper.toml").curriculum.enabled


def test_the_documented_defaults_are_the_codes():
    text = (ROOT / "docs" / "training.md").read_text(encoding="utf-8")
    block = re.search(r"```toml\n(\[curriculum\]\n.*?)```", text, re.S).group(1)
    documented = tomllib.loads(block)["curriculum"]
    defaults = attrs.asdict(CurriculumConfig())
    assert set(documented) == set(defaults)
    assert {k: v for k, v in documented.items() if k != "enabled"} == {
        k: v for k, v in defaults.items() if k != "enabled"}
    assert documented["window"] == 128


def _zeros(cur, op, n):
    for _ in range(n):
        cur.observe(op, cur.rung(op).index, 0.0)


def test_every_decision_is_a_line(tmp_path):
    cur = Curriculum([("sort", 2, 4)], config=CurriculumConfig(window=4, start=1))
    log = tmp_path / "run" / "curriculum.jsonl"
    start_curriculum_log(log, resume=False)
    assert log.read_text() == ""  # there from the start, even if no window fills
    for step in (1, 2, 3):
        _zeros(cur, "sort", 4 if step != 2 else 3)  # step 2: the window is not full, no decision
        moves = cur.update()
        append_decisions(log, step, cur.decisions)
        assert len(moves) == (1 if step == 1 else 0)
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    assert [(d["step"], d["move"], d["from_size"], d["to_size"]) for d in lines] == [
        (1, "down", 3, 2), (3, "stay", 2, 2)]
    assert lines[0] == {"step": 1, "operator": "sort", "move": "down", "from_size": 3, "to_size": 2,
                        "from_level": None, "to_level": None, "from_rung": 1, "to_rung": 0, "rate": 0.0, "n": 4}
    assert lines[1]["n"] == 7  # the 3 of step 2 and the 4 of step 3
    assert [str(m) for m in cur.history] == ["sort: down to size 2 (size was 3; success 0.00 over 4)"]
    assert str(cur.decisions[0]) == "sort: stays at size 2 (success 0.00 over 7)"


def test_a_resumed_run_appends_a_fresh_one_starts_over(tmp_path):
    log = tmp_path / "curriculum.jsonl"
    log.write_text('{"step": 1}\n')
    start_curriculum_log(log, resume=True)
    assert log.read_text() == '{"step": 1}\n'
    start_curriculum_log(log, resume=False)
    assert log.read_text() == ""


def test_the_tiny_config_moves():
    """tiny.toml promises the smoke test sees moves: a model that solves nothing moves every
    operator down from size 3 once a window of 4 is in (test_smoke checks the real run)."""
    cfg = load(TRAIN_DIR / "tiny.toml")
    assert cfg.curriculum.enabled and cfg.curriculum.window == 4 and cfg.curriculum.start == 1
    cur = Curriculum(cfg.compile.operators, cfg.compile.max_level, cfg.curriculum)
    for op in cur.ops:
        assert cur.rung(op).size == 3
        _zeros(cur, op, cfg.curriculum.window)
    moves = cur.update()
    assert sorted(m.operator for m in moves) == sorted(cur.ops)
    assert all(m.direction == "down" and m.new.size == 2 for m in moves)
