"""Messages and hints that say the right thing (issue 15): golden files check messages only,
so the hints, and the old wrong texts being gone, are checked here."""

from __future__ import annotations

from pathlib import Path

from racesl.check import check_paths
from racesl.types import types as T


def check(tmp_path: Path, text: str, name: str = "m"):
    p = tmp_path / f"{name}.races"
    p.write_text(text, encoding="utf-8")
    return check_paths([p])


def diags(tmp_path: Path, text: str) -> list:
    return list(check(tmp_path, text).diagnostics)


def everything(ds) -> str:
    return "\n".join(f"{d.code}: {d.message} | {d.hint}" for d in ds)


# ---------------------------------------------------------------- 1. Python modules

def test_a_python_module_import_is_one_diagnostic_pointing_at_builtins(tmp_path):
    ds = diags(tmp_path, "import math\n\n"
                         "env root(n: Int where 0 <= it <= 100) -> Int:\n"
                         '    """Return the integer square root of n."""\n'
                         "    return math.isqrt(n) + math.pow(n, 2)\n")
    assert [d.code for d in ds] == ["E202"], everything(ds)
    [d] = ds
    assert d.message == "'math' is a Python module; a .races file can import only .races modules"
    assert "not found" not in d.message
    assert "pow(...) is a builtin: call it without 'math.'" in d.hint
    assert "'isqrt' is not a builtin: write it as a `def` helper" in d.hint
    assert "insert" not in everything(ds) and "-I" not in d.hint


def test_from_python_module_import(tmp_path):
    ds = diags(tmp_path, "from math import gcd, divmod\n\n"
                         "env g(n: Int where 1 <= it <= 100) -> Int:\n"
                         '    """Doc."""\n'
                         "    return gcd(n, 6)\n")
    assert [d.code for d in ds] == ["E202"], everything(ds)
    assert "divmod(...) is a builtin" in ds[0].hint and "'gcd' is not a builtin" in ds[0].hint


def test_random_points_at_the_samplers_rng(tmp_path):
    ds = diags(tmp_path, "import random\n\n"
                         "env g(n: Int where 1 <= it <= 100) -> Int:\n"
                         '    """Doc."""\n'
                         "    return random.randint(0, n)\n")
    assert [d.code for d in ds] == ["E202"], everything(ds)
    assert "rng.randint" in ds[0].hint


def test_a_races_module_of_a_python_name_is_still_found(tmp_path):
    """The search path comes first: a `numbers.races` (the stdlib has one) is no Python module."""
    ds = diags(tmp_path, "import numbers\n\n"
                         "env g(n: numbers.Small) -> Int:\n"
                         '    """Doc."""\n'
                         "    return n\n")
    assert not [d for d in ds if d.code == "E202"], everything(ds)


def test_unknown_module_keeps_the_search_path_hint(tmp_path):
    [d] = diags(tmp_path, "import nowhere_at_all\n")
    assert d.message == "module 'nowhere_at_all' not found" and "add a folder with -I" in d.hint


# ---------------------------------------------------------------- 2. E404 with an unknown type

def test_laws_on_an_unknown_type_do_not_say_is_not_question_mark(tmp_path):
    ds = diags(tmp_path, "@laws(idempotent)\n"
                         "env g(xs: Foo) -> List[Int]:\n"
                         '    """Sort xs."""\n'
                         "    return sorted(xs)\n")
    assert [d.code for d in ds] == ["E300"], everything(ds)
    assert "?" not in everything(ds).replace("did you mean", "")


def test_laws_message_says_what_it_means(tmp_path):
    [d] = diags(tmp_path, "@laws(involution)\n"
                          "env h(xs: List[Int]) -> Int:\n"
                          '    """Sum xs."""\n'
                          "    return sum(xs)\n")
    assert d.code == "E404"
    assert d.message == "@laws(involution) needs 'h' to return its input's type: it takes List[Int] but returns Int"
    assert "f(f(x))" in d.hint


# ---------------------------------------------------------------- 3. E103

E103_INNER = ("env f(x: Int) -> Int:\n"
              '    """Doc."""\n'
              "    if x:\n"
              "        y = 1\n"
              "        return y\n"
              "       return 2\n"
              "    return 3\n")
E103_TOP = ("env f(n: Int where 0 <= it <= 5) -> Int:\n"
            '    """Doc."""\n'
            "    total = 0\n"
            "    for i in range(n):\n"
            "        total += i\n"
            "   return total\n")


def test_e103_hint_names_both_levels_and_no_w602_follows(tmp_path):
    ds = diags(tmp_path, E103_INNER)
    assert [d.code for d in ds] == ["E103"], everything(ds)
    [d] = ds
    assert d.hint == "indent this line by 8 spaces to continue the block at that level, or by 4 to end it"


def test_e103_near_the_top_level_never_says_indent_by_0(tmp_path):
    ds = diags(tmp_path, E103_TOP)
    assert [d.code for d in ds] == ["E103"], everything(ds)  # no E507: the line stays in the body
    [d] = ds
    assert "by 0 spaces" not in d.hint
    assert d.hint == ("indent this line by 4 spaces to continue the block at that level, "
                      "or not at all to end the declaration")


def test_w602_still_reported_without_e103(tmp_path):
    ds = diags(tmp_path, "env f(x: Int) -> Int:\n"
                         '    """Doc."""\n'
                         "    return 1\n"
                         "    return 2\n")
    assert [d.code for d in ds] == ["W602"]


