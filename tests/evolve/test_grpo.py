"""`racesc evolve --train`: one policy in both roles under TRL GRPO (racesl.evolve.grpo).

The reward functions' None pattern on a synthetic batch, the generator advantage weight,
and two GRPO steps of a tiny random Qwen2 on CPU with a generator and a solver prompt in
every batch (a random model writes no ```races block: its candidates stop at extract)."""

import json
import os
from types import SimpleNamespace

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

import pytest

from racesl import resources
from racesl.admit.gates import Verdict
from racesl.evolve import grpo as G
from racesl.evolve.extract import extract_module

TRI = """module triangle_gen

env triangle(n: Int where 1 <= it <= 40) -> Int:
    \"\"\"The n-th triangular number: the sum of the whole numbers from 1 to n.\"\"\"
    return n * (n + 1) // 2
"""


class StdlibPool:  # the read-only bundled stdlib (until racesl.pool lands)
    writable = False

    def include(self):
        return [resources.stdlib_dir()]

    def paths(self):
        return sorted(resources.stdlib_dir().glob("*.races"))


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    """A random 2-layer Qwen2 with a byte-level tokenizer (racesl.train.tiny), as tests/train."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    import torch

    torch.set_num_threads(1)
    from racesl.train.tiny import save_tiny

    return save_tiny(tmp_path_factory.mktemp("tiny") / "model")


@pytest.fixture(scope="module")
def ctx():
    from racesl.admit.context import Context

    c = Context(StdlibPool())
    yield c
    c.close()


@pytest.fixture(scope="module")
def records(ctx):
    """Two solver records compiled from the pool, with their indices."""
    from racesl.search.config import CompileConfig, from_toml

    cfg = CompileConfig(**from_toml({"compile": {"seed": 0, "max_level": 1, "batch": 16},
                                     "operators": {"sequential": "2-3", "parallel": "2-3"}}, resources.stdlib_dir()))
    it = G.pool_tasks(ctx.pool_lib, cfg)(0)
    return [next(it) for _ in range(2)]


def fake_reward(verdict, scores):
    """Stands in for racesl.evolve.reward.generator_reward: a penalty by how far it got."""
    if verdict.admitted:
        return 1.0
    return -1.0 if verdict.gate == "parse" else -0.5


def test_generator_reads_the_last_races_block():
    assert extract_module("text\n```races\nmodule a\n```\nmore") == "module a\n"
    assert extract_module("```races\nfirst\n```\n```races\nsecond\n```") == "second\n"
    assert extract_module("```races\nunterminated") == "unterminated\n"
    assert extract_module("```python\nx = 1\n```") is None
    assert extract_module("") is None


def test_rewards_none_pattern(records, tmp_path):
    """On a mixed batch each function scores its own role and is None on the other; no row
    is None in both; the generator rows went through extract, then the gates."""
    calls = []

    def admit(text, file):
        calls.append((text, file))
        ok = "triangle" in text
        return Verdict(file, ok, None if ok else "check", "" if ok else "E100", {"check": {}},
                       "triangle_gen" if ok else None), SimpleNamespace(module="triangle_gen")

    admitted = []
    log = tmp_path / "evolve.jsonl"
    gen = G.GeneratorReward(admit, fake_reward, on_admitted=lambda out, step: admitted.append((out.module, step)),
                            log_path=log)
    solver = G.SolverReward()
    (_, r0), (_, r1) = records
    rows = [("generator", "", 0, 0, "no block here"),
            ("solver", json.dumps(r0), -1, -1, f"<answer>{r0['answer']}</answer>"),
            ("generator", "", 0, 0, f"```races\n{TRI}```"),
            ("solver", json.dumps(r1), -1, -1, "<answer>certainly wrong</answer>"),
            ("generator", "", 0, 0, "```races\nmodule broken\n```")]
    kw = {"role": [r[0] for r in rows], "record": [r[1] for r in rows], "gen_step": [r[2] for r in rows],
          "gen_slot": [r[3] for r in rows], "trainer_state": None}
    completions = [[{"role": "assistant", "content": r[4]}] for r in rows]
    metrics = {}
    s = solver(prompts=["p"] * 5, completions=completions, log_metric=lambda k, v: metrics.setdefault(k, v), **kw)
    g = gen(prompts=["p"] * 5, completions=completions, log_metric=lambda k, v: metrics.setdefault(k, v), **kw)
    assert [x is None for x in s] == [True, False, True, False, True]
    assert [x is None for x in g] == [False, True, False, True, False]
    assert all((a is None) != (b is None) for a, b in zip(s, g))
    assert s[1] == 1.0 and s[3] == 0.0  # the reference answer scores 1, junk 0
    assert g == [-1.0, None, 1.0, None, -0.5]
    assert [f for _, f in calls] == ["<step 0 slot 0 sample 1>", "<step 0 slot 0 sample 2>"]  # no block: no gates
    assert admitted == [("triangle_gen", 0)]
    f = gen.funnel_dict()
    assert (f["candidates"], f["extract"], f["check"], f["admitted"]) == (3, 1, 1, 1)
    assert metrics["evolve/candidates"] == 3.0 and metrics["evolve/stopped/extract"] == pytest.approx(1 / 3)
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    assert [x["stage"] for x in lines] == ["extract", "admitted", "check"]
    assert [x["sample"] for x in lines] == [0, 1, 2]


def test_generator_rows_reach_the_real_gates(ctx):
    """A completion's module goes through racesl.admit.run.admit_text against the pool."""
    pytest.importorskip("racesl.admit.novelty")
    pytest.importorskip("racesl.admit.contract")
    pytest.importorskip("racesl.admit.judge")
    from racesl.admit.run import admit_text

    gen = G.GeneratorReward(lambda text, file: admit_text(text, file, ctx), fake_reward)
    bad = "```races\nmodule m\n\nenv f(x: Int) -> Int:\n    return y\n```"
    out = gen(completions=[f"```races\n{TRI}```", bad], role=["generator", "generator"], gen_step=[3, 3],
              gen_slot=[0, 0])
    f = gen.funnel_dict()
    assert f["candidates"] == 2 and f["check"] == 1 and out[1] == -0.5
    assert f["admitted"] + sum(f[g] for g in ("sample", "determinism", "nontrivial", "composes", "contract",
                                              "novelty")) == 1


