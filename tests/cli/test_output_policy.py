"""The output policy (racesl.output) over every command that writes × every kind of target.

At the target: a folder, FIFO, character device, socket or read-only file is refused with
one line and exit 2 before any work (the work is patched to fail the test if it starts);
a symlink is written through to its file, the link kept; an existing file keeps its mode;
`-` is standard output where the command supports it and refused where it does not.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import stat

import pytest

from racesl.cli.main import main
from tests.support.tasks import HALVE, TRIPLE, toy_library

TOY = toy_library("toy", TRIPLE, HALVE, '''\
env is_even(n: Nat) -> Bool:
    """Return True when n is even."""
    return n % 2 == 0
''')
DOCUMENTED = ('module shown\n\nenv inc(n: Int where 0 <= it <= 9) -> Int:\n'
             '    """Add one to n. Example: 3 -> 4."""\n    return n + 1\n')
UNFORMATTED = 'module toy\n\nenv  inc( n : Int where 0<=it<=9 ) -> Int :\n    """Add one to n."""\n    return n+1\n'
OLD = "old\n"


@contextlib.contextmanager
def deadline(seconds: float):
    """Fail instead of hanging (a FIFO opened by mistake blocks forever)."""
    def stop(signum, frame):
        raise TimeoutError(f"still running after {seconds} s: something opened a FIFO?")

    old = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    """The toy module, a compiled task file and completions for score."""
    d = tmp_path_factory.mktemp("policy")
    (d / "toy.races").write_text(TOY, encoding="utf-8")
    (d / "shown.races").write_text(DOCUMENTED, encoding="utf-8")
    with deadline(300):
        assert main(["compile", str(d / "toy.races"), "-n", "6", "-q", "--no-audit", "-o", str(d / "t.jsonl")]) == 0
    rows = [json.loads(x) for x in (d / "t.jsonl").read_text().splitlines()]
    (d / "c.jsonl").write_text("".join(json.dumps({"id": r["id"], "completion": r["answer"]}) + "\n" for r in rows))
    return d


def _compile(fmt):
    return lambda e, t: ["compile", str(e / "toy.races"), "-n", "6", "-q", "--no-audit", "--format", fmt, "-o", t]


# name: (argv for target path t, where the target lies (None: t itself), the work that must not
# start before a refusal, supports "-", can run to success here)
COMMANDS = {
    **{f"compile-{fmt}": (_compile(fmt), None, "racesl.check.check_paths", False, True)
       for fmt in ("jsonl", "parquet", "verl", "skyrl", "nemo-gym")},
    "compile-sidecar": (lambda e, t: ["compile", str(e / "toy.races"), "-n", "6", "-q", "--no-audit", "-o", t],
                        ".library.json", "racesl.check.check_paths", False, True),
    "graph": (lambda e, t: ["graph", str(e / "toy.races"), "-o", t], None, "racesl.check.check_paths", True, True),
    "doc": (lambda e, t: ["doc", str(e / "shown.races"), "-o", t], None, "racesl.check.check_paths", True, True),
    "score": (lambda e, t: ["score", str(e / "t.jsonl"), str(e / "c.jsonl"), "-o", t], None,
              "racesl.cli.score._tasks", True, True),
    "fmt": (lambda e, t: ["fmt", t], None, "racesl.format.format_source", False, True),
    # eval writes results.json, completions.jsonl and accuracy.png into -o DIR (success needs a model)
    "eval": (lambda e, t: ["eval", str(e / "no-model"), "--tasks", str(e / "t.jsonl"), "-o", os.path.dirname(t)],
             "results.json", "racesl.train.evaluate.load_tasks", False, False),
    # evolve writes the pool's manifest and evolve.jsonl (success needs a generator)
    "evolve": (lambda e, t: ["evolve", _evolve_config(t)], "evolve.jsonl", "racesl.evolve.loop.open_generator",
               False, False),
    # admit writes the pool's manifest (and modules); the candidate stops at parse
    "admit": (lambda e, t: ["admit", _candidate(t), "--pool", os.path.dirname(t)], "manifest.json",
              "racesl.admit.run.admit_files", False, False),
}
KINDS = ("dir", "fifo", "chardev", "socket", "readonly", "symlink", "mode640", "stdout")
REFUSED = ("dir", "fifo", "chardev", "socket", "readonly")


def _cases():
    """(command, kind) for every kind a command's target can be: the refusals everywhere; a
    link and a mode where the command writes here without a model or the gates (eval's,
    evolve's and admit's files are racesl.atomic's: test_pool_writes_keep_links_and_modes and
    tests/test_atomic.py); `-` where the command names an output file (fmt - is standard
    input: tests/cli/test_fmt_cmd.py); a folder given to fmt is a folder of sources."""
    for command, (_, _, _, _, runs) in COMMANDS.items():
        for kind in KINDS:
            if (kind in ("symlink", "mode640") and not runs) or (command == "fmt" and kind in ("dir", "stdout")) \
                    or (kind == "stdout" and command in ("eval", "evolve", "admit")):
                continue
            yield command, kind


def _evolve_config(t: str) -> str:
    pool = os.path.dirname(t)
    cfg = os.path.join(os.path.dirname(pool), "evolve.toml")
    with open(cfg, "w") as f:
        f.write(f'[pool]\ndir = {json.dumps(pool)}\n[generator]\nendpoint = "http://127.0.0.1:9/v1"\nsteps = 1\n')
    return cfg


def _candidate(t: str) -> str:
    cand = os.path.join(os.path.dirname(os.path.dirname(t)), "cand.races")
    with open(cand, "w") as f:
        f.write("env broken(:\n")
    return cand


def _make(kind: str, path: str, content: str) -> str | None:
    """Put a `kind` at `path`; the symlink's file (or None)."""
    if kind == "dir":
        os.mkdir(path)
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "chardev":
        if os.geteuid() != 0:
            pytest.skip("a character device can be made only as root (os.mknod)")
        try:
            os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # (what /dev/null is)
        except PermissionError:
            pytest.skip("this container may not make device nodes")
    elif kind == "socket":
        here = os.getcwd()
        os.chdir(os.path.dirname(path))  # (a socket's path is at most 107 bytes: bind the name alone)
        try:
            with socket.socket(socket.AF_UNIX) as s:
                s.bind(os.path.basename(path))
        finally:
            os.chdir(here)
    elif kind == "readonly":
        with open(path, "w") as f:
            f.write(content)
        os.chmod(path, 0o444)
    elif kind == "symlink":
        real = os.path.join(os.path.dirname(path), "real-" + os.path.basename(path))
        with open(real, "w") as f:
            f.write(content)
        os.symlink(os.path.basename(real), path)
        return real
    elif kind == "mode640":
        with open(path, "w") as f:
            f.write(content)
        os.chmod(path, 0o640)
    return None