# ---------------------------------------------------------------- 4. newtypes and `+`

def test_int_newtype_plus_hints_int(tmp_path):
    [d] = diags(tmp_path, "newtype Count = Int where 0 <= it <= 10\n\n"
                          "env inc(n: Count) -> Count:\n"
                          '    """Add one to n."""\n'
                          "    return n + 1\n")
    assert d.code == "E303"
    assert "write int(n)" in d.hint and "newtype of Int" in d.hint
    assert "str(n)" not in d.hint


def test_int_newtype_plus_after_int_is_accepted(tmp_path):
    ds = diags(tmp_path, "newtype Count = Int where 0 <= it <= 10\n\n"
                         "env inc(n: Count) -> Count:\n"
                         '    """Add one to n."""\n'
                         "    return int(n) + 1\n")
    assert [d for d in ds if d.is_error] == [], everything(ds)


def test_str_newtype_plus_hints_str(tmp_path):
    [d] = diags(tmp_path, "newtype Name = Str where len(it) <= 5\n\n"
                          "env greet(s: Name) -> Str:\n"
                          '    """Greet s."""\n'
                          '    return s + "!"\n')
    assert d.code == "E303" and "write str(s)" in d.hint and "int(" not in d.hint


def test_str_plus_int_hint_names_the_operands(tmp_path):
    [d] = diags(tmp_path, "env add(x: Int) -> Str:\n"
                          '    """Doc."""\n'
                          '    return "n=" + x\n')
    assert d.hint == "write str(x) to join texts, or int('n=') to add numbers"


# ---------------------------------------------------------------- 5. counts and articles

def test_counts_and_articles(tmp_path):
    ds = diags(tmp_path, "def one(x: Int) -> Int:\n"
                         "    return x\n\n"
                         "def three(rng) -> Int:\n"
                         "    return 1\n\n"
                         "env e(x: Int) -> Int:\n"
                         '    """Doc."""\n'
                         "    return one(x, x) + abs(x, x)\n\n"
                         "@sample(k=three)\n"
                         "env s(x: e, k: Int) -> Int:\n"
                         '    """Add {k}."""\n'
                         "    return x + k\n")
    text = everything(ds)
    assert "'one' takes 1 argument, 2 given" in text
    assert "'abs' takes 1 positional argument, 2 given" in text
    assert "'e' is an environment, not a type" in text
    assert "but it takes 1 parameter" in text
    for wrong in ("1 arguments", "1 positional arguments", "a environment", "1 parameters"):
        assert wrong not in text


# ---------------------------------------------------------------- 6. refinements as written

BITS = "type Bits = Str where all(c in '01' for c in it) and len(it) <= 8\n"


def test_refinements_print_as_written(tmp_path):
    checked = check(tmp_path, BITS + "\n"
                    "env flip(b: Bits) -> Int where (it >= 0 or\n"
                    "                                 it == -1):\n"
                    '    """Doc."""\n'
                    "    return len(b)\n")
    env = checked.env("m.flip")
    assert str(env.input) == "Str where all(c in '01' for c in it) and len(it) <= 8"
    assert str(env.output) == "Int where (it >= 0 or it == -1)"
    assert "((" not in str(env.input)
    # the identity of a predicate (what the runtime and solver key on) is unchanged
    assert [p.text for p in T.preds(env.input)] == ["all((c in '01' for c in it)) and len(it) <= 8"]


def test_contract_message_shows_the_refinement_as_written(tmp_path):
    from racesl.library import Library

    checked = check(tmp_path, BITS + "\n"
                    "env flip(b: Bits) -> Bits:\n"
                    '    """Doc."""\n'
                    "    return b\n")
    lib = Library(checked)
    why = lib.conforms("0120", checked.env("m.flip").input)
    assert why == "'0120' violates all(c in '01' for c in it) and len(it) <= 8"


# ---------------------------------------------------------------- E402: a value's braces (issue 35)

def test_a_dict_in_an_example_is_a_value_not_a_placeholder(tmp_path):
    text = ("env keyed(x: Int where 0 <= it <= 9) -> Dict[Str, Dict[Str, Int]]:\n"
            '    """Map \'n\' to x. Example: 5 -> {\'n\': {\'m\': 5}}."""\n'
            '    return {"n": {"m": x}}\n')
    assert not diags(tmp_path, text)  # as written: no E402, and the example reads and holds
    doubled = text.replace("{'n': {'m': 5}}", "{{'n': {{'m': 5}}}}")  # the doubled form reads the same
    assert not diags(tmp_path, doubled)


def test_a_value_outside_an_example_gets_a_valid_fix(tmp_path):
    text = ("env keyed(x: Int where 0 <= it <= 9) -> Dict[Str, Dict[Str, Int]]:\n"
            '    """Map to a dict like {\'n\': {\'m\': 1}}."""\n'
            '    return {"n": {"m": x}}\n')
    ds = diags(tmp_path, text)
    assert [d.code for d in ds] == ["E402"], everything(ds)
    [d] = ds
    assert "format spec" not in d.message and "{'n'}" not in d.hint
    assert d.hint.startswith("write the braces doubled, {{'n': {{'m': 1}}}}")
    fixed = text.replace("{'n': {'m': 1}}", "{{'n': {{'m': 1}}}}")  # the hint's fix checks clean
    assert not diags(tmp_path, fixed)
