"""`racesc score TASKS COMPLETIONS [-o SCORES]`: `{"id", "score", "status", "detail"}` rows
(only with -o; one per non-blank line) and a summary (mean score by operator and size, and
the count of each status); unknown ids and unreadable lines are counted, not fatal, get an
`error` row, and unreadable lines are named by their line number. `--json` is in
tests/cli/test_json.py; hostile lines in tests/rewards/test_hostile_input.py."""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import subprocess

import pytest

from racesl.library import load
from racesl.records import read_records
from racesl.rewards import STATUSES
from tests.support.tasks import RACESC, TOY, oracle_reaches, run_racesc, wrap


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    d = tmp_path_factory.mktemp("scorecmd")
    (d / "shop.races").write_text(TOY, encoding="utf-8")
    run_racesc("compile", d / "shop.races", "-n", 60, "-o", d / "tasks.jsonl", "-q",
               "--operators", "sequential=2-3,sort=2-3,select=2-3,loop=2-3",
               "--filter", "sort_orders=1", cwd=d)  # keep sorts that other orders solve: re-executed answers
    records = read_records(d / "tasks.jsonl")
    lib = load([d / "shop.races"])
    assert lib.hash == records[0]["library"]
    rows, want = [], {}

    def add(rid, completion, score):
        rows.append({"id": rid, "completion": completion})
        want.setdefault(rid, []).append(score)

    # one of each failing status, before the rest: no block, unparsable, wrong type
    first = {r["operator"]: r for r in records}
    add(first["sequential"]["id"], "I could not finish.", 0.0)
    add(first["loop"]["id"], wrap("about ten"), 0.0)
    add(first["sort"]["id"], wrap("Z"), 0.0)

    reexec = 0
    for r in records:
        add(r["id"], wrap(r["answer"]), 1.0)
        if r["operator"] == "sequential":
            add(r["id"], wrap("[" + r["trace"][0] + ", 'x']"), 1 / len(r["trace"]))
        elif r["operator"] == "loop":
            add(r["id"], wrap(r["trace"][-2]), 0.0)
        else:
            labels = r["answer"].split(", ")
            for p in itertools.permutations(labels):
                if list(p) != labels:
                    add(r["id"], wrap(" ".join(p)), 1.0 if oracle_reaches(lib, r, list(p)) else 0.0)
                    reexec += want[r["id"]][-1] == 1.0
                    break
    assert reexec > 0, "no order/selection other than the recorded one reaches a target"
    junk = ['{"id": "races-9-999999", "completion": "<answer>1</answer>"}', "not json", '{"id": "x"}',
            '{"completion": "y"}', "", "[1, 2]"]
    with open(d / "completions.jsonl", "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")
        for line in junk:
            f.write(line + "\n")
    return d, records, rows, want


