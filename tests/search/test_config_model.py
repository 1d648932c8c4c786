"""One validated configuration model for races.toml, `--filter` and Python callers: a wrong
setting is one line (`racesc: error: FILE:LINE: ...`, exit 2) that names the setting and
says the fix; every setting races.toml supports keeps working."""

from __future__ import annotations

import subprocess
from pathlib import Path

import attrs
import pytest

from racesl import resources
from racesl.cli.main import main
from racesl.search.config import (DEFAULT_SIZES, CompileConfig, ConfigError, Filters, from_toml, key_line,
                                  read_races_toml)

from tests.support.tasks import RACESC

STDLIB = str(resources.stdlib_dir())
HEAD = "# a project\n"  # so that every setting below sits on line 3 (after its header on line 2)


def _compile_with(tmp_path, capsys, toml_text: str, *extra: str) -> tuple[int, str]:
    cfg = tmp_path / "races.toml"
    cfg.write_text(toml_text, encoding="utf-8")
    rc = main(["compile", STDLIB, "--config", str(cfg), "-n", "3", "-o", str(tmp_path / "t.jsonl"), "-q", *extra])
    return rc, capsys.readouterr().err


@pytest.mark.parametrize("section,line,says", [
    # what went wrong before: tracebacks
    ("[filters]", 'max_int = "big"', '[filters] max_int must be a whole number of at least 0, not "big"'),
    ("[filters]", "drop_values = 5", "[filters] drop_values must be a list of values"),
    ("[compile]", "include = [5]", '[compile] include must be a list of paths, e.g. include = ["lib"], not [5]'),
    ("[templates]", 'sort = "Do {nothing} {x0}"', "[templates] sort uses an unknown field {nothing}"),
    ("[templates]", 'sort = "Do {x0"', "[templates] sort is not a valid format string"),
    ("[templates]", 'sort = "{x0} {candidates}"', "[templates] sort lacks {target}"),
    ("[templates]", 'loop = "{x0} {tims} {description}"', "unknown field {tims} (did you mean {times}?"),
    ("[templates]", 'sort = "{x0} {target} {candidates} {0}"', "positional field {0}"),
    ("[templates]", 'sort = "{x0:zz} {target} {candidates}"', "[templates] sort cannot be filled in"),
    ("[templates]", "sort = 5", "[templates] sort must be template text or a file name, not 5"),
    ("[templates]", 'sortt = "{x0}"', "unknown operator 'sortt' (did you mean sort?"),
    # ignored without a word before
    ("[bogus]", "x = 1", "unknown section [bogus]; sections: compile, operators, filters, templates"),
    ("[filter]", "max_int = 1", "unknown section [filter] (did you mean [filters]?)"),
    ("[compile]", 'format = "csv"', "unknown setting in [compile]: format (a command-line option: --format)"),
    ("[compile]", 'workers = "two"', "unknown setting in [compile]: workers (a command-line option: --workers)"),
    ("[compile]", "sed = 1", "unknown setting in [compile]: sed (did you mean seed?)"),
    ("[filters]", "maxint = 1", "unknown setting in [filters]: maxint (did you mean max_int?)"),
    ("[operators]", "sortt = true", "unknown operator 'sortt' (did you mean sort?"),
    # types and ranges
    ("[compile]", "seed = true", "[compile] seed must be a whole number, not true"),
    ("[compile]", "seed = 1.5", "[compile] seed must be a whole number, not 1.5"),
    ("[compile]", 'solver = "false"', '[compile] solver must be true or false, not "false"'),
    ("[compile]", "expansions = 0", "[compile] expansions must be a whole number of at least 1, not 0"),
    ("[compile]", "restarts = 0", "[compile] restarts must be a whole number of at least 1"),
    ("[compile]", "batch = 0", "[compile] batch must be a whole number of at least 1"),
    ("[compile]", "max_level = -1", "[compile] max_level must be a whole number from 0 to 40, not -1"),
    ("[compile]", "quota_slack = 0", "[compile] quota_slack must be a number above 0, not 0"),
    ("[compile]", "n = true", "the task count n must be a whole number of at least 1, not true"),
    ("[compile]", 'sources = "src"', '[compile] sources must be a list of paths'),
    ("[compile]", 'distractors = "a-b"', "[compile] distractors must be a count or a range"),
    ("[filters]", "wall = 0", "[filters] wall must be a number above 0, not 0"),
    ("[filters]", "max_text = -1", "[filters] max_text must be a whole number of at least 0, not -1"),
    ("[filters]", "max_int = true", "[filters] max_int must be a whole number of at least 0, not true"),
    ("[filters]", "sort_orders = 1.5", "[filters] sort_orders must be a number from 0 to 1, not 1.5"),
    ("[filters]", 'repeated_char = "no"', '[filters] repeated_char must be true or false, not "no"'),
    ("[filters]", "min_path = 0", "[filters] min_path must be a whole number from 1 to 64, not 0"),
    ("[filters]", "drop_values = [0.5]", "[filters] drop_values must be a list of values"),
    ("[operators]", "sort = 2.5", '[operators] sort must be true, false, a size or a range like "2-6", not 2.5'),
    ("[operators]", 'sort = "5-2"', "size range 5-2 for sort must satisfy 1 <= lo <= hi <= 64"),
    ("[operators]", 'sort = "2-3,loop"', '[operators] sort must be true, false, a size or a range like "2-6"'),
    ("[operators]", "sort = false", "[operators] leaves every operator out: enable at least one"),
])
def test_a_wrong_setting_is_one_line_with_file_and_line(tmp_path, capsys, section, line, says):
    rc, err = _compile_with(tmp_path, capsys, f"{HEAD}{section}\n{line}\n")
    assert rc == 2, err
    # an error about a whole section points at its header
    where = 2 if section in ("[bogus]", "[filter]") or "leaves every" in says else 3
    assert err.startswith(f"racesc: error: {tmp_path / 'races.toml'}:{where}: "), err
    assert says in err, err
    assert err.count("\n") == 1, err  # one line
    assert not (tmp_path / "t.jsonl").exists()


