"""The docs run as written: docs/tutorial.md, examples/quickstart/README.md and README.md.

A doc is read top to bottom in a fresh folder (the tutorial: an empty one; the quickstart:
a copy of its folder; the README: a folder laid out like a checkout, see
`test_readme_runs_as_written`). Console blocks hold `$ command` lines, each followed by the
output it prints (stdout and stderr together), compared line by line after trailing spaces:

- a line `...` stands for any number of lines, and `[..]` or `…` for any text within a line;
- a command must exit 0 unless the doc shows its status with `$ echo $?` next;
- `$ cat FILE` of a file that does not exist yet writes the shown lines to it (the doc shows
  the file it asks the reader to create);
- a command may end in a here-document (`python - <<'PY'` ... `PY`).

HTML comments before a block steer it, invisibly to a reader:
`<!-- doctest: write FILE -->` and `<!-- doctest: append FILE -->` (a source block),
`<!-- doctest: replace FILE LINE -->` (the block replaces that line), `<!-- doctest: skip -->`
(illustration, not run), `<!-- doctest: timing -->` (decimal numbers are timings: masked).

A README shows commands to copy, without prompts or output, so two more:

- `<!-- doctest: run -->` before an `sh` block runs each of its lines as one command (blank
  and `#` lines skipped), each to exit 0. Steps that install (`python3 -m venv`, `pip
  install`, `pip wheel`, joined by `&&`) are left out: they need the package index, and CI
  runs them itself (.ci/run runs the README's test command verbatim, then installs the wheel
  in a fresh venv and runs the main job from it). `<!-- doctest: run needs MODULE -->`: the
  block needs an extra (`trl` for training); without it the rest of the doc still runs and
  the test is then reported skipped, naming the extra.
- `<!-- doctest: output -->` before the block after it: that block is what the run block's
  commands printed, all together (`...` and `…` as above); `<!-- doctest: output numbers
  -->` also masks every number (counts, times), for a command the test runs smaller.
"""
from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import attrs
import pytest

from racesl import resources

ROOT = Path(__file__).resolve().parents[1]
BLOCK = re.compile(r"(?:<!-- doctest: (?P<directive>[^>]*?) -->\n)?```(?P<lang>[a-z]*)\n(?P<body>.*?)```", re.DOTALL)
DECIMAL = re.compile(r"\d+\.\d+")
NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
# a step that installs: left out of `run` blocks (CI installs; a test has no package index)
INSTALL = re.compile(r"(?:\w+=\S* )*(?:python3? -m venv |(?:\S*/)?pip (?:install|wheel)\b)")


@attrs.frozen
class Block:
    line: int
    lang: str
    body: str
    directive: str


def blocks(text: str) -> list[Block]:
    return [Block(text.count("\n", 0, m.start("body")), m["lang"], m["body"], (m["directive"] or "").strip())
            for m in BLOCK.finditer(text)]


def matches(expected: list[str], actual: list[str]) -> bool:
    """`...` lines match any run of lines; `[..]` and `…` any text within a line."""
    if not expected:
        return not actual
    head, rest = expected[0], expected[1:]
    if head == "...":
        return any(matches(rest, actual[i:]) for i in range(len(actual) + 1))
    if not actual:
        return False
    pattern = ".*".join(map(re.escape, re.split(r"\[\.\.\]|…", head)))
    return re.fullmatch(pattern, actual[0]) is not None and matches(rest, actual[1:])


HEREDOC = re.compile(r"<<'?(\w+)'?\s*$")


def commands(body: str) -> list[tuple[str, list[str]]]:
    """(command, expected output lines); a command ending in a here-document (`<<'PY'`)
    takes the lines up to its terminator."""
    out: list[tuple[str, list[str]]] = []
    lines = iter(body.splitlines())
    for line in lines:
        if line.startswith("$ "):
            cmd = line[2:]
            heredoc = HEREDOC.search(cmd)
            if heredoc:
                for more in lines:
                    cmd += "\n" + more
                    if more == heredoc[1]:
                        break
            out.append((cmd, []))
        elif out:
            out[-1][1].append(line.rstrip())
    return out


def runnable(line: str, smaller: dict[str, str], used: set[str]) -> str | None:
    """The command a `run` block's line stands for here: without its install steps, with the
    options of `smaller` put in (None when nothing is left to run)."""
    line = line.strip()
    if not line or line.startswith("#"):
        return None
    cmd = " && ".join(step for step in line.split(" && ") if not INSTALL.match(step.strip()))
    for theirs, ours in smaller.items():
        cmd, n = re.subn(rf"(?<!\S){re.escape(theirs)}(?!\S)", ours, cmd)
        used.update([theirs] if n else [])
    return cmd or None


def shell(cmd: str, work: Path, last_rc: int = 0) -> subprocess.CompletedProcess:
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
               OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1", TOKENIZERS_PARALLELISM="false", HF_HUB_OFFLINE="1",
               HF_DATASETS_OFFLINE="1", TRANSFORMERS_NO_ADVISORY_WARNINGS="1")
    return subprocess.run(["bash", "-c", f"(exit {last_rc}); {cmd}"], cwd=work, env=env, check=False,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)


