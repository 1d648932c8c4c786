"""`racesc eval --endpoint` against a scripted OpenAI-compatible stub on 127.0.0.1: the
stub answers with the gold answer on a known subset of each task's samples, and pass@1,
pass@k and mean reward per cell and overall come out exactly as computed here from the
definition (math.comb, not racesl.train.passk). Also the estimator, the bootstrap and the
stratified --n on their own."""

from __future__ import annotations

import json
import math
from collections import Counter

import pytest

from racesl.cli.main import main
from racesl.records import read_records
from racesl.train import passk
from racesl.train.evaluate import stratify
from tests.support import openai_stub as stubs
from tests.support.openai_stub import Fail, OpenAIStub, Texts
from tests.support.tasks import TOY, wrap

openai_stub = stubs.openai_stub  # the stub server's fixture

# ------------------------------------------------------------ the estimator and the bootstrap


def by_definition(n: int, c: int, k: int) -> float:
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def test_pass_at_k_is_the_unbiased_estimator():
    for n in range(1, 13):
        for c in range(n + 1):
            for k in range(1, n + 1):
                assert passk.pass_at_k(n, c, k) == pytest.approx(by_definition(n, c, k), abs=1e-12), (n, c, k)
    assert passk.pass_at_k(5, 2, 1) == 0.4  # pass@1 is the share right
    # stable where the binomials are huge: C(1000, 500) overflows a float
    assert passk.pass_at_k(1000, 3, 500) == pytest.approx(float(1 - math.comb(997, 500) / math.comb(1000, 500)))
    assert passk.pass_at_k(1000, 0, 500) == 0.0 and passk.pass_at_k(1000, 501, 500) == 1.0
    for bad in ((3, 4, 1), (3, 1, 4), (3, 1, 0), (3, -1, 1)):
        with pytest.raises(ValueError):
            passk.pass_at_k(*bad)


def test_bootstrap_is_seeded_per_cell_and_brackets_the_mean():
    tasks = [passk.TaskResult(f"t{i}", "sequential" if i % 3 else "sort", 2 + i % 2, 4, i % 5 if i % 5 <= 4 else 4,
                              (i % 5) / 4) for i in range(60)]
    cells, overall = passk.summarize(tasks, 2, resamples=300, seed=7)
    again, _ = passk.summarize(list(reversed(tasks)), 2, resamples=300, seed=7)
    # a cell's interval depends on its own tasks and the seed, not on the other cells or the order
    for cell, m in cells.items():
        assert m["pass@1_ci"] == pytest.approx(again[cell]["pass@1_ci"])
        for name in ("pass@1", "pass@k", "mean_reward"):
            lo, hi = m[f"{name}_ci"]
            assert lo <= m[name] <= hi
    other, _ = passk.summarize(tasks, 2, resamples=300, seed=8)
    assert any(other[c]["pass@1_ci"] != cells[c]["pass@1_ci"] for c in cells)
    assert overall["tasks"] == 60 and overall["n"] == 240
    # a constant cell has a zero-width interval; one that varies a positive one
    flat = [passk.TaskResult(f"f{i}", "sort", 2, 3, 3, 1.0) for i in range(10)]
    assert passk.summarize(flat, 3, resamples=50)[1]["pass@1_ci"] == [1.0, 1.0]
    assert overall["pass@1_ci"][1] > overall["pass@1_ci"][0]
    with pytest.raises(ValueError, match="at least 5 samples"):
        passk.summarize(tasks, 5, resamples=10)


def test_percentile_interpolates_like_numpy():
    assert passk.percentile([0.0, 1.0, 2.0, 3.0, 4.0], 0.5) == 2.0
    assert passk.percentile([0.0, 10.0], 0.25) == 2.5
    assert passk.percentile([3.0], 0.975) == 3.0


# ------------------------------------------------------------ stratified --n


def _records(sizes: dict[tuple[str, int], int]) -> list[dict]:
    out = []
    for (op, size), count in sizes.items():
        out += [{"id": f"{op}-{size}-{i}", "operator": op, "size": size} for i in range(count)]
    return out[::2] + out[1::2]  # interleaved: file order is not cell order


