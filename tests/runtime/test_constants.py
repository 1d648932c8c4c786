"""Module constants at run time (racesl.runtime.constants): evaluated once when a library
loads, metered once, shared by every draw at no cost that grows with their size, and
refused at load, with the constant's location, when they do not evaluate."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from racesl.library import ConstantError, Library
from racesl.runtime import SafeRng


def _words(chars: int) -> str:
    """A deterministic word list of about `chars` characters (lowercase words of 3-9 letters)."""
    r = random.Random(chars)
    out, n = [], 0
    while n < chars:
        w = "".join(r.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(r.randint(3, 9)))
        out.append(w)
        n += len(w) + 1
    return " ".join(out)


def _module(words: str) -> str:
    return f'''\
WORDS: List[Str] = "{words}".split()
COUNT: Int = len(WORDS)
INDEX: Dict[Str, Int] = {{w: k for k, w in enumerate(WORDS)}}

def pick(rng, level) -> Str:
    k = rng.randint(0, COUNT - 1)
    return WORDS[k] if rng.randint(0, 1) else rng.choice(WORDS)

@sample(w=pick)
env known(w: Str where 3 <= len(it) <= 9 and it.isalpha()) -> Bool:
    """Say whether w is one of the words in the list."""
    return w in INDEX
'''


def _library(tmp_path: Path, name: str, text: str) -> Library:
    p = tmp_path / f"{name}.races"
    p.write_text(text, encoding="utf-8")
    lib, checked = Library.from_paths([p])
    assert lib is not None, [d.headline() for d in checked.diagnostics]
    return lib


def _draw_steps(lib: Library, module: str, seeds=range(40)) -> list[int]:
    out = []
    for s in seeds:
        o = lib.program.call(f"{module}__pick", (0,), rng=SafeRng(s), fuel=400)
        assert o.ok, o
        out.append(o.steps)
    return out


def test_a_draw_costs_the_same_whatever_the_constants_size(tmp_path):
    small, big = _words(500), _words(50_000)
    assert len(big) >= 50_000 and len(small) < 600
    lib_small = _library(tmp_path, "small", _module(small))
    lib_big = _library(tmp_path, "big", _module(big))
    # the same steps on every draw, for a list 100 times as long
    assert _draw_steps(lib_small, "small") == _draw_steps(lib_big, "big")
    # and the body's own steps too: a lookup in a Dict constant charges nothing for its size
    # (`w in WORDS`, a scan of the list, would: it is charged its length, as it costs)
    w_small = lib_small.program.namespace["small__WORDS"][3]
    w_big = lib_big.program.namespace["big__WORDS"][3]
    a = lib_small.program.call("small__known", (w_small,), fuel=400)
    b = lib_big.program.call("big__known", (w_big,), fuel=400)
    assert a.ok and b.ok and a.value is True and b.value is True and a.steps == b.steps


def test_a_constant_is_evaluated_once_per_load(tmp_path):
    lib = _library(tmp_path, "once", _module(_words(5_000)))
    prog = lib.program
    words = prog.namespace["once__WORDS"]
    assert list(prog.constant_steps) == ["once__WORDS", "once__COUNT", "once__INDEX"]
    assert prog.constant_steps["once__INDEX"] >= len(words)  # metered once, at load
    for s in range(20):
        prog.call("once__pick", (0,), rng=SafeRng(s))
        prog.call("once__known", ("abc",))
    assert prog.namespace["once__WORDS"] is words  # the same object: never rebuilt, never copied
    assert prog.namespace["once__COUNT"] == len(words)


def test_draws_never_change_a_constant(tmp_path):
    lib = _library(tmp_path, "stable", _module(_words(2_000)))
    before = list(lib.program.namespace["stable__WORDS"])
    for s in range(200):
        status, value, _ = lib.aux_call("stable__pick", (s % 3,), random.Random(s))
        assert status == "ok" and value in before
    assert lib.program.namespace["stable__WORDS"] == before


FAILING = '''\
def spin(n: Int) -> Int:
    t = 0
    for i in range(n):
        t += i
    return t

BIG: Int = spin(10 ** 7)

env add(x: Int where 0 <= it <= 9) -> Int:
    """Add BIG to x."""
    return x + BIG
'''


def test_a_constant_that_runs_out_of_fuel_is_refused_at_load_with_its_location(tmp_path):
    p = tmp_path / "slow.races"
    p.write_text(FAILING, encoding="utf-8")
    with pytest.raises(ConstantError) as e:
        Library.from_paths([p])
    msg = str(e.value)
    assert msg.startswith(f"{p}:7:1: E443 constant 'BIG' could not be evaluated: it ran out of steps")
    assert "\n" not in msg and e.value.diagnostic.code == "E443"


def test_racesc_check_says_where_a_constant_failed_in_one_line(tmp_path):
    p = tmp_path / "slow.races"
    p.write_text(FAILING, encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "racesl", "check", str(p)], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        f"racesc: error: {p}:7:1: E443 constant 'BIG' could not be evaluated: it ran out of steps "
        "(the budget is 1,000,000)"]
    assert "Traceback" not in r.stderr


def test_a_constant_outside_its_refinement_is_refused_at_load(tmp_path):
    p = tmp_path / "refined.races"
    p.write_text('SMALL: Int where it < 5 = 7\n\nenv add(x: Int where 0 <= it <= 9) -> Int:\n'
                 '    """Add SMALL to x."""\n    return x + SMALL\n', encoding="utf-8")
    with pytest.raises(ConstantError, match=r"refined.races:1:1: E443 constant 'SMALL' could not be "
                                            r"evaluated: its value is outside its type"):
        Library.from_paths([p])


def test_constants_across_modules_and_in_refinements(tmp_path):
    (tmp_path / "words.races").write_text(
        'WORDS: List[Str] = "apple pear fig".split()\n\ntype Known = Str where it in WORDS\n', encoding="utf-8")
    (tmp_path / "use.races").write_text('''\
import words
from words import WORDS, Known

def pick(rng, level) -> Str:
    return rng.choice(words.WORDS)

@sample(w=pick)
env where_is(w: Known) -> Int:
    """Return the position of w in the word list."""
    return WORDS.index(w)
''', encoding="utf-8")
    lib, checked = Library.from_paths([tmp_path / "use.races"])
    assert lib is not None, [d.headline() for d in checked.diagnostics]
    env = lib.envs["use.where_is"]
    assert lib.conforms("fig", env.input) is None and lib.conforms("kiwi", env.input) is not None
    assert lib.program.call("use__where_is", ("fig",)).value == 2
