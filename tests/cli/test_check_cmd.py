"""`racesc check PATHS...`: diagnostics, the summary table, the exit code.

The stdlib and the error cases go through the installed `racesc` script (exit codes, no
traceback); option cases call the command in process (`racesl.cli.main.main`).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from racesl.cli.main import main
from racesl.resources import stdlib_dir

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "tests" / "fixtures" / "cli"
RACESC = str(Path(sys.executable).with_name("racesc"))
HEADLINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): (?P<sev>error|warning)\[(?P<code>[EW]\d{3})\]: (?P<msg>.+)$",
                      re.M)


def racesc(*args, cwd, timeout=120) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONHASHSEED="0", NO_COLOR="1", COLUMNS="200")
    p = subprocess.run([RACESC, *map(str, args)], cwd=cwd, capture_output=True, text=True, env=env,
                       timeout=timeout)
    assert "Traceback" not in p.stderr, p.stderr
    assert "Traceback" not in p.stdout, p.stdout
    return p


def check(capsys, *args) -> tuple[int, str, str]:
    rc = main(["check", *map(str, args)])
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "Traceback" not in out
    return rc, out, err


# ---------------------------------------------------------------- the script

def test_stdlib_checks_clean(tmp_path):
    p = racesc("check", stdlib_dir(), "--samples", "2", "--seed", "1", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    n = len(list(HEADLINE.finditer(p.stderr)))
    assert n == 0, p.stderr
    m = re.search(r"^(\d+) environments checked: 0 errors, 0 warnings$", p.stderr, re.M)
    assert m and int(m.group(1)) >= 50
    assert f"{m.group(1)} environments, 2 samples each" in p.stdout
    for col in ("environment", "signature", "ok", "dropped", "violations", "ms/run"):
        assert col in p.stdout
    assert "strings.caesar" in p.stdout and "numbers.fibonacci" in p.stdout
    assert os.listdir(tmp_path) == []


def test_errors_are_rendered_and_exit_1(tmp_path):
    bad = tmp_path / "bad.races"
    bad.write_text('env half(x: Int) -> Int:\n    """Halve x."""\n    y = x.real\n    return x / 2\n')
    p = racesc("check", bad, FIX / "reasons.races", cwd=tmp_path)
    assert p.returncode == 1
    assert p.stdout == ""  # nothing was run: no table
    heads = [m.groupdict() for m in HEADLINE.finditer(p.stderr)]
    assert [(h["path"], h["line"], h["col"], h["code"]) for h in heads] == [
        (str(bad), "3", "11", "E501"), (str(bad), "4", "14", "E505")]
    assert f"{bad}:4:14: error[E505]: '/' is true division, which produces floats" in p.stderr
    lines = p.stderr.splitlines()
    k = lines.index(f"{bad}:4:14: error[E505]: '/' is true division, which produces floats")
    assert lines[k + 1] == "   |"
    assert lines[k + 2] == " 4 |     return x / 2"
    assert lines[k + 3] == "   |              ^"
    assert lines[k + 4] == "   = hint: use '//' for integer division"
    assert "2 errors; nothing was run" in p.stderr


# ---------------------------------------------------------------- in process

def test_runtime_diagnostics_and_table(capsys):
    rc, out, err = check(capsys, FIX / "flaky.races", "--samples", "20", "--seed", "3")
    assert rc == 1  # E600 is an error
    codes = [(m["line"], m["code"]) for m in HEADLINE.finditer(err)]
    assert codes == [("3", "E600"), ("3", "W600"), ("7", "W600")]
    assert re.search(r"error\[E600\]: over\(\d\) returned \d, outside Int where it < 5: \d violates it < 5", err)
    assert "'picky' succeeds on only 0 of 20 sampled inputs: an assert failed on 20 of 20 runs" in err
    assert "2 environments checked: 1 error, 2 warnings" in err
    assert "2 environments, 20 samples each" in out
    assert re.search(r"flaky\.picky\s+│.*│\s+0 │ assert 20\s+│", out)


@pytest.mark.parametrize("n", [1, 7])
def test_samples_option(capsys, n):
    rc, out, err = check(capsys, FIX / "reasons.races", "--samples", n)
    assert f"12 environments, {n} sample{'s' * (n != 1)} each" in out
    row = next(line for line in out.splitlines() if "reasons.spin" in line)
    assert f"fuel {n}" in row


def test_seed_option_is_deterministic(capsys):
    first = check(capsys, FIX / "flaky.races", "--samples", "10", "--seed", "5", "-q")
    again = check(capsys, FIX / "flaky.races", "--samples", "10", "--seed", "5", "-q")
    assert first == again
    shown = {re.search(r"over\((\d)\)", check(capsys, FIX / "flaky.races", "--samples", "10", "--seed", s, "-q")[2])
             .group(1) for s in range(6)}
    assert len(shown) > 1  # the seed feeds the samplers


def test_quiet_has_no_table(capsys):
    rc, out, err = check(capsys, FIX / "reasons.races", "--samples", "2", "-q")
    assert out == ""
    assert "12 environments checked" in err


def test_include_option(capsys):
    rc, out, err = check(capsys, FIX / "uses_lib.races", "--samples", "3")
    assert rc == 1
    assert "error[E202]: module 'helpers' not found" in err
    assert "add a folder with -I" in err
    rc, out, err = check(capsys, FIX / "uses_lib.races", "-I", FIX / "lib", "--samples", "3")
    assert rc == 0, err
    assert "1 environment checked: 0 errors, 0 warnings" in err
    assert "uses_lib.tripled" in out


def test_folder_argument(capsys, tmp_path):
    (tmp_path / "a.races").write_text('env one(x: Int) -> Int:\n    """Return one."""\n    return 1\n')
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.races").write_text('env two(x: Int) -> Int:\n    """Return two."""\n    return 2\n')
    (tmp_path / "notes.txt").write_text("not a module")
    rc, out, err = check(capsys, tmp_path, "--samples", "2")
    assert rc == 0, err
    assert "a.one" in out


def test_no_files(capsys, tmp_path):
    rc, out, err = check(capsys, tmp_path)
    assert rc == 1
    assert "no .races files found" in err


def test_missing_file(capsys, tmp_path):
    rc, out, err = check(capsys, tmp_path / "nothere.races")
    assert rc == 1
    assert f"{tmp_path / 'nothere.races'}:1:1: error[E202]: cannot read" in err


def test_table_shows_declared_type_names(capsys, tmp_path):
    """The signature column names types as the signature writes them (aliases, generics),
    not their erased shapes (`Bits -> Word`, not `Str -> Str`)."""
    (tmp_path / "words.races").write_text('''module words

type Bits = Str where len(it) <= 8
type Word = Str where len(it) <= 8

env flip(b: Bits) -> Word:
    """Reverse b."""
    return b[::-1]

env spell(xs: List[Bits]) -> List[Word]:
    """Reverse each of xs."""
    return [x[::-1] for x in xs]
''', encoding="utf-8")
    rc, out, err = check(capsys, tmp_path / "words.races", "--samples", "3")
    assert rc == 0, err
    rows = {line.split()[1]: line for line in out.splitlines() if "words." in line}
    assert "Bits -> Word" in rows["words.flip"] and "Str -> Str" not in rows["words.flip"]
    assert "List[Bits] -> List[Word]" in rows["words.spell"]
    rc, out, err = check(capsys, FIX / "reasons.races", "--samples", "2")
    assert "Small -> Int" in next(line for line in out.splitlines() if "reasons.bloat" in line)


# ---------------------------------------------------------------- worked examples (issue 32)

WRONG_EXAMPLE = '''\
module wrong_example

env halve(n: Int where 0 <= it <= 100) -> Int:
    """Halve n, rounding down. Example: 6 -> 3."""
    return n // 3
'''


@pytest.mark.parametrize("untrusted", [False, True])
def test_a_wrong_worked_example_is_a_located_error(tmp_path, untrusted):
    src = tmp_path / "wrong_example.races"
    src.write_text(WRONG_EXAMPLE, encoding="utf-8")
    p = racesc("check", src, "--samples", "5", "-q", *(["--untrusted"] if untrusted else []), cwd=tmp_path)
    assert p.returncode == 1, p.stderr
    heads = [m.groupdict() for m in HEADLINE.finditer(p.stderr)]
    col = WRONG_EXAMPLE.splitlines()[3].index("Example") + 1
    assert [(h["line"], h["col"], h["code"]) for h in heads] == [("4", str(col), "E604")]
    assert ("error[E604]: the worked example halve(6) does not hold: the example says 3, the body returns 2"
            in p.stderr)
    assert "hint: if the body is right, write `Example: 6 -> 2.`" in p.stderr
    assert "1 environment checked: 1 error, 0 warnings" in p.stderr
