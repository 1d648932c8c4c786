"""What a docstring says: its lines stripped and joined by one space, paragraphs (split by
blank lines) kept apart by one blank line. So wrapping a docstring, as `racesc fmt` does,
never changes the description a task shows."""

from __future__ import annotations

from racesl.syntax.lexer import LINE_BREAK


def description(value: str) -> str:
    paragraphs: list[str] = []
    lines: list[str] = []
    for line in LINE_BREAK.split(value):
        line = line.strip()
        if line:
            lines.append(line)
        elif lines:
            paragraphs.append(" ".join(lines))
            lines = []
    if lines:
        paragraphs.append(" ".join(lines))
    return "\n\n".join(paragraphs)
