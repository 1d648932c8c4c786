"""Scoring survives any input (issue 17, long-lived processes): the reward's caches are
bounded in characters, not entries; `score`, `verdict` and the adapters never raise on junk
completions or records; and `racesc score` gives every bad COMPLETIONS line a warning and an
`error` row, then scores the rest."""

from __future__ import annotations

import json
import time

import pytest

from racesl.cli.main import main
from racesl.rewards import STATUSES, adapters, score, verdict
from racesl.rewards.parse import CACHE_BUDGET, CACHE_MAX_TEXT, MAX_ANSWER, _parse, expected_value
from tests.support.tasks import wrap

SEQ = {"id": "s", "operator": "sequential", "size": 4, "chain": ["m.a", "m.b", "m.c", "m.d"],
       "settings": [{}, {}, {}, {}], "input": "4", "trace": ["5", "'ab'", "[1, 2]", "(3, 'c')"],
       "answer": "[5, 'ab', [1, 2], (3, 'c')]", "library": "sha256:none", "extra": {}}
PAR = dict(SEQ, id="p", operator="parallel", extra={"inputs": ["1", "2", "3", "4"]})
LOOP = dict(SEQ, id="l", operator="loop", size=2, trace=["[1]", "[1, 2]"], answer="[1, 2]")
BRANCH = dict(SEQ, id="b", operator="branch", size=1, trace=["'ab'"], answer="'ab'")
SORT = dict(SEQ, id="o", operator="sort", size=2, answer="A, B",
            extra={"candidates": [{"env": "m.a", "settings": {}}, {"env": "m.b", "settings": {}}], "target": "1"})
RECORDS = [SEQ, PAR, LOOP, BRANCH, SORT]


# ------------------------------------------------------------ the caches

def test_scoring_many_distinct_answers_keeps_the_parse_cache_within_its_budget():
    """6,000 distinct answers of 20 KB grew the entry-bounded cache past 2 GB; the cache now
    holds at most CACHE_BUDGET characters, and answers over CACHE_MAX_TEXT not at all."""
    _parse.cache_clear()
    item = "7" * 300
    n_long = 0
    for k in range(3000):  # distinct answers just under CACHE_MAX_TEXT: all cacheable
        text = "[" + ", ".join([item] * 5) + f", {k}]"
        assert len(text) <= CACHE_MAX_TEXT
        assert 0.0 <= score(LOOP, wrap(text)) <= 1.0
        verdict(SEQ, wrap(text))
        assert _parse.cache_cost() <= CACHE_BUDGET
    assert 0 < _parse.cache_len() < 3000  # the oldest were dropped
    before = _parse.cache_len()
    for k in range(50):  # long answers are read, but never held
        text = "[" + ", ".join([item] * 60) + f", {k}]"
        assert CACHE_MAX_TEXT < len(text) <= MAX_ANSWER
        n_long += score(LOOP, wrap(text)) == 0.0
    assert n_long == 50 and _parse.cache_len() <= before
    assert _parse.cache_cost() <= CACHE_BUDGET and expected_value.cache_cost() <= CACHE_BUDGET


# ------------------------------------------------------------ the Python API

