"""The model gates (review, calibration) against a scripted fake backend: no real model."""

from __future__ import annotations

import math
import sys
import types
from pathlib import Path

import attrs
import pytest

from racesl.admit import judge
from racesl.admit.context import AdmitConfig

CORPUS = Path(__file__).parent / "corpus"


@attrs.frozen
class _Request:  # racesl.generation.Request's fields, for while that package has not landed
    prompt: str
    system: str | None
    temperature: float
    seed: int
    max_tokens: int
    n: int = 1


@attrs.frozen
class Reply:
    texts: tuple
    status: str = "ok"
    detail: str = ""
    seconds: float = 0.25


@pytest.fixture(autouse=True)
def generation_module(monkeypatch):
    """The real racesl.generation.Request when it is there, else a stand-in with its fields."""
    try:
        from racesl.generation import Request  # noqa: F401
    except ImportError:
        shim = types.ModuleType("racesl.generation")
        shim.Request = _Request
        monkeypatch.setitem(sys.modules, "racesl.generation", shim)


class FakeBackend:
    """Replies from a script: a function of (request, index in the batch) -> Reply."""

    name = "fake"

    def __init__(self, script):
        self.script = script
        self.requests: list = []

    def generate(self, requests):
        self.requests.extend(requests)
        return [self.script(r, i) for i, r in enumerate(requests)]

    def close(self):
        pass


def texts(*replies: str):
    """A script answering the i-th request of a batch with replies[i]."""
    return lambda req, i: Reply((replies[i],))


@attrs.define
class Ctx:
    backend: object
    config: AdmitConfig = AdmitConfig()


TEXT = (CORPUS / "judge_helpers.races").read_text()


def outcome(material=None, text=TEXT, envs=("judge_helpers.weighted_sum",)):
    return judge.Plain(text, "judge_helpers", envs, {}, dict(material or {}))


# ---------------------------------------------------------------- what the review reads


def test_env_entries_from_text_show_signature_description_and_used_helpers():
    entries = judge.env_entries(TEXT)
    assert [e["name"] for e in entries] == ["weighted_sum", "digit_count"]
    e = entries[0]
    assert e["signature"] == "env weighted_sum(ds: Digits, k: Int where 1 <= it <= 3) -> Int"
    assert e["description"] == "Return k plus twice the sum of the digits in the list ds, where k = {k}."
    code = e["code"]
    # the helpers it uses, transitively, in source order, then the environment itself
    assert code.index("type Digits") < code.index("def weight(") < code.index("def weighted(") < code.index(
        "env weighted_sum")
    assert "def unused" not in code and "env digit_count" not in code
    assert "def weight(" not in entries[1]["code"] and "type Digits" in entries[1]["code"]


def test_env_entries_cap_the_code_and_name_what_they_left_out(monkeypatch):
    monkeypatch.setattr(judge, "MAX_CODE", 200)
    code = judge.env_entries(TEXT, names={"weighted_sum"})[0]["code"]
    assert "env weighted_sum" in code and "# (not shown:" in code


@pytest.fixture(scope="module")
def checked_candidate():
    from racesl import resources
    from racesl.admit import front
    from racesl.admit.context import Context
    from racesl.admit.gates import Candidate

    class StdlibPool:
        writable = False

        def include(self):
            return [resources.stdlib_dir()]

        def paths(self):
            return sorted(resources.stdlib_dir().glob("*.races"))

    ctx = Context(StdlibPool())
    cand = Candidate("judge_helpers.races", TEXT)
    assert front.parse(cand, ctx) is None and front.check(cand, ctx) is None
    yield cand, ctx
    ctx.close()


def test_review_material_uses_the_checked_signatures(checked_candidate):
    cand, _ = checked_candidate
    material = judge.review_material(cand)
    sigs = {e.name: e for e in cand.envs}
    assert [m["name"] for m in material] == ["weighted_sum", "digit_count"]
    for m in material:
        assert m["signature"] == sigs[m["name"]].signature()
        assert m["description"] == sigs[m["name"]].description
    assert "def weighted(" in material[0]["code"]


def test_review_gate_on_a_candidate(checked_candidate):
    cand, ctx = checked_candidate
    fake = FakeBackend(lambda req, i: Reply(("Fine.\nVERDICT: ACCEPT",)))
    cand.scores.pop("review", None)
    assert judge.review(cand, Ctx(fake)) is None
    assert len(fake.requests) == 2 * 3  # two environments, K = 3 each
    assert cand.scores["review"]["accept"] == 6


# ---------------------------------------------------------------- review


def test_read_verdict_is_tolerant():
    assert judge.read_verdict("ok\nVERDICT: ACCEPT") == ("accept", "")
    assert judge.read_verdict("**Verdict:** accept.") == ("accept", "")
    assert judge.read_verdict("verdict - Rejected: the order of ties is not said.") == (
        "reject", "the order of ties is not said")
    assert judge.read_verdict("<think>VERDICT: REJECT: maybe</think>\nVERDICT: ACCEPT") == ("accept", "")
    assert judge.read_verdict("VERDICT: ACCEPT\non second thought\nVERDICT: REJECT: k is unused") == (
        "reject", "k is unused")
    assert judge.read_verdict("I think it is fine.")[0] == "unparsable"
    assert judge.read_verdict("")[0] == "unparsable"