def test_a_compile_cli_error_has_no_traceback(tmp_path):
    """The real command line, with ./races.toml picked up by default."""
    (tmp_path / "races.toml").write_text('[compile]\nn = 3\n\n[templates]\nsort = "Do {nothing} {x0}"\n', "utf-8")
    p = subprocess.run([RACESC, "compile", STDLIB, "-o", "t.jsonl"], cwd=tmp_path, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 2
    assert p.stderr == ("racesc: error: races.toml:5: [templates] sort uses an unknown field {nothing} "
                        "(sort templates may use {x0} {target} {candidates} {count} {example})\n")
    assert not (tmp_path / "t.jsonl").exists()


@pytest.mark.parametrize("value", ["prompts/sort.txt", "sort.md", "prompts/sort"])
def test_a_missing_template_file_names_the_resolved_path(tmp_path, capsys, value):
    """Before, `sort = "prompts/sort.txt"` for a missing file made every sort prompt that text."""
    rc, err = _compile_with(tmp_path, capsys, f'[templates]\nsort = "{value}"\n')
    assert rc == 2
    assert f"the template file {(tmp_path / value).resolve()} does not exist" in err, err


def test_a_template_folder_is_not_a_file(tmp_path):
    (tmp_path / "prompts").mkdir()
    with pytest.raises(ConfigError, match=r"template file .*prompts is not a file"):
        from_toml({"templates": {"sort": "prompts"}}, tmp_path)


def test_template_files_are_read_and_checked(tmp_path):
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "sort.txt").write_text("Order {candidates} from {x0} to {target}.", encoding="utf-8")
    (tmp_path / "p" / "loop.txt").write_text("{x0} {times} {nope}", encoding="utf-8")
    kw = from_toml({"templates": {"sort": "p/sort.txt"}}, tmp_path)
    assert kw["templates"] == {"sort": "Order {candidates} from {x0} to {target}."}
    with pytest.raises(ConfigError, match=r"\[templates\] loop uses an unknown field \{nope\}"):
        from_toml({"templates": {"loop": "p/loop.txt"}}, tmp_path)
    # text with fields is the template itself; so is text over several lines
    assert from_toml({"templates": {"loop": "{x0} {times}: {description}"}}, tmp_path)["templates"]
    assert from_toml({"templates": {"loop": "{x0}\n{times}\n{description}"}}, tmp_path)["templates"]
    long = "Apply {description} to {x0}, {times} times. " + "Think first. " * 40  # too long for a file name
    assert from_toml({"templates": {"loop": long}}, tmp_path)["templates"] == {"loop": long}


