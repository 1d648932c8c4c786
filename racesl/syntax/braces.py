"""Braces in descriptions: placeholders, and values written in worked examples.

A description is a `str.format` template: `{k}` writes a setting's value in, and a literal
brace is doubled (`{{`). An `Example:` sentence holds values, and a dict or set there is
a value, not a placeholder: `Example: 5 -> {'n': 5}.` is read as written. `template` is
the one place that says so: it doubles the braces of such values (so formatting shows
them as written) and leaves everything else alone, so a description that was a valid
template before is the same template after. `shown` is the text a task shows without
settings written in (doubled braces undoubled, a value's kept); `fill` writes settings in.
"""

from __future__ import annotations

import ast
import re
import string

# where an example sentence starts (as racesl.catalogue.examples reads them)
_EXAMPLE = re.compile(r"(?:^|(?<=\s))Example(?:, with [^:\n]+)?: ", re.M)
_QUOTES = "'\""


def _group_end(text: str, i: int) -> int:
    """The end of the balanced brace group opening at `text[i]` (quotes inside respected),
    or -1 when it does not close."""
    depth, quote, k = 0, "", i
    while k < len(text):
        c = text[k]
        if quote:
            if c == "\\":
                k += 1
            elif c == quote:
                quote = ""
        elif c in _QUOTES:
            quote = c
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return k + 1
        k += 1
    return -1


def is_value(group: str) -> bool:
    """Does `group` (`{...}`, as written) read as a dict or set literal? A placeholder
    (`{k}`), a doubled brace (`{{'a': 1}}`: a set of a dict, which cannot be) and a format
    field never do."""
    try:
        v = ast.literal_eval(group)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return isinstance(v, (dict, set))


def value_groups(text: str) -> list[tuple[int, int]]:
    """The (start, end) of every top-level brace group of `text` that is a value literal."""
    out: list[tuple[int, int]] = []
    i = text.find("{")
    while i >= 0:
        end = _group_end(text, i)
        if end < 0:
            break
        if is_value(text[i:end]):
            out.append((i, end))
            i = text.find("{", end)
        else:
            i = text.find("{", i + (2 if text.startswith("{{", i) else 1))
    return out


def _sentence_end(text: str, start: int) -> int:
    """Where the example sentence from `start` ends: at a `.` before a space or the line's
    end, outside any brace group or string literal; else at the line's end."""
    k = start
    while k < len(text):
        c = text[k]
        if c == "\n":
            return k
        if c in _QUOTES:
            close = text.find(c, k + 1)
            if close >= 0 and "\n" not in text[k:close]:
                k = close + 1
                continue
        if c == "{":
            end = _group_end(text, k)
            if end < 0:
                return len(text)
            k = end
            continue
        if c == "." and (k + 1 == len(text) or text[k + 1].isspace()):
            return k + 1
        k += 1
    return k


def example_values(text: str) -> list[tuple[int, int]]:
    """The values written inside `Example:` sentences of `text` whose braces are values':
    dict and set literals, and string literals with a brace in them (`'a}'`)."""
    out: list[tuple[int, int]] = []
    for m in _EXAMPLE.finditer(text):
        end = _sentence_end(text, m.end())
        k = m.end()
        while k < end:
            c = text[k]
            if c in _QUOTES:
                close = text.find(c, k + 1)
                if 0 <= close < end:
                    if _single_brace(text[k:close]):  # (one written doubled already reads as before)
                        out.append((k, close + 1))
                    k = close + 1
                    continue
            elif c == "{":
                stop = _group_end(text, k)
                if 0 <= stop <= end and is_value(text[k:stop]):
                    out.append((k, stop))
                    k = stop
                    continue
                k += 2 if text.startswith("{{", k) else 1
                continue
            k += 1
    return out


def _single_brace(text: str) -> bool:
    rest = text.replace("{{", "").replace("}}", "")
    return "{" in rest or "}" in rest


def _double(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


def template(description: str) -> str:
    """`description` as a `str.format` template: the values of its example sentences with
    their braces doubled; the rest as written."""
    groups = example_values(description)
    if not groups:
        return description
    parts, pos = [], 0
    for a, b in groups:
        parts += [description[pos:a], _double(description[a:b])]
        pos = b
    parts.append(description[pos:])
    return "".join(parts)


def shown(text: str) -> str:
    """`text` (a description, or a part of an example sentence) as a task shows it when no
    setting is written in: a value's braces as written, doubled braces undoubled."""
    parts, pos = [], 0
    for a, b in value_groups(text):
        parts += [_undouble(text[pos:a]), text[a:b]]
        pos = b
    parts.append(_undouble(text[pos:]))
    return "".join(parts)


def _undouble(text: str) -> str:
    return text.replace("{{", "{").replace("}}", "}")


def doubled(value_text: str) -> str:
    """A value's text as a template writes it outside an example sentence: every brace
    doubled, nested ones too (`{'a': {'b': 1}}` → `{{'a': {{'b': 1}}}}`)."""
    return _double(value_text)


# an operator a value is written beside: before it (`x * {k}`, `x - {k}`) or, for a power,
# after it (`{k}^i`, `{k}**i`); a value that is not one atom reads wrongly there
_OPERATOR_BEFORE = re.compile(r"(?:[-+*/%^×÷·]|\bmod)\s*$")
_POWER_AFTER = re.compile(r"^\s*(?:\^|\*\*)")
_ATOM = re.compile(r"[\w.]+|'[^']*'|\"[^\"]*\"|\[.*\]|\(.*\)|\{.*\}", re.S)


def fill(description: str, values: dict[str, str]) -> str:
    """The description with each setting's value text written in. A value that is not one
    atom (a negative number, `1 + x`) is parenthesised where an operator binds it: after
    `*`, `-`, `mod`, ... and before a power, so `p[i] * {k}^i` with k = -2 reads
    `p[i] * (-2)^i`, never `p[i] * -2^i`; written anywhere else it stands as it is."""
    f = string.Formatter()
    parts = list(f.parse(template(description)))
    out = []
    for n, (literal, field, spec, conv) in enumerate(parts):
        out.append(literal)
        if field is None:
            continue
        text = str(f.convert_field(f.get_field(field, (), values)[0], conv))
        after = parts[n + 1][0] if n + 1 < len(parts) else ""
        if not _ATOM.fullmatch(text) and (_OPERATOR_BEFORE.search(literal) or _POWER_AFTER.match(after)):
            text = f"({text})"
        out.append(format(text, spec or ""))
    return "".join(out)
