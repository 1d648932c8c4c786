"""The tutorial and the quickstart run as written.

A doc is read top to bottom in a fresh folder (the tutorial: an empty one; the quickstart:
a copy of its folder). Console blocks hold `$ command` lines, each followed by the output it
prints (stdout and stderr together), compared line by line after trailing spaces:

- a line `...` stands for any number of lines, and `[..]` for any text within a line;
- a command must exit 0 unless the doc shows its status with `$ echo $?` next;
- `$ cat FILE` of a file that does not exist yet writes the shown lines to it (the doc shows
  the file it asks the reader to create);
- a command may end in a here-document (`python - <<'PY'` ... `PY`).

HTML comments before a block steer it, invisibly to a reader:
`<!-- doctest: write FILE -->` and `<!-- doctest: append FILE -->` (a source block),
`<!-- doctest: replace FILE LINE -->` (the block replaces that line), `<!-- doctest: skip -->`
(illustration, not run), `<!-- doctest: timing -->` (decimal numbers are timings: masked).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import attrs
import pytest

ROOT = Path(__file__).resolve().parents[1]
BLOCK = re.compile(r"(?:<!-- doctest: (?P<directive>[^>]*?) -->\n)?```(?P<lang>[a-z]*)\n(?P<body>.*?)```", re.S)
DECIMAL = re.compile(r"\d+\.\d+")


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
    """`...` lines match any run of lines; `[..]` any text within a line."""
    if not expected:
        return not actual
    head, rest = expected[0], expected[1:]
    if head == "...":
        return any(matches(rest, actual[i:]) for i in range(len(actual) + 1))
    if not actual:
        return False
    pattern = ".*".join(map(re.escape, head.split("[..]")))
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


def run_doc(doc: Path, work: Path) -> None:
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
               OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1")
    last_rc = 0
    for b in blocks(doc.read_text(encoding="utf-8")):
        where = f"{doc.relative_to(ROOT)}:{b.line + 1}"
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
        steps = commands(b.body)
        for i, (cmd, expected) in enumerate(steps):
            target = re.fullmatch(r"cat (\S+)", cmd)
            if target and not (work / target[1]).exists():
                (work / target[1]).write_text("".join(f"{line}\n" for line in expected), encoding="utf-8")
            done = subprocess.run(["bash", "-c", f"(exit {last_rc}); {cmd}"], cwd=work, env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
            last_rc = done.returncode
            actual = [line.rstrip() for line in done.stdout.splitlines()]
            if verb == "timing":
                actual = [DECIMAL.sub("0.0", line) for line in actual]
                expected = [DECIMAL.sub("0.0", line) for line in expected]
            assert "Traceback" not in done.stdout, f"{where}: `{cmd}` raised:\n{done.stdout}"
            shown = "\n".join(actual)
            assert matches(expected, actual), f"{where}: `{cmd}` printed\n{shown}\n--- the doc says ---\n" + \
                "\n".join(expected)
            status_shown = i + 1 < len(steps) and steps[i + 1][0] == "echo $?"
            assert done.returncode == 0 or status_shown, f"{where}: `{cmd}` exited {done.returncode}:\n{shown}"


def test_commands_take_here_documents():
    steps = commands("$ python - <<'PY'\nprint(1)\nPY\n1\n$ echo $?\n0\n")
    assert steps == [("python - <<'PY'\nprint(1)\nPY", ["1"]), ("echo $?", ["0"])]


def test_matcher_rules():
    assert matches(["a", "...", "z"], ["a", "b", "c", "z"]) and matches(["a", "...", "z"], ["a", "z"])
    assert matches(["took [..] s"], ["took 3.2 s"]) and not matches(["took [..] s"], ["took 3.2 ms!"])
    assert not matches(["a", "b"], ["a"]) and not matches(["a"], ["a", "b"])


@pytest.mark.slow
def test_tutorial_runs_as_written(tmp_path):
    run_doc(ROOT / "docs" / "tutorial.md", tmp_path)


@pytest.mark.slow
def test_quickstart_runs_as_written(tmp_path):
    work = tmp_path / "quickstart"
    shutil.copytree(ROOT / "examples" / "quickstart", work)
    run_doc(ROOT / "examples" / "quickstart" / "README.md", work)
