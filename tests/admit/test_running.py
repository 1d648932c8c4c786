"""The running gates (racesl.admit.running): sample, determinism, nontrivial — each candidate
of tests/admit/corpus/running_*.races stops at the gate its defect belongs to, with a reason
that says what is wrong and how to fix it."""

from __future__ import annotations

import types
from pathlib import Path

import pytest

from racesl import resources
from racesl.admit import front, running
from racesl.admit.context import AdmitConfig, Context
from racesl.admit.gates import Candidate
from racesl.library import Run
from racesl.runtime.contract import canonical

CORPUS = Path(__file__).parent / "corpus"
RUNNING = (running.sample, running.determinism, running.nontrivial)


class StdlibPool:
    """A read-only pool: the bundled stdlib (a stand-in for racesl.pool.Pool.open("stdlib"))."""

    writable = False

    def include(self):
        return [resources.stdlib_dir()]

    def paths(self):
        return sorted(resources.stdlib_dir().glob("*.races"))


@pytest.fixture(scope="module")
def ctx():
    c = Context(StdlibPool())
    yield c
    c.close()


def checked(ctx, name: str) -> Candidate:
    path = CORPUS / f"running_{name}.races"
    cand = Candidate(str(path), path.read_text(encoding="utf-8"))
    assert front.parse(cand, ctx) is None
    assert front.check(cand, ctx) is None, cand.scores
    return cand


def gate(ctx, name: str, gates=RUNNING) -> tuple[Candidate, str | None, str | None]:
    """(candidate, the gate that rejected it or None, the reason)."""
    cand = checked(ctx, name)
    for g in gates:
        reason = g(cand, ctx)
        if reason is not None:
            return cand, g.__name__, reason
    return cand, None, None


@pytest.fixture(scope="module")
def runs(ctx):
    """Each corpus candidate through the three gates, once for the whole module."""
    done: dict = {}

    def get(name: str):
        if name not in done:
            done[name] = gate(ctx, name)
        return done[name]
    return get


def test_a_valid_candidate_passes_all_three(runs):
    cand, g, reason = runs("valid")
    assert (g, reason) == (None, None)
    sample = cand.scores["sample"]
    assert sample["samples"] == 40 and sample["fuel"] == 400
    for name in ("digit_weight", "triangle"):
        s = sample["envs"][name]
        assert s["ok"] == 1.0 and s["statuses"] == {"ok": 40}
    runs_ = cand.outputs["running_valid.triangle"]
    assert len(runs_) == 40
    for x, st, run in runs_:  # the real body's outputs, in the sandbox
        assert isinstance(run, Run) and st == () and 1 <= x <= 40
        assert run.ok and run.value == x * (x + 1) // 2
    assert cand.scores["determinism"] == {"in_run": 0, "set_builders": [], "compared": 0}
    nt = cand.scores["nontrivial"]
    assert nt["static"] is None
    tri = nt["envs"]["triangle"]
    assert tri["static"] is None and tri["outputs"] == 40 and tri["distinct"] >= 3
    assert tri["distinct"] == len({canonical(r.value) for _, _, r in runs_})
    assert 0 <= tri["dropped"] <= 0.5


def test_sampling_is_reproducible(ctx, runs):
    first, _, _ = runs("valid")
    again = checked(ctx, "valid")
    assert running.sample(again, ctx) is None
    assert again.scores["sample"] == first.scores["sample"]
    for q, kept in first.outputs.items():
        assert [(canonical(x), r.status, canonical(r.value)) for x, _, r in kept] == \
               [(canonical(x), r.status, canonical(r.value)) for x, _, r in again.outputs[q]]


def test_crashing_on_most_inputs_stops_at_sample(runs):
    cand, g, reason = runs("crashing")
    assert g == "sample"
    s = cand.scores["sample"]["envs"]["small_ratio"]
    assert s["ok"] < 0.7 and sum(s["statuses"].values()) == 40 and s["statuses"]["assert"] > 0
    ok = s["statuses"]["ok"]
    assert reason.startswith(f"small_ratio: {ok}/40 sampled inputs ran to a value (assert ")
    assert "guard the failing case" in reason
    assert "determinism" not in cand.scores  # nothing after the failed gate ran


def test_over_fuel_stops_at_sample(runs):
    cand, g, reason = runs("over_fuel")
    assert g == "sample"
    assert cand.scores["sample"]["envs"]["count_up"] == {"ok": 0.0, "statuses": {"fuel": 40}}
    assert reason == ("count_up: 0/40 sampled inputs ran to a value (fuel 40); "
                      "bound the loops or lower the input bounds, so a run takes at most 400 steps")


def test_a_contract_violation_stops_at_sample(runs):
    cand, g, reason = runs("contract")
    assert g == "sample"
    file = str(CORPUS / "running_contract.races")
    assert reason.startswith(f"{file}:1:5: error[E600]: shrink(")  # the candidate's file, not the work copy
    assert "outside Int where 0 <= it <= 50" in reason and reason.endswith("widen the declared return type")
    s = cand.scores["sample"]["envs"]["shrink"]
    assert s["statuses"]["contract"] >= 1 and s["ok"] >= 0.7  # rejected for the violation, not the share


