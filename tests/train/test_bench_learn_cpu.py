"""benchmarks/bench_learn_cpu.py --smoke with the tiny model: the whole path (compile a training
and a held-out file, racesc eval before, racesc train, racesc eval after, the JSON and the
figure) in a few minutes on a CPU. The real run uses SmolLM2-135M (benchmarks/README.md)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from .conftest import ROOT

pytest.importorskip("trl")
pytest.importorskip("matplotlib")


@pytest.mark.slow
def test_smoke_runs_the_whole_path(tiny_model, tmp_path):
    res = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_learn_cpu.py"), "--smoke",
                          "--model", str(tiny_model), "--work", str(tmp_path / "work"),
                          "--results", str(tmp_path / "results")],
                         cwd=ROOT, capture_output=True, text=True, timeout=900, check=False)
    assert res.returncode == 0, (res.stdout + res.stderr)[-4000:]
    doc = json.loads((tmp_path / "results" / "learn_cpu_smoke.json").read_text())
    d = doc["details"]
    assert d["smoke"] is True and d["config"] == "train/learn_cpu.toml"
    for side in ("before", "after"):
        assert d[side]["n_tasks"] == 20 and len(d[side]["pass@1_ci"]) == 2
        assert d[side]["command"] == "eval" and d[side]["max_new_tokens"] == 32
    assert d["before"]["model"] != d["after"]["model"]  # the base model, then the trained one
    assert [s["step"] for s in d["steps"]] == [1, 2] and len(d["reward_per_step"]) == 2
    assert d["train_summary"]["steps"] == 2
    assert set(d["wall_seconds"]) == {"compile", "eval_before", "train", "eval_after", "total"}
    assert len(d["loadavg_start"]) == 3 and len(d["loadavg_end"]) == 3
    assert isinstance(d["after_above_before"], bool)

    # held out for real: no id and no prompt in common between the two files
    work = tmp_path / "work"
    held = [json.loads(x) for x in (work / "held_out.jsonl").read_text().splitlines()]
    train = [json.loads(x) for x in (work / "train.jsonl").read_text().splitlines()]
    assert len(held) == 20 and train
    assert not {r["id"] for r in held} & {r["id"] for r in train}
    assert not {r["prompt"] for r in held} & {r["prompt"] for r in train}
    assert {r["operator"] for r in held + train} <= {"individual", "sequential"}
    assert all(r["level"] == 0 for r in held + train)
    assert (tmp_path / "results" / "learn_cpu_smoke.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_config_loads_and_maps_to_grpo():
    from racesl.train.config import load
    from racesl.train.trainer import grpo_kwargs

    cfg = load(ROOT / "train" / "learn_cpu.toml", ['data.tasks="/tmp/x.jsonl"'])
    kw = grpo_kwargs(cfg, output_dir="o")
    assert kw["use_cpu"] is True and kw["bf16"] is False and kw["use_vllm"] is False and "deepspeed" not in kw
    assert kw["model_init_kwargs"] == {"dtype": "float32"}
    assert not cfg.model.chat and "<answer>" in cfg.model.system_prompt
    assert cfg.compile.max_level == 0 and cfg.data.source == "file"
