"""The evolve loop through the real gates, with a scripted generator: a valid new module is
admitted, junk stops at extract, a renamed stdlib environment at novelty, a broken module at
parse; the pool keeps the admitted one, and a second run resumes at the next step and
compares with it. (Runs every model-free gate: ~30–60 s.)"""

from pathlib import Path

import pytest

from racesl.evolve.config import parse
from racesl.evolve.loop import evolve
from racesl.generation import Reply
from racesl.pool import Pool

from .scripted import ScriptedBackend

CORPUS = Path(__file__).parent / "corpus"


def _read(name):
    return (CORPUS / name).read_text(encoding="utf-8")


def _block(text):
    return f"Sure. Here is the module:\n\n```races\n{text}```\n"


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("evolve")

    def cfg(steps):
        return parse({"pool": {"dir": "pool"},
                      "generator": {"endpoint": "http://127.0.0.1:9/v1", "steps": steps, "candidates_per_step": 3,
                                    "model_gates": False},
                      "admit": {"samples": 24, "probes": 16}}, base)

    first = ScriptedBackend([_block(_read("ternary.races")), "I am not sure how to write this.",
                             _block(_read("renamed_digit_sum.races"))])
    s1 = evolve(cfg(1), first)
    second = ScriptedBackend([_block(_read("ternary.races").replace("module ternary", "module ternary_again")),
                              Reply(("",), "error", "HTTP 503: overloaded"), _block("module broken\nenv (:\n")])
    s2 = evolve(cfg(2), second)
    return base, s1, s2


def test_first_step_funnel(runs):
    _, s1, _ = runs
    gates = [r.gate for r in s1.rows]
    assert gates == [None, "extract", "novelty"], [r.reason for r in s1.rows]
    assert s1.admitted == ["ternary"]
    f = s1.funnel()
    assert f["extract"] == 1 and f["novelty"] == 1 and sum(f.values()) == 2
    assert "digit_sum" in s1.rows[2].reason  # names the stdlib twin
    assert s1.rows[0].reward > 0 > s1.rows[2].reward > s1.rows[1].reward


def test_pool_keeps_the_admitted_module(runs):
    base, _, _ = runs
    pool = Pool.open(base / "pool")
    e = pool.entries["ternary"]
    assert e.origin == "generated" and e.generator == "scripted" and e.step == 0 and not e.retired
    assert e.envs == ("ternary.ternary_digit_sum",) and e.parents
    assert (base / "pool" / "ternary.races").exists()


def test_second_run_resumes_and_compares_with_the_pool(runs):
    base, _, s2 = runs
    assert s2.first_step == 1 and s2.last_step == 2 and {r.step for r in s2.rows} == {1}
    assert [r.gate for r in s2.rows] == ["novelty", "generate", "parse"], [r.reason for r in s2.rows]
    assert "ternary.ternary_digit_sum" in s2.rows[0].reason  # the copy of what step 0 admitted
    assert s2.admitted == [] and s2.rows[1].reward is None
    lines = (base / "pool" / "evolve.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 6 and Pool.open(base / "pool").step == 2
