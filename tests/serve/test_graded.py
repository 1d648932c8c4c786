"""`racesc serve` scores graded checkers and latent-value checkers as `verdict` does (issue 48):
a real process on 127.0.0.1, its native and OpenRLHF routes giving the grade."""

from __future__ import annotations

import pytest

from racesl.rewards import verdict
from racesl.rewards.libraries import read_tasks
from tests.serve.conftest import serving
from tests.support.graded import compile_graded, half_answer, other_full_answer
from tests.support.tasks import wrap


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    path = compile_graded(tmp_path_factory.mktemp("serve-graded"))
    return path, read_tasks(path)


def test_serve_gives_the_grade(graded):
    path, records = graded
    body = []
    for r in records:
        if r["operator"] == "individual":
            for text in (half_answer(r), other_full_answer(r), r["answer"], "'zz'"):
                if text is not None:
                    body.append((r, wrap(text)))
    want = [verdict(r, c) for r, c in body]
    assert {v.score for v in want} >= {0.0, 0.5, 1.0}
    with serving([path], "--workers", 1) as s:
        code, rows = s.post("/score", [{"id": r["id"], "completion": c} for r, c in body])
        assert code == 200
        assert [(x["score"], x["status"], x["detail"]) for x in rows] == [(v.score, v.status, v.detail) for v in want]
        code, reply = s.post("/openrlhf", {"query": [c for _, c in body], "labels": [r["id"] for r, _ in body]})
        assert code == 200 and reply["rewards"] == [v.score for v in want]
