"""`racesc eval --compare A B` on two scripted evaluations (a stub OpenAI-compatible server
that answers right on known samples): the per-cell differences B − A are exactly those
computed here from the scripts, paired where both runs evaluated the same tasks and unpaired
otherwise, and shown as a coloured grid, JSON or a PNG."""

from __future__ import annotations

import json
import math
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from racesl.cli.main import main
from racesl.records import read_records
from tests.support import openai_stub as stubs
from tests.support.openai_stub import Texts
from tests.support.tasks import TOY, wrap

openai_stub = stubs.openai_stub  # the stub server's fixture

SAMPLES, K = 4, 2


@pytest.fixture(scope="module")
def tasks(tmp_path_factory):
    d = tmp_path_factory.mktemp("cmptasks")
    (d / "shop.races").write_text(TOY, encoding="utf-8")
    assert main(["compile", str(d / "shop.races"), "-n", "30", "-o", str(d / "tasks.jsonl"), "--seed", "5", "-q",
                 "--no-audit", "--operators", "sequential=2-3,loop=2-3,sort=2"]) == 0
    return d / "tasks.jsonl", read_records(d / "tasks.jsonl")


def stub_for(openai_stub, records, right: dict[str, int]):
    by_prompt = {r["prompt"]: r for r in records}

    def script(body):
        rec = by_prompt[body["messages"][-1]["content"]]
        return Texts(tuple(wrap(rec["answer"]) if j < right[rec["id"]] else "no" for j in range(body["n"])))

    return openai_stub(script)


def evaluate(openai_stub, tasks, right, out, *extra) -> dict:
    path, records = tasks
    stub = stub_for(openai_stub, records, right)
    assert main(["eval", "--endpoint", stub.url, "--tasks", str(path), "--samples", str(SAMPLES), "--k", str(K),
                 "-o", str(out), "-q", "--bootstrap", "300", *extra]) == 0
    return json.loads((out / "results.json").read_text())


def values(c: int, n: int = SAMPLES, k: int = K) -> dict[str, float]:
    return {"pass@1": c / n, "pass@k": 1 - math.comb(n - c, k) / math.comb(n, k), "mean_reward": c / n}


def cell_means(per_task: list[dict], right: dict[str, int], n: int = SAMPLES, k: int = K) -> dict:
    groups: dict = {}
    for t in per_task:
        groups.setdefault((t["operator"], t["size"]), []).append(values(right[t["id"]], n, k))
        groups.setdefault("all", []).append(values(right[t["id"]], n, k))
    return {g: {m: sum(v[m] for v in vs) / len(vs) for m in vs[0]} for g, vs in groups.items()}


def compare_json(capsys, a, b, *extra) -> dict:
    capsys.readouterr()  # (the evaluations' tables)
    rc = main(["eval", "--compare", str(a), str(b), "--json", "--bootstrap", "300", *extra])
    out, err = capsys.readouterr()
    assert rc == 0, err
    return json.loads(out)


def check_differences(cmp: dict, want_a: dict, want_b: dict) -> None:
    for c in cmp["cells"]:
        cell = (c["operator"], c["size"])
        for m in ("pass@1", "pass@k", "mean_reward"):
            got = c[m]
            assert got["a"] == pytest.approx(want_a[cell][m], abs=1e-12)
            assert got["b"] == pytest.approx(want_b[cell][m], abs=1e-12)
            assert got["diff"] == pytest.approx(want_b[cell][m] - want_a[cell][m], abs=1e-12), (cell, m)
            assert got["ci"][0] - 1e-12 <= got["diff"] <= got["ci"][1] + 1e-12
    for m in ("pass@1", "pass@k", "mean_reward"):
        assert cmp["all"][m]["diff"] == pytest.approx(want_b["all"][m] - want_a["all"][m], abs=1e-12)


def test_paired_differences_are_exact(tasks, openai_stub, tmp_path, capsys):
    _, records = tasks
    ids = sorted(r["id"] for r in records)
    right_a = {i: j % 3 for j, i in enumerate(ids)}  # 0..2 of 4 right
    right_b = {i: min(SAMPLES, c + (j % 2) * 2) for j, (i, c) in enumerate(right_a.items())}  # B never worse
    a = evaluate(openai_stub, tasks, right_a, tmp_path / "a")
    b = evaluate(openai_stub, tasks, right_b, tmp_path / "b")
    cmp = compare_json(capsys, tmp_path / "a" / "results.json", tmp_path / "b")  # a file or its folder
    assert cmp["k"] == K and cmp["command"] == "compare"
    assert all(c["paired"] and c["common"] == c["tasks_a"] == c["tasks_b"] for c in cmp["cells"])
    assert cmp["all"]["paired"] and cmp["all"]["common"] == len(records)
    check_differences(cmp, cell_means(a["per_task"], right_a), cell_means(b["per_task"], right_b))
    # paired: every task's B − A is >= 0, so no resample can give a negative difference; an
    # unpaired bootstrap of the same runs would reach below 0 where a cell varies
    for c in [*cmp["cells"], cmp["all"]]:
        assert c["pass@1"]["ci"][0] >= 0.0
    assert cmp["all"]["pass@1"]["ci"][0] > 0.0
    again = compare_json(capsys, tmp_path / "a", tmp_path / "b")
    assert again["cells"] == cmp["cells"]  # seeded