def test_scores_to_file(compiled):
    d, records, rows, want = compiled
    p = run_racesc("score", d / "tasks.jsonl", d / "completions.jsonl", "-o", d / "scores.jsonl", cwd=d)
    got = [json.loads(line) for line in (d / "scores.jsonl").read_text().splitlines()]
    # one row per non-blank line, in order: the junk lines last, each an error row naming its line
    got, junk = got[:len(rows)], got[len(rows):]
    assert [g["id"] for g in got] == [r["id"] for r in rows]
    assert all(set(g) == {"id", "score", "status", "detail"} for g in got + junk)
    k = len(rows)
    assert [(j["id"], j["score"], j["status"], j["detail"].split(":")[0]) for j in junk] == [
        ("races-9-999999", 0.0, "error", f"line {k + 1}"), (None, 0.0, "error", f"line {k + 2}"),
        ("x", 0.0, "error", f"line {k + 3}"), (None, 0.0, "error", f"line {k + 4}"),
        (None, 0.0, "error", f"line {k + 6}")]
    assert "no task with this id" in junk[0]["detail"] and 'no "completion"' in junk[2]["detail"]
    assert all(g["status"] in STATUSES and (g["status"] == "ok" or g["score"] == 0.0) for g in got)
    assert [(g["status"], g["score"]) for g in got[:3]] == [("no_answer", 0.0), ("unparsable", 0.0),
                                                           ("wrong_type", 0.0)]
    assert "label Z is not a candidate" in got[2]["detail"]
    assert {g["status"] for g in got[3:]} == {"ok"}
    by_id: dict = {}
    for g in got:
        by_id.setdefault(g["id"], []).append(g["score"])
    assert by_id == want
    # the table: one row per (operator, size), on stdout when the scores go to a file; the
    # count and the mean are those of every row written, the five junk rows (error, 0) too
    n_all = len(rows) + 5
    mean = sum(g["score"] for g in got) / n_all
    assert f"mean score of {n_all} completions: {mean:.3f} (5 not judged: error, scored 0)" in p.stdout
    for op in {r["operator"] for r in records}:
        assert op in p.stdout
    # the status counts: every status, with its count (the junk rows counted as error)
    assert f"status of {n_all} completions" in p.stdout
    counts = {s: sum(g["status"] == s for g in got + junk) for s in STATUSES}
    assert counts["ok"] == len(rows) - 3 and counts["error"] == 5
    for status, n in counts.items():
        assert re.search(rf"^\W*{status}\W+{n}\W+{n / n_all:.3f}\W*$", p.stdout, re.M), (status, p.stdout)
    assert "could not be judged" not in p.stderr
    # an unknown id and four unreadable lines (junk list minus the blank line and the unknown id),
    # each of those by its line number and why
    assert f"1 completion named no task in {d / 'tasks.jsonl'}" in p.stderr
    assert f"4 lines of {d / 'completions.jsonl'} could not be read" in p.stderr
    k = len(rows)  # the junk starts on line k + 1
    c = d / "completions.jsonl"
    for line, why in ((k + 2, "not JSON: Expecting value (column 1)"), (k + 3, 'no "completion"'),
                      (k + 4, 'no "id"'), (k + 6, "not a JSON object but an array")):
        assert f"{c}:{line}: {why}\n" in p.stderr, (line, p.stderr)
    assert f"{c}:{k + 1}:" not in p.stderr and f"{c}:{k + 5}:" not in p.stderr  # unknown id, blank


def test_no_rows_without_output(compiled):
    """Without -o only the summary is printed (on stdout); with `-o -` the rows go to stdout
    and the summary to stderr."""
    d, _, rows, _ = compiled
    p = run_racesc("score", d / "tasks.jsonl", d / "completions.jsonl", cwd=d)
    assert f"mean score of {len(rows) + 5} completions" in p.stdout  # (the five junk lines' rows too)
    assert '"status"' not in p.stdout and '"id"' not in p.stdout
    assert not any(line.startswith("{") for line in p.stdout.splitlines())
    p = run_racesc("score", d / "tasks.jsonl", d / "completions.jsonl", "-o", "-", cwd=d)
    lines = [json.loads(x) for x in p.stdout.splitlines() if x.strip()]
    assert len(lines) == len(rows) + 5  # and a row for each of the five junk lines that are not blank
    assert "mean score" in p.stderr and "mean score" not in p.stdout
    p = run_racesc("score", d / "tasks.jsonl", d / "completions.jsonl", "-o", "-", "--json", cwd=d, check=False)
    assert p.returncode == 2 and "--json" in p.stderr


def test_completions_from_stdin(compiled, tmp_path):
    """`-` reads COMPLETIONS from standard input, as `racesc run --inputs -` does; a bad line
    there is reported as <stdin>:N."""
    d, _, rows, _ = compiled
    text = (d / "completions.jsonl").read_text(encoding="utf-8")
    p = subprocess.run([RACESC, "score", str(d / "tasks.jsonl"), "-", "-o", str(tmp_path / "s.jsonl")],
                       input=text, capture_output=True, text=True, cwd=tmp_path, timeout=120,
                       env=dict(os.environ, NO_COLOR="1", COLUMNS="200"))
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "s.jsonl").read_text() == run_racesc(
        "score", d / "tasks.jsonl", d / "completions.jsonl", "-o", "-", cwd=d).stdout
    assert f"<stdin>:{len(rows) + 2}: not JSON" in p.stderr
    assert "4 lines of <stdin> could not be read" in p.stderr


