"""One statement onto lines no wider than WIDTH, by opening brackets.

A statement that fits stays on one line. Otherwise one bracket pair at its top level is
opened: the text before it and the opener on the first line, one item per line inside
(each followed by a comma when the brackets hold a comma-separated list), the closer and
what follows on the last line; each of those parts is laid out again the same way. The
pair opened is the first one that must be (it holds comments, or it ends in a comma the
author wrote: the "magic trailing comma" that keeps a list one item per line), else the
longest one worth opening (its first and last lines fit, and it holds more than either).
When none is, an expression breaks before its loosest operators, or between the literals
of an implicit string concatenation (one a line): inside brackets as it is, in a body's
assignment or `return` or a module constant's value inside parentheses added for it; else
the longest pair opens. Brackets are the only place a break may go without a backslash, so a
statement with none stays long.
"""

from __future__ import annotations

from racesl.format.spacing import ends_operand, join
from racesl.format.tokens import Comment, Token, cut, outermost, synthetic

WIDTH = 100
INDENT = "    "


def render(tokens: list[Token], depth: int, nested: bool = False) -> list[str]:
    """The lines of a statement (or a part of one) at `depth`; `nested`: inside brackets,
    where a line may break anywhere. The first token's leading comments are the caller's to
    place; the last token's trailing comment ends the last line."""
    ind = INDENT * depth
    groups = top_groups(tokens)
    must = [g for g in groups if _magic(tokens, g) or _comments_inside(tokens, g)]
    flat = join(tokens)
    if not must and not _interior_comments(tokens) and (len(ind) + len(flat) <= WIDTH or "\n" in flat):
        return [_with_comment(ind + flat, tokens[-1].trailing)]
    if must:
        return _open(tokens, must[0], depth, nested)
    worth = [g for g in groups if _worth_opening(tokens, g, ind)]
    if worth:
        return _open(tokens, _longest(tokens, worth), depth, nested)
    if nested and (split := _at_operators(tokens, depth) or _at_strings(tokens, depth)) is not None:
        return split
    if not nested and (split := _parenthesized(tokens, depth)) is not None:
        return split
    if any(g[1] - g[0] > 1 for g in groups):
        return _open(tokens, _longest(tokens, groups), depth, nested)
    if _interior_comments(tokens):
        return _break_at_comments(tokens, depth)
    return [_with_comment(ind + flat, tokens[-1].trailing)]


def _open(tokens: list[Token], g: tuple[int, int], depth: int, nested: bool) -> list[str]:
    """Head and opener; one item a line inside; closer and tail."""
    o, c = g
    out = render(tokens[:o + 1], depth, nested)
    for item in _items(tokens, o, c):
        out += comment_lines(item[0].leading, depth + 1)
        out += render(item, depth + 1, nested=True)
    out += comment_lines(tokens[c].leading, depth + 1)
    out += render(tokens[c:], depth, nested)
    return out


def _longest(tokens: list[Token], groups: list[tuple[int, int]]) -> tuple[int, int]:
    """The pair with the most text inside (the first of equals)."""
    return max(groups, key=lambda g: len(join(tokens[g[0] + 1:g[1]])))


def _worth_opening(tokens: list[Token], g: tuple[int, int], ind: str) -> bool:
    """Opening the pair leaves a first and a last line that fit, and it holds more than
    either of them (opening `p[r - 1]` in a long sum helps no reader)."""
    head, inner, tail = (len(join(part)) for part in (tokens[:g[0] + 1], tokens[g[0] + 1:g[1]], tokens[g[1]:]))
    return len(ind) + max(head, tail) <= WIDTH and inner >= max(head, tail)


# the binary operators by priority, loosest first: a long expression breaks before the loosest
_COMPARISONS = ("<", ">", "==", ">=", "<=", "!=", "in", "not", "is")
_PRIORITIES = [("if", "else"), ("or",), ("and",), _COMPARISONS, ("|",), ("^",), ("&",), ("<<", ">>"),
               ("+", "-"), ("*", "/", "//", "%", "@"), ("**",)]
_PRIORITY = {op: k for k, ops in enumerate(_PRIORITIES) for op in ops}


def _operators(tokens: list[Token]) -> list[int]:
    """Indices of the loosest binary operators outside brackets (none when a lambda is)."""
    found: list[tuple[int, int]] = []
    for i, t in outermost(tokens):
        if t.is_kw("lambda"):
            return []
        if i == 0 or t.role == "unary" or t.kind not in ("OP", "KW") or t.text not in _PRIORITY:
            continue
        prev = tokens[i - 1]
        if t.is_kw("not") and not (prev.kind not in ("OP", "KW") or prev.closes):
            continue  # `not x`, or the `not` of `is not`
        if t.is_kw("in") and prev.is_kw("not"):
            continue  # the `in` of `not in`
        found.append((_PRIORITY[t.text], i))
    loosest = min((p for p, _ in found), default=None)
    return [i for p, i in found if p == loosest]


def _at(tokens: list[Token], cuts: list[int], depth: int) -> list[str] | None:
    """Inside brackets: the parts between `cuts` one a line (None when there is no cut)."""
    if not cuts:
        return None
    out = []
    for a, b in zip([0] + cuts, cuts + [len(tokens)]):
        if a:
            out += comment_lines(tokens[a].leading, depth)
        out += render(tokens[a:b], depth, nested=True)
    return out


def _at_operators(tokens: list[Token], depth: int) -> list[str] | None:
    """Inside brackets: one operand a line, each after the first led by its operator."""
    return _at(tokens, _operators(tokens), depth)


