"""Every reader of task files (audit, eval, serve, score) refuses a malformed record the same
way: one line, `FILE:N: why`, exit 2 (serve: 1, its start-up failures), no traceback. The
rows are checked in one place, racesl.records.read_task_records."""

from __future__ import annotations

import json

import pytest

from racesl.cli.main import main

GOOD = {"id": "races-0-000000", "operator": "loop", "size": 2, "chain": ["m.a"], "settings": [{}], "input": "4",
        "trace": ["[1]", "[1, 2]"], "prompt": "p", "answer": "[1, 2]", "steps": 2, "level": 1, "seed": 0,
        "library": "sha256:none", "extra": {"times": 2}}


def _without(key):
    return {k: v for k, v in GOOD.items() if k != key}


# (the second line of the file, what the refusal says after `t.jsonl:2: `)
BAD = {
    "no size": (json.dumps(_without("size")), 'the record has no "size" (a whole number)'),
    "no extra": (json.dumps(_without("extra")), 'the record has no "extra" (an object)'),
    "size four": (json.dumps(dict(GOOD, size="four")), 'the record\'s "size" is a string, not a whole number'),
    "size true": (json.dumps(dict(GOOD, size=True)), 'the record\'s "size" is a boolean, not a whole number'),
    "size 0": (json.dumps(dict(GOOD, size=0)), 'the record\'s "size" is 0, not at least 1'),
    "extra list": (json.dumps(dict(GOOD, extra=[])), 'the record\'s "extra" is an array, not an object'),
    "trace ints": (json.dumps(dict(GOOD, trace=[1, 2])), 'the record\'s "trace" is not a list of strings'),
    "sort without candidates": (json.dumps(dict(GOOD, operator="sort", extra={"target": "1"})),
                                'the record\'s "extra" has no "candidates"'),
    "an array": ("[1, 2]", "the record is not a JSON object but an array"),
    "not json": ("{broken", "not JSON: Expecting property name enclosed in double quotes (column 2)"),
}


def _refusal(capsys, argv) -> tuple[int, str]:
    rc = main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return rc, lines[0]


@pytest.mark.parametrize("case", list(BAD))
def test_audit_eval_serve_and_score_refuse_a_bad_row_alike(tmp_path, capsys, case):
    line, why = BAD[case]
    tasks = tmp_path / "t.jsonl"
    tasks.write_text(json.dumps(GOOD) + "\n" + line + "\n", encoding="utf-8")
    (tmp_path / "c.jsonl").write_text("")
    want = f"racesc: error: {tasks}:2: {why}"
    got = {
        "audit": _refusal(capsys, ["audit", str(tasks)]),
        "score": _refusal(capsys, ["score", str(tasks), str(tmp_path / "c.jsonl")]),
    }
    if _has("torch") and _has("transformers"):
        got["eval"] = _refusal(capsys, ["eval", str(tmp_path / "no-model"), "--tasks", str(tasks),
                                        "-o", str(tmp_path / "ev")])
    if _has("aiohttp"):
        got["serve"] = _refusal(capsys, ["serve", str(tasks), "--port", "0"])
    for command, (rc, text) in got.items():
        assert text.startswith(want), (command, text)
        assert rc == (1 if command == "serve" else 2), command


def test_a_parquet_row_is_named_by_its_row(tmp_path, capsys):
    from racesl.records import write_parquet

    write_parquet([GOOD, dict(GOOD, id="races-0-000001", size=0)], tmp_path / "t.parquet")
    rc, text = _refusal(capsys, ["audit", str(tmp_path / "t.parquet")])
    assert rc == 2 and text == f'racesc: error: {tmp_path / "t.parquet"}:2: the record\'s "size" is 0, not at least 1'


def test_a_fifo_as_the_task_file_is_refused_unopened(tmp_path, capsys):
    import os

    os.mkfifo(tmp_path / "t.jsonl")
    (tmp_path / "c.jsonl").write_text("")
    for argv in (["audit", str(tmp_path / "t.jsonl")], ["score", str(tmp_path / "t.jsonl"), str(tmp_path / "c.jsonl")]):
        rc, text = _refusal(capsys, argv)
        assert rc == 2 and "a FIFO, not a task file" in text


def _has(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None
