"""No command writes over its own input (issue 46), and a sidecar lands beside the file its
records land in (issue 44).

Every writing command is given one of its inputs as its output, spelled every way a path can
name the same file (the same text, absolute, relative, `./`, `..`, a symlink to it, a link to
its folder, a hard link): it refuses in one line with exit 2 before any work starts (the
work is patched to fail the test), and the input is byte-identical afterwards.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import itertools
import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from racesl.cli.main import main
from tests.support.tasks import HALVE, TRIPLE, toy_library

TOY = toy_library("toy", TRIPLE, HALVE, '''\
env is_even(n: Nat) -> Bool:
    """Return True when n is even."""
    return n % 2 == 0
''')
FORMS = ("same", "absolute", "relative", "dot", "dotdot", "symlink", "dirlink", "hardlink")
_fresh = itertools.count()


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    """The toy module, a compiled task file, its sidecar and completions for score."""
    d = tmp_path_factory.mktemp("inputs")
    (d / "toy.races").write_text(TOY, encoding="utf-8")
    assert main(["compile", str(d / "toy.races"), "-n", "6", "-q", "--no-audit", "-o", str(d / "t.jsonl")]) == 0
    rows = [json.loads(x) for x in (d / "t.jsonl").read_text().splitlines()]
    (d / "c.jsonl").write_text("".join(json.dumps({"id": r["id"], "completion": r["answer"]}) + "\n" for r in rows))
    (d / "scratch").mkdir()
    return d


def spelled(form: str, path: Path, env: Path) -> str:
    """`path` (a file under `env`, the working folder) spelled as `form`."""
    n = next(_fresh)
    rel = os.path.relpath(path, env)
    if form == "same":
        return str(path)
    if form == "absolute":
        return os.path.abspath(path)
    if form == "relative":
        return rel
    if form == "dot":
        return "./" + rel
    if form == "dotdot":
        return os.path.join(str(path.parent), "..", path.parent.name, path.name)
    if form == "symlink":
        link = env / "scratch" / f"link-{n}{path.suffix}"
        os.symlink(path, link)
        return str(link)
    if form == "dirlink":
        link = env / "scratch" / f"dir-{n}"
        os.symlink(path.parent, link)
        return str(link / path.name)
    if form == "hardlink":
        hard = env / "scratch" / f"hard-{n}{path.suffix}"
        os.link(path, hard)
        return str(hard)
    raise AssertionError(form)


def _evolve_case(env: Path, form: str):
    """evolve whose config file is the pool's own log (evolve.jsonl): the pool folder spelled `form`."""
    pool = env / "scratch" / f"pool-{next(_fresh)}"
    pool.mkdir()
    cfg = pool / "evolve.jsonl"
    spelled_pool = {  # (a relative dir is read from the config's folder: the pool itself)
        "same": str(pool), "absolute": os.path.abspath(pool), "relative": ".", "dot": "./", "hardlink": str(pool),
        "dotdot": f"../{pool.name}"}.get(form) or spelled("symlink", pool, env)
    cfg.write_text(f'[pool]\ndir = {json.dumps(spelled_pool)}\n[generator]\nendpoint = "http://127.0.0.1:9/v1"\n'
                   'steps = 1\n', encoding="utf-8")
    given_cfg = spelled("hardlink", cfg, env) if form == "hardlink" else str(cfg)
    return ["evolve", given_cfg], cfg


def _eval_case(env: Path, form: str):
    """eval whose task file is DIR/results.json, one of the files it writes into -o DIR."""
    d = env / "scratch" / f"ev-{next(_fresh)}"
    d.mkdir()
    tasks = d / "results.json"
    tasks.write_bytes((env / "t.jsonl").read_bytes())
    if form == "hardlink":
        return ["eval", "no-model", "--tasks", spelled("hardlink", tasks, env), "-o", str(d)], tasks
    out = spelled("symlink", d, env) if form in ("symlink", "dirlink") else os.path.dirname(spelled(form, tasks, env))
    return ["eval", "no-model", "--tasks", str(tasks), "-o", out], tasks


# command: (argv for an output spelled `out`, the input that output names, the work that must not start)
def _cases(env: Path):
    m, t, c = env / "toy.races", env / "t.jsonl", env / "c.jsonl"
    return {
        "compile": (lambda o: ["compile", str(m), "-n", "3", "-q", "--no-audit", "-o", o], m,
                    "racesl.check.check_paths"),
        "compile-parquet": (lambda o: ["compile", str(m), "-n", "3", "-q", "--no-audit", "--format", "parquet",
                                       "-o", o], m, "racesl.check.check_paths"),
        "score-tasks": (lambda o: ["score", str(t), str(c), "-o", o], t, "racesl.cli.score._tasks"),
        "score-completions": (lambda o: ["score", str(t), str(c), "-o", o], c, "racesl.cli.score._tasks"),
        "score-sidecar": (lambda o: ["score", str(t), str(c), "-o", o], Path(str(t) + ".library.json"),
                          "racesl.cli.score._tasks"),
        "doc": (lambda o: ["doc", str(m), "-o", o], m, "racesl.check.check_paths"),
        "graph": (lambda o: ["graph", str(m), "-o", o], m, "racesl.check.check_paths"),
    }


COMMANDS = ("compile", "compile-parquet", "score-tasks", "score-completions", "score-sidecar", "doc", "graph",
            "eval", "evolve")
WORK = {"eval": "racesl.train.evaluate.load_tasks", "evolve": "racesl.evolve.loop.open_generator"}