def _same_kind(kind: str, path: str) -> bool:
    mode = os.lstat(path).st_mode
    return {"dir": stat.S_ISDIR, "fifo": stat.S_ISFIFO, "chardev": stat.S_ISCHR, "socket": stat.S_ISSOCK,
            "readonly": stat.S_ISREG}[kind](mode)


def _never(what: str):
    def stop(*a, **k):
        raise AssertionError(f"{what} started before the output policy refused the target")
    return stop


@pytest.mark.parametrize("command, kind", list(_cases()))
def test_every_writing_command_under_every_kind_of_target(env, tmp_path, monkeypatch, capsys, command, kind):
    argv_of, inner, work, stdout_ok, runs = COMMANDS[command]
    base = tmp_path / "out"
    base.mkdir()
    if command == "eval":  # the folder exists; the target is a file in it
        target = str(base / inner)
    elif command in ("evolve", "admit"):
        from racesl.pool import Pool

        pool = base / "pool"
        Pool.open(str(pool))  # a new pool: its manifest
        target = str(pool / inner)
        if command == "admit":
            os.replace(target, str(pool.parent / "saved.json"))
    else:
        target = str(base / "o.races") if command == "fmt" else str(base / "o")
    if kind == "stdout":
        argv = argv_of(env, "-")
        with deadline(300):
            rc = main(argv)
        out, err = capsys.readouterr()
        if stdout_ok:
            assert rc == 0 and out.strip(), err
        else:
            assert rc == 2 and "standard output" in err and "Traceback" not in err
        assert not os.path.exists("-")
        return
    path = target + inner if inner == ".library.json" else target
    content = UNFORMATTED if command == "fmt" else OLD
    if command == "admit" and kind == "readonly":
        content = open(str(base / "saved.json")).read()
    real = _make(kind, path, content)
    if kind in REFUSED:
        mod, _, attr = work.rpartition(".")
        monkeypatch.setattr(__import__(mod, fromlist=[attr]), attr, _never(work))
    with deadline(300):
        rc = main(argv_of(env, target))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    if kind in REFUSED:
        if command == "fmt" and kind in ("fifo", "chardev", "socket"):
            assert rc == 2 and f"{path}: a " in err and "not a file" in err, err
        else:
            lines = [x for x in err.splitlines() if x.startswith("racesc: error:")]
            assert rc == 2 and len(lines) == 1 and os.path.basename(path) in lines[0], err
        assert _same_kind(kind, path), "the target was replaced"
        if kind == "readonly":
            assert open(path).read() == content and stat.S_IMODE(os.stat(path).st_mode) == 0o444
        assert not os.path.exists(target + ".library.json") or inner == ".library.json"
        return
    assert runs
    assert rc == 0, err
    if kind == "symlink":
        assert os.path.islink(path) and os.readlink(path) == os.path.basename(real)
        assert open(real, "rb").read() != content.encode() and os.path.getsize(real) > 0
    else:
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o640 and open(path, "rb").read() != content.encode()
    leftovers = [n for n in os.listdir(base) if n.endswith(".part")]
    assert leftovers == []


