"""E601 without a pinned hash seed: a body whose result depends on the order of a set of
strings is refused by the checker where its types show it, and by `racesc check` (which
runs such environments under two other hash seeds) where they do not."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from racesl.check import check_paths
from racesl.library import Library
from racesl.probe import set_builders

RACESC = str(Path(sys.executable).with_name("racesc"))

STATIC = '''env f(s: Str) -> Str:
    """Return the letters of s."""
    return "".join(set(s))
'''

DYNAMIC = '''def spell(cs) -> Str:
    out = ""
    for c in cs:
        out += c
    return out

env scramble(s: Str where 3 <= len(it) <= 8 and it.isalpha() and it.islower()) -> Str:
    """Return the letters of s, each once."""
    return spell(set(s))
'''

CLEAN = '''def spell(cs) -> Str:
    out = ""
    for c in cs:
        out += c
    return out

env tidy(s: Str where 3 <= len(it) <= 8 and it.isalpha() and it.islower()) -> Str:
    """Return the letters of s, each once, in alphabetical order."""
    return spell(sorted(set(s)))

env distinct(xs: List[Int where 0 <= it <= 9] where len(it) <= 8) -> List[Int]:
    """Return the distinct values of xs."""
    return [x for x in set(xs)]
'''


DEEP = DYNAMIC.replace("return spell(set(s))", "return word(s)") + '''
def letters(s: Str):
    return set(s)

def word(s: Str) -> Str:
    return spell(letters(s))

env plain(s: Str) -> Str:
    """Return s."""
    return spell(s)
'''


def racesc(*args, cwd) -> subprocess.CompletedProcess:
    # no PYTHONHASHSEED: racesc no longer pins one, and must not need it
    env = {k: v for k, v in os.environ.items() if k != "PYTHONHASHSEED"}
    env.update(NO_COLOR="1", COLUMNS="200")
    p = subprocess.run([RACESC, *map(str, args)], cwd=cwd, capture_output=True, text=True, env=env, timeout=120)
    assert "Traceback" not in p.stderr, p.stderr
    return p


def test_the_api_refuses_a_join_of_a_set(tmp_path):
    src = tmp_path / "m.races"
    src.write_text(STATIC)
    checked = check_paths([src])
    assert not checked.ok
    [d] = checked.diagnostics
    assert d.code == "E601" and d.is_error
    assert (d.span.line, d.span.col, d.span.end_col) == (3, 20, 26)  # `set(s)`
    assert d.message.startswith("'.join()' of a Set[Str] keeps the set's order")
    assert d.hint == "sort first: sorted(set(s))"


def test_racesc_check_refuses_it_before_running(tmp_path):
    (tmp_path / "m.races").write_text(STATIC)
    p = racesc("check", "m.races", cwd=tmp_path)
    assert p.returncode == 1
    assert "m.races:3:20: error[E601]: '.join()' of a Set[Str]" in p.stderr
    assert "nothing was run" in p.stderr


def test_racesc_check_runs_what_the_types_hide(tmp_path):
    (tmp_path / "m.races").write_text(DYNAMIC)
    assert check_paths([tmp_path / "m.races"]).ok  # the checker cannot see into `spell`
    p = racesc("check", "m.races", "-q", cwd=tmp_path)
    assert p.returncode == 1, p.stderr
    assert "error[E601]: scramble('" in p.stderr and "with PYTHONHASHSEED=" in p.stderr
    assert "1 environment checked: 1 error" in p.stderr
    assert os.listdir(tmp_path) == ["m.races"]


def test_racesc_check_untrusted_too(tmp_path):
    (tmp_path / "m.races").write_text(DYNAMIC)
    p = racesc("check", "m.races", "-q", "--untrusted", cwd=tmp_path)
    assert p.returncode == 1 and "error[E601]: scramble('" in p.stderr, p.stderr


def test_sets_in_a_deterministic_order_pass(tmp_path):
    (tmp_path / "m.races").write_text(CLEAN)
    p = racesc("check", "m.races", "-q", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "2 environments checked: 0 errors, 0 warnings" in p.stderr


def test_a_set_built_two_helpers_down_is_run_too(tmp_path):
    (tmp_path / "m.races").write_text(DEEP)
    checked = check_paths([tmp_path / "m.races"])
    assert checked.ok, checked.diagnostics
    lib = Library(checked)
    assert [e.name for e in set_builders(lib, lib.root_envs)] == ["scramble"]  # not `plain`
    p = racesc("check", "m.races", "-q", cwd=tmp_path)
    assert p.returncode == 1 and "error[E601]: scramble('" in p.stderr, p.stderr
