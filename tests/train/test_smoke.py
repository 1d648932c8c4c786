"""End to end on the CPU: racesc train (GRPO, streamed tasks, curriculum on) for a few steps
on a tiny random Qwen2, then racesc eval on compiled tasks (table + heatmap)."""

import json

import pytest

from racesl.cli.main import main

from .conftest import TRAIN_DIR

pytest.importorskip("trl")
pytest.importorskip("matplotlib")


def test_train_then_eval(tiny_model, tmp_path, capsys):
    out = tmp_path / "run"
    rc = main(["train", str(TRAIN_DIR / "tiny.toml"), "--model", str(tiny_model), "--output-dir", str(out),
               "--max-steps", "3"])
    captured = capsys.readouterr()
    assert rc == 0, captured.err[-3000:]
    summary = json.loads((out / "races_summary.json").read_text())
    assert summary["steps"] == 3
    assert summary["stream"]["built"] >= 6  # 2 prompts a step
    # a random model solves nothing: from tiny.toml's rung 1 (size 3) the band curriculum moves
    # down, then stays at the bottom; curriculum.jsonl has a line for every decision
    decisions = [json.loads(line) for line in (out / "curriculum.jsonl").read_text().splitlines()]
    moves = [d for d in decisions if d["move"] != "stay"]
    assert moves and all(m["move"] == "down" and m["from_size"] == 3 and m["to_size"] == 2 for m in moves)
    assert all(d["from_size"] == d["to_size"] == 2 for d in decisions if d["move"] == "stay")
    assert all(d["rate"] == 0.0 and d["n"] >= 4 for d in decisions)
    assert len(summary["curriculum_moves"]) == len(moves)
    assert any(st["size"] == 2 for st in summary["curriculum"].values())
    assert "trained 3 steps" in captured.out and "curriculum sizes" in captured.out
    assert (out / "model.safetensors").exists() and (out / "tokenizer.json").exists()
    curve = [json.loads(line) for line in (out / "rewards.jsonl").read_text().splitlines()]
    assert [c["step"] for c in curve] == [1, 2, 3]  # the learning curve: a line per step
    assert all(0.0 <= c["reward"] <= 1.0 and c["seconds"] >= 0 and "completion_length" in c for c in curve)

    tasks = tmp_path / "tasks.jsonl"
    from racesl import resources

    assert main(["compile", str(resources.stdlib_dir()), "-n", "8", "-o", str(tasks), "-q",
                 "--operators", "sequential=2-3,parallel=2-3,sort=2-3,select=2-3"]) == 0
    ev = tmp_path / "eval"
    rc = main(["eval", str(out), "--tasks", str(tasks), "--n", "6", "--max-new-tokens", "8", "-o", str(ev)])
    captured = capsys.readouterr()
    assert rc == 0, captured.err[-3000:]
    assert "operator" in captured.out and "pass@1 [95% CI]" in captured.out and "mean reward" in captured.out
    res = json.loads((ev / "results.json").read_text())
    assert res["n_tasks"] == 6 and sum(c["n"] for c in res["cells"]) == 6
    assert 0.0 <= res["accuracy"] <= 1.0
    assert (ev / "accuracy.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert len((ev / "completions.jsonl").read_text().splitlines()) == 6


def test_vllm_missing_is_one_clear_line(tiny_model, tmp_path, capsys):
    import importlib.util

    if importlib.util.find_spec("vllm") is not None:
        pytest.skip("vLLM is installed here")
    rc = main(["train", str(TRAIN_DIR / "tiny.toml"), "--model", str(tiny_model), "--output-dir",
               str(tmp_path / "v"), "--set", "vllm.enabled=true", "--set", "vllm.mode=\"server\""])
    err = capsys.readouterr().err
    assert rc == 2
    assert "vLLM is not installed" in err and "pip install -e '.[vllm]'" in err and "Traceback" not in err
    rc = main(["eval", str(tiny_model), "--tasks", str(tmp_path / "none.jsonl"), "--backend", "vllm"])
    assert rc == 2 and "does not exist" in capsys.readouterr().err


def test_missing_extra_or_model_is_reported(tmp_path, capsys):
    rc = main(["train", str(TRAIN_DIR / "tiny.toml"), "--output-dir", str(tmp_path / "m")])
    err = capsys.readouterr().err
    assert rc == 2 and "no model" in err