def test_many_bad_lines_are_cut_short(compiled, tmp_path):
    """A handful of unreadable lines are shown by number, the rest counted; a completion that
    is not text is no unreadable line: it scores 0, with a status."""
    d, records, *_ = compiled
    rid = records[0]["id"]
    lines = ["oops"] * 9 + [json.dumps({"id": rid, "completion": None}), json.dumps({"id": rid, "completion": 7})]
    (tmp_path / "c.jsonl").write_text("\n".join(lines) + "\n")
    p = run_racesc("score", d / "tasks.jsonl", tmp_path / "c.jsonl", "-o", tmp_path / "s.jsonl", cwd=tmp_path)
    shown = [n for n in range(1, 12) if f"c.jsonl:{n}: not JSON" in p.stderr]
    assert shown == [1, 2, 3, 4, 5]
    assert "and 4 more unreadable lines" in p.stderr
    assert "9 lines of" in p.stderr
    got = [json.loads(x) for x in (tmp_path / "s.jsonl").read_text().splitlines()]
    assert [(g["id"], g["score"], g["status"]) for g in got] == [(None, 0.0, "error")] * 9 + [(rid, 0.0, "error")] * 2
    assert got[8]["detail"].startswith("line 9: not JSON") and "not str" in got[9]["detail"]


def test_library_option(compiled, tmp_path):
    """Without the sidecar beside TASKS, re-executed answers need --library; with neither,
    they score 0 and nothing fails."""
    d, _, rows, want = compiled
    shutil.copy(d / "tasks.jsonl", tmp_path / "tasks.jsonl")
    shutil.copy(d / "completions.jsonl", tmp_path / "c.jsonl")
    shutil.copy(d / "tasks.jsonl.library.json", tmp_path / "lib.json")
    run_racesc("score", tmp_path / "tasks.jsonl", tmp_path / "c.jsonl", "-o", tmp_path / "with.jsonl",
               "--library", tmp_path / "lib.json", cwd=tmp_path)
    run_racesc("score", tmp_path / "tasks.jsonl", tmp_path / "c.jsonl", "-o", tmp_path / "without.jsonl",
               cwd=tmp_path, env={"RACESL_LIBRARY_PATH": ""})
    w = [json.loads(x)["score"] for x in (tmp_path / "with.jsonl").read_text().splitlines()][:len(rows)]
    wo = [json.loads(x)["score"] for x in (tmp_path / "without.jsonl").read_text().splitlines()][:len(rows)]
    expected = []
    seen: dict = {}
    for r in rows:
        k = seen.get(r["id"], 0)
        expected.append(want[r["id"]][k])
        seen[r["id"]] = k + 1
    assert w == expected
    assert sum(wo) < sum(w)  # other orders/selections cannot be checked without the library
    assert all(b <= a for a, b in zip(w, wo))
    # without it, every sort and select completion is library_missing, the recorded answers
    # too (they used to score 1: a silent exact-match fallback), and the summary says so
    records = {r["id"]: r for r in read_records(tmp_path / "tasks.jsonl")}
    rows_wo = [json.loads(x) for x in (tmp_path / "without.jsonl").read_text().splitlines()][:len(rows)]
    for r in rows_wo:
        if records[r["id"]]["operator"] in ("sort", "select"):
            assert (r["score"], r["status"]) == (0.0, "library_missing"), r
        else:
            assert r["status"] != "library_missing"
    n_missing = sum(r["status"] == "library_missing" for r in rows_wo)
    p = run_racesc("score", tmp_path / "tasks.jsonl", tmp_path / "c.jsonl", cwd=tmp_path,
                   env={"RACESL_LIBRARY_PATH": ""})
    assert f"{n_missing} completions could not be judged" in p.stderr and "--library" in p.stderr


