"""`--json` on compile, score, check and eval: one JSON object on stdout (its keys in
docs/compile.md and docs/training.md), no tables and no markup; diagnostics stay on stderr."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from racesl.cli.main import main
from racesl.records import read_records
from tests.cli.test_check_cmd import FIX
from tests.support.tasks import HALVE, TRIPLE, run_racesc, toy_library, wrap

TOY = toy_library("toy", TRIPLE, HALVE, '''\
env is_even(n: Nat) -> Bool:
    """Return True when n is even."""
    return n % 2 == 0
''')


def one_object(stdout: str) -> dict:
    """stdout is exactly one line, one JSON object."""
    lines = stdout.splitlines()
    assert len(lines) == 1, stdout[:2000]
    obj = json.loads(lines[0])
    assert isinstance(obj, dict)
    assert "\x1b[" not in stdout and "━" not in stdout  # no color, no table
    return obj


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    d = tmp_path_factory.mktemp("jsoncompile")
    (d / "toy.races").write_text(TOY, encoding="utf-8")
    p = run_racesc("compile", d / "toy.races", "-n", 30, "-o", d / "tasks.jsonl", "--seed", 2, "--json",
                   "--operators", "sequential=2-3,loop=2-3,sort=2", cwd=d)
    return d, p, read_records(d / "tasks.jsonl")


def test_compile_json(compiled):
    d, p, records = compiled
    s = one_object(p.stdout)
    assert s["command"] == "compile"
    assert (s["output"], s["format"], s["requested"], s["tasks"]) == (str(d / "tasks.jsonl"), "jsonl", 30, 30)
    assert s["library"] == records[0]["library"]
    assert s["by_operator"] == dict(Counter(r["operator"] for r in records))
    sizes = Counter((r["operator"], str(r["size"])) for r in records)
    assert s["by_size"] == {op: {z: n for (o, z), n in sizes.items() if o == op} for op in s["by_operator"]}
    assert s["graph"]["environments"] == 3
    assert set(s["usage"]) == {"toy.triple", "toy.halve", "toy.is_even"}
    assert sorted(s["never_used"]) == sorted(q for q, n in s["usage"].items() if n == 0)
    assert all(isinstance(why, str) and why for why in s["never_used"].values())
    assert all(isinstance(n, int) and n > 0 for n in s["dropped"].values())
    assert s["attempts"] >= s["tasks"] and s["workers"] == 1
    assert isinstance(s["solver"]["on"], bool)
    a = s["audit"]
    assert isinstance(a["ok"], bool) and a["verdict"].startswith("audit: ") and "cells" not in a
    assert "tasks by operator and size" not in p.stdout + p.stderr


def test_compile_json_without_audit(compiled, tmp_path):
    d, *_ = compiled
    p = run_racesc("compile", d / "toy.races", "-n", 5, "-o", tmp_path / "t.jsonl", "--no-audit", "-q", "--json",
                   cwd=tmp_path)
    s = one_object(p.stdout)
    assert (s["tasks"], s["audit"]) == (5, None)
    assert len(read_records(tmp_path / "t.jsonl")) == 5


def test_score_json(compiled, tmp_path):
    d, _, records = compiled
    lines = [json.dumps({"id": r["id"], "completion": wrap(r["answer"])}) for r in records[:10]]
    lines += [json.dumps({"id": r["id"], "completion": "no idea"}) for r in records[10:14]]
    lines += ["{broken", json.dumps({"id": "nosuch", "completion": "x"}), "", "[]"]
    (tmp_path / "c.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    p = run_racesc("score", d / "tasks.jsonl", tmp_path / "c.jsonl", "--json", cwd=tmp_path)
    s = one_object(p.stdout)
    assert s["command"] == "score"
    # every row written counts (issue 50): the unknown id and the unreadable lines are error rows
    assert (s["n"], s["judged"], s["mean"], s["unknown_ids"], s["unreadable"]) == (17, 14, 10 / 17, 1, 2)
    assert s["unreadable_lines"] == [15, 18]
    assert (s["statuses"]["ok"], s["statuses"]["no_answer"], s["statuses"]["error"]) == (10, 4, 3)
    assert sum(s["statuses"].values()) == 17
    want = Counter((r["operator"], r["size"]) for r in records[:14])
    assert {(c["operator"], c["size"]): c["n"] for c in s["cells"]} == dict(want)
    assert [(c["operator"], c["size"]) for c in s["cells"]] == sorted(want)
    assert s["output"] is None
    assert "c.jsonl:15: not JSON" in p.stderr and "c.jsonl:18: not a JSON object" in p.stderr
    # nothing scored: the mean is null, not NaN (which is no JSON)
    (tmp_path / "empty.jsonl").write_text("")
    s = one_object(run_racesc("score", d / "tasks.jsonl", tmp_path / "empty.jsonl", "--json", cwd=tmp_path).stdout)
    assert (s["n"], s["mean"], s["cells"]) == (0, None, [])


def test_check_json(capsys):
    rc = main(["check", str(FIX / "reasons.races"), "--samples", "4", "--seed", "1", "--json"])
    out, err = capsys.readouterr()
    s = one_object(out)
    assert rc == 0 and s["command"] == "check" and s["ran"] is True
    assert (s["samples"], s["seed"]) == (4, 1)
    rows = {r["environment"]: r for r in s["environments"]}
    assert len(rows) == 12 and list(rows) == [r["environment"] for r in s["environments"]]
    assert rows["reasons.spin"]["dropped"] == {"fuel": 4} and rows["reasons.spin"]["ok"] == 0
    assert rows["reasons.deep"]["dropped"] == {"recursion": 4}
    assert rows["reasons.inc"]["dropped"] == {} and rows["reasons.inc"]["ok"] == 4
    assert rows["reasons.bloat"]["signature"] == "Small -> Int"  # declared, not erased to Int
    assert rows["reasons.tally"]["signature"] == "List[Int] -> Dict[Int, Int]"
    assert all(r["violations"] == 0 and r["ms_per_run"] >= 0 for r in rows.values())
    assert f"12 environments checked: {s['errors']} errors, {s['warnings']} warnings" in err
    assert "samples each" not in out


def test_check_json_counts_violations(capsys):
    rc = main(["check", str(FIX / "flaky.races"), "--samples", "20", "--seed", "3", "--json"])
    out, err = capsys.readouterr()
    s = one_object(out)
    assert rc == 1 and s["errors"] >= 1 and s["warnings"] >= 1
    rows = {r["environment"]: r for r in s["environments"]}
    assert rows["flaky.over"]["violations"] > 0
    assert rows["flaky.over"]["signature"] == "Int -> Int"
    assert "error[E600]" in err  # diagnostics stay on stderr


def test_check_json_when_nothing_runs(capsys, tmp_path):
    bad = tmp_path / "bad.races"
    bad.write_text('env half(x: Int) -> Int:\n    """Halve x."""\n    return x / 2\n')
    rc = main(["check", str(bad), "--json"])
    out, err = capsys.readouterr()
    s = one_object(out)
    assert rc == 1
    assert (s["ran"], s["errors"], s["environments"]) == (False, 1, [])
    assert "error[E505]" in err


def test_eval_json(compiled, tmp_path, monkeypatch, capsys):
    """The metrics of results.json on stdout; generation is replaced (every other task is
    answered right), scoring and reporting are the real ones."""
    import racesl.train.evaluate as E

    d, _, records = compiled

    def fake(model_path, recs, *, samples, **kw):
        return [[wrap(r["answer"]) if k % 2 == 0 else "no idea"] * samples for k, r in enumerate(recs)]

    monkeypatch.setattr(E, "generate_vllm", fake)
    rc = main(["eval", "fake-model", "--tasks", str(d / "tasks.jsonl"), "--backend", "vllm", "--n", "8",
               "-o", str(tmp_path / "ev"), "--json"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    s = one_object(out)
    assert s["command"] == "eval"
    assert (s["model"], s["n_tasks"], s["samples"], s["backend"]) == ("fake-model", 8, 1, "vllm")
    assert (s["accuracy"], s["mean_reward"]) == (0.5, 0.5)
    assert sum(c["n"] for c in s["cells"]) == 8 and sum(c["solved"] for c in s["cells"]) == 4
    assert s["output"] == str(tmp_path / "ev")
    assert s["files"] == [str(tmp_path / "ev" / f) for f in ("results.json", "completions.jsonl", "accuracy.png")]
    saved = json.loads((tmp_path / "ev" / "results.json").read_text())
    assert {k: v for k, v in s.items() if k in saved} == saved
