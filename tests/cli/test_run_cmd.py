"""`racesc run FILE ENV`: one canonical output per input, or `!REASON`.

Most cases call the command in process (`racesl.cli.main.main`); a few go through the
installed `racesc` script to check exit codes and that no traceback ever reaches stderr.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from racesl.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "tests" / "fixtures" / "cli"
REASONS = FIX / "reasons.races"
RACESC = str(Path(sys.executable).with_name("racesc"))


def run(capsys, *args) -> tuple[int, list[str], str]:
    rc = main(["run", *map(str, args)])
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "Traceback" not in out
    return rc, out.splitlines(), err


def racesc(*args, cwd, env_extra=None, stdin=None, timeout=60) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONHASHSEED="0", NO_COLOR="1", **(env_extra or {}))
    p = subprocess.run([RACESC, *map(str, args)], cwd=cwd, capture_output=True, text=True, env=env,
                       input=stdin, timeout=timeout)
    assert "Traceback" not in p.stderr, p.stderr
    return p


# ---------------------------------------------------------------- outputs

def test_one_canonical_output_per_input(capsys):
    rc, out, err = run(capsys, REASONS, "inc", "--input", "3", "--input", "0", "--input", "-12")
    assert rc == 0
    assert out == ["4", "1", "-11"]
    assert err == ""


@pytest.mark.parametrize("env,lit,want", [
    ("halves", "7", "(3, 'odd', False, [7])"),
    ("halves", "-40", "(-20, 'even', False, [4, 0])"),
    ("tally", "[1, 1, 2]", "{1: 2, 2: 1}"),
    ("tally", "[]", "{}"),
    ("shout", "'ab'", "'AB'"),
    ("shout", "\"a'b\"", "\"A'B\""),
    ("shout", "'tab\\t'", "'TAB\\t'"),
    ("shout", "'é'", "'É'"),
])
def test_outputs_are_python_reprs(capsys, env, lit, want):
    rc, out, _ = run(capsys, REASONS, env, "--input", lit)
    assert (rc, out) == (0, [want])


# Inputs `inc` (an Int) refuses, each with what its message must name.
NOT_INTS = {
    "'a'": "not an Int",
    "True": "got bool True",
    "1.5": "float is not a value",
    "__import__('os')": "calls are not literals",
    "10**9": "not a literal",
    "[1, 2": "was never closed",
    "[" * 60 + "]" * 60: "nested too deeply",
}


@pytest.mark.parametrize("env,lit,reason,detail", [
    ("positive", "0", "assert", "assertion failed at line 24"),
    ("spin", "1", "fuel", "used up its budget of 400 steps; raise --fuel"),
    ("narrow", "12", "contract", "12 violates it < 10"),
    ("divide", "0", "error", "by zero (ZeroDivisionError) at line 39"),
    ("bloat", "12", "size", "a value grew past the size bound"),
    ("deep", "1", "recursion", "helper calls nested deeper than 200"),
    *(("inc", lit, "input", detail) for lit, detail in NOT_INTS.items()),
    ("shout", "'abcdefg'", "input", "is a Str but outside its refinement (len(it) <= 5)"),
    ("tally", "[1, 'a']", "input", "List[Int]"),
])
def test_drop_reasons(capsys, env, lit, reason, detail):
    rc, out, err = run(capsys, REASONS, env, "--input", lit)
    assert rc == 0
    assert out == [f"!{reason}"]
    assert err.startswith("racesc: input 1: ")
    assert detail in err
    # words, not the runtime's exception classes
    for raw in ("FuelOut", "AssertionError", "SizeExceeded", "RecursionCut", "Timeout"):
        assert raw not in err


def test_assertion_message_and_line(capsys, tmp_path):
    p = tmp_path / "even.races"
    p.write_text("env even(n: Int where 0 <= it <= 99) -> Int:\n    \"\"\"Return n.\"\"\"\n"
                 "    assert n % 2 == 0, \"n must be even\"\n    return n\n")
    for extra in ((), ("--untrusted",)):
        rc, out, err = run(capsys, p, "even", "--input", "3", *extra)
        assert (rc, out) == (0, ["!assert"])
        assert err.strip() == "racesc: input 1: assertion failed: n must be even at line 3"


def test_fuel_message_names_the_budget(capsys):
    rc, out, err = run(capsys, REASONS, "spin", "--input", "1", "--fuel", "50")
    assert out == ["!fuel"]
    assert err.strip() == "racesc: input 1: used up its budget of 50 steps; raise --fuel"


def test_unquoted_string_input_hints_quotes(capsys, tmp_path):
    rc, out, err = run(capsys, REASONS, "shout", "--input", "banana")
    assert (rc, out) == (0, ["!input"])
    assert "not a literal" in err
    assert """write a string with quotes: --input '"banana"'""" in err
    f = tmp_path / "in.txt"
    f.write_text("abc\n")
    rc, out, err = run(capsys, REASONS, "shout", "--inputs", f)
    assert out == ["!input"] and 'write a string with quotes: "abc"' in err


def test_no_quote_hint_for_an_int_input(capsys):
    rc, out, err = run(capsys, REASONS, "inc", "--input", "banana")
    assert out == ["!input"] and "not a literal" in err and "quotes" not in err


def test_timeout(capsys):
    rc, out, err = run(capsys, REASONS, "spin", "--input", "1", "--fuel", "1000000000", "--wall", "0.3")
    assert (rc, out) == (0, ["!timeout"])
    assert "input 1: ran past the wall-clock limit of 0.3 s; raise --wall" in err


def test_bigger_fuel_lets_a_loop_finish(capsys, tmp_path):
    p = tmp_path / "count.races"
    p.write_text("env count(n: Int where 0 <= it <= 5000) -> Int:\n    \"\"\"Count to n.\"\"\"\n"
                 "    t = 0\n    for i in range(n):\n        t += 1\n    return t\n")
    assert run(capsys, p, "count", "--input", "1000")[1] == ["!fuel"]
    assert run(capsys, p, "count", "--input", "1000", "--fuel", "2000")[1] == ["1000"]


def test_a_budget_above_max_fuel_is_a_usage_error(capsys, tmp_path):
    p = tmp_path / "count.races"
    p.write_text("env count(n: Int where 0 <= it <= 5) -> Int:\n    \"\"\"Count to n.\"\"\"\n    return n\n")
    with pytest.raises(SystemExit) as e:
        main(["run", str(p), "count", "--input", "1", "--fuel", str(2 ** 50 + 1)])
    assert e.value.code == 2 and "at most 1125899906842624, not 1125899906842625" in capsys.readouterr().err


def test_inputs_keep_their_order(capsys):
    rc, out, err = run(capsys, REASONS, "divide", "--input", "3", "--input", "'x'", "--input", "0",
                       "--input", "-7")
    assert out == ["33", "!input", "!error", "-15"]
    assert "input 2: not an Int" in err and "input 3: integer division or modulo by zero" in err


def test_inputs_file(capsys):
    """One literal per line; blank lines skipped; surrounding spaces allowed."""
    rc, out, err = run(capsys, REASONS, "inc", "--inputs", FIX / "inputs.txt")
    assert rc == 0
    assert out == ["2", "-2", "201", "!input", "!input"]
    assert "input 4: not an Int" in err and "input 5: not a literal" in err


def test_inputs_from_stdin_after_given_inputs(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("4\n\n5\r\n"))
    rc, out, _ = run(capsys, REASONS, "inc", "--inputs", "-", "--input", "1")
    assert (rc, out) == (0, ["2", "5", "6"])


def test_inputs_file_missing(capsys, tmp_path):
    """(BUG: racesl/cli/run.py `execute` opens --inputs without a guard: a missing file ends in a
    FileNotFoundError traceback and exit 1 instead of `racesc: error: ...` and exit 2.)"""
    try:
        rc = main(["run", str(REASONS), "inc", "--inputs", str(tmp_path / "nothere.txt")])
    except OSError as e:
        pytest.fail(f"racesc run raised {e!r}")
    out, err = capsys.readouterr()
    assert rc == 2
    assert "racesc: error:" in err and "nothere.txt" in err


def test_inputs_file_not_utf8(capsys, tmp_path):
    """(BUG, same place: a byte that is not UTF-8 in the --inputs file ends in a
    UnicodeDecodeError traceback.)"""
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"1\n\xff\n2\n")
    try:
        rc = main(["run", str(REASONS), "inc", "--inputs", str(bad)])
    except UnicodeDecodeError as e:
        pytest.fail(f"racesc run raised {e!r}")
    out, err = capsys.readouterr()
    assert rc == 2 or out.splitlines() == ["2", "!input", "3"]


def test_no_inputs(capsys):
    rc, out, err = run(capsys, REASONS, "inc")
    assert (rc, out) == (2, [])
    assert "racesc: error: no inputs" in err


# ---------------------------------------------------------------- settings

def test_setting_given(capsys):
    assert run(capsys, REASONS, "shift", "--input", "1", "--input", "10", "--setting", "k=3")[:2] == (0, ["4", "13"])


def test_settings_in_any_order(capsys):
    assert run(capsys, REASONS, "scale", "--input", "2", "--setting", "m=1", "--setting", "k=2")[:2] == (0, ["5"])


def test_setting_sampled_when_not_given(capsys):
    rc, out, err = run(capsys, REASONS, "shift", "--input", "10", "--seed", "4")
    assert rc == 0
    k = int(err.split("racesc: sampled setting k=")[1].split()[0])
    assert 1 <= k <= 5
    assert out == [str(10 + k)]
    assert run(capsys, REASONS, "shift", "--input", "10", "--seed", "4")[1] == out  # the seed decides


def test_setting_sampled_only_when_missing(capsys):
    rc, out, err = run(capsys, REASONS, "scale", "--input", "2", "--setting", "k=2")
    assert rc == 0 and "sampled setting m=" in err and "sampled setting k" not in err
    m = int(err.split("sampled setting m=")[1].split()[0])
    assert out == [str(4 + m)]


@pytest.mark.parametrize("setting,msg", [
    ("k=9", "setting k: 9 is an Int but outside its refinement (1 <= it <= 5)"),
    ("k='a'", "setting k: not an Int: expected Int where 1 <= it <= 5, got str 'a'"),
    ("q=3", "'shift' has no setting 'q' (settings: k)"),
    ("k3", "--setting wants NAME=LITERAL, got 'k3'"),
    ("k=[", "setting k: not a literal"),
])
def test_bad_setting(capsys, setting, msg):
    rc, out, err = run(capsys, REASONS, "shift", "--input", "1", "--setting", setting)
    assert (rc, out) == (2, [])
    assert "racesc: error:" in err and msg in err


# ---------------------------------------------------------------- environments and files

def test_unknown_environment(capsys):
    rc, out, err = run(capsys, REASONS, "nope", "--input", "1")
    assert (rc, out) == (2, [])
    assert f"racesc: error: no environment 'nope' in {REASONS}" in err
    assert "(environments: inc, shift, scale, positive, spin" in err


def test_qualified_environment_name(capsys):
    assert run(capsys, REASONS, "reasons.inc", "--input", "1")[:2] == (0, ["2"])


def test_file_that_does_not_compile(capsys):
    rc, out, err = run(capsys, FIX / "broken.races", "broken", "--input", "1")
    assert (rc, out) == (2, [])
    assert f"{FIX / 'broken.races'}:3:14: error[E505]: '/' is true division" in err
    assert " 3 |     return x / 2" in err
    assert "= hint: use '//' for integer division" in err


def test_missing_file(capsys, tmp_path):
    rc, out, err = run(capsys, tmp_path / "nothere.races", "e", "--input", "1")
    assert (rc, out) == (2, [])
    assert "error[E202]" in err and "cannot read" in err


def test_include_path(capsys):
    rc, out, err = run(capsys, FIX / "uses_lib.races", "tripled", "--input", "3")
    assert rc == 2 and "error[E202]: module 'helpers' not found" in err
    assert run(capsys, FIX / "uses_lib.races", "tripled", "-I", FIX / "lib", "--input", "3")[:2] == (0, ["9"])


# ---------------------------------------------------------------- the installed script

def test_script_outputs_and_exit_code(tmp_path):
    """Through the installed script, without PYTHONHASHSEED (it re-executes itself with one)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONHASHSEED"}
    p = subprocess.run([RACESC, "run", str(REASONS), "divide", "--input", "4", "--input", "0", "--input", "'x'"],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert "Traceback" not in p.stderr, p.stderr
    assert p.returncode == 0
    assert p.stdout.splitlines() == ["25", "!error", "!input"]
    assert os.listdir(tmp_path) == []


def test_script_exit_2_on_compile_error(tmp_path):
    p = racesc("run", FIX / "broken.races", "broken", "--input", "1", cwd=tmp_path)
    assert p.returncode == 2
    assert p.stdout == ""
    assert "error[E505]" in p.stderr


def test_script_untrusted(tmp_path):
    """`--untrusted` runs in a worker process (racesl/sandbox_runner.py); same outputs."""
    p = racesc("run", REASONS, "positive", "--input", "3", "--input", "0", "--input", "'a'", "--untrusted",
               cwd=tmp_path)
    assert p.returncode == 0
    assert p.stdout.splitlines() == ["3", "!assert", "!input"]