@pytest.mark.parametrize("item,says", [
    ("max_int=big", '--filter: [filters] max_int must be a whole number of at least 0, not "big"'),
    ("drop_values=5", "--filter: [filters] drop_values must be a list of values"),
    ("wall=0", "--filter: [filters] wall must be a number above 0, not 0"),
    ("max_int=[1", '[filters] max_int must be a whole number of at least 0, not "[1"'),
    ("maxint=1", "--filter: unknown setting in [filters]: maxint (did you mean max_int?)"),
    ("nosuch=1", "--filter: unknown setting in [filters]: nosuch; known: max_steps, wall,"),
    ("max_int", "--filter wants NAME=VALUE, e.g. max_int=1000 (got 'max_int')"),
])
def test_filter_option_goes_through_the_same_checks(tmp_path, capsys, item, says):
    rc = main(["compile", STDLIB, "-n", "3", "-o", str(tmp_path / "t.jsonl"), "-q", "--filter", item])
    err = capsys.readouterr().err
    assert rc == 2 and says in err and err.count("\n") == 1, err


def test_filter_option_values():
    from racesl.cli.compile import _filters

    f = _filters(Filters(), ["drop_values=[]", "max_int=1000", "repeated_char=false", "wall=0.5",
                             "sort_orders=1"])
    assert f == attrs.evolve(Filters(), drop_values=(), max_int=1000, repeated_char=False, wall=0.5, sort_orders=1)


@pytest.mark.parametrize("make", [
    lambda: Filters(max_int="big"), lambda: Filters(max_int=True), lambda: Filters(drop_values=5),
    lambda: Filters(wall=-1), lambda: Filters(wall=float("nan")), lambda: Filters(repeated_state=1),
    lambda: CompileConfig(seed=True), lambda: CompileConfig(expansions=0), lambda: CompileConfig(batch=1.0),
    lambda: CompileConfig(quota_slack=0), lambda: CompileConfig(max_level=41), lambda: CompileConfig(include=[5]),
    lambda: CompileConfig(solver="yes"), lambda: CompileConfig(operators=(("sort", 0, 3),)),
    lambda: CompileConfig(operators=(("sorting", 2, 3),)), lambda: CompileConfig(operators=()),
    lambda: CompileConfig(templates={"sort": "{nothing} {x0}"}), lambda: CompileConfig(templates={"sort": "{x0"}),
    lambda: CompileConfig(templates={"nosuch": "{x0}"}), lambda: CompileConfig(filters={"max_int": 3}),
])
def test_python_construction_goes_through_the_same_checks(make):
    with pytest.raises(ConfigError):
        make()


