"""Worked examples as diagnostics (issue 32): E604 where the body disagrees, W603 where the
sentence cannot be read, each located at the sentence inside the docstring."""

from __future__ import annotations

from pathlib import Path

import pytest

from racesl.catalogue.diagnose import example_diagnostics, refusals
from racesl.catalogue.examples import sentences
from racesl.library import load
from racesl.runtime.watchdog import WATCHDOG
from tests.support.tasks import stdlib

ROOT = Path(__file__).resolve().parents[2]

SOURCE = '''\
module demo

def halves_ok(n: Int, answer: Tuple[Int, Int]) -> Bool:
    a, b = answer
    return a + b == n and a >= 0 and b >= 0

env halve(n: Int where 0 <= it <= 100) -> Int:
    """Halve n, rounding down. Example: 6 -> 2."""
    return n // 2

env sub_k(n: Int where 0 <= it <= 100, k: Int where 1 <= it <= 9) -> Int:
    """Take {k} from n; the result may be negative.
    Example, with k = 3:
        5 -> 1."""
    return n - k

env keyed(n: Int where 0 <= it <= 100) -> Dict[Str, Int]:
    """Map 'n' to n. Example: 5 -> {{'n': 6}}. Nothing else."""
    return {"n": n}

env escaped(n: Int where 0 <= it <= 100) -> Int:
    """Return n, \\"as is\\". Example: 5 -> 6."""
    return n

@verify(halves_ok)
env split(n: Int where 0 <= it <= 100) -> Tuple[Int, Int]:
    """Write n as a sum a + b of two non-negative integers. Example: 7 -> (3, 5)."""
    return (n // 2, n - n // 2)

env quiet(n: Int where 0 <= it <= 100) -> Int:
    """Return n plus one. Example: 1 -> 2. Another: 2 -> 3."""
    return n + 1

env plain(n: Int where 0 <= it <= 100) -> Int:
    """Return n plus two, with no example."""
    return n + 2

env prose(n: Int where 0 <= it <= 100) -> Int:
    """Return n. Example: a number -> the same number."""
    return n
'''


@pytest.fixture(scope="module")
def found(tmp_path_factory):
    d = tmp_path_factory.mktemp("diagnose")
    (d / "demo.races").write_text(SOURCE, encoding="utf-8")
    lib = load([d])
    with WATCHDOG.session():
        diags = example_diagnostics(lib, lib.root_envs)
    return lib, diags


def one(found, fragment: str):
    _, diags = found
    hits = [d for d in diags if fragment in d.message]
    assert len(hits) == 1, [d.message for d in diags]
    return hits[0]


def test_a_wrong_example_is_an_error_at_the_sentence_with_the_body_value(found):
    d = one(found, "halve(6)")
    assert d.code == "E604" and d.is_error
    assert d.message == "the worked example halve(6) does not hold: the example says 2, the body returns 3"
    line = SOURCE.splitlines()[7]
    assert (d.span.line, d.span.col) == (8, line.index("Example") + 1)
    assert (d.span.end_line, d.span.end_col) == (8, line.index('"""', 8) + 1)
    assert SOURCE[d.span.start:d.span.end] == "Example: 6 -> 2."
    assert d.hint.startswith("if the body is right, write `Example: 6 -> 3.`")
    assert d.path.endswith("demo.races")


def test_a_wrapped_example_spans_its_lines(found):
    d = one(found, "sub_k(5, k=3)")
    assert "the example says 1, the body returns 2" in d.message
    assert (d.span.line, d.span.col, d.span.end_line) == (13, 5, 14)
    assert SOURCE[d.span.start:d.span.end] == "Example, with k = 3:\n        5 -> 1."
    assert "write `Example, with k = 3: 5 -> 2.`" in d.hint


def test_a_dict_example_in_mid_description_and_its_fix_with_braces_doubled(found):
    d = one(found, "keyed(5)")
    assert "the example says {'n': 6}, the body returns {'n': 5}" in d.message
    assert SOURCE[d.span.start:d.span.end] == "Example: 5 -> {{'n': 6}}."
    assert "write `Example: 5 -> {{'n': 5}}.`" in d.hint


def test_an_escape_in_the_docstring_falls_back_to_the_docstring_span(found):
    lib, _ = found
    d = one(found, "escaped(5)")
    assert d.span == lib.envs["demo.escaped"].node.docstring.span


def test_a_verified_example_is_judged_by_the_verifier(found):
    d = one(found, "split(7)")
    assert "the verifier rejects the example's output (one right answer: (3, 4))" in d.message
    assert "such as `Example: 7 -> (3, 4).`" in d.hint


def test_every_example_sentence_runs_and_holding_ones_are_quiet(found):
    _, diags = found
    assert not [d for d in diags if "quiet" in d.message or "plain" in d.message]
    two = sentences("Return n plus one. Example: 1 -> 2. Example: 'a. b' -> 'c'.")
    assert [(s.example.input, s.example.output) for s in two] == [(1, 2), ("a. b", "c")]


def test_an_unreadable_sentence_is_a_warning(found):
    d = one(found, "'prose'")
    assert d.code == "W603" and not d.is_error
    assert "{{'a': 1}}" in d.hint


def test_refusals_are_the_errors_only(found):
    lib, diags = found
    with WATCHDOG.session():
        wrong = refusals(lib)
    assert {d.code for d in wrong} == {"E604"}
    assert len(wrong) == sum(d.code == "E604" for d in diags) == 5


def test_the_stdlib_and_the_examples_folder_have_no_finding():
    lib = stdlib()
    with WATCHDOG.session():
        assert example_diagnostics(lib, list(lib.envs.values())) == []
        ex = load([ROOT / "examples"])
        assert example_diagnostics(ex, ex.root_envs) == []  # descriptions without examples: nothing


def test_the_hubs_task_source_refuses_a_wrong_example(tmp_path):
    """racesl.integrations.tasks (Hugging Face, verifiers, OpenEnv, GEM streams) builds tasks
    like the training stream: the same refusal."""
    from racesl.integrations.tasks import library

    (tmp_path / "demo.races").write_text(SOURCE, encoding="utf-8")
    with pytest.raises(ValueError, match=r"a worked example does not hold: .*demo\.races:8:\d+: E604 "):
        library([tmp_path])
