"""A sequential or parallel answer is judged whole (issue 40): extra items, a repeated list,
trailing junk or unbalanced brackets earn nothing; a shorter list keeps the paper's prefix
credit; any answer a @verify checker accepts is right in a parallel item too. Checked on a
few hundred compiled stdlib tasks, in process and through `racesc serve`."""

from __future__ import annotations

import json

import pytest

from racesl.rewards import score, verdict
from racesl.rewards.libraries import read_tasks
from tests.serve.conftest import serving
from tests.support.tasks import run_racesc, stdlib, wrap

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::SyntaxWarning")


@pytest.fixture(scope="module")
def tasks_file(tmp_path_factory):
    d = tmp_path_factory.mktemp("lists")
    run_racesc("compile", "stdlib", "-n", 300, "-o", d / "tasks.jsonl", "-q", "--seed", 3,
               "--operators", "sequential=2-5,parallel=2-5")
    return d / "tasks.jsonl"


@pytest.fixture(scope="module")
def records(tasks_file):
    recs = read_tasks(tasks_file)
    assert len(recs) >= 250 and {r["operator"] for r in recs} == {"sequential", "parallel"}
    return recs


def completions(r: dict) -> list[tuple[str, float, str]]:
    """(answer text, expected score, expected status) for one record."""
    trace, n = r["trace"], len(r["trace"])
    gold = ", ".join(trace)
    shorter = (n - 1) / n  # sequential: t-1 right from the start; parallel: the mean over t items
    lines = [("\n".join(trace[:-1]), shorter, "ok")] if n > 2 else []  # (one line alone is one value)
    return lines + [
        (r["answer"], 1.0, "ok"),
        (f"[{gold}, 0]", 0.0, "wrong_length"),
        (f"[{gold}, {gold}]", 0.0, "wrong_length"),
        (f"[{gold}, ...]", 0.0, "unparsable"),
        (f"[{gold}, ]]]]]]", 0.0, "unparsable"),
        (f"[{gold}, oops this is not a value]", 0.0, "unparsable"),
        ("\n".join(trace + ["0"]), 0.0, "wrong_length"),  # one item per line, one line too many
        ("[" + ", ".join(trace[:-1]) + "]", shorter, "ok"),  # the last item missing: (t-1)/t
        ("[" + ", ".join(trace) + ",]", 1.0, "ok"),  # a trailing comma ends the list
    ]


def test_the_rule_on_compiled_tasks(records):
    seen = 0
    for r in records:
        for text, want, status in completions(r):
            v = verdict(r, wrap(text))
            assert (v.score, v.status) == (pytest.approx(want), status), (r["trace"], text, v)
            assert score(r, wrap(text)) == v.score, (r["trace"], text)
            seen += 1
    assert seen >= 2500


def test_wrong_length_says_how_many(records):
    r = next(r for r in records if r["operator"] == "parallel" and len(r["trace"]) == 5)
    text = "[" + ", ".join(r["trace"] + ["0", "1"]) + "]"
    assert verdict(r, wrap(text)).detail == "7 items where 5 are asked for"


def test_serve_gives_the_same_verdicts(tasks_file, records):
    rows, want = [], []
    for r in records[:120]:
        for text, _, _ in completions(r):
            rows.append({"id": r["id"], "completion": wrap(text)})
            want.append(verdict(r, wrap(text)))
    with serving([tasks_file]) as server:
        status, got = server.post("/score", rows, timeout=120)
    assert status == 200, got
    got = got if isinstance(got, list) else got["results"]
    assert [(g["score"], g["status"]) for g in got] == [(v.score, v.status) for v in want]


def test_a_parallel_item_is_right_when_its_verifier_accepts_it():
    lib = stdlib()
    record = {"id": "p", "operator": "parallel", "size": 2, "chain": ["numbers.is_prime", "numbers.factor_pair"],
              "settings": [{}, {}], "input": "7", "trace": ["True", "(2, 18)"], "answer": "[True, (2, 18)]",
              "library": lib.hash, "extra": {"inputs": ["7", "36"], "verify": True}}
    assert verdict(record, wrap("[True, (4, 9)]")).score == 1.0  # another pair the checker accepts
    assert verdict(record, wrap("[True, (6, 6)]")).score == 1.0
    assert verdict(record, wrap("[True, (5, 7)]")).score == 0.5  # 35, not 36
    assert verdict(record, wrap("[False, (3, 12)]")).score == 0.5
    assert score(record, wrap("[True, (3, 12)]")) == 1.0
    # without the record's word that an item is verified, only the recorded value is right
    plain = dict(record, extra={"inputs": ["7", "36"]})
    assert verdict(plain, wrap("[True, (4, 9)]")).score == 0.5


def test_compiled_parallel_records_say_when_an_item_is_verified(tmp_path):
    run_racesc("compile", "stdlib", "-n", 400, "-o", tmp_path / "t.jsonl", "-q", "--operators", "parallel=3-5")
    recs = [json.loads(line) for line in (tmp_path / "t.jsonl").read_text().splitlines()]
    lib = stdlib()
    for r in recs:
        verified = any(lib.envs[q].verify is not None for q in r["chain"])
        assert bool(r["extra"].get("verify")) == verified, r["chain"]
    assert any(r["extra"].get("verify") for r in recs)
