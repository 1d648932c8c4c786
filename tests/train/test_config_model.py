"""The train TOML: every section refuses keys it does not know (did you mean ...), every
value it reads is checked for type and range, `--set` goes through the same checks, and
`racesc train` reports a wrong setting in one line with exit 2."""

import pytest

from racesl.cli.main import main
from racesl.search.config import ConfigError
from racesl.train.config import TrainConfigError, load, parse

from .conftest import ROOT, TRAIN_DIR

TINY = TRAIN_DIR / "tiny.toml"


def test_one_error_type():
    assert TrainConfigError is ConfigError


@pytest.mark.parametrize("data,says", [
    ({"curiculum": {}}, r"unknown section \[curiculum\] \(did you mean \[curriculum\]\?\)"),
    ({"model": {"pth": "m"}}, r"unknown setting in \[model\]: pth \(did you mean path\?\)"),
    ({"data": {"sed": 1}}, r"unknown setting in \[data\]: sed \(did you mean seed\?\)"),
    ({"operators": {"sortt": "2-3"}}, r"unknown operator 'sortt' \(did you mean sort\?"),
    ({"filters": {"maxint": 3}}, r"unknown setting in \[filters\]: maxint \(did you mean max_int\?\)"),
    ({"templates": {"sort": "{x0} {nothing}"}}, r"\[templates\] sort uses an unknown field \{nothing\}"),
    ({"curriculum": {"windw": 3}}, r"unknown setting in \[curriculum\]: windw \(did you mean window\?\)"),
    ({"vllm": {"enabeld": True}}, r"unknown setting in \[vllm\]: enabeld \(did you mean enabled\?\)"),
    ({"launch": {"outdir": "x"}}, r"unknown setting in \[launch\]: outdir \(did you mean output_dir\?\)"),
])
def test_unknown_keys_in_every_section(data, says):
    with pytest.raises(ConfigError, match=says):
        parse(data, ROOT)


@pytest.mark.parametrize("data,says", [
    ({"model": {"path": 5}}, r"\[model\] path must be text"),
    ({"model": {"chat": "no"}}, r'\[model\] chat must be true or false, not "no"'),
    ({"model": {"system_prompt": ["x"]}}, r"\[model\] system_prompt must be text"),
    ({"data": {"paths": "stdlib"}}, r'\[data\] paths must be a list of paths, e.g. \["lib"\], not "stdlib"'),
    ({"data": {"include": [1]}}, r"\[data\] include must be a list of paths"),
    ({"data": {"tasks": 3, "source": "file"}}, r"\[data\] tasks must be text"),
    # [compile]'s settings live in [data] here, and the message says so
    ({"data": {"seed": 1.5}}, r"^\[data\] seed must be a whole number, not 1.5$"),
    ({"data": {"batch": 0}}, r"^\[data\] batch must be a whole number of at least 1, not 0$"),
    ({"data": {"max_level": True}}, r"^\[data\] max_level must be a whole number from 0 to 40, not true$"),
    ({"data": {"solver": "no"}}, r"^\[data\] solver must be true or false"),
    ({"data": {"distractors": "x"}}, r"^\[data\] distractors must be a count"),
    ({"filters": {"max_int": "big"}}, r'\[filters\] max_int must be a whole number of at least 0, not "big"'),
    ({"curriculum": {"window": 0}}, r"\[curriculum\] window must be a whole number of at least 1, not 0"),
    ({"curriculum": {"target": 2}}, r"\[curriculum\] target must be a number from 0 to 1, not 2"),
    ({"curriculum": {"enabled": "yes"}}, r'\[curriculum\] enabled must be true or false, not "yes"'),
    ({"curriculum": {"spread": -1}}, r"\[curriculum\] spread must be a whole number of at least 0"),
    ({"grpo": {"max_prompt_length": True}}, r"\[grpo\] max_prompt_length must be a whole number of at least 1"),
    ({"grpo": {"context_length": 0}}, r"\[grpo\] context_length must be a whole number of at least 1, not 0"),
    ({"grpo": {"updates_per_generation": "2"}}, r"\[grpo\] updates_per_generation must be a whole number"),
    ({"grpo": {"max_completion_length": "12"}}, r"\[grpo\] max_completion_length must be a whole number"),
    ({"vllm": {"enabled": 1}}, r"\[vllm\] enabled must be true or false, not 1"),
    ({"launch": {"output_dir": 5}}, r"\[launch\] output_dir must be text"),
    ({"launch": {"deepspeed": 5}}, r"\[launch\] deepspeed must be text"),
    ({"launch": {"resume_from_checkpoint": True}}, r"\[launch\] resume_from_checkpoint must be text"),
    ({"model": 3}, r"\[model\] must be a table"),
])
def test_types_and_ranges(data, says):
    with pytest.raises(ConfigError, match=says):
        parse(data, ROOT)


