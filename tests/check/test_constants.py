"""Module constants in the checker (racesl.check.constants): a body may read a constant
but never change it or hand it on where it could be changed; constants are typed, ordered
and shared across modules. Property tests: whatever mix of statements a body holds, it is
either refused (E441/E442) or leaves every constant as it was, draw after draw."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from racesl.check import check_paths
from racesl.library import Library

HEAD = '''\
WORDS: List[Str] = "apple pear fig kiwi plum".split()
COUNTS: Dict[Str, Int] = {"apple": 1, "fig": 2}

def keep(xs: List[Str]) -> List[Str]:
    return xs

'''

# statements that only read the constants (each may use its own locals, suffixed {k})
READS = [
    "n{k} = len(WORDS) + len(COUNTS)",
    "xs{k} = list(WORDS)\n    xs{k}.append(w)\n    xs{k}.sort()",
    "xs{k} = sorted(WORDS, key=lambda v: len(v))",
    "k{k} = WORDS.index(WORDS[0]) + WORDS.count(w)",
    "b{k} = w in WORDS or w in COUNTS",
    "s{k} = \" \".join(WORDS) + f\"{{WORDS}}\"",
    "ys{k} = WORDS[1:3]\n    ys{k}.append(w)",
    "for v{k} in WORDS:\n        n{k} = len(v{k})",
    "zs{k} = [v.upper() for v in WORDS if v != w]",
    "e{k} = WORDS + [w]\n    e{k}.reverse()",
    "c{k} = COUNTS.get(w, 0) + sum(COUNTS.values())",
    "d{k} = dict(COUNTS)\n    d{k}[w] = 3",
    "t{k} = max(WORDS) < min(WORDS) or not WORDS",
    "t{k} = max(WORDS, key=lambda v: len(v)) + min(sorted(WORDS))",
    "t{k} = w if WORDS else \"none\"",
    "t{k} = WORDS[::2] + WORDS[:] + list(reversed(WORDS)) + [v for _, v in zip(WORDS, WORDS)]",
]
# statements that would change a constant (E441) or share it where it could be (E442)
WRITES = [
    "WORDS.append(w)", "WORDS.sort()", "n{k} = WORDS.pop()", "WORDS.insert(0, w)", "WORDS.extend([w])",
    "WORDS.reverse()", "WORDS[0] = w", "WORDS += [w]", "WORDS = [w]", "COUNTS[w] = 1",
    "n{k} = COUNTS.setdefault(w, 0)", "n{k} = COUNTS.pop(\"fig\")", "COUNTS[\"fig\"] += 1",
    "ys{k} = WORDS\n    ys{k}.append(w)", "ys{k} = keep(WORDS)", "ys{k} = [WORDS]", "ys{k} = WORDS or [w]",
    "ys{k} = WORDS if w else [w]", "ys{k}, n{k} = WORDS, 1", "d{k} = {{0: WORDS}}",
    "f{k} = sorted([w], key=lambda v: WORDS)", "for ys{k} in [WORDS]:\n        ys{k}.append(w)",
    "ys{k} = keep(xs=WORDS)", "d{k} = COUNTS\n    d{k}[w] = 0", "ys{k} = max(WORDS, [w])",
    "ys{k} = sum([], WORDS)", "ys{k} = COUNTS.get(w, WORDS)", "ys{k} = [WORDS for _ in range(2)]",
]


def _module(stmts: list[str]) -> str:
    body = "\n    ".join(s.format(k=k) for k, s in enumerate(stmts))
    return HEAD + f'''\
env probe(w: Str where 1 <= len(it) <= 5 and it.isalpha()) -> Int:
    """Look w up in the word list and return a count."""
    {body}
    return len(WORDS) + len(COUNTS)
'''


def _check(tmp_path: Path, text: str):
    p = tmp_path / "consts.races"
    p.write_text(text, encoding="utf-8")
    return check_paths([p])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(READS), max_size=5), st.sampled_from(WRITES), st.integers(0, 5))
def test_a_body_that_could_change_a_constant_is_refused(tmp_path_factory, reads, write, at):
    stmts = list(reads)
    stmts.insert(min(at, len(stmts)), write)
    checked = _check(tmp_path_factory.mktemp("w"), _module(stmts))
    codes = {d.code for d in checked.diagnostics if d.is_error}
    assert not checked.ok and codes & {"E441", "E442"}, (write, [d.headline() for d in checked.diagnostics])


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from(READS), min_size=1, max_size=6))
def test_a_body_that_only_reads_constants_is_accepted_and_leaves_them_unchanged(tmp_path_factory, reads):
    tmp = tmp_path_factory.mktemp("r")
    checked = _check(tmp, _module(reads))
    assert checked.ok, [d.headline() for d in checked.diagnostics]
    lib = Library(checked)
    ns = lib.program.namespace
    before = (list(ns["consts__WORDS"]), dict(ns["consts__COUNTS"]))
    for w in ("apple", "fig", "zzz", "a"):
        out = lib.program.call("consts__probe", (w,), fuel=5_000)
        assert out.ok, out
        assert out.value == 7
    assert (ns["consts__WORDS"], ns["consts__COUNTS"]) == before


def _diags(tmp_path: Path, text: str) -> list[tuple[str, str]]:
    return [(d.code, d.message) for d in _check(tmp_path, text).diagnostics if d.is_error]


def test_a_constant_needs_a_type_of_values_that_cannot_change(tmp_path):
    assert _diags(tmp_path, "LIMIT = 40\n") == [("E440", "constant 'LIMIT' needs a type")]
    got = _diags(tmp_path, "ROWS: Tuple[List[Int], Int] = ([1], 2)\n")
    assert got and got[0][0] == "E440" and "its parts would be Lists" in got[0][1]


def test_constants_read_only_constants_above_them(tmp_path):
    text = "A: Int = B + 1\nB: Int = 2\nC: Int = C\n"
    assert _diags(tmp_path, text) == [
        ("E440", "constant 'A' reads 'B', which is defined after it"),
        ("E440", "constant 'C' reads itself")]


def test_a_constant_clashes_with_other_names(tmp_path):
    text = "N: Int = 1\n\ndef N(x: Int) -> Int:\n    return x\n"
    assert [c for c, _ in _diags(tmp_path, text)] == ["E201"]
    assert [c for c, _ in _diags(tmp_path, "len: Int = 1\n")] == ["E201"]


def test_a_helper_and_a_sampler_and_a_verifier_see_constants(tmp_path):
    text = HEAD + '''\
def pick(rng, level) -> Str:
    return rng.choice(WORDS)

def ok(w: Str, answer: Int) -> Bool:
    return answer == len(WORDS) + COUNTS.get(w, 0)

@sample(w=pick)
@verify(ok)
env size(w: Str where 1 <= len(it) <= 5 and it.isalpha()) -> Int:
    """Return how many words there are, plus the count of w."""
    return len(WORDS) + COUNTS.get(w, 0)
'''
    checked = _check(tmp_path, text)
    assert checked.ok, [d.headline() for d in checked.diagnostics]


def test_a_module_with_constants_compiles_byte_identically_under_any_hash_seed(tmp_path):
    (tmp_path / "cw.races").write_text(HEAD + '''\
def pick(rng, level) -> Str:
    return rng.choice(WORDS)

@sample(w=pick)
env shout(w: Str where 1 <= len(it) <= 5 and it.isalpha()) -> Str:
    """Write w in capitals, then the number of words."""
    return w.upper() + str(len(WORDS) + COUNTS.get(w, 0))

env twice(s: Str where 1 <= len(it) <= 8) -> Str:
    """Write s twice."""
    return s + s
''', encoding="utf-8")
    outs = []
    for seed in ("0", "1", "4242", "0"):
        out = tmp_path / f"t{len(outs)}.jsonl"
        r = subprocess.run([sys.executable, "-m", "racesl", "compile", str(tmp_path / "cw.races"), "-n", "40",
                            "--seed", "3", "-o", str(out), "--quiet", "--no-solver"],
                           capture_output=True, text=True, timeout=600,
                           env={"PYTHONHASHSEED": seed, "PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "1"})
        assert r.returncode == 0, r.stderr
        outs.append(out.read_bytes())
    assert outs[0] and all(o == outs[0] for o in outs)