def _string_breaks(tokens: list[Token]) -> list[int]:
    """Indices, outside brackets, of string literals right after another: where an implicit
    concatenation (`"ab" "cd"`) may break inside brackets without changing its value."""
    return [i for i, t in outermost(tokens) if i > 0 and t.kind == "STRING" and tokens[i - 1].kind == "STRING"]


def _at_strings(tokens: list[Token], depth: int) -> list[str] | None:
    """Inside brackets: adjacent string literals one a line (a word list written as a run of
    literals is not joined into one line thousands of columns wide)."""
    return _at(tokens, _string_breaks(tokens), depth)


def _parenthesized(tokens: list[Token], depth: int) -> list[str] | None:
    """A body's `x = ...`, `x += ...` or `return ...`, or a module constant's `NAME: T = ...`,
    whose value breaks only at operators or between adjacent string literals: the value
    inside parentheses (which mean nothing there), laid out as their contents."""
    if depth == 0 and not (len(tokens) > 2 and tokens[0].kind == "NAME" and tokens[1].is_op(":")):
        return None  # (at the top level only a constant has a value; a `type` is no expression)
    start = 1 if tokens[0].is_kw("return") else None
    for i, t in outermost(tokens):
        if t.kind == "OP" and t.text.endswith("=") and t.text not in ("==", "!=", "<=", ">="):
            start = i + 1  # after `=` or an augmented assignment's `+=`
    if start is None or start >= len(tokens) or not (_operators(tokens[start:]) or _string_breaks(tokens[start:])):
        return None
    opener, closer = synthetic("OP", "("), synthetic("OP", ")")
    closer.trailing, tokens[-1].trailing = tokens[-1].trailing, None
    wrapped = tokens[:start] + [opener] + tokens[start:] + [closer]
    return _open(wrapped, (start, len(wrapped) - 1), depth, nested=False)  # (as the next run will)


def top_groups(tokens: list[Token]) -> list[tuple[int, int]]:
    """(opener, closer) indices of the bracket pairs not inside another."""
    out, level, start = [], 0, 0
    for i, t in enumerate(tokens):
        if t.opens:
            if level == 0:
                start = i
            level += 1
        elif t.closes and level:  # (a part that begins with a closer: it closes nothing here)
            level -= 1
            if level == 0:
                out.append((start, i))
    return out


def _items(tokens: list[Token], o: int, c: int) -> list[list[Token]]:
    """The items between tokens[o] and tokens[c], each ending in its comma when the pair holds
    a comma-separated list (a comma is added after the last); a comprehension is one item,
    broken before its `for` and `if` clauses."""
    inner = tokens[o + 1:c]
    if any(t.is_kw("for") for _, t in outermost(inner)):
        return _clauses(inner)
    commas, lambdas = [], 0
    for i, t in outermost(inner):
        if t.is_kw("lambda"):
            lambdas += 1
        elif t.is_op(":") and lambdas:
            lambdas -= 1
        elif t.is_op(",") and not lambdas:
            commas.append(i)
    items = [item for item in cut(inner, commas, keep=True) if item]
    if commas and not items[-1][-1].is_op(","):  # a list: its last item gets a comma too
        comma = synthetic("OP", ",")
        comma.trailing, items[-1][-1].trailing = items[-1][-1].trailing, None
        items[-1].append(comma)
    return items


def _clauses(inner: list[Token]) -> list[list[Token]]:
    """A comprehension as its element, then each `for` clause and each `if` after the first for."""
    starts, seen_for = [], False
    for i, t in outermost(inner):
        if t.is_kw("for") or (seen_for and t.is_kw("if")):
            starts.append(i - 1)  # (the run before ends at i - 1)
            seen_for = True
    return cut(inner, starts, keep=True)


def _magic(tokens: list[Token], g: tuple[int, int]) -> bool:
    """Does the pair end in a comma its author wrote, other than a one-element tuple's?"""
    o, c = g
    if c - o < 2 or not tokens[c - 1].is_op(","):
        return False
    commas = sum(1 for _, t in outermost(tokens[o + 1:c]) if t.is_op(","))
    one_tuple = commas == 1 and (tokens[o].text == "(" or (tokens[o].text == "[" and o > 0
                                                           and ends_operand(tokens[o - 1])))
    return not one_tuple


def _comments_inside(tokens: list[Token], g: tuple[int, int]) -> bool:
    o, c = g
    return any(t.leading for t in tokens[o + 1:c + 1]) or any(t.trailing for t in tokens[o:c])


def _interior_comments(tokens: list[Token]) -> bool:
    return any(t.leading for t in tokens[1:]) or any(t.trailing for t in tokens[:-1])


def _break_at_comments(tokens: list[Token], depth: int) -> list[str]:
    """Inside brackets with no pair of its own to open: break the line where comments are
    (a line break inside brackets means nothing)."""
    out, cur = [], []
    for t in tokens:
        if t.leading and cur:
            out.append(INDENT * depth + join(cur))
            cur = []
        if t.leading and out:
            out += comment_lines(t.leading, depth)
        cur.append(t)
        if t.trailing:
            out.append(_with_comment(INDENT * depth + join(cur), t.trailing))
            cur = []
    if cur:
        out.append(INDENT * depth + join(cur))
    return out


def comment_lines(comments: list[Comment], depth: int) -> list[str]:
    """Own-line comments inside brackets (their blank lines are dropped)."""
    return [INDENT * depth + c.text for c in comments]


def _with_comment(line: str, comment: str | None) -> str:
    return f"{line}  {comment}" if comment else line