N = MAX_ANSWER - 10
HOSTILE_ANSWERS = {
    "deep_open": "[" * N,
    "deep_closed": "[" * (N // 2) + "]" * (N // 2),
    "deep_parens": "(" * (N // 2) + ")" * (N // 2),
    "deep_dicts": "{1: " * (N // 4),
    "deep_mixed": "[(" * (N // 4) + ")]" * (N // 4),
    "many_commas": "[" + ",".join(["1"] * (N // 2 - 1)) + "]",
    "escaped_quotes": "['" + "\\'" * (N // 2 - 2) + "]",
    "lone_surrogates": "['\ud800', '\udfff', \udc80]",
    "surrogates_bare": "\ud800" * 1000,
    "nul_in_list": "[5, '\x00', 2]",
    "nul_bare": "\x00" * 1000,
    "digits": "9" * N,
    "negative_digits": "[-" + "9" * (N - 3) + "]",
    "huge_exponent": "[1e" + "9" * 1000 + "]",
    "big_ints": "[" + ", ".join(["9" * 600] * 30) + "]",
    "blank_lines": "[\n" + "\n" * (N - 2) + "]",
    "open_lines": "\n".join(["[1"] * (N // 3)),
    "backslashes": "\\" * N,
    "fstrings": "f'{" * (N // 3),
    "labels": "A" * N,
    "label_list": "A, " * (N // 3),
    "unhashable_keys": "{" + ", ".join(f"({i}, [1]): 1" for i in range(500)) + "}",
}


@pytest.mark.parametrize("name", sorted(HOSTILE_ANSWERS))
def test_hostile_answers_score_without_raising(name):
    text = HOSTILE_ANSWERS[name]
    for rec in RECORDS:  # (the first lookup of a missing library builds the stdlib: not the answer's time)
        verdict(rec, wrap(rec["answer"]))
    for rec in RECORDS:
        t = time.perf_counter()
        s = score(rec, wrap(text))
        v = verdict(rec, wrap(text))
        assert 0.0 <= s <= 1.0 and v.score == s, (name, rec["operator"])
        assert v.status in STATUSES and (v.status == "ok" or s == 0.0)
        json.dumps(v.detail, ensure_ascii=True)  # a detail is always text
        assert time.perf_counter() - t < 5, (name, rec["operator"])


JUNK_COMPLETIONS = [None, 5, 2.5, float("nan"), b"<answer>1</answer>", ["a"], {"content": "x"},
                    "x" * 5_000_000, "<answer>" * 200_000 + "</answer>", "</answer>" * 200_000,
                    "\ud800<answer>1</answer>", "<answer>" + "x" * (MAX_ANSWER + 1) + "</answer>"]
JUNK_RECORDS = [{}, {"operator": []}, {"operator": "sequential", "answer": None, "trace": "x"},
                {"operator": "sequential", "answer": "[1]", "trace": [None, 5]},
                {"operator": "loop", "answer": "[" * 5000}, {"operator": "sort", "answer": "A", "library": ["x"]},
                dict(SORT, extra={"candidates": "AB"}), dict(SEQ, trace=[]), None, 5, "record"]


@pytest.mark.parametrize("k", range(len(JUNK_COMPLETIONS)))
def test_junk_completions_and_records_score_zero_with_a_status(k):
    c = JUNK_COMPLETIONS[k]
    for rec in RECORDS + JUNK_RECORDS:
        s, v = score(rec, c), verdict(rec, c)
        assert v.score == s and v.status in STATUSES
        if not isinstance(c, str):
            assert (s, v.status) == (0.0, "error"), (k, rec)
        elif rec in JUNK_RECORDS or rec is SORT:  # (SORT: its library is nowhere)
            assert s == 0.0, (k, rec)


def test_adapters_never_raise_on_junk():
    deep = "[" * 100_000 + "]" * 100_000  # json.loads: RecursionError, not ValueError
    assert adapters.record_from(deep) is None and adapters.record_from('{"a": ' + deep + "}") is None
    out = adapters.compute_score("races", "<answer>1</answer>", "1", {"record": '{"id": ' + deep + "}"})
    assert out["score"] == 0.0 and out["status"] == "error"
    # a record column shorter than the completions, cells that are no records, and chat
    # messages whose content is no text (str() of a 5,000-digit int raises)
    scores = adapters.races_reward(completions=["<answer>1</answer>"] * 3 + [[{"content": 10 ** 5000}]],
                                   record=[json.dumps(LOOP), deep])
    assert scores == [0.0, 0.0, 0.0, 0.0]
    scores = adapters.races_reward(completions=["<answer>[1, 2]</answer>"] * 2, operator=["loop"],
                                   answer=["[1, 2]", "[1]"], trace=[LOOP["trace"]], settings=[deep, deep])
    assert scores == [0.0, 0.0]
    assert adapters.races_reward(completions=[wrap(LOOP["answer"])], record=[LOOP]) == [1.0]


# ------------------------------------------------------------ racesc score

def _junk_lines(rid: str) -> list[tuple[bytes, str]]:
    """(a COMPLETIONS line, what the warning says) for lines that cannot be scored."""
    deep = b"[" * 100_000 + b"]" * 100_000
    return [
        (json.dumps({"id": [1, 2], "completion": "x"}).encode(), '"id" is an array, not a string'),
        (json.dumps({"id": {"a": 1}, "completion": "x"}).encode(), '"id" is an object, not a string'),
        (json.dumps({"id": 1.5, "completion": "x"}).encode(), '"id" is a number, not a string'),
        (json.dumps({"id": None, "completion": "x"}).encode(), '"id" is null, not a string'),
        (json.dumps({"id": True, "completion": "x"}).encode(), '"id" is a boolean, not a string'),
        (deep, "not JSON: nested too deeply"),
        (b'{"id": ' + deep + b', "completion": "x"}', "not JSON: nested too deeply"),
        (b'{"id": "' + rid.encode() + b'", "completion": ' + deep + b"}", "not JSON: nested too deeply"),
        (json.dumps({"id": rid}).encode(), 'no "completion"'),
        (json.dumps({"completion": "y"}).encode(), 'no "id"'),
        (b"{}", 'no "id" and no "completion"'),
        (b"17", "not a JSON object but a number"),
        (b'"text"', "not a JSON object but a string"),
        (b"null", "not a JSON object but null"),
        (b"[1, 2]", "not a JSON object but an array"),
        (b"\xff\xfe junk", "not UTF-8 (byte 1)"),
        (b'{"id": "' + rid.encode() + b'", "completion": "\xc3"}', "not UTF-8"),
        (b'{"id": 1' + b"9" * 5000 + b', "completion": "x"}', "not JSON: a number with too many digits"),
        (b'{"id": NaN, "completion": "x"}', "not JSON: NaN is no JSON value"),
        (b'{"id": "' + rid.encode() + b'", "completion": Infinity}', "not JSON: Infinity is no JSON value"),
        (b'{"id": "' + rid.encode() + b'", "completion": "x"', "not JSON"),
        (b'{"id": "' + rid.encode() + b'", "completion": "\x00"}', "not JSON: Invalid control character"),
    ]


@pytest.fixture(scope="module")
def tasks(tmp_path_factory):
    d = tmp_path_factory.mktemp("hostile-score")
    path = d / "tasks.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in RECORDS), encoding="utf-8")
    return path


def _score_cli(capsys, tasks, tmp_path, lines: list[bytes]):
    c = tmp_path / "c.jsonl"
    c.write_bytes(b"\n".join(lines) + b"\n")
    out = tmp_path / "s.jsonl"
    rc = main(["score", str(tasks), str(c), "-o", str(out)])
    _, err = capsys.readouterr()
    rows = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    return rc, err, rows, c


@pytest.mark.parametrize("k", range(len(_junk_lines("l"))))
def test_score_cli_warns_and_writes_an_error_row_for_each_bad_line(capsys, tasks, tmp_path, k):
    line, why = _junk_lines(LOOP["id"])[k]
    good = json.dumps({"id": LOOP["id"], "completion": wrap(LOOP["answer"])}).encode()
    rc, err, rows, c = _score_cli(capsys, tasks, tmp_path, [good, line, b"", good])
    assert rc == 0 and "Traceback" not in err
    assert f"{c}:2: {why}" in err
    assert [(r["score"], r["status"]) for r in rows] == [(1.0, "ok"), (0.0, "error"), (1.0, "ok")]
    assert rows[1]["detail"].startswith(f"line 2: {why}")
    assert rows[1]["id"] in (None, LOOP["id"])
    assert "1 line of" in err and "could not be read" in err


def test_score_cli_unknown_ids_and_unwritable_ids_get_rows(capsys, tasks, tmp_path):
    lines = [json.dumps({"id": "nosuch", "completion": "x"}).encode(),
             b'{"id": "\\ud800", "completion": "x"}',  # a lone surrogate: no UTF-8 text as such
             json.dumps({"id": 10 ** 100, "completion": "x"}).encode(),
             json.dumps({"id": SEQ["id"], "completion": "<answer>[5, '\\ud800\\u0000[[</answer>"}).encode(),
             json.dumps({"id": SEQ["id"], "completion": {"a": [1]}}).encode()]
    rc, err, rows, _ = _score_cli(capsys, tasks, tmp_path, lines)
    assert rc == 0 and "Traceback" not in err
    assert [r["id"] for r in rows] == ["nosuch", "\\ud800", 10 ** 100, SEQ["id"], SEQ["id"]]
    assert all(r["score"] == 0.0 for r in rows)
    assert [r["status"] for r in rows[:3]] == ["error"] * 3 and "no task with this id" in rows[0]["detail"]
    assert rows[3]["status"] in STATUSES and rows[4]["status"] == "error"
    assert "3 completions named no task" in err


@pytest.mark.parametrize("bad, why", [
    (dict(LOOP, id="a", size=[2]), '"size" is an array'), (dict(LOOP, id="b", size="3"), '"size" is a string'),
    ({k: v for k, v in LOOP.items() if k != "operator"} | {"id": "d"}, 'has no "operator"')])
def test_score_cli_refuses_records_with_odd_fields(capsys, tmp_path, bad, why):
    """A record edited by hand (a size that is a list or a str, no operator) is refused at its
    line, as every reader of task files refuses it (racesl.records.read_task_records)."""
    recs = [dict(LOOP, id="c", size=2), bad]
    (tmp_path / "t.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    (tmp_path / "c.jsonl").write_text(json.dumps({"id": "c", "completion": "x"}) + "\n", encoding="utf-8")
    rc = main(["score", str(tmp_path / "t.jsonl"), str(tmp_path / "c.jsonl"), "--json"])
    out, err = capsys.readouterr()
    assert rc == 2 and out == "" and "Traceback" not in err
    assert "t.jsonl:2: the record" in err and why in err and len(err.strip().splitlines()) == 1


def test_score_cli_skips_an_overlong_line_without_holding_it(capsys, tasks, tmp_path, monkeypatch):
    from racesl.cli import score as cli_score

    monkeypatch.setattr(cli_score, "MAX_LINE", 1 << 20)
    good = json.dumps({"id": LOOP["id"], "completion": wrap(LOOP["answer"])}).encode()
    long = json.dumps({"id": LOOP["id"], "completion": "x" * (3 << 20)}).encode()
    rc, err, rows, c = _score_cli(capsys, tasks, tmp_path, [long, good])
    assert rc == 0 and f"{c}:1: line over 1 MiB" in err
    assert [(r["score"], r["status"]) for r in rows] == [(0.0, "error"), (1.0, "ok")]


@pytest.mark.parametrize("content, why", [
    (b"[1, 2]\n", "t.jsonl:1: the record is not a JSON object"),
    (b'{"id": [1]}\n', 't.jsonl:1: the record\'s "id" is an array'),
    (b"[" * 100_000 + b"\n", "t.jsonl:1: not JSON: nested too deeply"),
    (b"{broken\n", "t.jsonl:1: not JSON"),
])
def test_score_cli_refuses_a_broken_tasks_file_with_one_line(capsys, tmp_path, content, why):
    (tmp_path / "t.jsonl").write_bytes(content)
    (tmp_path / "c.jsonl").write_text("")
    rc = main(["score", str(tmp_path / "t.jsonl"), str(tmp_path / "c.jsonl")])
    _, err = capsys.readouterr()
    assert rc == 2 and why in err and "Traceback" not in err


# ------------------------------------------------------------ racesc eval (and train): the tasks file

BAD_TASKS = [
    (b"[1, 2]\n", "t.jsonl:1: the record is not a JSON object"),
    (b"[" * 100_000 + b"\n", "t.jsonl:1: not JSON: nested too deeply"),
    (b"{broken\n", "t.jsonl:1: not JSON"),
    (b"\xff\xfe\n", "t.jsonl:1: not UTF-8"),
    (b'{"id": 1' + b"9" * 5000 + b"}\n", "t.jsonl:1: not JSON we can read: a number with too many digits"),
    (json.dumps({k: v for k, v in dict(LOOP, prompt="p").items() if k != "prompt"}).encode() + b"\n",
     't.jsonl:1: the record has no "prompt"'),
    (json.dumps(dict(LOOP, prompt="p")).encode() + b"\n" + json.dumps(dict(LOOP, prompt="p", size="2")).encode(),
     't.jsonl:2: the record\'s "size" is a string'),
    (json.dumps(dict(LOOP, prompt="p", id=[1])).encode(), 't.jsonl:1: the record\'s "id" is an array'),
    (b"\n\n", "holds no tasks"),
]


@pytest.mark.parametrize("k", range(len(BAD_TASKS)))
def test_read_tasks_refuses_a_malformed_tasks_file_with_one_line(tmp_path, k):
    from racesl.rewards.libraries import read_tasks

    content, why = BAD_TASKS[k]
    (tmp_path / "t.jsonl").write_bytes(content)
    with pytest.raises(ValueError, match="t.jsonl") as e:
        read_tasks(tmp_path / "t.jsonl")
    assert why in str(e.value)


def test_eval_refuses_a_malformed_tasks_file_before_loading_a_model(capsys, tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    for content, why in BAD_TASKS:
        (tmp_path / "t.jsonl").write_bytes(content)
        rc = main(["eval", str(tmp_path / "no-such-model"), "--tasks", str(tmp_path / "t.jsonl"),
                   "-o", str(tmp_path / "out")])
        _, err = capsys.readouterr()
        assert rc == 2 and why in err and "Traceback" not in err, (why, err[-500:])
