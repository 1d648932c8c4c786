"""What a parameter's declared type lets the rewrite trust: `ParamFacts`.

racesl.lower.module reads each parameter's declared type (its refinements included) into a
ParamFacts; the inference (scope.py) starts from them. Entry variants trust them: their
callers pass values that conform to the declared types (the search, `Library.run`, the
rewards and `racesc run` all check), and the element and length facts (`int_elems`,
`word_elems`, `short`, `max_len`, `short_rows`) only of a parameter nothing in the body can
store into (`_Scope._escaping`). Ordinary variants are called by other bodies, whose
arguments no one checks (the checker's inference can be fooled: an untyped helper's result,
a lambda's): they trust none, not even `is_int`.

Facts can also be written in a short *mark* spelling, a set of strings per function: the
parameter's name alone for `is_int`, else the name and a suffix (`"xs[]"`, `"s#:20"`; see
MARKS). Tests and benchmarks write them so; `marks_to_facts` and `facts_to_marks` convert. The
inference keeps the facts it derives for locals in the same spelling (`_Scope.num`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import attrs

WORD_BITS = 63  # |x| < 2**63: a Py_ssize_t (a length, a range that len() can count)


@attrs.frozen(slots=True)
class ParamFacts:
    """What one parameter's declared type promises about the values it is called with."""

    is_int: bool = False
    """Declared an Int: it holds only ints."""

    int_elems: bool = False
    """A List or Tuple of numbers (Int or Bool): its elements, its subscripts and the names
    it is unpacked into are numbers."""

    word_elems: bool = False
    """A List or Tuple each element of which is an int within ±2**WORD_BITS, by its own
    refinement or by the container's (`all(0 <= x <= 9 for x in it)`)."""

    sized: bool = False
    """A Str, List, Tuple, Dict or Set: `len(p)` works, and a builtin over p is charged
    len(p) with no type test."""

    is_str: bool = False
    """A Str: its characters and slices, and the variables of loops and comprehensions over
    it, are flat (compared and hashed at once), and a character grows a `+` by one."""

    word: bool = False
    """An Int whose declared refinement keeps it within ±2**WORD_BITS."""

    short: bool = False
    """Sized, and its declared length is at most MAX_LEN: a builtin over p needs no size
    test."""

    max_len: int | None = None
    """The declared length bound of a sized value, when it is at most MAX_LEN (a Tuple's
    arity, or what its refinement allows): a `+` of values whose lengths add up to at most
    MAX_LEN needs no guard (`_len_bound`)."""

    short_rows: bool = False
    """A List or Tuple each element of which is a Str, List, Tuple, Dict or Set of declared
    length at most MAX_LEN: Σ len(row) is `sum(map(len, p))`, measured in C."""

    row_words: bool = False
    """A List or Tuple each element of which is a List or Tuple of ints within ±2**WORD_BITS
    (`word_elems` one level down): its rows' elements are words, in a body that cannot
    change a row (`_Scope`, `_rows_stay`)."""


NO_FACTS = ParamFacts()

# The mark spelling: a name with one of these suffixes (the bare name: `is_int`). The
# inference's own set of facts (`_Scope.num`) spells the facts it derives the same way.
ELEMS = "[]"  # int_elems; in the inference's set: the name's elements are numbers
ELEM_WORD = "[~"  # word_elems
SIZED = "#"  # sized
STR = "$"  # is_str; in the inference's set: also a local that only ever holds a str
WORD = "~"  # word; in the inference's set: any name that only ever holds an int of at most WORD_BITS bits
SHORT = "#<"  # short
ROWS = "[#"  # short_rows
ROW_WORDS = "[["  # row_words; in the inference's set: the name's rows hold words
LEN = "#:"  # max_len, followed by it (`"s#:20"`); in the inference's set, `"s#:"`: s still holds that value
MARKS = {"": "is_int", ELEMS: "int_elems", ELEM_WORD: "word_elems", SIZED: "sized", STR: "is_str",
         WORD: "word", SHORT: "short", ROWS: "short_rows", ROW_WORDS: "row_words"}
_FIELD_MARKS = {field: suffix for suffix, field in MARKS.items()}


def marks_to_facts(marks: Iterable[str]) -> dict[str, ParamFacts]:
    """{parameter: facts} from marks (`{"n", "xs[]", "s#", "s#:20"}`)."""
    fields: dict[str, dict] = {}
    for m in marks:
        cut = next((i for i, ch in enumerate(m) if not (ch.isalnum() or ch == "_")), len(m))
        name, suffix = m[:cut], m[cut:]
        got = fields.setdefault(name, {})
        if suffix.startswith(LEN):
            got["max_len"] = int(suffix[len(LEN):])
        elif suffix in MARKS:
            got[MARKS[suffix]] = True
        else:
            raise ValueError(f"not a parameter mark: {m!r}")
    return {name: ParamFacts(**got) for name, got in fields.items()}


def facts_to_marks(facts: Mapping[str, ParamFacts]) -> frozenset[str]:
    """The marks of `facts` (the inverse of `marks_to_facts`)."""
    out = set()
    for p, f in facts.items():
        out.update(p + _FIELD_MARKS[field] for field in MARKS.values() if getattr(f, field))
        if f.max_len is not None:
            out.add(f"{p}{LEN}{f.max_len}")
    return frozenset(out)


def as_facts(given: Mapping[str, ParamFacts] | Iterable[str]) -> Mapping[str, ParamFacts]:
    """{parameter: facts} from either that mapping or marks."""
    return given if isinstance(given, Mapping) else marks_to_facts(given)
