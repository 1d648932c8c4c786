"""One GRPO step under DeepSpeed ZeRO-2 through accelerate, on the CPU, in one process."""

import json
import os
import subprocess
import sys

import pytest

from .conftest import TRAIN_DIR

pytest.importorskip("trl")
pytest.importorskip("deepspeed")


@pytest.mark.slow
def test_zero2_step_on_cpu(tiny_model, tmp_path):
    out = tmp_path / "ds"
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR",
                                                             "MASTER_PORT", "CUDA_VISIBLE_DEVICES")}
    env.update(OMP_NUM_THREADS="1", PYTHONHASHSEED="0", TORCH_EXTENSIONS_DIR=str(tmp_path / "ext"))
    cmd = [sys.executable, "-m", "racesl", "train", str(TRAIN_DIR / "tiny.toml"), "--model", str(tiny_model),
           "--output-dir", str(out), "--max-steps", "1", "--no-save",
           "--set", 'launch.deepspeed="deepspeed/zero2.json"']
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-4000:]
    summary = json.loads((out / "races_summary.json").read_text())
    assert summary["steps"] == 1
    assert summary["deepspeed_zero_stage"] == 2 and summary["world_size"] == 1
    # one process has no use for DeepSpeed's shared-memory all-reduce: nothing was compiled
    assert not (tmp_path / "ext").exists() or not any((tmp_path / "ext").iterdir())
