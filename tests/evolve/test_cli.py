"""`racesc evolve`: config errors (exit 2, file:line), --train without its part, a --json run."""

import json
import sys

from racesl.cli.main import main

from .scripted import ScriptedBackend
from .test_loop import TERNARY, block, fake_gates  # noqa: F401 — the fixture


def _config(tmp_path, text):
    p = tmp_path / "evolve.toml"
    p.write_text(text, encoding="utf-8")
    return p


def test_config_error_exits_2_with_the_line(tmp_path, capsys):
    p = _config(tmp_path, '[pool]\ndir = "p"\n[generator]\ncandidates = 3\n')
    assert main(["evolve", str(p), "--endpoint", "http://127.0.0.1:9/v1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"racesc: error: {p}:4: unknown setting in [generator]: candidates")
    assert "did you mean candidates_per_step?" in err


def test_a_generator_is_required(tmp_path, capsys):
    p = _config(tmp_path, '[pool]\ndir = "p"\n')
    assert main(["evolve", str(p)]) == 2
    assert "--model PATH / --endpoint URL" in capsys.readouterr().err


def test_train_without_the_grpo_part(tmp_path, capsys, monkeypatch):
    import racesl.evolve

    monkeypatch.setitem(sys.modules, "racesl.evolve.grpo", None)  # as if the module were not there
    monkeypatch.delattr(racesl.evolve, "grpo", raising=False)
    p = _config(tmp_path, '[generator]\nendpoint = "http://127.0.0.1:9/v1"\n')
    assert main(["evolve", str(p), "--train"]) == 2
    assert "needs the training part" in capsys.readouterr().err


def test_json_run(tmp_path, capsys, monkeypatch, fake_gates):  # noqa: F811
    backend = ScriptedBackend([block(TERNARY), "nothing"])
    monkeypatch.setattr("racesl.evolve.loop.open_generator", lambda cfg: backend)
    p = _config(tmp_path, '[pool]\ndir = "pool"\n[generator]\nmodel = "unused"\ncandidates_per_step = 2\n'
                          'model_gates = false\n')
    assert main(["evolve", str(p), "--steps", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["command"] == "evolve" and out["candidates"] == 2 and out["admitted"] == ["ternary"]
    assert out["funnel"]["extract"] == 1 and out["last_step"] == 1 and backend.closed
    # nothing admitted is still exit 0, and the rich summary names the funnel
    backend2 = ScriptedBackend(["junk", "junk"])
    monkeypatch.setattr("racesl.evolve.loop.open_generator", lambda cfg: backend2)
    assert main(["evolve", str(p), "--steps", "2"]) == 0
    shown = capsys.readouterr().out
    assert "evolve funnel" in shown and "extract" in shown and "0 of 2" in shown