def test_hash_seed_dependence_stops_at_determinism(runs):
    cand, g, reason = runs("hash_seed")
    assert g == "determinism"
    assert cand.scores["sample"]["envs"]["scramble"]["ok"] == 1.0
    assert "error[E601]: scramble('" in reason and "with PYTHONHASHSEED=" in reason
    assert "sort first" in reason
    d = cand.scores["determinism"]
    assert d["in_run"] == 0 and d["set_builders"] == ["scramble"] and d["compared"] == 40
    assert len(d["hash_seeds"]) == 2


def test_a_double_run_that_disagrees_stops_at_determinism(ctx, monkeypatch):
    """The in-run half of E601: probe_env runs each input twice; a worker answering differently
    the second time (here: every other answer shifted) is reported by the determinism gate."""
    from racesl.sandbox_runner import SandboxRunner

    real = SandboxRunner.run
    calls = [0]

    def flaky(self, env, x, settings=(), **kw):
        run = real(self, env, x, settings, **kw)
        calls[0] += 1
        return Run(run.value + calls[0] % 2, run.status, run.steps) if run.ok else run

    monkeypatch.setattr(SandboxRunner, "run", flaky)
    cand = checked(ctx, "valid")
    assert running.sample(cand, ctx) is None  # the share is fine: only determinism rejects
    assert [d.code for d in cand.found] == ["E601", "E601"]  # one per environment
    reason = running.determinism(cand, ctx)
    assert "error[E601]: digit_weight(" in reason and "the next time" in reason and "sort first" in reason
    assert cand.scores["determinism"]["in_run"] == 2


def test_an_output_type_that_pins_a_value_is_refused_statically(ctx):
    cand = checked(ctx, "static_constant")  # triangle (fine) and zero (-> Int where it == 0)
    reason = running.nontrivial(cand, ctx)  # nothing sampled: the solver's proof alone answers
    assert not cand.outputs
    assert reason.startswith("zero: the solver proves every output of type Int where it == 0 is one of the values "
                             "the compile drops (filter 'value')")
    assert reason.endswith("widen the output type so it has values the compile keeps")
    nt = cand.scores["nontrivial"]
    assert nt["static"] == "value"
    assert nt["envs"]["zero"] == {"static": "value", "condition": False}
    assert nt["envs"]["triangle"]["static"] is None  # every env is judged, each on its own
    assert cand.refused == {"zero": reason}  # judged one by one (triangle was never sampled here)


def test_a_module_of_conditions_only_is_refused_before_running(ctx):
    cand = checked(ctx, "bool")  # (nothing sampled: the refusal reads the types only)
    reason = running.nontrivial(cand, ctx)
    assert reason.startswith("is_big: its output type Bool has two values")
    assert "a module of conditions only adds no answer" in reason
    assert cand.scores["nontrivial"]["envs"]["is_big"] == {"static": None, "condition": True}


def test_a_constant_body_stops_at_nontrivial(runs):
    cand, g, reason = runs("constant")
    assert g == "nontrivial"
    assert reason.startswith("seven: 1 distinct output(s) in 40 sampled runs (7): a constant; ")
    nt = cand.scores["nontrivial"]
    assert nt["static"] is None
    assert nt["envs"]["seven"] == {"static": None, "condition": False, "outputs": 40, "distinct": 1, "dropped": 0.0,
                                   "dropped_count": 0, "filters": {}}


def test_always_0_or_1_stops_at_nontrivial(ctx, runs):
    cand, g, reason = runs("zero_one")
    assert g == "nontrivial"
    assert reason.startswith("odd: 40 of 40 sampled outputs are values the compile drops (40 are 0 or 1), more than "
                             "the 75% allowed; 2 distinct output(s), the most common ")
    assert cand.scores["nontrivial"]["envs"]["odd"]["dropped"] == 1.0
    assert cand.scores["nontrivial"]["envs"]["odd"]["dropped_count"] == 40
    # were the filters' share allowed, two distinct values are still nearly a constant
    lenient = types.SimpleNamespace(config=AdmitConfig(max_dropped=1.0), solver=ctx.solver)
    again = running.nontrivial(cand, lenient)
    assert again.startswith("odd: 2 distinct output(s) in 40 sampled runs (0, 1): nearly a constant")



def test_the_dropped_message_says_what_it_measured():
    """Issue 47: the count is outputs (not a filter's "value"), every filter is named with what
    it drops, and the distinct outputs are counted, never called "always 0/1"."""
    from collections import Counter

    from racesl.search.config import Filters

    texts = ["0"] * 20 + ["1"] * 11 + ["777"] * 6 + ["4"] * 3
    drops = Counter({"value": 31, "big_int": 6})
    msg = running.dropped_message("f", texts, drops, Filters(), 0.75)
    assert msg.startswith("f: 37 of 40 sampled outputs are values the compile drops (31 are 0 or 1, 6 are integers "
                          "beyond ±500), more than the 75% allowed; 4 distinct output(s), the most common 0 ×20, "
                          "1 ×11, 777 ×6: ")
    assert "always" not in msg and "value 37" not in msg
