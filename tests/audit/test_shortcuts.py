"""`racesc audit`: the stdlib tasks leave no shortcut above chance, and each kind of leak,
planted into real records, is caught."""

from __future__ import annotations

import json
import subprocess

import pytest

from racesl.audit import audit_records
from racesl.audit.shortcuts import STRATEGIES
from tests.support.tasks import RACESC, stdlib, stdlib_records


@pytest.fixture(scope="module")
def records():
    stdlib()  # registers the library the sort and select strategies re-execute in
    return stdlib_records(600, 0)


def _cell(report, op: str, size: int | None = None):
    return [c for c in report.cells if c.operator == op and (size is None or c.size == size)]


def _beaten(report) -> set[str]:
    return {name for c in report.cells for name in c.beaten}


def test_real_records_have_no_leak(records):
    report = audit_records(records)
    assert report.ok, report.verdict()
    assert report.verdict().startswith("audit: no shortcut beats chance")
    assert {c.operator for c in report.cells} == {"sequential", "parallel", "sort", "select", "branch", "loop"}


def test_planted_example_that_is_the_answer(records):
    """The old sort builder: the prompt's example was the answer."""
    sorts = [r for r in records if r["operator"] == "sort"]
    for r in sorts:
        head, _, tail = r["prompt"].rpartition("<answer>")
        r["prompt"] = head + "<answer>" + r["answer"] + "</answer>" + tail.split("</answer>", 1)[1]
    report = audit_records(sorts)
    assert "copy_example" in _beaten(report)
    assert not report.ok
    assert "copy_example" in report.verdict()


def test_planted_position_prior(records):
    """Candidates listed in the chain's own order: the identity order is always right."""
    sorts = [r for r in records if r["operator"] == "sort"]
    for r in sorts:
        r["extra"]["candidates"] = [{"env": q, "settings": st} for q, st in zip(r["chain"], r["settings"])]
        r["answer"] = ", ".join(chr(65 + k) for k in range(r["size"]))
    report = audit_records(sorts)
    assert "identity" in _beaten(report)
    assert all("identity" in c.beaten for c in report.cells if c.n >= 30)
    # what carries it: the sort tasks' chains, by name
    carriers = [k for c in report.cells if "identity" in c.beaten for k in c.results["identity"].carriers]
    assert carriers and all(" → " in k.name and k.excess > 0 for k in carriers)
    assert set(report.leaks()) >= {k.name for k in carriers}


def test_planted_environment_mode(records):
    """Parallel items of one environment that mostly answer its most common output: the
    per-environment mode strategy collects them, and the audit names that environment."""
    pars = [r for r in records if r["operator"] == "parallel"]
    target = pars[0]["chain"][0]
    for k, r in enumerate(pars):
        r["chain"] = [target] * len(r["chain"])
        r["trace"] = ["7" if (k + j) % 4 else str(100 + k) for j in range(len(r["trace"]))]
        r["answer"] = "[" + ", ".join(r["trace"]) + "]"
    report = audit_records(pars)
    assert "env_mode" in _beaten(report)
    assert report.leaks()[0] == target
    assert f"carried by {target}" in report.verdict()


def test_planted_constant_answer_cell(records):
    """A loop cell whose tasks mostly share one answer (a loop that converges)."""
    loops = [r for r in records if r["operator"] == "loop"]
    for k, r in enumerate(loops):
        if k % 3:
            r["answer"] = r["trace"][-1] = "2"
    report = audit_records(loops)
    assert all("constant" in c.beaten for c in report.cells if c.n >= 20)


def test_planted_bool_answers(records):
    loops = [r for r in records if r["operator"] == "loop"]
    for k, r in enumerate(loops):
        r["answer"] = r["trace"][-1] = ("True", "False")[k % 2]
    beaten = _beaten(audit_records(loops))
    assert {"always_true", "always_false"} <= beaten


def test_chance_of_sort_is_the_share_of_orders(records):
    """Size-2 sort tasks accept exactly one of the two orders."""
    cell = _cell(audit_records([r for r in records if r["operator"] == "sort" and r["size"] == 2]), "sort", 2)
    assert cell and cell[0].chance == pytest.approx(0.5)
    assert cell[0].order_insensitive == 0.0


