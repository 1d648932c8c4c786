"""Chunked golden tests of diagnostics, in the style of starlark-go.

A golden file holds chunks separated by lines of `---`. Each chunk is checked as its own
module. A line may carry one or more expectations `### "REGEX"`; each must match the
`CODE: message` of a diagnostic reported on that line (`CODE: message = hint: HINT` when
the regex itself holds `= hint: `), and every diagnostic must be expected by some line.
A chunk containing `#! probe` is also sampled and run, which is where runtime diagnostics
(contracts, laws, success rate) come from.
"""

from __future__ import annotations

import re
from pathlib import Path

import attrs

_EXPECT = re.compile(r'###\s*"((?:[^"\\]|\\.)*)"')


@attrs.frozen
class Chunk:
    file: Path
    index: int
    first_line: int  # line of the chunk's first line in the golden file
    text: str

    @property
    def id(self) -> str:
        return f"{self.file.stem}-{self.index}"

    def expectations(self) -> dict[int, list[str]]:
        out: dict[int, list[str]] = {}
        for n, line in enumerate(self.text.splitlines(), 1):
            for m in _EXPECT.finditer(line):
                out.setdefault(n, []).append(m.group(1).replace('\\"', '"'))
        return out


def chunks(path: Path) -> list[Chunk]:
    text = path.read_text(encoding="utf-8")
    out: list[Chunk] = []
    line = 1
    for k, part in enumerate(re.split(r"(?m)^---\n", text)):
        out.append(Chunk(path, k, line, part))
        line += part.count("\n") + 1
    return out


def _shown(d, with_hint: bool) -> str:
    return f"{d.code}: {d.message}" + (f" = hint: {d.hint or ''}" if with_hint else "")


def compare(chunk: Chunk, diags) -> list[str]:
    """Problems: unmatched expectations and unexpected diagnostics, with golden-file lines."""
    expected = chunk.expectations()
    problems: list[str] = []
    by_line: dict[int, list] = {}
    for d in diags:
        by_line.setdefault(d.span.line, []).append(d)
    used: set[int] = set()
    for line, regexes in sorted(expected.items()):
        for rx in regexes:
            hit = next((d for d in by_line.get(line, []) if id(d) not in used
                        and re.search(rx, _shown(d, "= hint: " in rx))), None)
            if hit is None:
                got = "; ".join(_shown(d, "= hint: " in rx) for d in by_line.get(line, [])) or "nothing"
                problems.append(f"{chunk.file.name}:{chunk.first_line + line - 1}: expected /{rx}/, got {got}")
            else:
                used.add(id(hit))
    for d in diags:
        if id(d) not in used:
            problems.append(f"{chunk.file.name}:{chunk.first_line + d.span.line - 1}: unexpected "
                            f"{d.code}: {d.message}")
    return problems


# ------------------------------------------------------------------ snapshots of emitted text

UPDATE_ENV = "RACESL_UPDATE_GOLDEN"


def snapshot_problem(path: Path, text: str, regenerate: str) -> str | None:
    """Compare `text` with the snapshot file `path`, exactly; a unified diff when they
    differ (or the file is missing), None when equal. With RACESL_UPDATE_GOLDEN=1 in the
    environment the file is (re)written instead. `regenerate` is the command to show."""
    import difflib
    import os

    if os.environ.get(UPDATE_ENV) == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
        return None
    how = f"if the change is intended, regenerate with: {UPDATE_ENV}=1 {regenerate}"
    if not path.exists():
        return f"snapshot {path} is missing; {how}"
    old = path.read_text(encoding="utf-8")
    if old == text:
        return None
    diff = "".join(difflib.unified_diff(old.splitlines(keepends=True), text.splitlines(keepends=True),
                                        f"{path.name} (snapshot)", f"{path.name} (emitted now)"))
    return f"emitted code differs from snapshot {path}:\n{diff}\n{how}"