def test_every_races_toml_setting_still_works(tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "seq.txt").write_text("From {x0}:\n{steps}\n", encoding="utf-8")
    (tmp_path / "races.toml").write_text("""\
[compile]
sources = ["."]
n = 50
seed = 7
expansions = 3
restarts = 4
max_level = 1
batch = 32
quota_slack = 2
distractors = "2-4"
solver = false
include = ["lib"]

[operators]
sequential = "2-3"
parallel = 3
sort = [2, 4]
select = true
branch = false

[filters]
max_steps = 300
wall = 1
drop_values = [0, 1, "", true]
max_int = 900
max_text = 80
repeated_state = false
sibling_duplicate = false
repeated_char = false
min_path = 1
bool_values = false
sort_orders = 0.5
answer_share = 1

[templates]
sequential = "seq.txt"
loop = "Apply {description} to {x0}, {times} times."
""", encoding="utf-8")
    kw, sources = read_races_toml(tmp_path / "races.toml")
    cfg = CompileConfig(**kw)
    assert sources == [str(tmp_path / ".")]
    assert (cfg.n, cfg.seed, cfg.expansions, cfg.restarts, cfg.max_level, cfg.batch) == (50, 7, 3, 4, 1, 32)
    assert (cfg.quota_slack, cfg.distractors, cfg.solver) == (2, (2, 4), False)
    assert cfg.include == (str(tmp_path / "lib"),)
    assert cfg.operators == (("sequential", 2, 3), ("parallel", 3, 3), ("sort", 2, 4),
                             ("select", *DEFAULT_SIZES["select"]))
    assert cfg.filters == Filters(max_steps=300, wall=1, drop_values=(0, 1, "", True), max_int=900, max_text=80,
                                  repeated_state=False, sibling_duplicate=False, repeated_char=False, min_path=1,
                                  bool_values=False, sort_orders=0.5, answer_share=1)
    assert cfg.templates == {"sequential": "From {x0}:\n{steps}\n",
                             "loop": "Apply {description} to {x0}, {times} times."}


def test_the_quickstart_races_toml_loads():
    kw, _ = read_races_toml(Path(__file__).resolve().parents[2] / "examples" / "quickstart" / "races.toml")
    cfg = CompileConfig(**kw)
    assert cfg.n == 2000 and cfg.sizes("loop") == (2, 4)


def test_defaults_are_the_papers():
    """Defaults feed the compile output and (through repr) the solver cache's keys."""
    assert attrs.asdict(Filters()) == {
        "max_steps": 400, "wall": 2.0, "drop_values": (0, 1), "max_int": 500, "max_text": 100,
        "repeated_state": True, "sibling_duplicate": True, "repeated_char": True, "min_path": 2,
        "bool_values": True, "sort_orders": 0.25, "answer_share": 0.03,
        "item_share": 0.03}
    assert repr(Filters()).startswith("Filters(max_steps=400, wall=2.0, drop_values=(0, 1), max_int=500,")
    c = CompileConfig()
    assert (c.n, c.seed, c.expansions, c.restarts, c.max_level, c.distractors, c.batch, c.quota_slack, c.solver) == (
        1000, 0, 6, 12, 2, (3, 5), 256, 1.5, True)
    assert CompileConfig(**from_toml({}, Path("."))) == c


def test_key_line_scans_sections():
    text = '# top\n[compile]\nn = 3\n"seed" = 1\n\n[filters]\n  max_int=5\nn = 4\n[templates]\nsort = "x"\n'
    assert key_line(text, "compile", "n") == 3
    assert key_line(text, "compile", "seed") == 4
    assert key_line(text, "filters", "max_int") == 7
    assert key_line(text, "filters", "n") == 8  # the same key under another section
    assert key_line(text, "filters") == 6
    assert key_line(text, "compile", "max_int") is None
    assert key_line(text, "bogus") is None


def test_an_unreadable_races_toml_is_one_line(tmp_path, capsys):
    rc, err = _compile_with(tmp_path, capsys, "[compile\n")
    assert rc == 2 and err.startswith(f"racesc: error: {tmp_path / 'races.toml'}: ") and err.count("\n") == 1
    rc = main(["compile", STDLIB, "--config", str(tmp_path / "none.toml"), "-o", str(tmp_path / "t.jsonl")])
    err = capsys.readouterr().err
    assert rc == 2 and "cannot read" in err and "none.toml" in err