def compare(where: str, what: str, expected: list[str], printed: str, mask: re.Pattern | None) -> None:
    actual = [line.rstrip() for line in printed.splitlines()]
    if mask is not None:
        actual = [mask.sub("0", line) for line in actual]
        expected = [mask.sub("0", line) for line in expected]
    assert matches(expected, actual), f"{where}: {what} printed\n" + "\n".join(actual) + \
        "\n--- the doc says ---\n" + "\n".join(expected)


@attrs.frozen
class Ran:
    commands: list[str]  # as run, in order
    missing: list[str]  # `run needs` blocks left out: where, and what they need


def run_doc(doc: Path, work: Path, smaller: dict[str, str] | None = None) -> Ran:
    """Run `doc` in `work`. `smaller` maps an option as the doc writes it to the one run
    instead (each must occur in the doc)."""
    smaller, used = smaller or {}, set()
    ran: list[str] = []
    missing: list[str] = []
    last_rc = 0
    printed: str | None = None  # what the last `run` block printed, for its `output` block
    for b in blocks(doc.read_text(encoding="utf-8")):
        where = f"{doc.relative_to(ROOT) if doc.is_relative_to(ROOT) else doc}:{b.line + 1}"
        verb, *args = b.directive.split() or [""]
        if verb == "skip":
            continue
        if verb in ("write", "append"):
            with (work / args[0]).open("w" if verb == "write" else "a", encoding="utf-8") as f:
                f.write(b.body)
            continue
        if verb == "replace":
            path, n = work / args[0], int(args[1])
            lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
            lines[n - 1:n] = [b.body]
            path.write_text("".join(lines), encoding="utf-8")
            continue
        if verb == "run":
            printed = ""
            absent = [m for m in args[1:] if importlib.util.find_spec(m) is None] if args[:1] == ["needs"] else []
            if absent:
                missing.append(f"{where} needs {', '.join(absent)}")
                printed = None
                continue
            for line in b.body.splitlines():
                cmd = runnable(line, smaller, used)
                if cmd is None:
                    continue
                done = shell(cmd, work)
                ran.append(cmd)
                printed += done.stdout
                assert "Traceback" not in done.stdout, f"{where}: `{cmd}` raised:\n{done.stdout}"
                assert done.returncode == 0, f"{where}: `{cmd}` exited {done.returncode}:\n{done.stdout[-5000:]}"
            continue
        if verb == "output":
            if printed is None and missing:
                continue  # its run block needs what is missing
            assert printed is not None, f"{where}: an output block that follows no run block"
            compare(where, "its run block", b.body.splitlines(), printed, NUMBER if args == ["numbers"] else None)
            printed = None
            continue
        steps = commands(b.body)
        for i, (cmd, expected) in enumerate(steps):
            target = re.fullmatch(r"cat (\S+)", cmd)
            if target and not (work / target[1]).exists():
                (work / target[1]).write_text("".join(f"{line}\n" for line in expected), encoding="utf-8")
            done = shell(cmd, work, last_rc)
            last_rc = done.returncode
            ran.append(cmd)
            assert "Traceback" not in done.stdout, f"{where}: `{cmd}` raised:\n{done.stdout}"
            compare(where, f"`{cmd}`", expected, done.stdout, DECIMAL if verb == "timing" else None)
            status_shown = i + 1 < len(steps) and steps[i + 1][0] == "echo $?"
            assert done.returncode == 0 or status_shown, f"{where}: `{cmd}` exited {done.returncode}:\n{done.stdout}"
    assert used == set(smaller), (f"{doc.name}'s `<!-- doctest: run -->` blocks no longer write "
                                  f"{sorted(set(smaller) - used)}: update the test, or mark the blocks again")
    return Ran(ran, missing)


def test_commands_take_here_documents():
    steps = commands("$ python - <<'PY'\nprint(1)\nPY\n1\n$ echo $?\n0\n")
    assert steps == [("python - <<'PY'\nprint(1)\nPY", ["1"]), ("echo $?", ["0"])]


def test_matcher_rules():
    assert matches(["a", "...", "z"], ["a", "b", "c", "z"]) and matches(["a", "...", "z"], ["a", "z"])
    assert matches(["took [..] s"], ["took 3.2 s"]) and not matches(["took [..] s"], ["took 3.2 ms!"])
    assert matches(["(closest: …); x"], ["(closest: a b); x"]) and not matches(["a … z"], ["a z"])
    assert not matches(["a", "b"], ["a"]) and not matches(["a"], ["a", "b"])



