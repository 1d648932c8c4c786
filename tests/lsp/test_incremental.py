"""The incremental machinery against the compiler itself: documents and position
encodings, incremental parsing (same AST and diagnostics as `parse_module`), and cached
checking (same diagnostics as `check_paths`) along sequences of small edits."""

from __future__ import annotations

import random
from pathlib import Path

import attrs
import pytest

from racesl import resources
from racesl.check import check_paths
from racesl.lsp.analysis import Workspace
from racesl.lsp.documents import Document, LineIndex, units, units_to_cp, uri_to_path
from racesl.lsp.incremental import IncrementalParser
from racesl.syntax import ast as A
from racesl.syntax.parser import parse_module

STDLIB = sorted(resources.stdlib_dir().glob("*.races"))
SNIPPETS = ["(", ")", "[", "]", ":", "\n", "    ", "\t", '"', "'''", '"""', "#", "\\", "env ", "def ", "@", "where ",
            "it", "->", "=", "==", "/", "lambda", "é", "🙂", "\0", "\r", "f'{", "}", ",", "x.y", "__", "1.5",
            "\u2028",
            "  @tags('x')\n", "\n)\n", "x = u\n"]


def edit(text: str, rng: random.Random) -> str:
    """One small edit, like typing: insert a snippet, delete a few characters, or re-indent a line."""
    i = rng.randrange(len(text) + 1)
    r = rng.random()
    if r < 0.5:
        return text[:i] + rng.choice(SNIPPETS) + text[i:]
    if r < 0.85:
        return text[:i] + text[i + rng.randint(1, 12):]
    lines = text.split("\n")
    k = rng.randrange(len(lines))
    lines[k] = lines[k].lstrip() if rng.random() < 0.5 else "  " + lines[k]
    return "\n".join(lines)


def dump(n):
    """An AST without its spans."""
    if isinstance(n, A.Node):
        return (type(n).__name__,) + tuple(dump(getattr(n, a.name)) for a in attrs.fields(type(n))
                                           if not (a.name == "span" or a.name.endswith("_span")))
    if isinstance(n, tuple):
        return tuple(dump(x) for x in n)
    return n


# ---------------------------------------------------------------- documents


def test_units_and_back():
    line = 'x = "é🙂" + y'
    assert units(line, "utf-32") == 12
    assert units(line, "utf-16") == 13
    assert units(line, "utf-8") == 16
    for enc in ("utf-8", "utf-16", "utf-32"):
        for col in range(len(line) + 1):
            assert units_to_cp(line, units(line[:col], enc), enc) == col
    assert units_to_cp(line, 7, "utf-8") == 6  # just before 🙂
    assert units_to_cp(line, 8, "utf-8") == 6  # inside 🙂's four bytes: rounds down
    assert units_to_cp(line, 999, "utf-16") == len(line)


def test_line_index_uses_lsp_line_breaks():
    text = "a\r\nb\rc\nd\u2028e"  # U+2028 is not a line break in LSP
    idx = LineIndex(text)
    assert [idx.line(i) for i in range(idx.line_count)] == ["a", "b", "c", "d\u2028e"]
    assert idx.position(2) == (0, 1)  # between \r and \n: end of line 0
    assert idx.to_client(9, 0, "utf-16") == (3, 3)  # past the end: clamped
    assert idx.from_client(3, 2, "utf-8") == (3, 1)


def test_document_changes():
    doc = Document("file:///tmp/x.races", "ab🙂cd\nef")
    doc.apply_change((0, 4), (0, 5), "X", "utf-16")  # 🙂 is two UTF-16 units
    assert doc.text == "ab🙂Xd\nef"
    doc.apply_change((0, 2), (0, 6), "", "utf-8")  # and four UTF-8 ones
    assert doc.text == "abXd\nef"
    doc.apply_change((5, 0), (9, 9), "!", "utf-8")  # beyond the end: appended
    assert doc.text == "abXd\nef!"
    doc.apply_change(None, None, "new", "utf-8")
    assert doc.text == "new"
    assert uri_to_path("file:///tmp/a%20b.races") == "/tmp/a b.races"
    assert uri_to_path("untitled:Untitled-1").endswith("Untitled-1.races")


# ---------------------------------------------------------------- incremental parsing


def _real(d, placement):
    a = placement.real(d.span.line, d.span.col)
    b = placement.real(d.span.end_line, d.span.end_col)
    return d.code, d.message, a[0] + 1, a[1] + 1, b[0] + 1, b[1] + 1


def _same_parse(text: str, parser: IncrementalParser) -> None:
    got = parser.parse(text)
    try:
        ref, ref_diags = parse_module(text, "x.races")
    except Exception:  # noqa: BLE001 — a parser bug: nothing to compare with (ours must not raise)
        return
    assert sorted(_real(d, got.placement) for d in got.diagnostics) == \
        sorted((d.code, d.message, d.span.line, d.span.col, d.span.end_line, d.span.end_col) for d in ref_diags)
    # (parse_module can return an empty lark Tree for a stray ')' line; the checker skips it)
    assert dump(got.module.items) == dump(tuple(it for it in ref.items if isinstance(it, A.Node)))
    assert got.module.skipped_names == ref.skipped_names


