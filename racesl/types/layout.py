"""How an environment's values are shown in prompts and on catalogue pages: `@layout(rows)`.

A value's canonical text is its Python literal on one line, so a grid, a picture or a cube
net reaches the model as `[[1, 0, 2], [0, 3, 1]]`. An environment that declares
`@layout(rows)` has its input (and its output, where the output is shown, as a sort or select
target) laid out one row per line inside a fenced block instead:

    ```                       ```
    1 0 2                     #..#
    0 3 1                     .##.
    ```                       ```

The forms (`FORMS`) and the types each fits:

- `rows` fits `List[List[T]]` with `T` an Int, Bool or Str (a grid: each inner list is a row,
  its cells' texts joined by one space, each column padded to its widest cell: numbers to
  the right, words to the left) and `List[Str]` (a picture: each string is a row, as is).

Refinements and newtypes over these fit as the types under them do. `show` lays a value out
only where the block reads back to exactly one value: a grid cell that is an empty string
or holds a space, a backtick or a character that is not printable, a row that holds a
backtick or such a character, an empty row of a grid and an empty list are shown as
literals (as every value is without `@layout`). Answers are never laid out: a model answers
in the literal form that the scorer reads (docs/language.md, section 6).
"""

from __future__ import annotations

from racesl.types import types as T

FORMS = ("rows",)


def _base(t: T.Type) -> T.Type:
    """`t` with refinements erased and newtypes opened, at the top."""
    s = T.erase(t)
    while isinstance(s, T.NewT):
        s = T.erase(s.underlying)
    return s


def fits(form: str, t: T.Type) -> bool:
    """Whether values of type `t` can be laid out in `form`."""
    if form != "rows":
        return False
    s = _base(t)
    if not isinstance(s, T.ListT):
        return False
    e = _base(s.elem)
    if isinstance(e, T.StrT):
        return True
    return isinstance(e, T.ListT) and isinstance(_base(e.elem), (T.IntT, T.BoolT, T.StrT))


def _row_ok(s: str) -> bool:
    return s.isprintable() and "`" not in s


def _cell(v) -> tuple[str, bool] | None:
    """(text, right-aligned) of one grid cell, or None when it cannot stand in a grid."""
    if type(v) is bool:
        return ("True" if v else "False"), False
    if type(v) is int:
        return str(v), True
    if type(v) is str and v and _row_ok(v) and not any(c.isspace() for c in v):
        return v, False
    return None


def rows(value) -> list[str] | None:
    """The lines of `value` in the `rows` form, or None when it is not laid out."""
    if type(value) is not list or not value:
        return None
    if all(type(r) is str for r in value):
        return list(value) if all(_row_ok(r) for r in value) else None
    if not all(type(r) is list and r for r in value):
        return None
    cells = []
    for r in value:
        row = [_cell(v) for v in r]
        if any(c is None for c in row):
            return None
        cells.append(row)
    width: dict[int, int] = {}
    for row in cells:
        for k, (text, _) in enumerate(row):
            width[k] = max(width.get(k, 0), len(text))
    return [" ".join(text.rjust(width[k]) if right else text.ljust(width[k])
                     for k, (text, right) in enumerate(row)).rstrip() for row in cells]


def show(form: str | None, value) -> str | None:
    """`value` laid out in `form` as a fenced block (no newline before or after), or None
    when there is no form or the value is shown as its literal."""
    if form != "rows":
        return None
    lines = rows(value)
    if lines is None:
        return None
    return "```\n" + "\n".join(lines) + "\n```"