def test_role_source_holds_both_roles_in_every_batch(records):
    it = iter(records * 10)
    src = G.RoleSource(lambda step, slot: f"write module {step}.{slot}", lambda start: it, per_batch=3, generators=1)
    rows = src.rows()
    got = [next(rows) for _ in range(6)]
    assert [r["role"] for r in got] == ["generator", "solver", "solver"] * 2
    assert got[3]["prompt"] == [{"role": "user", "content": "write module 1.0"}]
    assert json.loads(got[1]["record"])["id"] == records[0][1]["id"] and got[1]["gen_step"] == -1
    with pytest.raises(ValueError, match="both roles"):
        G.RoleSource(lambda s, i: "", lambda start: it, per_batch=2, generators=2)


def test_generator_advantage_is_weighted(monkeypatch):
    torch = pytest.importorskip("torch")
    pytest.importorskip("trl")
    from trl import GRPOTrainer

    monkeypatch.setattr(GRPOTrainer, "_generate_and_score_completions",
                        lambda self, inputs: {"advantages": torch.tensor([1.0, -2.0, 0.5, 4.0])})
    cls = G.two_role_trainer_class()
    t = object.__new__(cls)
    t.generator_weight = 0.3
    out = t._generate_and_score_completions([{"role": "generator"}, {"role": "generator"}, {"role": "solver"},
                                             {"role": "solver"}])
    assert out["advantages"].tolist() == pytest.approx([0.3, -0.6, 0.5, 4.0])


TRAIN = {
    "model": {"dtype": "float32"},
    "data": {"seed": 0, "max_level": 1, "batch": 16},
    "operators": {"sequential": "2-3", "parallel": "2-3", "sort": "2-3", "select": "2-3"},
    "max_steps": 2, "num_generations": 4, "generation_batch_size": 8, "per_device_train_batch_size": 8,
    "max_completion_length": 12, "learning_rate": 1e-4, "lr_scheduler_type": "constant", "beta": 0.0,
    "loss_type": "dapo", "temperature": 1.0, "bf16": False, "gradient_checkpointing": False, "use_cpu": True,
    "logging_steps": 1, "save_strategy": "no", "report_to": "none", "disable_tqdm": True,
}


