"""The training config: parsing, overrides, and the paper recipe mapped onto GRPOConfig."""

import pytest

from racesl.train.config import TrainConfigError, apply_overrides, load, parse
from racesl.train.trainer import TrainError, grpo_kwargs

from .conftest import ROOT, TRAIN_DIR

PAPER = TRAIN_DIR / "paper.toml"
TINY = TRAIN_DIR / "tiny.toml"


def test_paper_recipe_kwargs():
    cfg = load(PAPER)
    kw = grpo_kwargs(cfg)
    expected = {"beta": 0.0, "epsilon": 0.2, "epsilon_high": 0.28, "loss_type": "dapo", "num_generations": 8,
                "generation_batch_size": 1024, "learning_rate": 2e-6, "lr_scheduler_type": "constant",
                "vllm_importance_sampling_correction": False, "use_vllm": True, "vllm_mode": "colocate",
                "shuffle_dataset": False, "max_completion_length": 32768 - 4096}
    assert {k: kw[k] for k in expected} == expected
    assert cfg.max_prompt_length == 4096 and cfg.context_length == 32768
    assert "max_prompt_length" not in kw  # TRL 1.16 has none: racesl drops long prompts itself
    assert kw["gradient_accumulation_steps"] == 1024 // (8 * 1 * 4)
    assert cfg.compile.operators == (("sequential", 2, 12), ("parallel", 2, 12), ("sort", 2, 6), ("select", 2, 6))
    assert not cfg.curriculum.enabled
    assert cfg.launch.accelerate_config == str(TRAIN_DIR / "accelerate" / "zero2.yaml")


def test_paper_recipe_on_grpoconfig():
    pytest.importorskip("trl")
    from racesl.train.trainer import grpo_config

    # bf16 needs a GPU: on the CPU the same recipe runs in fp32
    cfg = load(PAPER, ["grpo.bf16=false", "grpo.use_cpu=true", "grpo.gradient_checkpointing=false"])
    args = grpo_config(cfg, output_dir="/tmp/races-test-paper")
    assert args.beta == 0.0 and args.epsilon == 0.2 and args.epsilon_high == 0.28
    assert args.loss_type == "dapo" and args.num_generations == 8 and args.generation_batch_size == 1024
    assert args.learning_rate == 2e-6 and getattr(args.lr_scheduler_type, "value", args.lr_scheduler_type) == "constant"
    assert args.max_completion_length == 28672
    assert args.vllm_importance_sampling_correction is False
    assert args.use_vllm is True and args.vllm_mode == "colocate"
    assert args.shuffle_dataset is False and args.max_steps == 500
    assert args.steps_per_generation == 1024 // 8 and args.gradient_accumulation_steps == 32
    assert args.model_init_kwargs == {"dtype": "bfloat16"}


def test_unknown_grpo_setting_is_named():
    pytest.importorskip("trl")
    from racesl.train.trainer import grpo_config

    cfg = load(TINY, ["grpo.learning_rat=1e-3", "model.path=x"])
    with pytest.raises(TrainError, match=r"learning_rat \(did you mean learning_rate\?\)"):
        grpo_config(cfg, output_dir="/tmp/races-test-x")


def test_tiny_config():
    cfg = load(TINY)
    assert cfg.data.source == "stream" and cfg.curriculum.enabled and cfg.curriculum.window == 4
    assert cfg.max_completion_length == 12
    assert cfg.data.paths == ("stdlib",)


@pytest.mark.parametrize("data,match", [
    ({"modle": {}}, "unknown section"),
    ({"model": {"pth": "x"}}, r"pth \(did you mean path\?\)"),
    ({"model": {"dtype": "int8"}}, "dtype"),
    ({"data": {"source": "web"}}, "source"),
    ({"data": {"source": "file"}}, "needs tasks"),
    ({"operators": {"sequental": "2-3"}}, "unknown operator"),
    ({"curriculum": {"mode": "up"}}, "mode"),
    ({"grpo": {"use_vllm": True}}, r"\[vllm\] enabled"),
    ({"grpo": {"output_dir": "x"}}, r"\[launch\] output_dir"),
    ({"grpo": {"context_length": 100, "max_prompt_length": 200}}, "context_length"),
    ({"vllm": {"mode": "remote"}}, "colocate"),
    ({"launch": {"nodes": 2}}, "unknown setting"),
])
def test_config_errors(data, match):
    with pytest.raises(TrainConfigError, match=match):
        parse(data, ROOT)


def test_stream_needs_max_steps():
    cfg = parse({"model": {"path": "m"}, "grpo": {}}, ROOT)
    with pytest.raises(TrainError, match="max_steps"):
        grpo_kwargs(cfg)
    assert grpo_kwargs(cfg, max_steps=3)["max_steps"] == 3


def test_overrides():
    data = apply_overrides({"grpo": {"beta": 0.1}}, ["grpo.beta=0.0", "model.path=some/dir", "curriculum.enabled=false"])
    assert data["grpo"]["beta"] == 0.0 and data["model"]["path"] == "some/dir"
    assert data["curriculum"]["enabled"] is False
    with pytest.raises(TrainConfigError, match="SECTION.KEY=VALUE"):
        apply_overrides({}, ["beta=1"])
    with pytest.raises(TrainConfigError, match="unknown section"):
        apply_overrides({}, ["gpro.beta=1"])


def test_relative_paths_follow_the_config(tmp_path):
    (tmp_path / "envs").mkdir()
    (tmp_path / "ds.json").write_text("{}")
    p = tmp_path / "c.toml"
    p.write_text('[data]\npaths = ["envs", "stdlib"]\n[launch]\ndeepspeed = "ds.json"\noutput_dir = "out"\n')
    cfg = load(p)
    assert cfg.data.paths == (str(tmp_path / "envs"), "stdlib")
    assert cfg.launch.deepspeed == str(tmp_path / "ds.json")
    assert cfg.launch.output_dir == "out"  # relative to where you run