def test_stratified_n_shares_evenly_and_is_deterministic():
    recs = _records({("sequential", 2): 10, ("sequential", 3): 2, ("sort", 2): 5})
    got = stratify(recs, 9, seed=0)
    assert Counter((r["operator"], r["size"]) for r in got) == {("sequential", 2): 4, ("sequential", 3): 2,
                                                                 ("sort", 2): 3}
    assert [r["id"] for r in got] == [r["id"] for r in recs if r in got]  # file order
    assert stratify(recs, 9, seed=0) == got
    assert any(stratify(recs, 9, seed=s) != got for s in range(1, 6))
    assert stratify(recs, 17) == recs and stratify(recs, 100) == recs and stratify(recs, None) == recs
    # what does not divide goes to the first cells in operator, then size order
    even = _records({("sort", 2): 10, ("sequential", 3): 10, ("sequential", 2): 10})
    assert Counter((r["operator"], r["size"]) for r in stratify(even, 10)) == {
        ("sequential", 2): 4, ("sequential", 3): 3, ("sort", 2): 3}


# ------------------------------------------------------------ against a scripted server


@pytest.fixture(scope="module")
def toy_tasks(tmp_path_factory):
    d = tmp_path_factory.mktemp("evaltasks")
    (d / "shop.races").write_text(TOY, encoding="utf-8")
    assert main(["compile", str(d / "shop.races"), "-n", "30", "-o", str(d / "tasks.jsonl"), "--seed", "3", "-q",
                 "--no-audit", "--operators", "sequential=2-3,loop=2-3,sort=2"]) == 0
    records = read_records(d / "tasks.jsonl")
    assert len({(r["operator"], r["size"]) for r in records}) >= 4
    return d / "tasks.jsonl", records


def right_answers(records: list[dict], n: int) -> dict[str, int]:
    """How many of a task's n samples the stub answers right: 0..n, spread over the tasks."""
    return {r["id"]: (i * 7) % (n + 1) for i, r in enumerate(sorted(records, key=lambda r: r["id"]))}


def scripted(records: list[dict], right: dict[str, int]):
    """The stub's script: for a task, `right[id]` gold answers, then wrong ones."""
    by_prompt = {r["prompt"]: r for r in records}

    def script(body):
        rec = by_prompt[body["messages"][-1]["content"]]
        n = body["n"]
        return Texts(tuple(wrap(rec["answer"]) if j < right[rec["id"]] else "I do not know" for j in range(n)))

    return script


def expected(records: list[dict], right: dict[str, int], n: int, k: int) -> tuple[dict, dict]:
    """(per (operator, size), overall) means of pass@1, pass@k and the mean reward, from the definition."""
    groups: dict = {}
    for r in records:
        c = right[r["id"]]
        vals = (c / n, by_definition(n, c, k), c / n)  # a wrong answer here scores 0
        groups.setdefault((r["operator"], r["size"]), []).append(vals)
        groups.setdefault("all", []).append(vals)
    means = {g: dict(zip(("pass@1", "pass@k", "mean_reward"), (sum(col) / len(v) for col in zip(*v))))
             for g, v in groups.items()}
    return {g: m for g, m in means.items() if g != "all"}, means["all"]


