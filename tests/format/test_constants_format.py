"""`racesc fmt` keeps module constants (docs/language.md §3.6): spacing normalised like any
line, the constant and its value unchanged in meaning, idempotent."""

from __future__ import annotations

from racesl.format import format_source
from racesl.syntax.parser import parse_module
from racesl.syntax.emit import expr_text


def test_constants_are_kept_and_spaced():
    text = ('WORDS:List[Str]=   "apple pear".split()\nN : Int=1+2\nD: Dict[Str, Int] = {"a": 1,\n'
            '   "b": 2}\n\nenv f(x: Int where 0 <= it <= 9) -> Int:\n    """Add N to x."""\n    return x+N\n')
    result = format_source(text)
    assert result.ok, result.diagnostics
    assert result.text.startswith('WORDS: List[Str] = "apple pear".split()\nN: Int = 1 + 2\n'
                                  'D: Dict[Str, Int] = {"a": 1, "b": 2}\n')
    assert format_source(result.text).text == result.text
    before, _ = parse_module(text)
    after, _ = parse_module(result.text)
    consts = lambda m: [(c.name, expr_text(c.value)) for c in m.items if type(c).__name__ == "ConstDef"]  # noqa: E731
    assert consts(before) == consts(after) and len(consts(after)) == 3


def test_a_long_word_list_constant_is_not_rewritten():
    words = " ".join(f"w{k}" for k in range(5_000))
    text = f'WORDS: List[Str] = "{words}".split()\n'
    result = format_source(text)
    assert result.ok and words in result.text