@pytest.fixture(scope="module")
def trained(tiny_model, ctx, tmp_path_factory):
    """Two GRPO steps, one generator and one solver prompt (× 4 completions) a batch."""
    pytest.importorskip("trl")
    from racesl.admit.run import admit_text

    out = tmp_path_factory.mktemp("evolve") / "run"
    tcfg = G.train_config(SimpleNamespace(path=None, train=TRAIN))
    assert tcfg.grpo["max_steps"] == 2 and tcfg.max_completion_length == 12
    built = G.build(tcfg, generator_prompt=lambda step, slot: f"Write a new racesl module (step {step}) in a "
                    "```races block.", library=ctx.pool_lib, admit=lambda text, file: admit_text(text, file, ctx),
                    reward=fake_reward, model=str(tiny_model), output_dir=str(out))
    summary = G.run(built, save=False)
    print(f"two-role GRPO: {summary['seconds_per_step']} s/step ({summary['seconds']:.1f} s for 2 steps)")
    return built, summary, out


def test_two_grpo_steps_both_roles(trained):
    built, summary, out = trained
    assert summary["steps"] == 2
    hist = built.trainer.state.log_history
    steps = [h for h in hist if "rewards/solver_reward/mean" in h]
    assert len(steps) == 2
    for h in steps:  # both roles in every batch: each function scored some rows (a NaN mean would mean none)
        assert h["rewards/solver_reward/mean"] == h["rewards/solver_reward/mean"]
        assert h["rewards/generator_reward/mean"] == h["rewards/generator_reward/mean"]
        assert h["rewards/generator_reward/mean"] <= -0.5  # nothing a random model writes gets past parse
    assert steps[-1]["evolve/funnel/candidates"] == 8
    f = summary["funnel"]
    assert f["candidates"] == 8  # 2 steps × 1 generator prompt × 4 completions
    assert f["extract"] + f["parse"] == 8 and f["admitted"] == 0
    lines = (out / "evolve.jsonl").read_text().splitlines()
    assert len(lines) == 8 and {json.loads(x)["step"] for x in lines} == {0, 1}
    assert summary["rows"]["generator"] >= 2 and summary["rows"]["solver"] >= 2
    assert json.loads((out / "evolve_summary.json").read_text())["funnel"] == f


def test_policy_answers_the_model_gates(trained):
    """The policy as the review/calibration backend: seeded, n replies, the training RNG untouched."""
    import torch

    built, _, _ = trained
    backend = G.PolicyBackend(built.trainer, built.tokenizer)
    req = SimpleNamespace(prompt="Is this environment described correctly?", system="Answer yes or no.",
                          temperature=1.0, seed=5, max_tokens=6, n=2)
    state = torch.random.get_rng_state()
    a, b = backend.generate([req]), backend.generate([req])
    assert torch.equal(state, torch.random.get_rng_state())
    assert a[0].status == "ok" and len(a[0].texts) == 2 and a[0].texts == b[0].texts
    bad = backend.generate([SimpleNamespace(system=None)])  # no prompt
    assert bad[0].status == "error" and bad[0].texts == ()


def test_train_evolve_command(tiny_model, ctx, tmp_path):
    """The command's path with the context and hooks given: returns 0, prints the funnel."""
    pytest.importorskip("trl")
    cfg = SimpleNamespace(path=None, train=TRAIN, generator=SimpleNamespace(rows_per_batch=1),
                          reward=SimpleNamespace(generator_weight=0.3))
    args = SimpleNamespace(model=str(tiny_model), output_dir=str(tmp_path / "cmd"), max_steps=1, no_save=True,
                           set=["grpo.num_generations=2"])
    printed = []
    hooks = (lambda step, slot: "Write a ```races module.", extract_module, fake_reward)
    try:
        rc = G.train_evolve(cfg, args, context=ctx, hooks=hooks, echo=printed.append)
        assert isinstance(ctx.backend, G.PolicyBackend)  # no backend given: the policy judges
    finally:
        ctx.backend = None
    assert rc == 0
    summary = json.loads((tmp_path / "cmd" / "evolve_summary.json").read_text())
    assert summary["steps"] == 1 and summary["funnel"]["candidates"] == 2  # 1 generator × 2 completions
    assert "funnel: 2 candidates" in printed[0] and "generator advantage × 0.3" in printed[0]


def test_train_evolve_reports_bad_settings(ctx, capsys):
    pytest.importorskip("trl")
    cfg = SimpleNamespace(path=None, train={**TRAIN, "max_stepz": 3})
    rc = G.train_evolve(cfg, SimpleNamespace(model="x", set=[]), context=ctx, hooks=(None, None, None))
    assert rc == 2 and "max_stepz" in capsys.readouterr().err
