"""Reading answers out of completions, tolerantly.

The answer is the text of the last `<answer>...</answer>` block. Values are Python
literals; a Str may be written without quotes; whitespace does not matter.
"""

from __future__ import annotations

import re

from racesl.cache import text_cache
from racesl.rewards.literals import CANONICAL, INVALID, UNKNOWN, read_literal
from racesl.runtime.contract import canonical, parse_literal

MAX_ANSWER = 20_000  # characters inside the block; longer answers score 0
# The two caches below live as long as the process (a training run): each holds at most
# CACHE_BUDGET characters of texts (~25x that in bytes at worst, see racesl.cache).
# Answers over CACHE_MAX_TEXT characters are not cached (a long answer rarely comes twice);
# record texts, which do repeat (one record per group of completions), up to MAX_ANSWER.
CACHE_BUDGET = 2_000_000
CACHE_MAX_TEXT = 2_000
_OPEN, _CLOSE = "<answer>", "</answer>"
_LABELS = re.compile(r"[A-Za-z]+")


def extract_answer(completion) -> str | None:
    """The content of the last complete <answer> block, or None."""
    if not isinstance(completion, str):
        return None
    head, close, _ = completion.rpartition(_CLOSE)  # rpartition beats two rfind calls here
    if not close:
        return None
    _, opened, body = head.rpartition(_OPEN)
    if not opened or len(body) > MAX_ANSWER:
        return None
    return body.strip()


@text_cache(CACHE_BUDGET, MAX_ANSWER)
def expected_value(text: str):
    """The value a canonical text denotes (cached: records repeat across completions).
    The fast reader answers the common texts; parse_literal the rest, and raises."""
    value = read_literal(text)
    return parse_literal(text) if value is UNKNOWN or value is INVALID else value  # it says why


@text_cache(CACHE_BUDGET, CACHE_MAX_TEXT)
def _parse(text: str):
    """(True, value) for a literal text, else (False, None); never raises."""
    value = read_literal(text)
    if value is INVALID:
        return False, None
    if value is not UNKNOWN:
        return True, value
    try:
        return True, parse_literal(text)
    except ValueError:
        return False, None


# The kind of value a text denotes, by its first character: for a canonical text (a quote
# is a Str, which may match unquoted answers, so it has no entry) and for an answer (any
# literal; `(` could be anything). A literal of one kind never has the canonical text of
# another. An answer's first character does not say a tuple: `1, 2` is one.
WANT_KIND = {**dict.fromkeys("-0123456789", "int"), "[": "list", "{": "dict", "(": "tuple", "T": "bool",
             "F": "bool"}
GOT_KIND = {**dict.fromkeys("-0123456789", "int"), "[": "list", "{": "dict", "'": "str", '"': "str",
            "T": "bool", "F": "bool"}


def matches(given: str, expected_text: str) -> bool:
    """Does the answer text `given` denote the value written canonically as `expected_text`?"""
    if given == expected_text:
        return True
    kind = WANT_KIND.get(expected_text[:1])
    if kind is not None and kind != "tuple":  # not a Str: only a text of that very value matches
        if kind != GOT_KIND.get(given[:1], kind) or CANONICAL.fullmatch(given):
            return False  # another kind of value; or another canonical text, so another value
    elif kind is None and GOT_KIND.get(given[:1], "str") != "str":
        # a Str (in quotes: no canonical text of another value starts with one), and an answer
        # that is no Str (its first character says so), so only its text can be the Str's value
        try:
            exp = expected_value(expected_text)
        except ValueError:
            return False
        return type(exp) is str and given.strip() == exp
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
    """The items of a list answer: `[a, b]`, `(a, b)`, or one item per line (also where the
    first line opens a bracket that the last closes: `[1, 2]` then `[3]`); None when the
    text is none of these (a bracketed text whose brackets or quotes do not balance, on
    one line, is none).

    Splitting is done on top-level commas (outside quotes and brackets), so items that are
    themselves lists or unquoted strings survive. A trailing comma ends the list.
    """
    s = text.strip()
    if s[:1] in "[(" and s[-1:] in "])":
        items = _split_bracketed(s[1:-1])
        if items is not None:
            return items
    lines = [ln.strip() for ln in s.splitlines() if ln.strip()]
    if len(lines) > 1:
        return [re.sub(r"^(?:step\s*)?\d+\s*[.):]\s*", "", ln, flags=re.I) for ln in lines]
    return None


def _split_bracketed(inner: str) -> list[str] | None:
    """The top-level items of a bracket's inside, or None when its brackets or quotes do
    not balance."""
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
            if depth < 0:
                return None  # closes the outer bracket early
        elif ch == "," and depth == 0:
            items.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    if quote or depth:
        return None
    tail = "".join(cur).strip()
    if tail or items:
        items.append(tail)
    if items and items[-1] == "":
        items.pop()  # trailing comma
    return items


def parse_labels(text: str) -> list[str] | None:
    """Letters of an order or selection: `A, B, C`, `A B C`, `ABC`, `['A', 'B']`, `A -> B`."""
    words = _LABELS.findall(text)
    letters = "".join(words)
    if not letters or (len(words) > 1 and len(letters) != len(words)):
        return None  # no letters, or several words of which one is no single letter
    return list(letters.upper())
