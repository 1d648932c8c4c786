"""Every sentence that begins `Example` is read and checked, whatever its spacing or
punctuation (issue 45; racesl.catalogue.examples.sentences): a false one is E604 with the
body's value, one that cannot be read W603; example-like prose (`For example, 'banana'
gives 2.`) is checked too, or W604 (issue 50); a generator environment without a body is
judged by its @verify checker. The golden cases are in tests/check/golden/examples.races."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from racesl.catalogue.diagnose import example_diagnostics, refusals
from racesl.catalogue.examples import sentences
from racesl.library import load
from racesl.runtime.watchdog import WATCHDOG

NBSP = "\u00a0"
FORMS = [  # each the false `5 -> 17` of `n + 13`, as issue 45 found them passing
    "Add 13 to n. Example:5 -> 17.",
    f"Add 13 to n. Example:{NBSP}5 -> 17.",
    "Add 13 to n. Example:\t5 -> 17.",
    "Add 13 to n (Example: 5 -> 17.)",
    "Add 13 to n. 'Example: 5 -> 17.'",
    "Add 13 to n.--Example: 5 -> 17.",
    # and more spellings of the same (HOSTILE.md, text forms)
    "Add 13 to n. Example  :  5  ->  17.",
    "Add 13 to n. Example\uff1a5 -> 17.",
    "Add 13 to n. \u0395xample: 5 -> 17.",
    "Add 13 to n. \uff25xample: 5\u219217.",
    'Add 13 to n. "Example: 5 -> 17."',
    "Add 13 to n. [Example: 5 -> 17.]",
    "Add 13 to n. Example - 5 -> 17.",
    "Add 13 to n. Example 5 -> 17.",
    "Add 13 to n. Examples: 5 -> 17.",
    "Add 13 to n.\u2014Example: 5 -> 17.",
    "Add 13 to n. For example, 5 gives 17.",
    "Add 13 to n. For instance: 5 -> 17.",
    "Add 13 to n. E.g. 5 becomes 17.",
]


def _lib(tmp_path, docs: list[str]):
    # (a description ending in a double quote gets a space before the docstring's close)
    body = "\n".join(f'env add{k}(n: Int where 0 <= it <= 100) -> Int:\n    """{d}{" " * d.endswith(chr(34))}"""\n'
                     "    return n + 13\n" for k, d in enumerate(docs))
    (tmp_path / "forms.races").write_text(body, encoding="utf-8")
    return load([tmp_path])


@pytest.mark.parametrize("doc", FORMS)
def test_each_form_reads_as_the_plain_one(doc):
    found = sentences(doc)
    assert [(s.example.input, s.example.output) for s in found if s.example] == [(5, 17)], found


def test_each_form_of_a_false_example_is_E604_at_its_sentence(tmp_path):
    lib = _lib(tmp_path, FORMS)
    with WATCHDOG.session():
        diags = example_diagnostics(lib, lib.root_envs)
        refused = refusals(lib)
    assert [d.code for d in diags] == ["E604"] * len(FORMS)
    assert len(refused) == len(FORMS)  # compile, the training stream and admit refuse the library
    text = (tmp_path / "forms.races").read_text(encoding="utf-8")
    for d in diags:
        assert "the example says 17, the body returns 18" in d.message
        shown = text[d.span.start:d.span.end]
        assert "5" in shown and "17" in shown and "add" not in shown, shown


def test_holding_forms_are_quiet(tmp_path):
    lib = _lib(tmp_path, [f.replace("17", "18") for f in FORMS])
    with WATCHDOG.session():
        assert example_diagnostics(lib, lib.root_envs) == []


@pytest.mark.parametrize("doc, code", [
    ("Add 13 to n. Example: five -> eighteen.", "W603"),
    ("Add 13 to n. Example:five -> eighteen.", "W603"),
    ("Add 13 to n. (Example: n -> n + 13.)", "W603"),
    ("Add 13 to n. For example, 5 turns out bigger.", "W604"),
    ("Add 13 to n. For example, 'banana' has two.", "W604"),
])
def test_unreadable_forms_are_warnings(tmp_path, doc, code):
    lib = _lib(tmp_path, [doc])
    with WATCHDOG.session():
        diags = example_diagnostics(lib, lib.root_envs)
    assert [d.code for d in diags] == [code]


def test_a_false_example_after_an_unreadable_one_is_still_found():
    found = sentences("Add 13. Example: five -> x. Example:5 -> 17.")
    assert [s.example is None for s in found] == [True, False]
    assert (found[1].example.input, found[1].example.output) == (5, 17)


@pytest.mark.parametrize("doc", [
    "Count the letters c (for example 'cocoa' has two). Example: 'cat' -> 1.",
    "An example of use follows. Example: 'cat' -> 1.",
    "Exampled text, counterExample: no. Example: 'cat' -> 1.",
])
def test_what_is_no_example_sentence_is_not_read(doc):
    assert [(s.example.input, s.example.output) for s in sentences(doc)] == [("cat", 1)]


_SPACE = st.sampled_from(["", " ", "  ", "\t", NBSP, " \t", NBSP + " "])
_BEFORE = st.sampled_from(["", " ", "(", "'", '"', "--", "\u2014", " [", " (", "\u201c", "*"])
_AFTER = {"(": ")", "'": "'", '"': '"', " [": "]", " (": ")", "\u201c": "\u201d"}


@given(_BEFORE, _SPACE, _SPACE, _SPACE, st.integers(-50, 500), st.integers(-50, 500),
       st.sampled_from([":", "\uff1a"]))
@settings(max_examples=300, deadline=None)
def test_any_spacing_and_punctuation_reads_the_same(before, s1, s2, s3, x, y, colon):
    close = _AFTER.get(before, "")
    doc = f"Add 13 to n.{before}Example{s1}{colon}{s2}{x}{s3}->{s3}{y}.{close}"
    found = sentences(doc)
    assert [(s.example.input, s.example.output) for s in found] == [(x, y)], doc


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=80))
@settings(max_examples=400, deadline=None)
def test_any_text_with_an_example_colon_is_read_or_refused_by_name(text):
    """Nothing that says `Example:` is ever skipped: each gives a sentence, read or with
    its error; the reader never raises."""
    doc = text + " Example: " + text
    found = sentences(doc)
    assert found and all((s.example is None) != (s.error is None) for s in found)
    assert all(0 <= s.start < s.end <= len(doc) for s in found)


@pytest.mark.parametrize("doc", [
    "Example: " + "1." * 200_000,
    "Example: 1 -> x. " * 100_000,
    "Example: Example: " * 100_000,
    "Example: [" + "1, " * 300_000 + "2] -> 3.",
    "Example: " + "1 -> " * 300_000 + "2.",
])
def test_a_description_of_megabytes_is_read_in_bounded_time(doc):
    """HOSTILE.md, budgets: the reader's work is bounded (sentences of at most 1,000
    characters, 24 full stops and 8 arrows tried, 100 sentences), and past the bound it
    says so instead of skipping."""
    import time

    t0 = time.perf_counter()
    found = sentences(doc)
    assert time.perf_counter() - t0 < 20
    assert found and found[-1].example is None and found[-1].error
