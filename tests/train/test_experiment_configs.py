"""The paper's experiments as configs (train/experiments/): each trains 2 GRPO steps on the
CPU with the tiny model (the GPU recipe with the CPU overrides docs/experiments.md gives);
the pairs a table compares differ only where the experiment says (matched instances and
steps); every eval, compare and compile command a config names is in docs/experiments.md
and parses with racesc's own argument parser."""

from __future__ import annotations

import json
import shlex
import tomllib

import pytest

from racesl.cli.main import build_parser, main

from .conftest import ROOT, TRAIN_DIR

EXPERIMENTS = TRAIN_DIR / "experiments"
CONFIGS = sorted(EXPERIMENTS.glob("*.toml"))
DOC = ROOT / "docs" / "experiments.md"

# The GPU recipe on a CPU, as docs/experiments.md spells it (`CPU=(...)`): float32, no vLLM,
# 2 prompts × 4 completions a step, 12 new tokens.
CPU = ["--set", 'model.dtype="float32"', "--set", "grpo.bf16=false", "--set", "grpo.use_cpu=true",
       "--set", "vllm.enabled=false", "--set", "grpo.gradient_checkpointing=false",
       "--set", "grpo.generation_batch_size=8", "--set", "grpo.per_device_train_batch_size=2",
       "--set", "grpo.num_generations=4", "--set", "grpo.max_completion_length=12",
       "--set", "grpo.max_prompt_length=1024", "--set", 'grpo.save_strategy="no"', "--set", "grpo.disable_tqdm=true"]


def raw(name: str) -> dict:
    return tomllib.loads((EXPERIMENTS / name).read_text(encoding="utf-8"))


def without(data: dict, *keys: str) -> dict:
    """The tables with `section.key` (or a whole `section`) taken out."""
    out = {s: dict(t) for s, t in data.items()}
    for key in keys:
        section, _, name = key.partition(".")
        if name:
            out[section].pop(name, None)
        else:
            out.pop(section, None)
    return out


def test_the_experiments_are_there():
    assert [c.name for c in CONFIGS] == ["envs-300.toml", "envs-50.toml", "heldout-pairs.toml", "individual.toml",
                                         "races.toml", "sequential.toml"]


@pytest.mark.parametrize("config", CONFIGS, ids=[c.stem for c in CONFIGS])
def test_two_grpo_steps_on_the_cpu(config, tiny_model, tmp_path, capsys):
    pytest.importorskip("trl")
    out = tmp_path / "run"
    rc = main(["train", str(config), "--model", str(tiny_model), "--max-steps", "2", "--output-dir", str(out),
               "--no-save", *CPU])
    captured = capsys.readouterr()
    assert rc == 0, captured.err[-3000:]
    summary = json.loads((out / "races_summary.json").read_text())
    assert summary["steps"] == 2 and summary["stream"]["built"] >= 2
    assert "trained 2 steps" in captured.out


def test_table1_runs_differ_only_in_operators():
    races, individual = raw("races.toml"), raw("individual.toml")
    assert individual["operators"] == {"individual": "1"}
    assert races["operators"] == {"sequential": "2-12", "parallel": "2-12", "sort": "2-6", "select": "2-6"}
    # matched: the same seed, prompts and completions a step, steps, recipe
    assert without(races, "operators", "launch.output_dir") == without(individual, "operators", "launch.output_dir")


def test_table2_runs_differ_only_in_operators_and_envs():
    composed, single = raw("envs-50.toml"), raw("envs-300.toml")
    assert (composed["data"]["envs"], single["data"]["envs"]) == (50, 300)
    assert composed["operators"] == raw("races.toml")["operators"] and single["operators"] == {"individual": "1"}
    strip = ("operators", "data.envs", "launch.output_dir")
    assert without(composed, *strip) == without(single, *strip) == without(raw("races.toml"), *strip)


def test_sequential_sizes_are_one_override_each():
    from racesl.train.config import load

    path = EXPERIMENTS / "sequential.toml"
    assert load(path).compile.operators == (("sequential", 2, 2),)
    for k in range(2, 7):
        assert load(path, [f"operators.sequential={k}"]).compile.operators == (("sequential", k, k),)
    assert without(raw("sequential.toml"), "operators", "launch.output_dir") == \
        without(raw("races.toml"), "operators", "launch.output_dir")


def test_heldout_run_trains_on_the_train_part():
    data = raw("heldout-pairs.toml")
    assert (data["data"]["holdout"], data["data"]["part"]) == ("pairs=0.2", "train")
    text = (EXPERIMENTS / "heldout-pairs.toml").read_text()
    # its test part is compiled from the same SPEC and seed
    assert f"--seed {data['data']['seed']} --holdout pairs=0.2 --part test" in text


def commands(config) -> list[str]:
    """The `# eval:`, `# compare:` and `# test:` commands in a config's header."""
    out = []
    for line in config.read_text(encoding="utf-8").splitlines():
        for tag in ("# eval:", "# compare:", "# test:"):
            if line.startswith(tag):
                out.append(line[len(tag):].strip())
    return out


@pytest.mark.parametrize("config", CONFIGS, ids=[c.stem for c in CONFIGS])
def test_eval_commands_are_documented_and_parse(config):
    doc = DOC.read_text(encoding="utf-8")
    cmds = commands(config)
    assert any(c.startswith("racesc eval ") for c in cmds), config.name
    assert f"train/experiments/{config.name}" in doc
    parser = build_parser()
    for cmd in cmds:
        assert cmd in doc, f"{config.name}: `{cmd}` is not in docs/experiments.md"
        argv = shlex.split(cmd)
        assert argv[0] == "racesc"
        parser.parse_args(argv[1:])  # (a wrong flag exits 2 here)