@pytest.mark.parametrize("path", STDLIB, ids=lambda p: p.stem)
def test_incremental_parse_matches_parse_module(path: Path):
    rng = random.Random(path.stem)
    parser = IncrementalParser("x.races")
    text = path.read_text(encoding="utf-8")
    _same_parse(text, parser)
    for _ in range(8):
        text = edit(text, rng)
        _same_parse(text, parser)


def test_only_changed_items_are_reparsed():
    text = (resources.stdlib_dir() / "numbers.races").read_text(encoding="utf-8")
    parser = IncrementalParser("x.races")
    first = parser.parse(text)
    assert first.reparsed > 20
    i = text.index("    return a\n")
    again = parser.parse(text[:i] + "    a = a + 0\n" + text[i:])
    assert again.reparsed == 1
    again = parser.parse("\n\n" + text)  # everything moves down: nothing is parsed again
    assert again.reparsed <= 1


# ---------------------------------------------------------------- cached checking


def _plain(d):
    return (d.code, d.message, d.span.line, d.span.col, d.span.end_line, d.span.end_col, d.hint,
            tuple((lab.message, lab.span.line, lab.span.col) for lab in d.labels))


def _lsp(d, ws):
    pl = ws.placement_for(d.path)

    def r(line, col):
        x = pl.real(line, col) if pl else (line - 1, col - 1)
        return x[0] + 1, x[1] + 1

    a, b = r(d.span.line, d.span.col), r(d.span.end_line, d.span.end_col)
    return (d.code, d.message, a[0], a[1], b[0], b[1], d.hint,
            tuple((lab.message,) + r(lab.span.line, lab.span.col) for lab in d.labels))


@pytest.mark.parametrize("name", ["strings", "records"])
def test_cached_checking_matches_check_paths(name: str, tmp_path: Path):
    rng = random.Random(name)
    path = tmp_path / f"{name}.races"
    text = (resources.stdlib_dir() / f"{name}.races").read_text(encoding="utf-8")
    ws = Workspace()
    uri = path.as_uri()
    ws.open(uri, text)
    for k in range(6):
        if k:
            text = edit(text, rng)
        ws.docs[uri].text = text
        a = ws.analyze(uri)
        path.write_text(text, encoding="utf-8", newline="")
        try:
            ref = check_paths([path])
        except Exception:  # noqa: BLE001 — a compiler bug on this text: nothing to compare with
            continue
        assert sorted(_lsp(d, ws) for d in a.checked.diagnostics if d.path == str(path)) == \
            sorted(_plain(d) for d in ref.diagnostics if d.path == str(path))
    assert ws.driver._caches[(str(path), "doc")].hits > 0  # the caches were used


def test_unchanged_imports_are_not_checked_again(tmp_path: Path):
    path = tmp_path / "m.races"
    text = "import numbers\nfrom strings import Word\n\nenv f(w: Word) -> Int:\n    \"\"\"Length.\"\"\"\n" \
           "    return len(w) + numbers.fibonacci(3)\n"
    ws = Workspace()
    ws.open(path.as_uri(), text)
    ws.analyze(path.as_uri())
    checked = ws.driver.stats["modules_checked"]
    ws.docs[path.as_uri()].text = text + "\n"
    ws.analyze(path.as_uri())
    assert ws.driver.stats["modules_checked"] == checked + 1  # only m itself


def test_unchanged_functions_are_replayed_not_checked_again(tmp_path: Path, monkeypatch):
    """The checker's extension points are where the replay happens: after an edit in the
    body of `double`, `f`'s signature and decorators are replayed, not checked again."""
    from racesl.check.checker import ModuleChecker

    calls: list[tuple[str, str]] = []
    for step in ("check_signature", "check_body", "check_env_extras"):
        real = getattr(ModuleChecker, step)
        monkeypatch.setattr(ModuleChecker, step,
                            lambda self, fn, real=real, step=step: calls.append((step, fn.name)) or real(self, fn))
    path = tmp_path / "m.races"
    text = "def double(x: Int) -> Int:\n    return 2 * x\n\n" \
           "@tags(\"demo\")\nenv f(x: Int) -> Int:\n    \"\"\"Twice.\"\"\"\n    return double(x)\n"
    ws = Workspace()
    uri = path.as_uri()
    ws.open(uri, text)
    ws.analyze(uri)
    assert sorted(calls) == [("check_body", "double"), ("check_body", "f"), ("check_env_extras", "f"),
                             ("check_signature", "double"), ("check_signature", "f")]
    calls.clear()
    ws.docs[uri].text = text.replace("2 * x", "x + x")
    a = ws.analyze(uri)
    assert ("check_body", "double") in calls
    assert ("check_signature", "f") not in calls and ("check_env_extras", "f") not in calls
    assert a.module.envs["f"].tags == ("demo",) and a.module.local_types.keys() == {"double", "f"}