def test_run_blocks_leave_out_installs_and_take_smaller_options():
    used: set[str] = set()
    line = "python3 -m venv .venv && .venv/bin/pip install -q -e . && .venv/bin/racesc compile stdlib -n 5000 -o o"
    assert runnable(line, {"-n 5000": "-n 3"}, used) == ".venv/bin/racesc compile stdlib -n 3 -o o"
    assert used == {"-n 5000"}
    assert runnable("pip install -e '.[train]' torch==2.13.0   # the CPU build", {}, used) is None
    assert runnable("DS_BUILD_OPS=0 .venv/bin/pip install -q x && bash t.sh", {}, used) == "bash t.sh"
    assert runnable("racesc eval --n 50 -o e", {"-n 5": "-n 1", "--n 50": "--n 2"}, used) == "racesc eval --n 2 -o e"
    assert used == {"-n 5000", "--n 50"}
    assert runnable("  # a comment", {}, used) is None and runnable("", {}, used) is None


def test_run_and_output_blocks(tmp_path):
    doc = tmp_path / "doc.md"
    doc.write_text("<!-- doctest: run -->\n```sh\npip install x && echo 5000 tasks in 1.5 s\necho done\n```\n\n"
                   "<!-- doctest: output numbers -->\n```\n30 tasks in 2 s\n...\n```\n\n"
                   "<!-- doctest: run needs no_such_module_here -->\n```sh\nfalse\n```\n"
                   "<!-- doctest: output -->\n```\nnever compared\n```\n", encoding="utf-8")
    ran = run_doc(doc, tmp_path, {"5000": "7"})
    assert ran.commands == ["echo 7 tasks in 1.5 s", "echo done"]
    assert ran.missing == [f"{doc}:15 needs no_such_module_here"]  # the line of its first command
    with pytest.raises(AssertionError, match="no longer write "):
        run_doc(doc, tmp_path, {"5000": "7", "--n 9": "--n 1"})
    doc.write_text(doc.read_text(encoding="utf-8").replace("30 tasks in 2 s", "30 tasks in 2 s!"), encoding="utf-8")
    with pytest.raises(AssertionError, match="the doc says"):
        run_doc(doc, tmp_path, {"5000": "7"})

@pytest.mark.slow
def test_tutorial_runs_as_written(tmp_path):
    run_doc(ROOT / "docs" / "tutorial.md", tmp_path)


@pytest.mark.slow
def test_quickstart_runs_as_written(tmp_path):
    work = tmp_path / "quickstart"
    shutil.copytree(ROOT / "examples" / "quickstart", work)
    run_doc(ROOT / "examples" / "quickstart" / "README.md", work)


# The README's main job compiles 5,000 tasks, about a minute of CPU, and its evaluation of 50
# tasks takes 101 s on an idle 2-core machine (256 new tokens each): more than the CI's time
# for the whole suite allows one test. The test runs the same commands with fewer tasks; the
# filters, the summary, the audit and every step of the walkthrough are the same at any size,
# and `<!-- doctest: output numbers -->` masks the counts that change. run_doc checks that
# the README writes exactly these options, so the commands it runs are the README's but for them.
README = ROOT / "README.md"
README_SMALLER = {"-n 5000": "-n 300", "--n 50": "--n 2"}


@pytest.mark.slow
def test_readme_runs_as_written(tmp_path):
    """README.md's main job and its training walkthrough, in a fresh folder laid out like the
    checkout the README is read in: `.venv` is this interpreter's environment (the README's
    install step, which the test leaves out, made it), `stdlib` the library racesc bundles and
    `train/` a copy of the checkout's configs."""
    work = tmp_path / "checkout"
    work.mkdir()
    (work / ".venv").symlink_to(sys.prefix, target_is_directory=True)
    (work / "stdlib").symlink_to(resources.stdlib_dir(), target_is_directory=True)
    shutil.copytree(ROOT / "train", work / "train")
    ran = run_doc(README, work, README_SMALLER)

    def one(start: str) -> str:
        found = [c for c in ran.commands if c.startswith(start)]
        assert len(found) == 1, f"README.md runs {start!r} {len(found)} times: {ran.commands}"
        return found[0]

    one(".venv/bin/racesc check stdlib -q && .venv/bin/racesc compile stdlib -n 300 -o out/tasks.jsonl")
    assert (work / "out" / "tasks.jsonl").stat().st_size > 0
    if ran.missing:
        pytest.skip("; ".join(ran.missing) + " (the main job ran as written)")
    one("python -m racesl.train.tiny out/tiny-model")
    one("racesc train train/tiny.toml --model out/tiny-model --max-steps 3 --output-dir out/run")
    one("racesc eval out/run --tasks out/tasks.jsonl --n 2 -o out/eval")
    # what the README says of the tiny model: random, it answers nothing, every cell is 0.000
    results = json.loads((work / "out" / "eval" / "results.json").read_text(encoding="utf-8"))
    assert results["n_tasks"] == 2 and results["cells"]
    assert all(c["pass@1"] == c["mean_reward"] == 0.0 for c in results["cells"]), results["cells"]
    completions = (work / "out" / "eval" / "completions.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["completion"] for line in completions] == ["", ""]