def test_unpaired_cells_and_a_smaller_k(tasks, openai_stub, tmp_path, capsys):
    _, records = tasks
    right = {r["id"]: (len(r["prompt"]) % (SAMPLES + 1)) for r in records}
    a = evaluate(openai_stub, tasks, right, tmp_path / "a", "--n", "12", "--seed", "1")
    # B: other tasks (another seed picks others), 6 samples and k = 3: compared at k = 2
    path, _ = tasks
    stub = stub_for(openai_stub, records, right)
    assert main(["eval", "--endpoint", stub.url, "--tasks", str(path), "--samples", "6", "--k", "3", "--n", "12",
                 "--seed", "2", "-o", str(tmp_path / "b"), "-q", "--bootstrap", "300"]) == 0
    b = json.loads((tmp_path / "b" / "results.json").read_text())
    cmp = compare_json(capsys, tmp_path / "a", tmp_path / "b")
    assert cmp["k"] == 2
    ids_a = {(t["operator"], t["size"]): {x["id"] for x in a["per_task"] if (x["operator"], x["size"]) ==
                                          (t["operator"], t["size"])} for t in a["per_task"]}
    ids_b = {(t["operator"], t["size"]): {x["id"] for x in b["per_task"] if (x["operator"], x["size"]) ==
                                          (t["operator"], t["size"])} for t in b["per_task"]}
    for c in cmp["cells"]:
        cell = (c["operator"], c["size"])
        assert c["paired"] == (ids_a[cell] == ids_b[cell])
        assert c["common"] == len(ids_a[cell] & ids_b[cell])
    assert any(not c["paired"] for c in cmp["cells"]) and not cmp["all"]["paired"]
    right_b = {i: min(c, 6) for i, c in right.items()}
    want_b = cell_means(b["per_task"], right_b, n=6, k=2)
    check_differences(cmp, cell_means(a["per_task"], right), want_b)


def test_table_heatmap_and_plot(tasks, openai_stub, tmp_path, capsys):
    _, records = tasks
    none = {r["id"]: 0 for r in records}
    every = {r["id"]: SAMPLES for r in records}
    evaluate(openai_stub, tasks, none, tmp_path / "a")
    evaluate(openai_stub, tasks, every, tmp_path / "b")
    png = tmp_path / "diff.png"
    capsys.readouterr()
    rc = main(["eval", "--compare", str(tmp_path / "a"), str(tmp_path / "b"), "--plot", str(png),
               "--metric", "mean_reward"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert "mean reward: B − A" in out and "+1.000" in out and "size 2" in out and "sequential" in out
    assert "all tasks: mean reward A 0.000, B 1.000, B − A +1.000 [+1.000, +1.000] (paired" in out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_compare_refusals_are_one_line(tasks, openai_stub, tmp_path, capsys, monkeypatch):
    _, records = tasks
    evaluate(openai_stub, tasks, {r["id"]: 1 for r in records}, tmp_path / "a")
    good = tmp_path / "a" / "results.json"
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"accuracy": 0.5, "cells": []}))
    (tmp_path / "bad.json").write_text("{nope")
    cases = [
        ([str(good), str(tmp_path / "missing.json")], "missing.json: no such results file"),
        ([str(good), str(tmp_path / "bad.json")], "bad.json: not JSON"),
        ([str(old), str(good)], "has no per-task results"),
        ([str(good), str(good), "--tasks", "t.jsonl"], "give no MODEL, --tasks or --endpoint"),
    ]
    capsys.readouterr()
    for argv, says in cases:
        rc = main(["eval", "--compare", *argv])
        err = capsys.readouterr().err
        assert rc == 2 and says in err and err.count("\n") == 1 and "Traceback" not in err, (argv, err)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if not installed
    rc = main(["eval", "--compare", str(good), str(good), "--plot", str(tmp_path / "p.png")])
    err = capsys.readouterr().err
    assert rc == 2 and "--plot needs matplotlib" in err and "pip install -e '.[plot]'" in err
    assert not (tmp_path / "p.png").exists()


# ------------------------------------------------------------ hostile results files (issue 44)


def _row(i: int = 0, **kw) -> dict:
    return {"id": f"t{i}", "operator": "sequential", "size": 2, "n": 4, "correct": 1, "reward": 0.25,
            "prompt": "abc", **kw}


