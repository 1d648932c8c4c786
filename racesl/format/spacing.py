"""Where spaces go between the tokens of one line: around binary operators, `=` and `->`;
after commas and colons; nowhere inside brackets, before a call's or a subscript's bracket,
after a unary operator, around `.`, around `=` of a keyword argument or around a slice's `:`.

The role of `-`, `=` and `:` depends on what surrounds them, so `assign_roles` reads a whole
statement once (bracket nesting, pending lambdas); `join` then spaces any run of its tokens.
"""

from __future__ import annotations

from racesl.format.tokens import Token

_OPERANDS = {"NAME", "INT", "FLOAT", "STRING", "BYTES"}


def ends_operand(t: Token | None) -> bool:
    return t is not None and (t.kind in _OPERANDS or t.closes)


def assign_roles(tokens: list[Token]) -> None:
    """Mark each token of a statement: "unary" for a sign, "kwarg" for `=` inside brackets,
    "slice" for a subscript's `:`, "decorator" for a leading `@`; the others stay None."""
    stack: list[list] = [["", 0]]  # [bracket, lambdas awaiting their colon]
    prev: Token | None = None
    for i, t in enumerate(tokens):
        t.role = None
        if t.opens:
            stack.append([t.text, 0])
        elif t.closes:
            if len(stack) > 1:
                stack.pop()
        elif t.is_kw("lambda"):
            stack[-1][1] += 1
        elif t.is_op(":"):
            if stack[-1][1]:
                stack[-1][1] -= 1
            elif stack[-1][0] == "[":
                t.role = "slice"
        elif t.is_op("=") and len(stack) > 1:
            t.role = "kwarg"
        elif t.is_op("-", "+", "~") and not ends_operand(prev):
            t.role = "unary"
        elif t.is_op("@") and i == 0:
            t.role = "decorator"
        prev = t


def space_before(prev: Token, cur: Token) -> bool:
    if prev.opens or cur.closes or prev.role in ("unary", "decorator", "kwarg", "slice"):
        return False
    if cur.is_op(",", ";", ":", ".") or prev.is_op(".") or cur.role == "kwarg":
        return False
    if cur.is_op("(", "[") and ends_operand(prev):
        return False  # a call or a subscript
    return True


def join(tokens: list[Token]) -> str:
    """The tokens on one line, spaced canonically (comments are the caller's)."""
    if not tokens:
        return ""
    parts = [tokens[0].text]
    for prev, cur in zip(tokens, tokens[1:]):
        if space_before(prev, cur):
            parts.append(" ")
        parts.append(cur.text)
    return "".join(parts)