def _digest(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def _never(what: str):
    def stop(*a, **k):
        raise AssertionError(f"{what} started before the output policy refused the output")
    return stop


def run(argv, work: str, cwd: Path) -> tuple[int, str]:
    err = io.StringIO()
    with pytest.MonkeyPatch.context() as mp, contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        mod, _, attr = work.rpartition(".")
        mp.setattr(__import__(mod, fromlist=[attr]), attr, _never(work))
        mp.chdir(cwd)
        rc = main(argv)
    return rc, err.getvalue()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(command=st.sampled_from(COMMANDS), form=st.sampled_from(FORMS))
def test_an_input_given_as_the_output_is_refused_in_one_line_before_any_work(env, command, form):
    if command in ("eval", "evolve"):
        argv, source = (_eval_case if command == "eval" else _evolve_case)(env, form)
        work = WORK[command]
    else:
        argv_of, source, work = _cases(env)[command]
        argv = argv_of(spelled(form, source, env))
    before, link_before = _digest(source), os.path.islink(source)
    rc, err = run(argv, work, env)
    lines = [x for x in err.splitlines() if x.strip()]
    assert rc == 2 and len(lines) == 1 and lines[0].startswith("racesc: error:"), (argv, err)
    assert "input" in lines[0] and "Traceback" not in err
    assert _digest(source) == before and os.path.islink(source) == link_before, "the input changed"
    assert not [n for n in os.listdir(source.parent) if n.endswith(".part")]


def test_compile_refuses_a_module_inside_a_folder_it_reads(env, tmp_path):
    """`compile FOLDER -o FOLDER/x.races`: a new `.races` there would be read by the next run;
    an existing module beside a module it reads may be imported: both refused. A task file
    in the folder is no module: it is written."""
    lib = tmp_path / "lib"
    (lib / "deep").mkdir(parents=True)
    (lib / "toy.races").write_text(TOY, encoding="utf-8")
    (lib / "other.races").write_text(TOY.replace("module toy", "module other"), encoding="utf-8")
    for argv in (["compile", str(lib), "-o", str(lib / "x.races")],
                 ["compile", str(lib), "-o", str(lib / "deep" / "y.races")],
                 ["compile", str(lib / "toy.races"), "-o", str(lib / "other.races")],
                 ["compile", str(lib / "toy.races"), "-I", str(tmp_path), "-o", str(tmp_path / "z.races")]):
        before = {p.name: _digest(p) for p in lib.glob("*.races")}
        rc, err = run(argv + ["-n", "3", "-q", "--no-audit"], "racesl.check.check_paths", tmp_path)
        assert rc == 2 and len(err.strip().splitlines()) == 1 and ("reads" in err or "import" in err), err
        assert {p.name: _digest(p) for p in lib.glob("*.races")} == before
        assert not (lib / "x.races").exists() and not (lib / "deep" / "y.races").exists()
    assert main(["compile", str(lib / "toy.races"), "-n", "3", "-q", "--no-audit", "-o", str(lib / "t.jsonl")]) == 0


def test_hf_refuses_a_dataset_folder_that_holds_an_input(env, tmp_path):
    pytest.importorskip("datasets")
    d = tmp_path / "data"
    d.mkdir()
    (d / "toy.races").write_text(TOY, encoding="utf-8")
    rc, err = run(["compile", str(d / "toy.races"), "-q", "--no-audit", "--format", "hf", "-o", str(d)],
                  "racesl.check.check_paths", tmp_path)
    assert rc == 2 and "holds this command's input" in err, err
    assert (d / "toy.races").read_text(encoding="utf-8") == TOY


def test_the_inputs_of_one_command_do_not_bind_the_next(env, tmp_path):
    """`main` forgets a command's inputs when it ends: fmt may then rewrite the module compile read."""
    m = tmp_path / "toy.races"
    m.write_text(TOY.replace("    return n % 2 == 0", "    return n%2==0"), encoding="utf-8")
    assert main(["compile", str(m), "-n", "3", "-q", "--no-audit", "-o", str(tmp_path / "t.jsonl")]) == 0
    assert main(["fmt", str(m)]) == 0
    assert "n % 2 == 0" in m.read_text(encoding="utf-8")


def test_a_compile_through_a_symlink_puts_its_sidecar_beside_the_real_file(env, tmp_path):
    """Issue 44: `-o link.jsonl` with link.jsonl → data/real.jsonl writes the sidecar beside
    data/real.jsonl, so `racesc score data/real.jsonl` finds the library and scores every
    right sort answer 1 (before: 0, library_missing)."""
    data = tmp_path / "data"
    data.mkdir()
    (data / "real.jsonl").write_text("")
    link = tmp_path / "link.jsonl"
    os.symlink(os.path.join("data", "real.jsonl"), link)
    assert main(["compile", str(env / "toy.races"), "-n", "12", "-q", "--no-audit", "--operators",
                 "sort=2-3,sequential=2", "-o", str(link)]) == 0
    assert os.path.islink(link)
    assert (data / "real.jsonl.library.json").is_file() and not (tmp_path / "link.jsonl.library.json").exists()
    rows = [json.loads(x) for x in (data / "real.jsonl").read_text().splitlines()]
    assert any(r["operator"] == "sort" for r in rows)
    comps = tmp_path / "c.jsonl"
    comps.write_text("".join(json.dumps({"id": r["id"], "completion": f"<answer>{r['answer']}</answer>"}) + "\n"
                             for r in rows))
    scores = tmp_path / "s.jsonl"
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(["score", str(data / "real.jsonl"), str(comps), "-o", str(scores), "--json"]) == 0
    got = [json.loads(x) for x in scores.read_text().splitlines()]
    assert len(got) == len(rows) and all(g["score"] == 1.0 for g in got), got
