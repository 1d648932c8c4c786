"""Reading answers out of completions, tolerantly.

The answer is the text of the last `<answer>...</answer>` block. Values are Python
literals; a Str may be written without quotes; whitespace does not matter.
"""

from __future__ import annotations

import re
from functools import lru_cache

from racesl.runtime.contract import canonical, parse_literal

MAX_ANSWER = 20_000  # characters inside the block; longer answers score 0
_OPEN, _CLOSE = "<answer>", "</answer>"
_LABELS = re.compile(r"[A-Za-z]+")


def extract_answer(completion) -> str | None:
    """The content of the last complete <answer> block, or None."""
    if not isinstance(completion, str):
        return None
    end = completion.rfind(_CLOSE)
    if end < 0:
        return None
    start = completion.rfind(_OPEN, 0, end)
    if start < 0:
        return None
    body = completion[start + len(_OPEN): end]
    if len(body) > MAX_ANSWER:
        return None
    return body.strip()


@lru_cache(maxsize=65536)
def expected_value(text: str):
    """The value a canonical text denotes (cached: records repeat across completions)."""
    return parse_literal(text)


@lru_cache(maxsize=65536)
def _parse(text: str):
    try:
        return True, parse_literal(text)
    except ValueError:
        return False, None


def matches(given: str, expected_text: str) -> bool:
    """Does the answer text `given` denote the value written canonically as `expected_text`?"""
    if given == expected_text:
        return True
    ok, value = _parse(given)
    if ok and type(value) is not str and canonical(value) == expected_text:
        return True
    try:
        exp = expected_value(expected_text)
    except ValueError:
        return False
    if type(exp) is str:
        if ok and type(value) is str:
            return value == exp
        return _unquote(given) == exp
    return False


def _unquote(s: str) -> str:
    s = s.strip()
    if len(s) >= 2 and s[0] == s[-1] and s[0] in "'\"":
        return s[1:-1]
    return s


def split_items(text: str) -> list[str] | None:
    """The items of a list answer: `[a, b]`, `(a, b)`, or one item per line.

    Splitting is done on top-level commas (outside quotes and brackets), so items that are
    themselves lists or unquoted strings survive.
    """
    s = text.strip()
    if s[:1] in "[(" and s[-1:] in "])":
        inner = s[1:-1]
        items, depth, quote, cur = [], 0, None, []
        escaped = False
        for ch in inner:
            if quote:
                cur.append(ch)
                if escaped:
                    escaped = False
                elif ch == "\\":
                    escaped = True
                elif ch == quote:
                    quote = None
                continue
            if ch in "'\"":
                quote = ch
            elif ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth -= 1
            elif ch == "," and depth == 0:
                items.append("".join(cur).strip())
                cur = []
                continue
            cur.append(ch)
        tail = "".join(cur).strip()
        if tail or items:
            items.append(tail)
        if items and items[-1] == "":
            items.pop()  # trailing comma
        return items
    lines = [ln.strip() for ln in s.splitlines() if ln.strip()]
    if len(lines) > 1:
        return [re.sub(r"^(?:step\s*)?\d+\s*[.):]\s*", "", ln, flags=re.I) for ln in lines]
    return None


def parse_labels(text: str) -> list[str] | None:
    """Letters of an order or selection: `A, B, C`, `A B C`, `ABC`, `['A', 'B']`, `A -> B`."""
    words = _LABELS.findall(text)
    if not words:
        return None
    if len(words) == 1 and len(words[0]) > 1:
        words = list(words[0])
    if any(len(w) != 1 for w in words):
        return None
    return [w.upper() for w in words]