def test_every_strategy_applies_somewhere(records):
    report = audit_records(records)
    seen = {name for c in report.cells for name in c.results}
    assert seen == set(STRATEGIES)


def test_model_answers_join_the_table(records):
    answers = {r["id"]: f"<answer>{r['answer']}</answer>" for r in records[:50]}
    report = audit_records(records, answers=answers)
    judged = [c for c in report.cells if c.model is not None]
    assert judged and all(c.model == 1.0 for c in judged)


@pytest.mark.slow
def test_stdlib_6000_tasks_pass_the_audit(tmp_path):
    """The done-when of the trust issue: a 6,000-task stdlib compile, no shortcut above
    chance + max(3 SE, 0.05) in any cell, at most 5% order-insensitive small sort tasks;
    `racesc compile` prints the verdict and `racesc audit --json` agrees."""
    out = tmp_path / "tasks.jsonl"
    done = subprocess.run([RACESC, "compile", "stdlib", "-n", "6000", "-o", str(out)], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "audit: no shortcut beats chance" in done.stdout
    done = subprocess.run([RACESC, "audit", str(out), "--json"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["ok"] and report["margin"] == 0.05
    assert report["order_insensitive"] <= 0.05
    assert sum(c["n"] for c in report["cells"]) == 6000
    for c in report["cells"]:
        for name, r in c["strategies"].items():
            assert r["mean"] <= c["chance"] + max(3 * r["se"], 0.05), (c["operator"], c["size"], name)
    table = subprocess.run([RACESC, "audit", str(out)], capture_output=True, text=True, timeout=600)
    assert table.returncode == 0 and "copy_example" in table.stdout and "…" not in table.stdout


def test_audit_exits_1_on_a_leak(tmp_path, records):
    lib = stdlib()
    from racesl.records import write_jsonl
    from racesl.rewards.libraries import write_sidecar

    sorts = [r for r in records if r["operator"] == "sort"]
    for r in sorts:
        r["extra"]["candidates"] = [{"env": q, "settings": st} for q, st in zip(r["chain"], r["settings"])]
        r["answer"] = ", ".join(chr(65 + k) for k in range(r["size"]))
    out = tmp_path / "leak.jsonl"
    write_jsonl(sorts, out)
    write_sidecar(lib, str(out) + ".library.json")
    done = subprocess.run([RACESC, "audit", str(out)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "identity" in done.stdout and "beat chance" in done.stdout


@pytest.mark.parametrize("argv, message", [(["--margin", "2"], "--margin"), (["--n", "0"], "--n")])
def test_audit_usage_errors(tmp_path, argv, message):
    done = subprocess.run([RACESC, "audit", str(tmp_path / "none.jsonl"), *argv], capture_output=True, text=True)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr


def test_audit_of_a_missing_file(tmp_path):
    done = subprocess.run([RACESC, "audit", str(tmp_path / "none.jsonl")], capture_output=True, text=True)
    assert done.returncode == 2 and "cannot read tasks" in done.stderr and "Traceback" not in done.stderr


def test_too_few_tasks_prove_nothing(records):
    """Two loop tasks that share an answer (the answer-share filter allows two) and a handful
    of long parallel tasks with an item right in each: neither is judged a shortcut."""
    from racesl.audit.shortcuts import MIN_TASKS

    loops = [r for r in records if r["operator"] == "loop" and r["size"] == 2][:2]
    for r in loops:
        r["answer"] = r["trace"][-1] = "17"
    cell = audit_records(loops).cells[0]
    assert cell.n == 2 < MIN_TASKS and cell.results["constant"].mean == 1.0 and not cell.beaten
    pars = [r for r in records if r["operator"] == "parallel" and r["size"] >= 11][:4]
    assert len(pars) == 4
    for r in pars:
        r["trace"][0] = "True"
        r["answer"] = "[" + ", ".join(r["trace"]) + "]"
        r["size"] = 11
    few = audit_records(pars * 2)  # eight tasks, one item in 11 or 12 right in each: no spread at all
    result = few.cells[0].results["always_true"]
    assert result.mean > 0.05 and result.se > 0.02 and not result.beats
    more = audit_records(pars * 8)  # 32 such tasks: now it is a shortcut
    assert more.cells[0].results["always_true"].beats
