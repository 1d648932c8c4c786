"""The `.races` module out of a completion: its last ```races fenced block; failing that,
the last ```python or bare ``` block that holds an `env ` definition. A final fence the
model never closed (it ran out of tokens) still counts: the parse gate then says what is
wrong with it. No block, or one over MAX_CHARS, is no candidate: the funnel counts it at
the "extract" gate (before parse) and the generator gets the parse penalty.
"""

from __future__ import annotations

import re
import time

import attrs

MAX_CHARS = 20_000
# close_prefix's budget: it parses in evolve's own process (a parse of 20,000 characters takes up
# to ~0.9 s on a loaded machine), so it stops trying shorter prefixes after this long
CLOSE_SECONDS = 3.0
CLOSE_TRIES = 40
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([A-Za-z0-9_+.-]*)[ \t]*$")
_ENV = re.compile(r"^\s*env\s+[A-Za-z_]", re.MULTILINE)


@attrs.frozen
class Extracted:
    text: str | None  # the module's source, or None
    reason: str | None = None  # why there is none
    fence: str | None = None  # the block's language tag ("races", "python", "")


def blocks(completion: str) -> list[tuple[str, str]]:
    """(language tag, body) of every fenced block, in order; an unclosed last one included."""
    out: list[tuple[str, str]] = []
    lines = completion.splitlines()
    k = 0
    while k < len(lines):
        m = _FENCE.match(lines[k])
        if m is None:
            k += 1
            continue
        fence, lang = m.group(1), m.group(2).lower()
        body: list[str] = []
        k += 1
        while k < len(lines):
            c = _FENCE.match(lines[k])
            if c is not None and c.group(1)[0] == fence[0] and len(c.group(1)) >= len(fence) and not c.group(2):
                break
            body.append(lines[k])
            k += 1
        out.append((lang, "\n".join(body) + "\n"))
        k += 1
    return out


def parse_completion(completion: str, max_chars: int = MAX_CHARS) -> Extracted:
    """The module's text, or why there is none."""
    found = blocks(completion or "")
    races = [(lang, b) for lang, b in found if lang in ("races", "race")]
    other = [(lang, b) for lang, b in found if lang in ("python", "py", "") and _ENV.search(b)]
    pick = races[-1] if races else (other[-1] if other else None)
    if pick is None:
        return Extracted(None, "no ```races block in the completion: reply with the module inside one "
                               "```races ... ``` fence")
    lang, body = pick
    if not body.strip():
        return Extracted(None, "the ```races block is empty: put the whole module inside it", lang)
    if len(body) > max_chars:
        return Extracted(None, f"the ```races block has {len(body):,} characters, over the {max_chars:,} allowed: "
                               "write a smaller module (1–3 environments)", lang)
    return Extracted(body, None, lang)


def extract_module(completion: str) -> str | None:
    """The module's text, or None: the `extract(text)` hook of racesl.evolve.grpo."""
    return parse_completion(completion).text


def module_text(completion: str, constrained: bool) -> Extracted:
    """What the gates judge: a constrained completion is the module itself (its grammar has no
    fence), cut back to a complete prefix when it ran out of tokens (`close_prefix`); any other
    completion goes through `parse_completion`."""
    if not constrained or "```" in (completion or ""):  # a server that ignored the grammar: fenced text
        return parse_completion(completion)
    text = completion or ""
    if not text.strip():
        return Extracted(None, "the constrained completion is empty: it ran out of tokens before its first complete "
                               "item (raise max_tokens)", "")
    if len(text) > MAX_CHARS:
        return Extracted(None, f"the module has {len(text):,} characters, over the {MAX_CHARS:,} allowed", "")
    text, _ = close_prefix(text)
    if not text.strip():
        return Extracted(None, "the constrained completion has no complete item that parses: it ran out of tokens "
                               "(raise max_tokens), or it is not a module", "")
    return Extracted(text, None, "")


def close_prefix(text: str, max_tries: int = CLOSE_TRIES, budget: float = CLOSE_SECONDS) -> tuple[str, int]:
    """`text` when it parses, else its longest prefix of whole lines that does (and the number of
    lines dropped). A constrained completion cut at max_tokens by a server is a prefix of a
    sentence of the grammar; its last complete statement or item is where the grammar could have
    ended it, so this is the honest module to judge (the in-process decoder cuts there itself).

    Bounded, since it runs in evolve's own process: each failed parse names its first error's
    line, and every prefix that still holds that whole line fails the same way (a bracket never
    closed is reported where it opens), so the next try ends before it instead of one line
    shorter; at most `max_tries` parses and `budget` seconds (then one last try: the prefix
    before the top-level item holding the first error). No prefix found: ("", all lines)."""
    deadline = time.monotonic() + budget
    first = _first_error_line(text)
    if first is None:
        return text, 0
    lines = text.splitlines(keepends=True)
    k, error = min(len(lines) - 1, first - 1), first
    for _ in range(max_tries):
        if k <= 0 or time.monotonic() >= deadline:
            break
        head = "".join(lines[:k])
        if not head.strip():
            break
        line = _first_error_line(head)
        if line is None:
            return head, len(lines) - k
        error = min(error, line)
        k = min(k - 1, line - 1)
    k = _item_start(lines, min(error, len(lines)) - 1)  # out of tries: the items before the first error
    head = "".join(lines[:k])
    if k > 0 and head.strip() and _first_error_line(head) is None:
        return head, len(lines) - k
    return "", len(lines)


def _first_error_line(text: str) -> int | None:
    """The 1-based line of the first parse error of `text`, or None when it parses."""
    from racesl.syntax.parser import parse_module

    diags = parse_module(text if text.endswith("\n") else text + "\n")[1]
    lines = [d.span.line for d in diags if d.is_error and d.span is not None]
    if any(d.is_error and d.span is None for d in diags):
        lines.append(1)
    return min(lines) if lines else None


def _item_start(lines: list[str], index: int) -> int:
    """The index of the line starting the top-level item that holds line `index` (0-based): the
    nearest line at or above it that begins at column 0 with no decorator line right above it."""
    k = max(0, min(index, len(lines) - 1))
    while k > 0 and not (lines[k][:1].strip() and lines[k][:1] != "#"):
        k -= 1
    while k > 0 and lines[k - 1].startswith("@"):
        k -= 1
    return k
