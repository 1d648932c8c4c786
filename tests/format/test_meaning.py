"""Formatting never changes meaning: on every `.races` file in the repository that parses,
the formatted text parses to the same tree (format_source checks it on each call) and
formatting it again changes nothing; for libraries that check, the formatted modules lower
to the same Python and give the same environments (descriptions, tags, samplers, laws)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from racesl.format import format_source
from racesl.library import load
from racesl.lower.instrument.rewrite import LINEMAP_TAG, lower_to_source

ROOT = Path(__file__).resolve().parents[2]
CORPUS = sorted(p for top in ("stdlib", "examples", "tests", "editors/vscode/test")
                for p in (ROOT / top).rglob("*.races") if "node_modules" not in p.parts)


def test_the_corpus_is_the_repository():
    assert len(CORPUS) >= 100


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: str(p.relative_to(ROOT)))
def test_formatting_is_idempotent_and_keeps_the_tree(path: Path):
    text = path.read_text(encoding="utf-8", errors="replace")
    once = format_source(text, str(path))
    if not once.ok:
        assert once.text == text  # a file with syntax errors is left as it is
        return
    assert format_source(once.text, str(path)).text == once.text
    assert _comments(once.text) == _comments(text)  # every comment kept, in order


def _comments(text: str) -> list[str]:
    """The comments of a parsed file, read with the lexer's own rule (outside strings)."""
    from racesl.format.tokens import read_lines
    from racesl.syntax.lexer import tokenize

    lines, tail = read_lines(text, tokenize(text)[0])
    out = []
    for line in lines:
        for t in line.tokens:
            out += [c.text for c in t.leading] + ([t.trailing] if t.trailing else [])
    return out + [c.text for c in tail]


def _library_view(folder: Path) -> dict:
    lib = load([folder])
    code = lower_to_source(lib.module, int_params=lib.param_facts)
    code = code[:code.index(LINEMAP_TAG)]  # (the line map: where each line came from)
    envs = {name: (e.description, e.tags, e.samplers, e.laws, e.verify, e.input_name,
                   tuple(s.name for s in e.settings))
            for name, e in lib.envs.items()}
    return {"code": code, "envs": envs}


def _formatted_copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    for p in dst.rglob("*.races"):
        p.write_text(format_source(p.read_text(encoding="utf-8"), str(p)).text, encoding="utf-8")
    return dst


@pytest.mark.parametrize("folder", ["tests/format/messy", "examples/quickstart"])
def test_formatted_modules_lower_to_the_same_code(folder: str, tmp_path: Path):
    original = _library_view(ROOT / folder)
    formatted = _library_view(_formatted_copy(ROOT / folder, tmp_path / "lib"))
    assert formatted == original


def _mess(text: str) -> str:
    """The same tokens laid out badly: two spaces a level, trailing spaces, blank lines doubled,
    each run of decorators reversed."""
    out: list[str] = []
    for line in text.split("\n"):
        body = line.lstrip(" ")
        out.append(" " * ((len(line) - len(body)) // 2) + body + ("  " if body else ""))
    lines, k = out, 0
    while k < len(lines):
        j = k
        while j < len(lines) and lines[j].startswith("@"):
            j += 1
        lines[k:j] = reversed(lines[k:j])
        k = j + 1
    return "\n".join(lines).replace("\n\n", "\n\n\n")


def test_the_stdlib_is_the_fixed_point_of_its_mess(tmp_path: Path):
    """Formatting a messed-up stdlib gives back the stdlib itself, and the mess lowers to
    the same code as the stdlib."""
    mess = tmp_path / "mess"
    shutil.copytree(ROOT / "stdlib", mess)
    for p in mess.glob("*.races"):
        p.write_text(_mess(p.read_text(encoding="utf-8")), encoding="utf-8")
    back = _formatted_copy(mess, tmp_path / "back")
    for p in sorted(back.glob("*.races")):
        assert p.read_text(encoding="utf-8") == (ROOT / "stdlib" / p.name).read_text(encoding="utf-8"), p.name
    assert _library_view(mess) == _library_view(ROOT / "stdlib")