def test_all_accept_passes_and_requests_are_seeded():
    fake = FakeBackend(lambda req, i: Reply(("Looks right.\nVERDICT: ACCEPT",)))
    out = outcome({"envs": judge.env_entries(TEXT, names={"weighted_sum"})})
    cfg = AdmitConfig(seed=7, review_max_tokens=300)
    assert judge.review_outcome(out, Ctx(fake, cfg)) is None
    reqs = fake.requests
    assert len(reqs) == 3
    assert all(r.temperature == 0.7 and r.max_tokens == 300 and r.n == 1 for r in reqs)
    assert all(r.system == judge.REVIEW_SYSTEM for r in reqs)
    assert [r.seed for r in reqs] == [judge.request_seed(7, "review", "judge_helpers", "weighted_sum", v)
                                      for v in range(3)]
    assert len({r.seed for r in reqs}) == 3
    p = reqs[0].prompt
    assert "env weighted_sum(ds: Digits" in p and "twice the sum" in p and "def weighted(" in p
    assert "VERDICT: ACCEPT" in p
    assert out.scores["review"] == {"envs": 1, "votes": 3, "accept": 3, "reject": 0, "unparsable": 0, "error": 0,
                                    "per_env": {"weighted_sum": [3, 0, 0, 0]}, "seconds": 0.75, "cut": 0}


def test_same_inputs_same_requests_other_seed_other_seeds():
    def run(seed):
        fake = FakeBackend(lambda req, i: Reply(("VERDICT: ACCEPT",)))
        judge.review_outcome(outcome(), Ctx(fake, AdmitConfig(seed=seed)))
        return [(r.prompt, r.seed) for r in fake.requests]

    assert run(0) == run(0)
    assert [s for _, s in run(0)] != [s for _, s in run(1)]


def test_without_material_the_text_is_read():
    fake = FakeBackend(lambda req, i: Reply(("VERDICT: ACCEPT",)))
    out = outcome(envs=("judge_helpers.weighted_sum", "judge_helpers.digit_count"))
    assert judge.review_outcome(out, Ctx(fake)) is None
    assert out.scores["review"]["per_env"] == {"weighted_sum": [3, 0, 0, 0], "digit_count": [3, 0, 0, 0]}


def test_one_reject_of_three_rejects():
    fake = FakeBackend(texts("VERDICT: ACCEPT", "VERDICT: REJECT: the description never mentions k",
                             "VERDICT: ACCEPT"))
    out = outcome()
    reason = judge.review_outcome(out, Ctx(fake))
    assert reason.startswith("the model's review 1/3 rejected: the description never mentions k")
    assert out.scores["review"]["accept"] == 2 and out.scores["review"]["reject"] == 1


def test_reject_names_the_environment_when_there_are_several():
    def script(req, i):
        bad = "env digit_count" in req.prompt and i % 3 != 0
        return Reply(("VERDICT: REJECT: says digits, counts items" if bad else "VERDICT: ACCEPT",))

    out = outcome(envs=())
    reason = judge.review_outcome(out, Ctx(FakeBackend(script)))
    assert reason.startswith("the model's review of digit_count 2/3 rejected: says digits, counts items")
    assert out.scores["review"]["per_env"]["digit_count"] == [1, 2, 0, 0]


def test_unparsable_reply_counts_as_reject():
    fake = FakeBackend(texts("VERDICT: ACCEPT", "It seems fine to me.", "VERDICT: ACCEPT"))
    out = outcome()
    reason = judge.review_outcome(out, Ctx(fake))
    assert reason is not None and "no verdict in 1/3" in reason
    assert out.scores["review"]["unparsable"] == 1 and out.scores["review"]["accept"] == 2


def test_backend_error_does_not_admit():
    def script(req, i):
        return Reply((), status="timeout", detail="no reply in 60 s") if i == 1 else Reply(("VERDICT: ACCEPT",))

    out = outcome()
    reason = judge.review_outcome(out, Ctx(FakeBackend(script)))
    assert reason is not None and "backend failed on 1/3" in reason and "timeout" in reason
    assert out.scores["review"]["error"] == 1
    assert out.scores["review"]["status"] == "timeout: no reply in 60 s"


def test_too_few_replies_do_not_admit():
    class Short(FakeBackend):
        def generate(self, requests):
            return super().generate(requests)[:1]

    out = outcome()
    assert judge.review_outcome(out, Ctx(Short(lambda r, i: Reply(("VERDICT: ACCEPT",))))) is not None
    assert out.scores["review"]["error"] == 2


def test_no_backend_is_a_reason_not_a_pass():
    assert "needs a model" in judge.review_outcome(outcome(), Ctx(None))
    assert "needs a model" in judge.calibration_outcome(outcome(), Ctx(None))


# ---------------------------------------------------------------- calibration


