"""The `.races` module out of a completion: its last ```races fenced block; failing that,
the last ```python or bare ``` block that holds an `env ` definition. A final fence the
model never closed (it ran out of tokens) still counts: the parse gate then says what is
wrong with it. No block, or one over MAX_CHARS, is no candidate: the funnel counts it at
the "extract" gate (before parse) and the generator gets the parse penalty.
"""

from __future__ import annotations

import re

import attrs

MAX_CHARS = 20_000
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
        return Extracted(None, "the constrained completion has no complete item: it ran out of tokens "
                               "(raise max_tokens)", "")
    return Extracted(text, None, "")


def close_prefix(text: str, max_tries: int = 400) -> tuple[str, int]:
    """`text` when it parses, else its longest prefix of whole lines that does (and the number of
    lines dropped). A constrained completion cut at max_tokens by a server is a prefix of a
    sentence of the grammar; its last complete statement or item is where the grammar could have
    ended it, so this is the honest module to judge (the in-process decoder cuts there itself)."""
    from racesl.diagnostics import has_errors
    from racesl.syntax.parser import parse_module

    def ok(t: str) -> bool:
        return not has_errors(parse_module(t if t.endswith("\n") else t + "\n")[1])

    if ok(text):
        return text, 0
    lines = text.splitlines(keepends=True)
    for k in range(len(lines) - 1, max(0, len(lines) - 1 - max_tries), -1):
        head = "".join(lines[:k])
        if head.strip() and ok(head):
            return head, len(lines) - k
    return "", len(lines)
