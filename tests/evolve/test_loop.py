"""The evolve loop's bookkeeping, with the gates replaced by a scripted judge: rows, funnel,
rewards, the log, resuming. (test_loop_e2e.py runs the real gates.)"""

import json
from pathlib import Path

import pytest

from racesl.admit.gates import Verdict
from racesl.admit.run import Outcome
from racesl.evolve.config import parse
from racesl.evolve.loop import FUNNEL, Evolver, evolve, request_seed
from racesl.generation import Reply
from racesl.pool import Pool

from .scripted import ScriptedBackend

CORPUS = Path(__file__).parent / "corpus"
TERNARY = (CORPUS / "ternary.races").read_text(encoding="utf-8")


def _cfg(tmp_path, steps=1, n=3):
    return parse({"pool": {"dir": "pool"}, "generator": {"endpoint": "http://127.0.0.1:9/v1", "steps": steps,
                                                          "candidates_per_step": n, "temperature": 0.7,
                                                          "max_tokens": 300, "seed": 5, "model_gates": False}},
                 tmp_path)


@pytest.fixture
def fake_gates(monkeypatch):
    """admit_text judged by the text: a module named `ternary*` is admitted, one holding
    `copy` stops at novelty, anything else at check."""
    seen = []

    def admit_text(text, file, ctx, isolate=True):
        seen.append((text, file))
        if "module ternary" in text:
            name = "ternary" if "ternary" not in ctx.pool.module_names() else "ternary_2"
            text = text.replace("module ternary", f"module {name}")
            scores = {"novelty": {"envs": {"ternary_digit_sum": {"behaviour": {"agreement": 0.25},
                                                                 "text": {"jaccard": 0.1}}}}}
            out = Outcome(None, "", scores, ("parse",), name, text, (f"{name}.ternary_digit_sum",), ("numbers.x",))
            return Verdict(file, True, None, "ok", scores, name, ("parse",)), out
        gate = "novelty" if "copy" in text else "check"
        out = Outcome(gate, f"stopped at {gate}", {}, (), None, text)
        return Verdict(file, False, gate, f"stopped at {gate}", {}, None), out

    monkeypatch.setattr("racesl.admit.run.admit_text", admit_text)
    return seen


def block(text):
    return f"Here it is:\n```races\n{text}```\n"


def test_one_step_rows_funnel_and_log(tmp_path, fake_gates):
    cfg = _cfg(tmp_path)
    backend = ScriptedBackend([block(TERNARY), "no idea", block("module copy\nenv f(n: Int) -> Int:\n")])
    progress = []
    s = evolve(cfg, backend, progress=lambda done, total, row: progress.append((done, total, row.gate)))
    assert [r.gate for r in s.rows] == [None, "extract", "novelty"]
    assert progress == [(1, 3, None), (2, 3, "extract"), (3, 3, "novelty")]
    funnel = s.funnel()
    assert list(funnel) == list(FUNNEL) and funnel["extract"] == 1 and funnel["novelty"] == 1
    assert sum(funnel.values()) + len(s.admitted) == s.candidates == 3
    assert s.admitted == ["ternary"] and (s.first_step, s.last_step) == (0, 1)
    assert s.rows[0].reward == round(0.5 + 0.5 * 0.75, 4)  # uncalibrated + novelty bonus
    assert s.rows[1].reward == -1.0 and s.rows[2].reward == -0.2
    # the requests: explicit sampling settings, a seed per (step, i)
    rq = backend.requests
    assert [r.seed for r in rq] == [request_seed(5, 0, i) for i in range(3)] and len({r.seed for r in rq}) == 3
    assert all(r.temperature == 0.7 and r.max_tokens == 300 and r.n == 1 for r in rq)
    assert fake_gates[0][1] == "evo_s0_c0.races"  # named after the module the prompt asked for
    # the pool and its log
    root = Path(cfg.pool.dir)
    pool = Pool.open(root)
    entry = pool.entries["ternary"]
    assert pool.step == 1 and entry.origin == "generated" and entry.generator == "scripted" and entry.step == 0
    assert entry.envs == ("ternary.ternary_digit_sum",) and entry.parents == ("numbers.x",)
    assert (root / "ternary.races").exists()
    rows = [json.loads(x) for x in (root / "evolve.jsonl").read_text().splitlines()]
    assert [(r["step"], r["index"], r["gate"], r["module"]) for r in rows] == \
        [(0, 0, None, "ternary"), (0, 1, "extract", None), (0, 2, "novelty", None)]
    assert "no ```races block" in rows[1]["reason"]
    js = s.to_json()
    assert js["admitted"] == ["ternary"] and js["candidates"] == 3 and js["reward_mean"] == s.reward_mean


