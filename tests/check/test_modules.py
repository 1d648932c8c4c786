"""Modules across files: search path, imports, cycles, bytes that are not UTF-8."""

from __future__ import annotations

from racesl.check import check_paths
from racesl.diagnostics import render_plain
from racesl.syntax.parser import MAX_SOURCE_CHARS, parse_module


def write(tmp_path, name, text):
    p = tmp_path / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return p


ENV = 'env {name}(x: Int) -> Int:\n    """Return x plus one."""\n    return {body}\n'


def test_import_from_same_folder_and_qualified_call(tmp_path):
    write(tmp_path, "a.races", "def inc(x: Int) -> Int:\n    return x + 1\n")
    b = write(tmp_path, "b.races", "import a\nfrom a import inc\n" + ENV.format(name="f", body="a.inc(inc(x))"))
    checked = check_paths([b])
    assert checked.ok, render_plain(checked.diagnostics)
    assert set(checked.modules) == {"a", "b"}
    assert list(checked.modules) == ["a", "b"]  # dependency order


def test_include_path(tmp_path):
    write(tmp_path, "lib/helpers.races", "def inc(x: Int) -> Int:\n    return x + 1\n")
    main = write(tmp_path, "src/main.races", "from helpers import inc\n" + ENV.format(name="f", body="inc(x)"))
    assert not check_paths([main]).ok
    assert check_paths([main], include=[tmp_path / "lib"]).ok


def test_stdlib_is_on_the_search_path(tmp_path):
    p = write(tmp_path, "m.races", "import numbers\n" + ENV.format(name="f", body="x"))
    checked = check_paths([p])
    assert "numbers" in checked.modules
    assert any(d.code == "W601" for d in checked.diagnostics)  # imported, unused


def test_import_cycle_is_one_error_naming_the_cycle(tmp_path):
    write(tmp_path, "a.races", "import b\n" + ENV.format(name="fa", body="b.fb(x)"))
    write(tmp_path, "b.races", "import c\n" + ENV.format(name="fb", body="c.fc(x)"))
    write(tmp_path, "c.races", "import a\n" + ENV.format(name="fc", body="x"))
    checked = check_paths([tmp_path / "a.races"])
    cycles = [d for d in checked.diagnostics if d.code == "E203"]
    assert len(cycles) == 1
    assert cycles[0].message == "import cycle: a -> b -> c -> a"
    assert cycles[0].path.endswith("c.races") and cycles[0].span.line == 1


def test_self_import(tmp_path):
    p = write(tmp_path, "me.races", "import me\n" + ENV.format(name="f", body="x"))
    assert [d.message for d in check_paths([p]).diagnostics if d.code == "E203"] == ["import cycle: me -> me"]


def test_invalid_utf8_is_located_and_the_rest_still_parses(tmp_path):
    p = tmp_path / "bad.races"
    p.write_bytes(b'env f(x: Int) -> Int:\n    """Caf\xe9."""\n    return x + y\n')
    checked = check_paths([p])
    codes = [(d.code, d.span.line, d.span.col) for d in checked.diagnostics]
    assert ("E106", 2, 11) in codes
    assert any(c == "E200" for c, _, _ in codes)  # the body was still checked


def test_file_too_large_is_refused_without_parsing():
    mod, diags = parse_module("x" * (MAX_SOURCE_CHARS + 1))
    assert [d.code for d in diags] == ["E112"] and mod.items == ()


def test_two_files_with_one_module_name(tmp_path):
    write(tmp_path, "x/dup.races", ENV.format(name="f", body="x"))
    write(tmp_path, "y/dup.races", ENV.format(name="g", body="x"))
    checked = check_paths([tmp_path / "x/dup.races", tmp_path / "y/dup.races"])
    assert any(d.code == "E201" and "two modules are named 'dup'" in d.message for d in checked.diagnostics)
