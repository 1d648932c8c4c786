"""Character classes in the solver (racesl.solver.chars): `isdigit`, `isalpha`, `islower`,
`isupper` and `all(P(c) for c in it)` as Z3 regex membership over the abstract alphabet,
checked against CPython string by string, and the edges they remove."""

from __future__ import annotations

import random

import pytest

from racesl.solver import Solver
from racesl.solver import chars as C
from racesl.solver.encode import FRAGMENT, scope_of
from racesl.types import types as T

# one character of every non-ASCII profile, a few ASCII ones of each kind, and oddities
POOL = list("aZm09 _-!A") + ["\u00e9", "\u00c9", "\u01c5", "\u00b2", "\u2160", "\u0345", "\u4e2d", "\u00aa",
                             "\u0660", "\U00030000", "\U0010ffff", "\ud800", "\u0130", "\u1e9e", "\u2170"]
EDGE_CASES = ["", "123", "a1", "A1", "a", "A", "\u01c5", "a\u01c5", "A\u01c5", "\u2160", "\u2160a", "a\u2160",
              "\u0345", "\u0345A", "\u00b2", "\u00aa", "\u0130i", " ", "1a", "aB", "ab", "AB", "\u00e9\u00c9"]


def _strings(n: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    out = list(EDGE_CASES)
    for _ in range(n):
        k = rng.choice([1, 1, 2, 2, 3, 4, 6])
        if rng.random() < 0.15:
            out.append("".join(chr(rng.randrange(0x110000)) for _ in range(k)))
        else:
            out.append("".join(rng.choice(POOL) for _ in range(k)))
    return out


@pytest.fixture(scope="module")
def solver():
    return Solver()


def _holds(solver, src: str, word: str) -> bool | None:
    """The encoding of `src` (over `it`) evaluated in the model it = word: True / False, or
    None when some character has no code."""
    import z3

    codes = [C.code(ch) for ch in word]
    if None in codes:
        return None
    enc = solver.encoder
    root = scope_of("str")
    sv, _ = enc.str_var(root)
    parts = []
    for c in solver.conjs([src]):
        e = solver.encode((c, root))
        parts += [e.formula, *e.axioms]
    f = z3.substitute(enc.And(parts), (sv, z3.StringVal("".join(map(chr, codes)), enc.ctx)),
                      (enc.length(root), z3.IntVal(len(word), enc.ctx)))
    r = z3.simplify(f)
    assert z3.is_true(r) or z3.is_false(r), (src, word, r)
    return z3.is_true(r)


def test_the_profile_table_covers_every_code_point():
    """Every character's profile is listed (so `code` is total) and the classes of the
    abstract alphabet are those of Python's Unicode tables."""
    seen = set()
    for cp in range(128, 0x110000):
        seen.add(C.profile(chr(cp)))
    assert seen == set(C.PROFILES), (seen ^ set(C.PROFILES), C.UNICODE)


@pytest.mark.parametrize("method", sorted(C.METHODS))
def test_methods_match_cpython_on_many_strings(solver, method):
    words = _strings(1500)
    bad = [w for w in words if _holds(solver, f"it.{method}()", w) != getattr(w, method)()]
    assert not bad, [ascii(w) for w in bad[:10]]


def test_islower_isupper_edge_cases(solver):
    for w, lower, upper in [("123", False, False), ("a1", True, False), ("A1", False, True), ("", False, False),
                            ("\u01c5", False, False), ("a\u01c5", False, False), ("\u2160", False, True),
                            ("\u0345", True, False), ("\u00aa", True, False)]:
        assert (w.islower(), w.isupper()) == (lower, upper)  # CPython, the reference
        assert _holds(solver, "it.islower()", w) is lower, ascii(w)
        assert _holds(solver, "it.isupper()", w) is upper, ascii(w)


@pytest.mark.parametrize("src", [
    'all(c in "0123456789" for c in it)',
    'all(c in "abcdefghij" for c in it)',
    'all("a" <= c <= "z" or c.isdigit() for c in it)',
    'all(not c.isupper() for c in it)',
    'all(c != "x" and c not in "yz" for c in it)',
    'all(c in ("a", "b", "cd") for c in it)',
    'all(c > "~" for c in it)',
    'it.isalpha() and it.islower() and 1 <= len(it) <= 4',
    'not it.isdigit() or it.isupper()',
])
def test_per_character_predicates_match_cpython(solver, src):
    code = compile(src, "<pred>", "eval")
    bad = [w for w in _strings(800, 1) if _holds(solver, src, w) != bool(eval(code, {}, {"it": w}))]
    assert not bad, [ascii(w) for w in bad[:10]]


def test_a_non_ascii_literal_over_approximates_and_says_so(solver):
    """`c in "é"`: the profile's code stands for every lowercase letter, so the encoding
    admits more (sound), is marked inexact, and is opaque where it occurs negatively."""
    src = 'all(c in "\u00e9" for c in it)'
    for w in _strings(300, 2):
        if w == "" or all(c == "\u00e9" for c in w):
            assert _holds(solver, src, w), ascii(w)  # never under-approximates
    root = scope_of("str")
    assert not all(solver.encode((c, root)).exact for c in solver.conjs([src]))
    assert solver.satisfiable([src, "len(it) == 1", 'not (it == "\u00e9")'], "str") != "unsat"


@pytest.mark.parametrize("out,inp,expected", [
    ("it.isdigit()", "it.isalpha()", None),
    ('all(c in "0123456789" for c in it) and len(it) >= 1', "it.isalpha() and it.islower()", None),
    ("it.isdigit()", 'all(c in "abcdefghij" for c in it)', None),
    ("it.isdigit()", "it.islower()", None),
    ("it.isupper()", "it.islower()", None),
    ("it.isalpha() and it.islower()", 'all(c in "abcdefghij" for c in it)', "guarded"),
    ('all(c in "abc" for c in it) and len(it) >= 1', "it.isalpha() and it.islower()", "proved"),
    ('all(c in "0123456789" for c in it) and len(it) >= 1', "it.isdigit()", "proved"),
    ("it.isdigit()", 'all(c in "0123456789" for c in it)', "guarded"),  # '²'.isdigit()
])
def test_edges_between_character_classes(solver, out, inp, expected):
    def t(src):
        return T.Refined(T.STR, (_pred(src),))
    assert solver.classify(t(out), t(inp)) == expected


def _pred(src):
    from racesl.solver import parse_pred

    return parse_pred(src)


def test_length_only_encoding_is_what_it_was(solver):
    """With `chars=False` (the sampler's bounds, and the solver before character classes)
    the same predicates stay opaque: a digit string may flow into a letter type."""
    old = Solver(chars=False)
    t_out, t_in = (T.Refined(T.STR, (_pred(s),)) for s in ("it.isdigit()", "it.isalpha()"))
    assert old.classify(t_out, t_in) == "guarded" and solver.classify(t_out, t_in) is None


def test_the_cache_is_keyed_by_the_fragment(tmp_path, monkeypatch):
    from racesl.solver.cache import CachedClassifier

    monkeypatch.setenv("RACESL_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("RACESL_NO_CACHE", raising=False)
    c = CachedClassifier(Solver())
    assert FRAGMENT in c.path.name and C.UNICODE in FRAGMENT and "r250000" in c.path.name


# ---------------------------------------------------------------- a module and the stdlib

DIGITS = '''import automata
import codes
import records
import strings
import words

env decimal(n: Int where 0 <= it <= 99999) -> Str where 1 <= len(it) <= 5 and it.isdigit():
    """Write n in decimal digits."""
    return str(n)
'''


def test_a_digits_only_output_has_no_edge_into_letters_only_inputs(tmp_path):
    from racesl.check import check_paths
    from racesl.graph.signature import SignatureGraph, build_graph

    p = tmp_path / "digits.races"
    p.write_text(DIGITS, encoding="utf-8")
    checked = check_paths([str(p)], [])
    assert checked.ok, checked.diagnostics
    envs = list(checked.envs())
    str_inputs = [e.qualname for e in envs if T.erase(e.input) == T.erase(T.STR)]
    assert len(str_inputs) == 28  # the stdlib's Str environments: every one letters-only
    before = SignatureGraph(envs, classify=Solver(chars=False).classify)
    assert sorted(d for d, _ in before.successors("digits.decimal")) == sorted(str_inputs)  # 28 guarded
    graph, _ = build_graph(envs, True)
    assert graph.successors("digits.decimal") == ()
    assert graph.counts()["dropped"] == before.counts()["dropped"] + 28
    # nothing else moved: every other edge is there, of the same kind or proved now
    old = {(e.src, e.dst): e.kind for e in before.edges()}
    new = {(e.src, e.dst): e.kind for e in graph.edges()}
    assert set(old) - set(new) == {("digits.decimal", q) for q in str_inputs} and set(new) <= set(old)
    assert all(new[e] == old[e] or new[e] == "proved" for e in new)
