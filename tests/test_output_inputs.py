"""racesl.output's inputs: once a command names what it reads, no output — checked up front or
written later through racesl.atomic — may replace it, however the path is spelled."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from racesl import output
from racesl.atomic import atomic_write
from racesl.output import OutputRefused, command_inputs, reading, refusal, rewriting, sidecar_of, sidecars, target


@pytest.fixture
def tree(tmp_path, monkeypatch):
    """tmp/src/mod.races, tmp/src/other.races, tmp/data/t.jsonl; the working folder tmp."""
    (tmp_path / "src").mkdir()
    (tmp_path / "data").mkdir()
    (tmp_path / "src" / "mod.races").write_text("module mod\n")
    (tmp_path / "src" / "other.races").write_text("module other\n")
    (tmp_path / "data" / "t.jsonl").write_text("{}\n")
    monkeypatch.chdir(tmp_path)
    with command_inputs():
        yield tmp_path


def _write(path) -> None:
    atomic_write(path, lambda tmp: Path(tmp).write_text("new\n"))


def test_every_spelling_of_an_input_is_refused_and_the_input_kept(tree):
    reading("data/t.jsonl")
    os.symlink("data/t.jsonl", tree / "link.jsonl")
    os.link(tree / "data" / "t.jsonl", tree / "hard.jsonl")
    os.symlink("data", tree / "dlink")
    for spelled in ("data/t.jsonl", "./data/t.jsonl", "data/../data/t.jsonl", str(tree / "data" / "t.jsonl"),
                    "link.jsonl", "hard.jsonl", "dlink/t.jsonl", "src/../data/./t.jsonl"):
        why = refusal(spelled)
        assert why and "input data/t.jsonl" in why and "\n" not in why, spelled
        with pytest.raises(OutputRefused):
            _write(spelled)  # (a later write is checked too, not only the command's first lines)
    assert (tree / "data" / "t.jsonl").read_text() == "{}\n" and os.path.islink(tree / "link.jsonl")
    assert refusal("data/u.jsonl") is None and refusal("t.jsonl") is None


def test_folders_read_and_modules_beside_a_module_read(tree):
    reading("src")
    assert "whose .races files" in refusal("src/new.races")
    assert "whose .races files" in refusal("src/deep/er/new.races")
    assert refusal("src/tasks.jsonl") is None  # (no module: the loader never reads it)
    reading("src/mod.races")
    assert "beside this command's input" in refusal("src/other.races")  # an import may read it
    assert refusal("src/new.races") is None  # (nothing there yet: no import reads it)
    os.link(tree / "src" / "other.races", tree / "data" / "h.races")
    reading("src")
    assert "hard link" in refusal("data/h.races")


def test_rewriting_and_command_inputs_lift_the_check(tree):
    reading("src/mod.races")
    with rewriting():
        _write("src/mod.races")  # doc --add-examples writes its sources on purpose
    assert refusal("src/mod.races")
    with command_inputs():
        assert refusal("src/mod.races") is None  # another command: its own inputs only
    assert refusal("src/mod.races")


def test_a_dataset_folder_that_holds_an_input_is_refused(tree):
    reading("data/t.jsonl")
    with pytest.raises(OutputRefused, match="holds this command's input"):
        output.dataset_folder("data")
    output.folder("data")  # eval's -o DIR: each file in it is checked on its own
    with pytest.raises(OutputRefused):
        target("data/t.jsonl")


def test_a_sidecar_goes_beside_the_file_a_link_names(tree):
    os.symlink("data/t.jsonl", tree / "link.jsonl")
    assert sidecar_of("link.jsonl", ".library.json") == tree / "data" / "t.jsonl.library.json"
    assert sidecar_of("new.jsonl", ".library.json") == tree / "new.jsonl.library.json"
    assert sidecars("link.jsonl", "-", None) == [str(tree / "data" / "t.jsonl.library.json"), "link.jsonl.library.json"]


NAMES = st.sampled_from(["data", "src", ".", "..", "dlink"])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(hops=st.lists(NAMES, max_size=5), leaf=st.sampled_from(["t.jsonl", "u.jsonl", "mod.races", "link.jsonl"]))
def test_any_path_that_lands_on_an_input_is_refused_and_no_other(tree, hops, leaf):
    """A random walk of folders, `.`, `..` and a link to a folder, then a name: refused exactly
    when the file it lands on (links followed) is an input, whatever the spelling."""
    if not (tree / "dlink").exists():
        os.symlink("data", tree / "dlink")
        os.symlink("t.jsonl", tree / "data" / "link.jsonl")
    reading("data/t.jsonl", "src/mod.races")
    path = os.path.join(*hops, leaf) if hops else leaf
    real = Path(os.path.realpath(path))
    inputs = {tree / "data" / "t.jsonl", tree / "src" / "mod.races"}
    beside = real.parent == tree / "src" and real.name.endswith(".races") and real.exists()
    why = refusal(path)
    if real in inputs or beside:
        assert why is not None and "input" in why, path
    elif why is not None:  # (a spelling through a file as a folder, or a folder above the root)
        assert "input" not in why, (path, why)
