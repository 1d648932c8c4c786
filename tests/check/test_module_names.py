"""E205 names the file the user saved, and suggests only a module name that can be declared."""

from __future__ import annotations

import pytest

from racesl.check import check_paths

SOURCE = 'module my\n\nenv one(x: Int where 0 <= it <= 9) -> Int:\n    """Add one."""\n    return x + 1\n'


@pytest.mark.parametrize("name, hint", [
    ("copy.txt", "rename the file to my.races or declare `module copy`"),
    ("my.races.tutorial-end", "rename the file to my.races"),
    ("other.races", "rename the file to my.races or declare `module other`"),
])
def test_e205_names_the_real_file(tmp_path, name, hint):
    path = tmp_path / name
    path.write_text(SOURCE, encoding="utf-8")
    diags = [d for d in check_paths([path]).diagnostics if d.code == "E205"]
    assert len(diags) == 1
    assert diags[0].message == f"module 'my' is declared in a file named '{name}'"
    assert diags[0].hint == hint