def records(n=8):
    return [{"id": f"t{i}", "operator": "branch", "prompt": f"Compute item {i}. Reply <answer>...</answer>.",
             "answer": str(10 + i), "library": "0" * 16, "size": 1, "chain": [], "settings": [], "input": "0",
             "trace": [], "steps": [], "level": 0, "seed": 0, "extra": {}} for i in range(n)]


def solver(solved: set[int], recs):
    """Answers instance i right when i is in `solved`, else wrong (the prompt names i)."""
    def script(req, _):
        i = next(k for k, r in enumerate(recs) if r["prompt"] == req.prompt)
        return Reply((f"<answer>{recs[i]['answer'] if i in solved else '-1'}</answer>",))

    return script


@pytest.mark.parametrize("solved, fragment", [(set(), "solved 0/8: too hard or unclear"),
                                              (set(range(8)), "solved 8/8: too easy")])
def test_calibration_rejects_all_or_nothing(solved, fragment):
    recs = records()
    out = outcome({"instances": recs})
    reason = judge.calibration_outcome(out, Ctx(FakeBackend(solver(solved, recs))))
    assert reason is not None and fragment in reason
    assert out.scores["calibration"]["solved"] == len(solved)


def test_calibration_three_of_eight_passes_with_evoenv_score():
    recs = records()
    fake = FakeBackend(solver({1, 4, 6}, recs))
    out = outcome({"instances": recs})
    cfg = AdmitConfig(seed=3, solve_max_tokens=128)
    assert judge.calibration_outcome(out, Ctx(fake, cfg)) is None
    s = out.scores["calibration"]
    assert s["solved"] == 3 and s["a_hat"] == 0.375
    assert s["successes"] == [0, 1, 0, 0, 1, 0, 1, 0]
    assert s["score"] == round(math.exp(-(0.375 - 0.3) ** 2 / (2 * 0.2 ** 2)), 4) == 0.9321
    reqs = fake.requests
    assert [r.prompt for r in reqs] == [r["prompt"] for r in recs]  # the record's own prompt
    assert all(r.system is None and r.temperature == 1.0 and r.max_tokens == 128 and r.n == 1 for r in reqs)
    assert [r.seed for r in reqs] == [judge.request_seed(3, "calibration", "judge_helpers", f"t{i}", i)
                                      for i in range(8)]


def test_calibration_score_follows_config():
    recs = records()
    out = outcome({"instances": recs})
    cfg = AdmitConfig(target=0.5, sigma=0.1, solve_temperature=0.6)
    fake = FakeBackend(solver({0, 1}, recs))
    assert judge.calibration_outcome(out, Ctx(fake, cfg)) is None
    assert out.scores["calibration"]["score"] == round(math.exp(-(0.25 - 0.5) ** 2 / (2 * 0.1 ** 2)), 4)
    assert {r.temperature for r in fake.requests} == {0.6}


def test_calibration_takes_the_first_m_instances():
    recs = records(12)
    fake = FakeBackend(solver({0}, recs))
    out = outcome({"instances": recs})
    assert judge.calibration_outcome(out, Ctx(fake)) is None
    assert len(fake.requests) == 8 and out.scores["calibration"]["a_hat"] == 0.125


@pytest.mark.parametrize("material", [{}, {"instances": records(5)}])
def test_calibration_needs_m_instances(material):
    fake = FakeBackend(lambda r, i: Reply(("<answer>1</answer>",)))
    out = outcome(material)
    reason = judge.calibration_outcome(out, Ctx(fake))
    assert reason is not None and f"only {len(material.get('instances', []))} of the 8" in reason
    assert fake.requests == []


def test_calibration_malformed_instance():
    recs = records()
    del recs[2]["prompt"]
    reason = judge.calibration_outcome(outcome({"instances": recs}), Ctx(FakeBackend(texts())))
    assert reason == "calibration instance 2 is not a task record with a prompt and an answer"


def test_calibration_backend_error_does_not_admit():
    recs = records()
    good = solver({0, 1, 2}, recs)

    def script(req, i):
        return Reply((), status="http_503", detail="overloaded") if i == 5 else good(req, i)

    out = outcome({"instances": recs})
    reason = judge.calibration_outcome(out, Ctx(FakeBackend(script)))
    assert reason is not None and "backend failed on 1/8" in reason
    assert out.scores["calibration"] == {"instances": 8, "errors": 1, "status": "http_503: overloaded"}


def test_a_reply_cut_at_max_tokens_says_which_key_to_raise():
    """Issue 47: a reasoning model's review cut before its verdict is a reject that says so."""
    cfg = AdmitConfig(review_max_tokens=64)
    def cut(req, i):
        return Reply(("<think>still thinking",), detail="1 of 1 cut at max_tokens (64)")

    out = outcome()
    reason = judge.review_outcome(out, Ctx(FakeBackend(cut), cfg))
    assert "3 of them cut at review_max_tokens (64): raise [admit] review_max_tokens" in reason
    assert out.scores["review"]["cut"] == 3
    assert judge.refused_by_review(out) == {"weighted_sum": "the model's review 0 rejected, 3 gave no verdict"}
