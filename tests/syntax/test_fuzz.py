"""Mutation fuzzing: random edits of stdlib files never raise, and every diagnostic's
range lies inside the document (the language server depends on both)."""

from __future__ import annotations

import random

import pytest

from racesl import resources
from racesl.check import check_paths

FILES = sorted(resources.stdlib_dir().glob("*.races"))
SNIPPETS = ["(", ")", "[", "]", ":", "\n", "    ", "\t", '"', "'''", "#", "\\", "env ", "def ", "@", "where ",
            "it", "->", "=", "==", "/", "**", "lambda", "é", "🙂", "\0", "\r", "f'{", "}", ",", "x.y", "__", "1.5"]


def mutate(text: str, rng: random.Random) -> str:
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(text) + 1)
        op = rng.randrange(5)
        if op == 0:
            text = text[:i] + text[i + rng.randint(1, 20):]
        elif op == 1:
            text = text[:i] + rng.choice(SNIPPETS) + text[i:]
        elif op == 2:
            j = rng.randrange(len(text) + 1)
            a, b = sorted((i, j))
            text = text[:a] + text[b:b + (b - a)] + text[a:]
        elif op == 3:
            lines = text.split("\n")
            k = rng.randrange(len(lines))
            lines.insert(rng.randrange(len(lines)), lines[k])
            text = "\n".join(lines)
        else:
            lines = text.split("\n")
            k = rng.randrange(len(lines))
            lines[k] = lines[k].lstrip() if rng.random() < 0.5 else "  " + lines[k]
            text = "\n".join(lines)
    return text


def assert_inside(text: str, diags) -> None:
    lines = text.splitlines() or [""]
    n = len(lines)
    for d in diags:
        s = d.span
        assert 1 <= s.line <= s.end_line <= n + 1, d
        if s.line <= n:
            assert 1 <= s.col <= len(lines[s.line - 1]) + 2, d
        if s.end_line <= n:
            assert 1 <= s.end_col <= len(lines[s.end_line - 1]) + 2, d
        assert 0 <= s.start <= s.end <= len(text) + 1, d


@pytest.mark.parametrize("seed", range(8))
def test_mutated_stdlib_never_raises(seed, tmp_path):
    rng = random.Random(seed)
    for _ in range(8):
        src = rng.choice(FILES)
        text = mutate(src.read_text(), rng)
        path = str(tmp_path / src.name)
        checked = check_paths([path], overlay={path: text})
        own = [d for d in checked.diagnostics if d.path == path]
        assert_inside(text, own)
