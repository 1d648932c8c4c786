"""Issue 47, through a real OpenAI-compatible client: a scripted server on 127.0.0.1 accepts
every review and answers a known share of the calibration instances right. Every sound
candidate reaches a calibration decision (EvoEnv calibrates on instances of the candidate
environment itself: individual tasks top up the composed ones), and the model-free gates'
verdict, contract included, is the same with and without model gates."""

from __future__ import annotations

from pathlib import Path

import pytest

from racesl.admit import judge
from racesl.admit.run import admit_text
from tests.support.openai_stub import OpenAIStub

CANDIDATES = Path(__file__).parent / "candidates"
SOUND = ("valid_alternating", "valid_weighted_digits", "valid_unscramble", "partial_one_constant")
RIGHT = 3  # of the m = 8 instances, the first RIGHT are answered right: â = 3/8


class Solver:
    """The server's script: every review accepted; a calibration instance answered right when
    its index in the candidate's material is below RIGHT (the answers are registered as the
    calibration gate starts, from the material the candidate's child handed back)."""

    def __init__(self):
        self.answers: dict[str, tuple[int, str]] = {}
        self.reviews = self.solves = 0

    def register(self, out) -> None:
        for i, r in enumerate(out.material.get("instances") or []):
            self.answers[r["prompt"]] = (i, r["answer"])

    def __call__(self, body: dict) -> str:
        msgs = body["messages"]
        if msgs[0]["role"] == "system" and msgs[0]["content"] == judge.REVIEW_SYSTEM:
            self.reviews += 1
            return "The description matches the code.\nVERDICT: ACCEPT"
        self.solves += 1
        i, answer = self.answers.get(msgs[-1]["content"], (99, ""))
        return f"<answer>{answer}</answer>" if i < RIGHT else "<answer>'no idea'</answer>"


@pytest.fixture(scope="module")
def served():
    solver = Solver()
    with OpenAIStub(solver) as stub:
        yield solver, stub


@pytest.fixture
def model_gates(stdlib_ctx, served, monkeypatch):
    from racesl.generation import open_backend

    solver, stub = served
    original = judge.calibration_outcome

    def calibration_outcome(out, ctx):
        solver.register(out)
        return original(out, ctx)

    monkeypatch.setattr(judge, "calibration_outcome", calibration_outcome)
    backend = open_backend(None, stub.url)
    stdlib_ctx.backend = backend
    try:
        yield stdlib_ctx, solver
    finally:
        stdlib_ctx.backend = None
        backend.close()


@pytest.mark.parametrize("name", SOUND)
def test_every_sound_candidate_reaches_a_calibration_decision(model_gates, name):
    ctx = model_gates[0]
    path = CANDIDATES / f"{name}.races"
    v, out = admit_text(path.read_text(encoding="utf-8"), str(path), ctx)
    assert "calibration" in v.passed or v.gate == "calibration", (v.gate, v.reason)
    cal = v.scores["calibration"]
    assert cal["instances"] == 8 and cal["solved"] == RIGHT and cal["a_hat"] == pytest.approx(RIGHT / 8), cal
    assert v.admitted and v.passed[-2:] == ("review", "calibration")
    built = v.scores["contract"]["calibration_instances"]
    assert built["built"] == 8 and 0 <= built["individual"] <= 8
    kinds = {r["operator"] for r in out.material["instances"]}
    assert kinds <= {"sequential", "parallel", "branch", "loop", "individual"}
    assert all(any(q.startswith(out.module + ".") for q in r["chain"]) for r in out.material["instances"])


@pytest.mark.parametrize("name", ["valid_alternating", "partial_one_constant"])
def test_contract_judges_a_module_the_same_with_and_without_model_gates(model_gates, name):
    ctx = model_gates[0]
    path = CANDIDATES / f"{name}.races"
    text = path.read_text(encoding="utf-8")
    with_model, _ = admit_text(text, str(path), ctx)
    backend, ctx.backend = ctx.backend, None
    try:
        without, _ = admit_text(text, str(path), ctx)
    finally:
        ctx.backend = backend
    assert without.admitted and without.passed == with_model.passed[:8]
    assert without.scores["contract"] == with_model.scores["contract"]
    assert without.scores.get("partial") == with_model.scores.get("partial")


def test_review_and_solve_replies_have_room_to_think():
    from racesl.admit.context import AdmitConfig

    cfg = AdmitConfig()
    assert cfg.review_max_tokens >= 4096 and cfg.solve_max_tokens >= 4096