def test_pool_writes_keep_links_and_modes(tmp_path):
    """What admit and evolve write goes through racesl.atomic: the pool's manifest as a link
    inside the pool is written through, a module file keeps its mode, a read-only manifest is
    refused (nothing added)."""
    from racesl.atomic import OutputRefused
    from racesl.pool import Pool

    root = tmp_path / "pool"
    Pool.open(str(root))
    (root / "manifest.json").rename(root / "real.json")
    (root / "manifest.json").symlink_to("real.json")
    (root / "real.json").chmod(0o640)
    pool = Pool.open(str(root))
    pool.add("shown", DOCUMENTED, origin="admitted")
    assert (root / "manifest.json").is_symlink() and "shown" in (root / "real.json").read_text()
    assert stat.S_IMODE((root / "real.json").stat().st_mode) == 0o640
    (root / "real.json").chmod(0o444)
    with pytest.raises(OutputRefused, match="read-only"):
        Pool.open(str(root)).add("other", DOCUMENTED.replace("shown", "other"), origin="admitted")
    assert "other" not in (root / "real.json").read_text() and not (root / "other.races").exists()


def test_fmt_keeps_the_exec_bit_and_formats_a_links_target(tmp_path, capsys):
    f = tmp_path / "a.races"
    f.write_text(UNFORMATTED)
    f.chmod(0o755)
    (tmp_path / "link.races").symlink_to("a.races")
    assert main(["fmt", str(tmp_path / "link.races")]) == 0
    assert (tmp_path / "link.races").is_symlink() and f.read_text() != UNFORMATTED
    assert stat.S_IMODE(f.stat().st_mode) == 0o755


def test_fmt_refuses_a_read_only_file_even_as_root(tmp_path, capsys):
    f = tmp_path / "a.races"
    f.write_text(UNFORMATTED)
    f.chmod(0o444)
    assert main(["fmt", str(f)]) == 2
    assert f.read_text() == UNFORMATTED and "read-only" in capsys.readouterr().err
    assert main(["fmt", "--check", str(f)]) == 1  # (checking writes nothing: allowed)


# ------------------------------------------------------------ --format hf: a folder


@pytest.fixture
def hf_ready():
    pytest.importorskip("datasets")


def _hf(env, out):
    with deadline(300):
        return main(["compile", str(env / "toy.races"), "-n", "6", "-q", "--no-audit", "--format", "hf", "-o", out])


def test_hf_replaces_a_folder_it_saved_and_follows_a_link_to_one(env, tmp_path, capsys, hf_ready):
    out = tmp_path / "ds"
    assert _hf(env, str(out)) == 0
    (out / "mark").write_text("old")
    assert _hf(env, str(out)) == 0 and not (out / "mark").exists()  # replaced as a whole
    (tmp_path / "link").symlink_to("ds")
    (out / "mark").write_text("old")
    assert _hf(env, str(tmp_path / "link")) == 0
    assert (tmp_path / "link").is_symlink() and not (out / "mark").exists() and (out / "library.json").is_file()


@pytest.mark.parametrize("kind", ["foreign-dir", "fifo", "file", "stdout"])
def test_hf_refuses_what_it_did_not_save(env, tmp_path, monkeypatch, capsys, hf_ready, kind):
    out = tmp_path / "ds"
    if kind == "foreign-dir":
        out.mkdir()
        (out / "thesis.tex").write_text("mine")
    elif kind == "fifo":
        os.mkfifo(out)
    elif kind == "file":
        out.write_text("mine")
    monkeypatch.setattr("racesl.check.check_paths", _never("the compile"))
    rc = _hf(env, "-" if kind == "stdout" else str(out))
    err = capsys.readouterr().err
    assert rc == 2 and err.count("racesc: error:") == 1 and "Traceback" not in err
    if kind == "foreign-dir":
        assert (out / "thesis.tex").read_text() == "mine"