HOSTILE = [
    ({"k": "many", "per_task": [_row()]}, '"k" must be a whole number of at least 1, not "many"'),
    ({"k": -3, "per_task": [_row()]}, '"k" must be a whole number of at least 1, not -3'),
    ({"k": 2.5, "per_task": [_row()]}, '"k" must be a whole number'),
    ({"k": True, "per_task": [_row()]}, '"k" must be a whole number'),
    ({"k": 5, "per_task": [_row()]}, '"k" is 5, but a task has only 4 samples'),
    ({"k": [], "per_task": [_row()]}, '"k" must be a whole number of at least 1, not list'),
    ({"k": 1, "per_task": [_row(n=0)]}, 'per_task row 1: "n" must be a whole number from 1'),
    ({"k": 1, "per_task": [_row(n=10**12)]}, 'per_task row 1: "n" must be a whole number from 1'),
    ({"k": 1, "per_task": [_row(correct=5)]}, '"correct" must be a whole number from 0 to n (4)'),
    ({"k": 1, "per_task": [_row(reward="x")]}, '"reward" must be a number from 0 to 1'),
    ({"k": 1, "per_task": [_row(), _row()]}, "per_task rows 1 and 2 are both task 't0'"),
    ({"k": 1, "per_task": [7]}, "per_task row 1 is not an object"),
    ({"k": 1, "per_task": [_row(size=None)]}, '"size" must be'),
    ({"k": 1, "per_task": [{"id": "t"}]}, 'no "operator"'),
    ({"k": 1, "per_task": [_row(prompt={"a": 1})]}, '"prompt" must be a string'),
    ({"k": 1, "model": ["m"], "per_task": [_row()]}, '"model" must be a string or null'),
]


@pytest.mark.parametrize("data, says", HOSTILE, ids=[s[:30] for _, s in HOSTILE])
def test_hostile_results_files_are_one_line(tmp_path, capsys, data, says):
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"k": 1, "per_task": [_row()]}))
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    rc = main(["eval", "--compare", str(good), str(bad)])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith(f"racesc: error: {bad}") and says in err, err


@pytest.mark.parametrize("text, says", [
    ('{"k": 1e400, "per_task": []}', "out of range"),
    ("[" * 100_000 + "]" * 100_000, "nested"),
    ('{"k": 1, "k": 2}', "appears twice"),
    ('{"k": NaN}', "NaN is no JSON value"),
])
def test_json_that_no_results_file_holds(tmp_path, capsys, text, says):
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"k": 1, "per_task": [_row()]}))
    bad = tmp_path / "bad.json"
    bad.write_text(text)
    rc = main(["eval", "--compare", str(good), str(bad)])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and says in err and "Traceback" not in err, err


def test_a_fifo_is_refused_without_being_opened(tmp_path, capsys):
    import os

    good = tmp_path / "good.json"
    good.write_text(json.dumps({"k": 1, "per_task": [_row()]}))
    os.mkfifo(tmp_path / "fifo")
    rc = main(["eval", "--compare", str(good), str(tmp_path / "fifo")])  # (opening it would block: no writer)
    err = capsys.readouterr().err
    assert rc == 2 and "is a FIFO" in err and err.count("\n") == 1, err


_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
                     | st.text(max_size=5),
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
                     max_leaves=12)
_FIELDS = ("id", "operator", "size", "n", "correct", "reward", "prompt")


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(top=st.fixed_dictionaries({}, optional={"k": _JSON, "model": _JSON, "per_task": _JSON}),
       rows=st.lists(st.fixed_dictionaries({}, optional={f: _JSON for f in _FIELDS}) | _JSON, max_size=3),
       good_rows=st.booleans())
def test_any_json_shape_is_one_line_or_a_comparison(tmp_path_factory, top, rows, good_rows):
    """Any JSON in a results file: `racesc eval --compare` exits 2 with one line naming the
    file, or compares (exit 0, a JSON object)."""
    import contextlib
    import io

    d = tmp_path_factory.mktemp("cmp")
    good = d / "good.json"
    good.write_text(json.dumps({"k": 1, "per_task": [_row()]}))
    data = dict(top)
    if good_rows:
        data["per_task"] = [_row(i) for i in range(2)] + rows
    (d / "b.json").write_text(json.dumps(data))
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(["eval", "--compare", str(good), str(d / "b.json"), "--json", "--bootstrap", "20"])
    if rc == 0:
        res = json.loads(out.getvalue())
        assert res["command"] == "compare" and err.getvalue() == ""
    else:
        e = err.getvalue()
        assert rc == 2 and e.count("\n") == 1 and e.startswith(f"racesc: error: {d / 'b.json'}"), e
