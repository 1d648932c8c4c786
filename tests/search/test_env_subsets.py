"""Environment subsets: `envs = N` (a seeded sample spread over modules), `envs = FILE` (one
name a line), `exclude`; from races.toml and the command line; recorded in the summary and
the sidecar; a bad name is one located line."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from racesl.compile import Generator, compile_tasks
from racesl.library import load
from racesl.search.config import CompileConfig, ConfigError, parse_operators
from racesl.search.subsets import choose, read_names
from tests.support.tasks import HALVE, TRIPLE, run_racesc, stdlib, toy_library

OPS = parse_operators("individual,sequential=2-3")


def _modules(lib, names) -> Counter:
    return Counter(lib.envs[q].module for q in names)


def test_envs_n_is_spread_over_modules_and_seeded():
    lib = stdlib()
    ten = choose(lib.envs, CompileConfig(envs=10, seed=0), lib.envs)
    assert len(ten.chosen) == 10 and max(_modules(lib, ten.chosen).values()) == 1  # 23 modules: one each
    assert len(ten.left_out) == len(lib.envs) - 10
    again = choose(lib.envs, CompileConfig(envs=10, seed=0), lib.envs)
    assert again.chosen == ten.chosen
    others = {choose(lib.envs, CompileConfig(envs=10, seed=s), lib.envs).chosen for s in (1, 2, 3)}
    assert ten.chosen not in others and len(others) == 3
    # more than there are modules: round-robin, so no module has two more than another
    fifty = choose(lib.envs, CompileConfig(envs=50, seed=0), lib.envs)
    counts = _modules(lib, fifty.chosen)
    assert len(fifty.chosen) == 50 and len(counts) == 23 and max(counts.values()) - min(counts.values()) <= 1


def test_a_compile_uses_only_the_chosen_environments():
    lib = stdlib()
    cfg = CompileConfig(n=120, seed=0, envs=10, operators=OPS)
    gen = Generator(lib, cfg)
    tasks, summary = compile_tasks(lib, cfg)
    chosen = set(summary.environments["chosen"])
    assert chosen == set(gen.choice.chosen) and len(chosen) == 10
    assert len(tasks) == 120 and {q for t in tasks for q in t.chain} <= chosen
    assert {t.operator for t in tasks} == {"individual", "sequential"}
    assert all(why.startswith("not among the 10 environments drawn") for q, why in summary.unused.items()
               if q not in chosen)
    assert summary.environments["envs"] == 10


TOY_ENVS = ['''\
env add_k(n: Nat, k: Int where 2 <= it <= 9) -> Nat:
    """Add {k} to n."""
    return min(n + k, 300)
''', TRIPLE, HALVE]


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """Two toy modules (alpha, beta) of the same three environments."""
    d = tmp_path_factory.mktemp("subsets")
    (d / "lib").mkdir()
    for m in ("alpha", "beta"):
        (d / "lib" / f"{m}.races").write_text(toy_library(m, *TOY_ENVS), encoding="utf-8")
    return d


def test_envs_file_names_comments_and_bare_names(project, tmp_path):
    lib = load([project / "lib"])
    f = tmp_path / "envs.txt"
    f.write_text("# the alpha ones\nalpha.add_k\n\n  beta.triple   # a comment\nbeta\n", encoding="utf-8")
    assert read_names(f) == [(2, "alpha.add_k"), (4, "beta.triple"), (5, "beta")]
    c = choose(lib.envs, CompileConfig(envs=str(f), exclude=("beta.halve",)), lib.envs)
    assert c.chosen == ("alpha.add_k", "beta.add_k", "beta.triple")
    assert c.left_out == {"alpha.halve": f"not listed in {f}", "alpha.triple": f"not listed in {f}",
                          "beta.halve": "excluded (exclude: beta.halve)"}
    f.write_text("alpha.add_k\nalpha.tripel\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=rf"^{f}:2: no environment or module 'alpha.tripel' "
                                          r"\(did you mean 'alpha.triple'"):
        choose(lib.envs, CompileConfig(envs=str(f)), lib.envs)
    f.write_text("halve\n", encoding="utf-8")  # a bare name two modules have
    with pytest.raises(ConfigError, match=rf"^{f}:1: 'halve' names environments in several modules"):
        choose(lib.envs, CompileConfig(envs=str(f)), lib.envs)


def test_exclude_a_module_and_an_environment(project):
    lib = load([project / "lib"])
    cfg = CompileConfig(n=40, seed=0, operators=OPS, exclude=("beta", "alpha.halve"))
    tasks, summary = compile_tasks(lib, cfg)
    assert tasks and {q for t in tasks for q in t.chain} <= {"alpha.add_k", "alpha.triple"}
    assert summary.unused["beta.add_k"] == "excluded (exclude: beta)"
    assert summary.environments["exclude"] == ["beta", "alpha.halve"]
    with pytest.raises(ConfigError, match=r"exclude: no environment or module 'gamma'"):
        choose(lib.envs, CompileConfig(exclude=("gamma",)), lib.envs)
    with pytest.raises(ConfigError, match="leave no environment"):
        choose(lib.envs, CompileConfig(exclude=("alpha", "beta")), lib.envs)
    with pytest.raises(ConfigError, match="7 environments asked for, but only 6"):
        choose(lib.envs, CompileConfig(envs=7), lib.envs)


def test_subsets_do_not_depend_on_workers(project):
    lib = load([project / "lib"])
    cfg = CompileConfig(n=60, seed=2, batch=16, operators=OPS, envs=4, exclude=("alpha.triple",))
    one, s1 = compile_tasks(lib, cfg)
    two, s2 = compile_tasks(lib, cfg, workers=2)
    assert one == two and s1.environments == s2.environments


def test_no_setting_no_record(project):
    lib = load([project / "lib"])
    _, summary = compile_tasks(lib, CompileConfig(n=10, operators=OPS))
    assert summary.environments == {}


# ---------------------------------------------------------------- the command line and races.toml


def test_cli_records_the_set_in_summary_and_sidecar(project, tmp_path):
    out = tmp_path / "t.jsonl"
    p = run_racesc("compile", project / "lib", "-n", 30, "-o", out, "--operators", "individual,sequential=2-3",
                   "--envs", "4", "--exclude", "beta.halve", "--seed", 1, "--json", "--no-audit", cwd=tmp_path)
    s = json.loads(p.stdout)
    env = s["environments"]
    assert env["envs"] == 4 and env["exclude"] == ["beta.halve"] and len(env["chosen"]) == 4
    assert "beta.halve" not in env["chosen"]
    side = json.loads((tmp_path / "t.jsonl.library.json").read_text(encoding="utf-8"))
    assert side["environments"] == env
    used = {q for line in out.read_text(encoding="utf-8").splitlines() for q in json.loads(line)["chain"]}
    assert used <= set(env["chosen"])
    # the same from a file of names, in the table summary
    (tmp_path / "envs.txt").write_text("alpha\n", encoding="utf-8")
    p = run_racesc("compile", project / "lib", "-n", 10, "-o", tmp_path / "u.jsonl", "--operators", "individual",
                   "--envs", "envs.txt", "--no-audit", cwd=tmp_path)
    assert "environments: 3 of 6 used (envs = " in p.stdout


def test_without_settings_the_sidecar_and_summary_are_as_before(project, tmp_path):
    p = run_racesc("compile", project / "lib", "-n", 10, "-o", tmp_path / "t.jsonl", "--json", "--no-audit",
                   cwd=tmp_path)
    assert json.loads(p.stdout)["environments"] is None
    side = json.loads((tmp_path / "t.jsonl.library.json").read_text(encoding="utf-8"))
    assert set(side) == {"format", "library", "racesl", "modules"}  # ("racesl": the version that wrote it)


def _toml(project, body: str):
    (project / "races.toml").write_text(f'[compile]\nsources = ["lib"]\nn = 10\n{body}', encoding="utf-8")


@pytest.mark.parametrize("body, line", [
    ('exclude = ["alpha.tripel"]\n', "races.toml:4: [compile] exclude: no environment or module 'alpha.tripel' "
                                     "(did you mean 'alpha.triple'"),
    ('envs = 9\n', "races.toml:4: [compile] envs: 9 environments asked for, but only 6 of 6 can be used"),
    ('envs = 0\n', "races.toml:4: [compile] envs must be a count of at least 1"),
    ('envs = "missing.txt"\n', "races.toml:4: [compile] envs: cannot read the file of names"),
    ('\n[weights]\n"gamma" = 2\n', "races.toml:6: [weights] \"gamma\": no environment or module 'gamma'"),
    ('\n[operators]\nindividual = "2"\n', "races.toml:6: size 2-2 for individual"),
])
def test_races_toml_errors_are_located(project, tmp_path, body, line):
    _toml(project, body)
    p = run_racesc("compile", "-o", tmp_path / "t.jsonl", "-q", cwd=project, check=False)
    (project / "races.toml").unlink()
    assert p.returncode == 2 and p.stderr.count("\n") == 1, p.stderr
    assert p.stderr.startswith(f"racesc: error: {line}"), p.stderr
    assert not (tmp_path / "t.jsonl").exists()


def test_races_toml_settings_work(project, tmp_path):
    (project / "names.txt").write_text("alpha.add_k\nbeta.add_k\n", encoding="utf-8")
    _toml(project, 'envs = "names.txt"\n\n[operators]\nindividual = "1"\n')
    try:
        p = run_racesc("compile", "-o", tmp_path / "t.jsonl", "--json", "--no-audit", cwd=project)
    finally:
        (project / "races.toml").unlink()
    env = json.loads(p.stdout)["environments"]
    assert env["chosen"] == ["alpha.add_k", "beta.add_k"] and env["envs"] == str(project / "names.txt")


@pytest.mark.parametrize("args, start", [
    (("--exclude", "gamma"), "racesc: error: --exclude: no environment or module 'gamma'"),
    (("--envs", "0"), "racesc: error: --envs: must be a count of at least 1"),
    (("--envs", "nofile.txt"), "racesc: error: --envs: cannot read the file of names"),
])
def test_cli_errors_are_one_line(project, tmp_path, args, start):
    p = run_racesc("compile", project / "lib", "-o", tmp_path / "t.jsonl", "-q", *args, cwd=tmp_path, check=False)
    assert p.returncode == 2 and p.stderr.startswith(start) and p.stderr.count("\n") == 1, p.stderr
