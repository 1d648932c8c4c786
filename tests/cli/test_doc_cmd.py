"""`racesc doc` on a user's module, through the installed script: the page is titled by the
user's modules (not "the standard library"), settings show their ranges as written, and
`--add-examples` writes sentences that `racesc fmt --check` accepts, whether or not the
file was formatted before (an unformatted file keeps its other lines as they were)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from racesl.format import format_source
from racesl.format.wrap import WIDTH

RACESC = str(Path(sys.executable).with_name("racesc"))

MODULE = '''# A module of my own.

env count_vowels(s: Str, k: Int where 1 <= it <= 9) -> Int:
    """Count the vowels in s (each of a, e, i, o and u, in either case), then add {k} times two to
    the count."""
    return sum(1 for c in s.lower() if c in "aeiou") + k * 2

env shift(xs: List[Int], d: Int where -5 <= it <= 5) -> List[Int]:
    """Add {d} to every element of the list xs, which may be a list of integers of any length."""
    return [x + d for x in xs]
'''


def racesc(*args, cwd) -> subprocess.CompletedProcess:
    env = dict(os.environ, NO_COLOR="1", COLUMNS="200")
    return subprocess.run([RACESC, *map(str, args)], cwd=cwd, capture_output=True, text=True, env=env, timeout=300)


def test_a_user_page_is_titled_by_its_modules_and_shows_setting_ranges(tmp_path: Path):
    (tmp_path / "mine.races").write_text(MODULE)
    p = racesc("doc", "mine.races", "--add-examples", "-o", "page.md", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    page = (tmp_path / "page.md").read_text()
    assert page.startswith("# Environments in mine\n"), page[:80]
    assert "standard library" not in page
    assert "`env count_vowels(s: Str, k: Int where 1 <= it <= 9) -> Int`" in page
    assert "`env shift(xs: List[Int], d: Int where -5 <= it <= 5) -> List[Int]`" in page


def test_the_stdlib_page_keeps_its_title(tmp_path: Path):
    stdlib = Path(__file__).resolve().parents[2] / "stdlib" / "strings.races"
    p = racesc("doc", stdlib, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("# The racesl standard library\n")


def _added(before: str, after: str) -> list[str]:
    old = set(before.splitlines())
    return [line for line in after.splitlines() if line not in old]


def test_add_examples_in_a_formatted_file_passes_fmt_check(tmp_path: Path):
    path = tmp_path / "mine.races"
    path.write_text(MODULE)
    assert format_source(MODULE, str(path)).text == MODULE  # formatted to begin with
    p = racesc("doc", "mine.races", "--add-examples", "-o", "page.md", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    text = path.read_text()
    assert text.count("Example, with") == 2
    check = racesc("fmt", "--check", "mine.races", cwd=tmp_path)
    assert check.returncode == 0, check.stdout + check.stderr


def test_add_examples_in_an_unformatted_file_writes_formatted_lines_only(tmp_path: Path):
    messy = MODULE.replace("\nenv shift", "\n\n\nenv shift")  # extra blank lines: not canonical
    path = tmp_path / "mine.races"
    path.write_text(messy)
    p = racesc("doc", "mine.races", "--add-examples", "-o", "page.md", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    text = path.read_text()
    assert "\n\n\n\nenv shift" in text  # the author's own layout is left alone
    new = _added(messy, text)
    assert new and all(len(line) <= WIDTH for line in new), new
    formatted = format_source(text, str(path)).text.splitlines()
    assert all(line in formatted for line in new), new  # fmt would not touch what was written


def test_a_page_without_examples_is_written_with_a_warning_each(tmp_path: Path):
    (tmp_path / "mine.races").write_text(MODULE)
    p = racesc("doc", "mine.races", "-o", "page.md", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    warnings = [line for line in p.stderr.splitlines() if ": warning: " in line]
    assert [w.split(": warning: ")[1].split(":")[0] for w in warnings] == ["mine.count_vowels", "mine.shift"]
    assert "2 descriptions without a worked example" in p.stderr
    page = (tmp_path / "page.md").read_text()
    assert "Count the vowels in s" in page and "Example" not in page


def test_a_false_example_is_still_an_error(tmp_path: Path):
    wrong = MODULE.replace("add {k} times two to\n    the count.", "add {k} times two to\n    the count. "
                           "Example, with k = 1: 'aa' -> 7.")
    (tmp_path / "mine.races").write_text(wrong)
    p = racesc("doc", "mine.races", "-o", "page.md", cwd=tmp_path)
    assert p.returncode == 1
    assert "error: mine.count_vowels: the example says 7, the body returns 4" in p.stderr
    assert not (tmp_path / "page.md").exists()


def test_add_examples_shows_its_change_and_diff_changes_nothing(tmp_path: Path):
    path = tmp_path / "mine.races"
    path.write_text(MODULE)
    p = racesc("doc", "mine.races", "--add-examples", "--diff", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert path.read_text() == MODULE  # --diff: no source changed
    assert "--- mine.races" in p.stderr and p.stderr.count("\n+    ") >= 2
    assert "2 examples would be written (nothing changed: --diff)" in p.stderr
    p = racesc("doc", "mine.races", "--add-examples", "-o", "page.md", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "--- mine.races" in p.stderr and "2 examples written into the source" in p.stderr
    assert path.read_text() != MODULE
    help_text = racesc("doc", "--help", cwd=tmp_path).stdout
    assert "EDITS THE SOURCES" in help_text


def test_diff_alone_is_refused(tmp_path: Path):
    (tmp_path / "mine.races").write_text(MODULE)
    p = racesc("doc", "mine.races", "--diff", cwd=tmp_path)
    assert p.returncode == 2 and "give both" in p.stderr


def test_the_signature_keeps_the_input_and_output_as_written(tmp_path: Path):
    (tmp_path / "mine.races").write_text(
        'type Word = Str where 1 <= len(it) <= 12 and it.isalpha() and it.islower()\n\n'
        'env letter_at(n: Int where 0 <= it <= 25) -> Word:\n'
        '    """Return the letter at 0-based position n in the alphabet. Example: 2 -> \'c\'."""\n'
        '    return chr(97 + n)\n\n'
        'env count(s: Word) -> Int where 0 <= it <= 12:\n'
        '    """Return the length of s. Example: \'abc\' -> 3."""\n'
        '    return len(s)\n')
    p = racesc("doc", "mine.races", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "`env letter_at(n: Int where 0 <= it <= 25) -> Word`" in p.stdout
    assert "`env count(s: Word) -> Int where 0 <= it <= 12`" in p.stdout