def test_errors_in_a_file_say_file_and_line(tmp_path):
    p = tmp_path / "t.toml"
    p.write_text('[model]\npath = "m"\n\n[data]\nseed = 0\nbatch = "big"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=rf'^{p}:6: \[data\] batch must be a whole number of at least 1, not "big"$'):
        load(p)
    p.write_text('[model]\npath = "m"\n\n[curriculm]\nwindow = 4\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=rf"^{p}:4: unknown section \[curriculm\] \(did you mean \[curriculum\]\?\)"):
        load(p)


@pytest.mark.parametrize("item,says", [
    ("curriculum.window=big", r'^--set: \[curriculum\] window must be a whole number of at least 1, not "big"$'),
    ("curriculum.windw=3", r"^--set: unknown setting in \[curriculum\]: windw \(did you mean window\?\)$"),
    ("filters.max_int=-1", r"^--set: \[filters\] max_int must be a whole number of at least 0, not -1$"),
    ("data.seed=1.5", r"^--set: \[data\] seed must be a whole number, not 1.5$"),
    ("model.chat=maybe", r'^--set: \[model\] chat must be true or false, not "maybe"$'),
    ("gpro.beta=0", r"^--set: unknown section \[gpro\] \(did you mean \[grpo\]\?\)"),
    ("beta=0", r"--set wants SECTION.KEY=VALUE"),
])
def test_set_goes_through_the_same_checks(item, says):
    with pytest.raises(ConfigError, match=says):
        load(TINY, [item])


def test_set_values_are_read_as_toml():
    cfg = load(TINY, ["curriculum.window=8", "filters.max_int=900", "data.paths=[\"stdlib\"]", "model.chat=false"])
    assert cfg.curriculum.window == 8 and cfg.compile.filters.max_int == 900 and cfg.model.chat is False


def test_an_error_in_the_file_is_not_blamed_on_set(tmp_path):
    p = tmp_path / "t.toml"
    p.write_text('[curriculum]\nwindow = 0\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=rf"^{p}:2: \[curriculum\] window"):
        load(p, ["curriculum.target=0.5"])


def test_racesc_train_reports_one_line(tmp_path, capsys):
    p = tmp_path / "t.toml"
    p.write_text('[model]\npath = "m"\n[filters]\ndrop_values = 5\n', encoding="utf-8")
    assert main(["train", str(p)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"racesc: error: {p}:4: [filters] drop_values must be a list of values") and err.count(
        "\n") == 1, err
    assert main(["train", str(TINY), "--set", "curriculum.order=random"]) == 2
    err = capsys.readouterr().err
    assert err == ('racesc: error: --set: [curriculum] order must be one of "size", "level", "interleave", '
                   'not "random"\n')


def test_the_shipped_configs_load():
    for name in ("tiny.toml", "paper.toml"):
        cfg = load(TRAIN_DIR / name)
        assert cfg.compile.operators