def test_bad_inputs(compiled, tmp_path):
    d, *_ = compiled
    p = run_racesc("score", tmp_path / "missing.jsonl", d / "completions.jsonl", cwd=tmp_path, check=False)
    assert p.returncode == 2 and "cannot read tasks" in p.stderr
    (tmp_path / "side.json").write_text("{}")
    p = run_racesc("score", d / "tasks.jsonl", d / "completions.jsonl", "--library", tmp_path / "side.json",
                   cwd=tmp_path, check=False)
    assert p.returncode == 2 and f"racesc: error: {tmp_path / 'side.json'}: not a racesl library" in p.stderr
    assert "Traceback" not in p.stderr


def test_missing_or_undecodable_completions(compiled, tmp_path):
    """A missing COMPLETIONS file is a usage error (exit 2 and a message, like a missing
    TASKS file), and a line that is not UTF-8 is an unreadable line, counted like the others.
    Today score.py opens COMPLETIONS outside any try: both end in a Python traceback."""
    d, records, *_ = compiled
    p = run_racesc("score", d / "tasks.jsonl", tmp_path / "missing.jsonl", cwd=tmp_path, check=False)
    assert (p.returncode, "Traceback" in p.stderr) == (2, False), p.stderr[-400:]
    assert "missing.jsonl" in p.stderr
    good = json.dumps({"id": records[0]["id"], "completion": wrap(records[0]["answer"])})
    (tmp_path / "c.jsonl").write_bytes(b"\xff\xfe{}\n" + good.encode() + b"\n")
    p = run_racesc("score", d / "tasks.jsonl", tmp_path / "c.jsonl", "-o", "-", cwd=tmp_path, check=False)
    assert (p.returncode, "Traceback" in p.stderr) == (0, False), p.stderr[-400:]
    assert f"{tmp_path / 'c.jsonl'}:1: not UTF-8 (byte 1)" in p.stderr
    assert [json.loads(x) for x in p.stdout.splitlines()] == [
        {"id": None, "score": 0.0, "status": "error", "detail": "line 1: not UTF-8 (byte 1)"},
        {"id": records[0]["id"], "score": 1.0, "status": "ok", "detail": "right"}]


def test_a_row_naming_no_task_is_counted_in_the_summary(compiled, tmp_path):
    """Issue 50: nine right answers and a row whose id names no task. The row is written
    `error` (score 0), and the summary counts it: ten completions, error 1, mean 0.9."""
    d, records, *_ = compiled
    lines = [json.dumps({"id": r["id"], "completion": wrap(r["answer"])}) for r in records[:9]]
    lines.append(json.dumps({"id": "races-9-nosuch", "completion": wrap("1")}))
    (tmp_path / "c.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    p = run_racesc("score", d / "tasks.jsonl", tmp_path / "c.jsonl", "-o", tmp_path / "s.jsonl", cwd=tmp_path)
    rows = [json.loads(x) for x in (tmp_path / "s.jsonl").read_text().splitlines()]
    assert [r["status"] for r in rows] == ["ok"] * 9 + ["error"]
    assert "mean score of 10 completions: 0.900 (1 not judged: error, scored 0)" in p.stdout, p.stdout
    assert re.search(r"^\W*error\W+1\W+0\.100\W*$", p.stdout, re.M), p.stdout
    assert re.search(r"^\W*ok\W+9\W+0\.900\W*$", p.stdout, re.M), p.stdout
    s = json.loads(run_racesc("score", d / "tasks.jsonl", tmp_path / "c.jsonl", "--json", cwd=tmp_path).stdout)
    assert (s["n"], s["judged"], s["mean"], s["statuses"]["error"], s["unknown_ids"]) == (10, 9, 0.9, 1, 1)