def test_resume_continues_at_the_pools_step(tmp_path, fake_gates):
    cfg = _cfg(tmp_path, steps=1, n=2)
    evolve(cfg, ScriptedBackend([block(TERNARY), "junk"]))
    again = evolve(cfg, ScriptedBackend([]))  # already at step 1: nothing to do
    assert again.candidates == 0 and again.first_step == again.last_step == 1
    # a stale row of step 1 (a commit cut off before the pool advanced) is replaced
    log = Path(cfg.pool.dir) / "evolve.jsonl"
    log.write_text(log.read_text() + json.dumps({"step": 1, "index": 0, "gate": "stale"}) + "\n")
    backend = ScriptedBackend([Reply(("",), "error", "HTTP 503: busy"), block(TERNARY)])
    s = evolve(_cfg(tmp_path, steps=2, n=2), backend)
    assert s.first_step == 1 and s.last_step == 2 and [r.step for r in s.rows] == [1, 1]
    assert s.rows[0].gate == "generate" and s.rows[0].reward is None and "503" in s.rows[0].reason
    assert s.rows[1].admitted and s.admitted == ["ternary_2"]  # a second copy under a fresh name
    assert [r.seed for r in backend.requests] == [request_seed(5, 1, i) for i in range(2)]
    rows = [json.loads(x) for x in log.read_text().splitlines()]
    assert [(r["step"], r["gate"]) for r in rows] == [(0, None), (0, "extract"), (1, "generate"), (1, None)]
    assert s.funnel()["generate"] == 1 and s.reward_mean == s.rows[1].reward


def test_a_raising_backend_is_a_row_not_a_crash(tmp_path, fake_gates):
    class Broken(ScriptedBackend):
        def generate(self, requests):
            raise ConnectionError("refused")

    s = evolve(_cfg(tmp_path, n=2), Broken([]))
    assert [r.gate for r in s.rows] == ["generate", "generate"] and "ConnectionError" in s.rows[0].reason
    assert not fake_gates
    # no completion at all: the step is not committed (a rerun retries it), but its rows say why
    assert s.stalled == 0 and s.last_step == 0 and Pool.open(Path(tmp_path, "pool")).step == 0
    assert s.failures() == [(s.rows[0].reason, 2)] and s.to_json()["stalled"] == 0
    log = [json.loads(x) for x in (Path(tmp_path, "pool") / "evolve.jsonl").read_text().splitlines()]
    assert [(r["step"], r["gate"]) for r in log] == [(0, "generate"), (0, "generate")]
    again = evolve(_cfg(tmp_path, n=2), ScriptedBackend([block(TERNARY), "junk"]))
    assert again.first_step == 0 and again.last_step == 1 and again.stalled is None and again.admitted == ["ternary"]
    log = [json.loads(x) for x in (Path(tmp_path, "pool") / "evolve.jsonl").read_text().splitlines()]
    assert [(r["step"], r["gate"]) for r in log] == [(0, None), (0, "extract")]  # the failed attempt replaced


def test_prompts_are_deterministic_and_need_a_writable_pool(tmp_path, fake_gates):
    from racesl.pool import PoolError

    cfg = _cfg(tmp_path)
    a, b = Evolver(cfg, ScriptedBackend([])), Evolver(cfg, ScriptedBackend([]))
    try:
        assert [p.text for p in a.prompts(4)] == [p.text for p in b.prompts(4)]
        assert [p.module for p in a.prompts(4)] == ["evo_s4_c0", "evo_s4_c1", "evo_s4_c2"]
    finally:
        a.close()
        b.close()
    with pytest.raises(PoolError, match="pool folder"):
        Evolver(cfg, ScriptedBackend([]), pool=Pool.open("stdlib"))


def test_rotation_runs_each_step(tmp_path, fake_gates):
    cfg = parse({"pool": {"dir": "pool", "max_age": 1},
                 "generator": {"endpoint": "http://x/v1", "steps": 3, "candidates_per_step": 1,
                               "model_gates": False}}, tmp_path)
    s = evolve(cfg, ScriptedBackend([block(TERNARY), "junk", "junk"]))
    assert s.admitted == ["ternary"] and s.retired == ["ternary"]  # admitted at 0, older than 1 step at 2
    pool = Pool.open(cfg.pool.dir)
    assert pool.entries["ternary"].retired and pool.step == 3
