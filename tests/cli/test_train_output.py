"""`racesc train --output-dir` under the output policy: the trainer fills the folder with files
it names itself (weights, config.json, tokenizer files), so the folder may not be, lie inside,
or hold what training reads. Refused before anything loads: exit 2, one line, nothing touched."""

from __future__ import annotations

import shutil

from tests.support.tasks import REPO, run_racesc

CONFIG = REPO / "train" / "tiny.toml"


def _model(tmp_path):
    """A folder shaped like a model's (its files' bytes are all the test compares)."""
    m = tmp_path / "base"
    m.mkdir()
    (m / "config.json").write_text('{"model_type": "qwen2"}\n', encoding="utf-8")
    (m / "model.safetensors").write_bytes(b"weights")
    return m


def _snapshot(folder):
    return {p.relative_to(folder): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _refused(tmp_path, *argv):
    got = run_racesc("train", *argv, cwd=tmp_path, check=False)
    assert got.returncode == 2, (got.returncode, got.stdout, got.stderr)
    assert "Traceback" not in got.stderr and len(got.stderr.strip().splitlines()) == 1, got.stderr
    return got.stderr


def test_the_model_folder_as_the_output_folder_is_refused(tmp_path):
    m = _model(tmp_path)
    before = _snapshot(m)
    err = _refused(tmp_path, str(CONFIG), "--model", str(m), "--output-dir", str(m))
    assert "is this command's input" in err and "nothing was written" in err
    assert _snapshot(m) == before


def test_a_link_to_the_model_folder_and_a_folder_inside_it_are_refused(tmp_path):
    m = _model(tmp_path)
    (tmp_path / "link").symlink_to(m)
    assert "is this command's input" in _refused(tmp_path, str(CONFIG), "--model", str(m), "--output-dir", "link")
    err = _refused(tmp_path, str(CONFIG), "--model", "base", "--output-dir", "base/run")
    assert "lies inside this command's input base" in err
    assert not (m / "run").exists()


def test_a_folder_holding_the_config_is_refused(tmp_path):
    m = _model(tmp_path)
    run = tmp_path / "run"
    run.mkdir()
    shutil.copy(CONFIG, run / "tiny.toml")
    err = _refused(tmp_path, "run/tiny.toml", "--model", str(m), "--output-dir", "run")
    assert "holds this command's input run/tiny.toml" in err


def test_a_file_as_the_output_folder_is_refused(tmp_path):
    m = _model(tmp_path)
    (tmp_path / "out").write_text("keep me\n", encoding="utf-8")
    assert "not a folder" in _refused(tmp_path, str(CONFIG), "--model", str(m), "--output-dir", "out")
    assert (tmp_path / "out").read_text(encoding="utf-8") == "keep me\n"


def test_a_fresh_folder_beside_the_model_passes_the_policy(tmp_path):
    """(The run then stops at the fake model; what matters is that the policy let it through.)"""
    m = _model(tmp_path)
    got = run_racesc("train", str(CONFIG), "--model", str(m), "--output-dir", "runs/new", "--max-steps", "1",
                     cwd=tmp_path, check=False, timeout=300)
    assert "output folder" not in got.stderr, got.stderr
