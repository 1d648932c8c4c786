"""The generation grammar (racesl.evolve.grammar): derived from grammar/races.lark, it accepts every
`.races` file of the repository and refuses what the generation subset leaves out."""

from pathlib import Path

import pytest

from racesl.evolve.grammar import MAX_DEPTH, base_rules, generation_grammar
from racesl.syntax.lexer import tokenize

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted([*(ROOT / "stdlib").glob("*.races"), *(ROOT / "examples").rglob("*.races")])


@pytest.fixture(scope="module")
def accepts():
    """text → whether the grammar (module unpinned, or pinned) takes it as a whole module."""
    import llguidance
    import llguidance.hf

    from racesl.train.tiny import make_tokenizer

    ll = llguidance.hf.from_tokenizer(make_tokenizer())
    compiled = {}

    def check(text: str, module: str | None = None) -> bool:
        if module not in compiled:
            compiled[module] = llguidance.LLMatcher.grammar_from_lark(generation_grammar(module))
        m = llguidance.LLMatcher(ll, compiled[module], log_level=0)
        ids = ll.tokenize_str(text)
        return m.validate_tokens(ids) == len(ids) and m.consume_tokens(ids) and m.is_accepting()

    return check


def test_grammar_compiles_without_warnings():
    import llguidance

    _, warnings = llguidance.LLMatcher.validate_grammar_with_warnings(
        llguidance.LLMatcher.grammar_from_lark(generation_grammar("evo_s0_c0")))
    assert warnings == []


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_accepts_every_races_file_of_the_repository(accepts, path):
    assert accepts(path.read_text(encoding="utf-8")), path


def test_depth_bound_covers_the_repository_and_is_enforced(accepts):
    deepest = 0
    for path in FILES:
        depth = 0
        for t in tokenize(path.read_text(encoding="utf-8"))[0]:
            depth += (t.kind == "INDENT") - (t.kind == "DEDENT")
            deepest = max(deepest, depth)
    assert deepest <= MAX_DEPTH
    body = "".join("    " * d + "if x:\n" for d in range(1, MAX_DEPTH)) + "    " * MAX_DEPTH + "return 1\n"
    assert accepts(f"module m\n\ndef f(x: Int) -> Int:\n{body}")
    deeper = "".join("    " * d + "if x:\n" for d in range(1, MAX_DEPTH + 1)) + "    " * (MAX_DEPTH + 1) + "return 1\n"
    assert not accepts(f"module m\n\ndef f(x: Int) -> Int:\n{deeper}")


GOOD = """module m

type Small = Int where 0 <= it <= 9

def helper(xs: List[Int]) -> Int:
    total = 0
    for i, x in enumerate(xs):
        if x % 2 == 0 and i > 0:
            total += x
        elif x > 3:
            total -= 1
        else:
            pass
    return total

env twice(n: Small, k: Int where 1 <= it <= 3) -> Int:
    \"\"\"Multiply n by {k}.\"\"\"
    return n * k
"""


@pytest.mark.parametrize("bad, why", [
    ("    return n / 2\n", "true division"),
    ("    return 1.5\n", "a float"),
    ('    return f"{n}"\n', "an f-string"),
    ("    return n.real\n", "an attribute that is no method call"),
    ("    return n is 1\n", "is"),
    ("    import numbers\n", "an import in a body"),
    ("    return 007\n", "a leading zero"),
    ("    return ifx if n else 1\n", None),  # fine: a name starting like a keyword
    ("  return n\n", "indentation of 2"),
    ("    return 1if n else 2\n", "a number glued to a keyword"),
    ("    return [x for x in range(3)if x]\n", "a bracket glued to a keyword"),
    ("    return 1 .bit_length()\n", "a method of an integer literal"),
    ('    return "a\\qb"\n', "an escape outside \\\\ \\\" \\' \\n \\t"),
    ("    return [x\n    for x in range(n)]\n", "a `for` line inside brackets as shallow as the block"),
    ("    return [x\n        for x in range(n)]\n", None),
])
def test_subset_refuses_what_generation_leaves_out(accepts, bad, why):
    head = GOOD.split('    """Multiply')[0]
    text = head + '    """Multiply n by {k}."""\n' + bad
    assert accepts(text) is (why is None), why
    assert accepts(GOOD)


def test_pinned_module_line_comes_first(accepts):
    assert accepts(GOOD.replace("module m", "module evo_s1_c2"), "evo_s1_c2")
    assert not accepts(GOOD, "evo_s1_c2")  # another name
    assert not accepts("# a comment first\n" + GOOD.replace("module m", "module evo_s1_c2"), "evo_s1_c2")
    with pytest.raises(ValueError):
        generation_grammar("Bad-Name")


def test_derived_from_the_lark_file_not_kept_by_hand():
    rules, literals = base_rules()
    lark_text = (ROOT / "grammar" / "races.lark").read_text(encoding="utf-8")
    # every statement rule of races.lark is there, and every keyword it spells
    for rule in ("if_stmt", "while_stmt", "for_stmt", "assert_stmt", "aug_assign", "lambdef", "comp_for"):
        assert rule in rules and f"\n{rule}" in "\n" + lark_text
    words = {v for vs in literals.values() for v in vs if v.isalpha()}
    assert {"while", "assert", "lambda", "where", "newtype"} <= words
    assert "is" not in words or not any("IS" in alt for alts in rules.values() for alt in alts)