def run_eval(capsys, *argv) -> dict:
    rc = main(["eval", *argv, "--json"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert "Traceback" not in err
    return json.loads(out)


@pytest.mark.parametrize("samples, k", [(1, 1), (4, 4), (6, 2)])
def test_endpoint_pass_at_k_is_exact(toy_tasks, openai_stub, tmp_path, capsys, samples, k):
    path, records = toy_tasks
    right = right_answers(records, samples)
    stub = openai_stub(scripted(records, right))
    res = run_eval(capsys, "--endpoint", stub.url, "--tasks", str(path), "--k", str(k), "--samples", str(samples),
                   "-o", str(tmp_path / "ev"), "--bootstrap", "200")
    cells, overall = expected(records, right, samples, k)
    assert (res["backend"], res["endpoint"], res["model"]) == ("endpoint", stub.url, "stub-model")
    assert (res["n_tasks"], res["samples"], res["k"], res["errors"]) == (len(records), samples, k, 0)
    assert res["temperature"] == (0.0 if samples == 1 else 1.0)
    got = {(c["operator"], c["size"]): c for c in res["cells"]}
    assert set(got) == set(cells)
    for cell, want in list(cells.items()) + [("all", overall)]:
        have = res if cell == "all" else got[cell]
        for name, value in want.items():
            assert have[name] == pytest.approx(value, abs=1e-12), (cell, name)
            lo, hi = have[f"{name}_ci"]
            assert lo - 1e-12 <= have[name] <= hi + 1e-12
    assert res["pass@1"] == res["accuracy"]  # every task has the same number of samples
    # every sample was asked for in one request a task, with the settings given
    assert sorted(b["messages"][-1]["content"] for b in stub.requests) == sorted(r["prompt"] for r in records)
    assert {(b["n"], b["model"], b["max_tokens"]) for b in stub.requests} == {(samples, "stub-model", 1024)}
    saved = json.loads((tmp_path / "ev" / "results.json").read_text())
    assert saved["pass@k"] == res["pass@k"] and len(saved["per_task"]) == len(records)
    rows = (tmp_path / "ev" / "completions.jsonl").read_text().splitlines()
    assert len(rows) == len(records) * samples


def test_endpoint_n_is_stratified_and_seeded(toy_tasks, openai_stub, tmp_path, capsys):
    path, records = toy_tasks
    right = right_answers(records, 1)
    stub = openai_stub(scripted(records, right))
    res = run_eval(capsys, "--endpoint", stub.url, "--tasks", str(path), "--n", "8", "-o", str(tmp_path / "a"))
    chosen = stratify(records, 8, 0)
    assert res["selection"] == "stratified" and res["n_tasks"] == 8
    assert [t["id"] for t in res["per_task"]] == [r["id"] for r in chosen]
    cells, overall = expected(chosen, right, 1, 1)
    assert res["pass@1"] == pytest.approx(overall["pass@1"], abs=1e-12)
    again = run_eval(capsys, "--endpoint", stub.url, "--tasks", str(path), "--n", "8", "-o", str(tmp_path / "b"))
    assert {k: v for k, v in again.items() if "seconds" not in k and k not in ("output", "files")} == \
        {k: v for k, v in res.items() if "seconds" not in k and k not in ("output", "files")}


def test_endpoint_model_key_and_failures(toy_tasks, openai_stub, tmp_path, capsys, monkeypatch):
    path, records = toy_tasks
    first = sorted(records, key=lambda r: r["id"])[0]

    def script(body):
        if body["messages"][-1]["content"] == first["prompt"]:
            return Fail(400, "context too long")  # not retried: this task scores 0
        return wrap(next(r["answer"] for r in records if r["prompt"] == body["messages"][-1]["content"]))

    stub = openai_stub(script)
    monkeypatch.setenv("MY_KEY", "sk-test")
    rc = main(["eval", "--endpoint", stub.url, "--model", "served-x", "--api-key-env", "MY_KEY", "--tasks",
               str(path), "-o", str(tmp_path / "ev"), "--system-prompt", "think"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert "1 of 30 requests failed" in err and "HTTP 400" in err
    assert "pass@1 0.967" in out and "operator" in out and "[95% CI]" in out
    res = json.loads((tmp_path / "ev" / "results.json").read_text())
    assert res["errors"] == 1 and res["model"] == "served-x"
    assert res["pass@1"] == pytest.approx((len(records) - 1) / len(records))
    assert all(b["model"] == "served-x" and b["messages"][0] == {"role": "system", "content": "think"}
               for b in stub.requests)
    assert all(h.get("Authorization") == "Bearer sk-test" for _, _, h in stub.log)


def test_endpoint_refusals_are_one_line(toy_tasks, tmp_path, capsys):
    path, _ = toy_tasks
    with OpenAIStub(lambda body: "x") as stub:
        url = stub.url  # stopped: nothing listens there now
    cases = [
        (["--endpoint", url, "--tasks", str(path), "--n", "1"], "every request failed"),
        (["--endpoint", "localhost:8000/v1", "--tasks", str(path)], "http(s) URL"),
        (["some-model", "--endpoint", url, "--tasks", str(path)], "--model NAME"),
        (["--endpoint", url, "--tasks", str(path), "--k", "4", "--samples", "2"], "at least 4 --samples"),
        (["--endpoint", url, "--tasks", str(path), "--k", "2", "--temperature", "0"], "temperature 0"),
        (["--endpoint", url], "--tasks FILE"),
        (["--endpoint", url, "--tasks", str(path), "--plot", str(tmp_path / "p.png")], "--plot goes with --compare"),
    ]
    for argv, says in cases:
        rc = main(["eval", *argv, "-o", str(tmp_path / "ev")])
        err = capsys.readouterr().err
        assert rc == 2 and says in err and err.count("\n") == 1 and "Traceback" not in err, (argv, err)


@pytest.mark.parametrize("quiet", [False, True])
def test_progress_bar_on_a_terminal_only(toy_tasks, openai_stub, tmp_path, capsys, monkeypatch, quiet):
    import io

    from rich.console import Console

    import racesl.cli.common as common

    path, records = toy_tasks
    stub = openai_stub(scripted(records, right_answers(records, 1)))
    screen = io.StringIO()
    monkeypatch.setattr(common, "stderr_console", lambda: Console(file=screen, force_terminal=True, width=120))
    argv = ["eval", "--endpoint", stub.url, "--tasks", str(path), "-o", str(tmp_path / "ev")]
    assert main(argv + ["-q"] * quiet) == 0
    assert ("generating" in screen.getvalue() and "30/30" in screen.getvalue()) is not quiet
    # and none where stderr is no terminal (as under pytest)
    monkeypatch.undo()
    assert main(argv + ["-o", str(tmp_path / "ev2")]) == 0
    assert "generating" not in capsys.readouterr().err


# ------------------------------------------------------------ counting what was sent (issue 44)


def test_duplicate_ids_are_refused_in_one_line(toy_tasks, openai_stub, tmp_path, capsys):
    """Two compiles with one seed, concatenated: the same ids for different tasks. They would
    be counted as half as many tasks with twice the samples: refused, before any request."""
    path, records = toy_tasks
    twice = tmp_path / "twice.jsonl"
    text = path.read_text(encoding="utf-8")
    twice.write_text(text + text, encoding="utf-8")
    stub = openai_stub(lambda body: "x")
    rc = main(["eval", "--endpoint", stub.url, "--tasks", str(twice), "-o", str(tmp_path / "ev"), "--samples", "2",
               "--temperature", "1"])
    err = capsys.readouterr().err
    first = records[0]["id"]
    assert rc == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert f"task id {first!r} is used twice (records 1 and {len(records) + 1})" in err
    assert stub.requests == [] and not (tmp_path / "ev" / "results.json").exists()


def test_a_choice_index_given_twice_is_an_error_counted_as_one(toy_tasks, openai_stub, tmp_path, capsys):
    """A server that answers both choices of n=2 with index 0 for some tasks: those samples
    are errors (counted, rows with status error), never empty completions scored 0 quietly."""
    path, records = toy_tasks
    by_prompt = {r["prompt"]: r for r in records}
    broken = {r["id"] for r in sorted(records, key=lambda r: r["id"])[::3]}

    def script(body):
        rec = by_prompt[body["messages"][-1]["content"]]
        gold = wrap(rec["answer"])
        if rec["id"] not in broken:
            return Texts((gold, gold))
        choice = {"index": 0, "message": {"role": "assistant", "content": gold}, "finish_reason": "stop"}
        return stubs.Raw(json.dumps({"id": "c", "object": "chat.completion", "model": body["model"],
                                     "choices": [choice, choice]}))

    stub = openai_stub(script)
    res = run_eval(capsys, "--endpoint", stub.url, "--tasks", str(path), "--samples", "2", "--k", "2",
                   "-o", str(tmp_path / "ev"))
    assert res["errors"] == len(broken) and res["n_tasks"] == len(records)
    rows = [json.loads(x) for x in (tmp_path / "ev" / "completions.jsonl").read_text().splitlines()]
    assert len(rows) == 2 * len(records)
    errors = [r for r in rows if r["status"] == "error"]
    assert sorted((r["id"], r["sample"]) for r in errors) == sorted((i, 1) for i in broken)
    assert all(r["reward"] == 0.0 for r in errors)
    assert all(r["reward"] == 1.0 for r in rows if r["status"] != "error")  # the filled samples are scored
    assert res["pass@1"] == pytest.approx(1 - len(broken) / (2 * len(records)))


def test_the_choice_parser_says_what_is_missing(openai_stub):
    """racesl.generation.remote: a duplicate index is a problem, an unfilled one an error."""
    from racesl.generation import Request, open_backend

    def choice(i, text):
        return {"index": i, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}

    replies = [stubs.Raw(json.dumps({"choices": [choice(0, "a"), choice(0, "b")]})),
               stubs.Raw(json.dumps({"choices": [choice(1, "b")]})),
               stubs.Raw(json.dumps({"choices": [choice(1, "b"), choice(0, "a")]}))]
    stub = openai_stub(replies)
    backend = open_backend(None, stub.url, concurrency=1)
    try:
        got = [backend.generate([Request("p", n=2)])[0] for _ in replies]
    finally:
        backend.close()
    assert got[0].status == "error" and got[0].texts == ("a", "") and "choice index 0 appears twice" in got[0].detail
    assert "no text for sample 1 of n=2" in got[0].detail
    assert got[1].status == "error" and got[1].texts == ("", "b") and "no text for sample 0 of n=2" in got[1].detail
    assert got[2].ok and got[2].texts == ("a", "b")
