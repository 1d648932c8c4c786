"""The example sentence a description ends with: read, run, and recomputed in prompts."""

from __future__ import annotations

import pytest

from racesl.catalogue.examples import check, outputs_shown, parse
from racesl.library import load
from racesl.runtime.watchdog import WATCHDOG

SOURCE = '''\
module demo

type Nat = Int where 0 <= it <= 100

def pick_n(rng, level) -> Int:
    return rng.randint(2, 40)

def halves_ok(n: Int, answer: Tuple[Int, Int]) -> Bool:
    a, b = answer
    return a + b == n and a >= 0 and b >= 0

@sample(n=pick_n)
env double(n: Nat) -> Int:
    """Return twice n. Example: 21 -> 42."""
    return 2 * n

@sample(n=pick_n)
env shift(n: Nat, k: Int where 1 <= it <= 9) -> Int:
    """Add {k} to n. Example, with k = 3: 10 -> 13."""
    return n + k

@sample(n=pick_n)
env wrong(n: Nat) -> Int:
    """Return n plus one. Example: 4 -> 6."""
    return n + 1

@sample(n=pick_n)
env missing(n: Nat) -> Int:
    """Return n plus two."""
    return n + 2

@sample(n=pick_n)
env counts(n: Nat) -> Dict[Str, Int]:
    """Map 'n' to n. Example: 5 -> {{'n': 5}}."""
    return {"n": n}

@sample(n=pick_n)
env bad_input(n: Nat) -> Int:
    """Return n. Example: 500 -> 500."""
    return n

@sample(n=pick_n)
env bad_settings(n: Nat, k: Int where 1 <= it <= 9) -> Int:
    """Add {k} to n. Example: 10 -> 13."""
    return n + k

@sample(n=pick_n)
@verify(halves_ok)
env split(n: Nat) -> Tuple[Int, Int]:
    """Write n as a sum a + b of two non-negative integers; answer (a, b). Example: 7 -> (3, 4)."""
    return (n // 2, n - n // 2)
'''


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    d = tmp_path_factory.mktemp("examples")
    (d / "demo.races").write_text(SOURCE, encoding="utf-8")
    return load([d])


def problem(lib, name: str) -> str | None:
    with WATCHDOG.session():
        return check(lib, lib.envs[f"demo.{name}"]).problem


def test_parse_reads_input_settings_and_output():
    ex = parse("Add {k} to n. Example, with k = 3, c = 'a b': [1, 2] -> (3, 'x -> y').")
    assert (ex.input, ex.settings, ex.output) == ([1, 2], {"k": 3, "c": "a b"}, (3, "x -> y"))
    assert ex.text == "Example, with k = 3, c = 'a b': [1, 2] -> (3, 'x -> y')."
    assert parse("Braces are doubled. Example: {{1: 2}} -> {{'a': 1}}").output == {"a": 1}


@pytest.mark.parametrize("text, why", [
    ("No example here.", "does not end with"),
    ("Example: 3 -> 4. Then more words.", "both sides value literals"),
    ("Example: 3 => 4.", "both sides value literals"),
    ("Example, with k: 3 -> 4.", "settings"),
    ("Example, with 3 = k: 3 -> 4.", "settings"),
])
def test_parse_refuses_what_is_not_the_form(text, why):
    with pytest.raises(ValueError, match=why):
        parse(text)


def test_examples_are_run_against_the_body(demo):
    for name in ("double", "shift", "counts", "split"):
        assert problem(demo, name) is None, name
    assert problem(demo, "wrong") == "the example says 6, the body returns 5"
    assert "does not end with" in problem(demo, "missing")
    assert problem(demo, "bad_input").startswith("the example's input is not a valid input")
    assert problem(demo, "bad_settings") == "the example gives settings none; the environment has k"


def test_a_verified_example_is_judged_by_the_verifier(tmp_path):
    (tmp_path / "demo.races").write_text(SOURCE.replace("7 -> (3, 4)", "7 -> (3, 5)"), encoding="utf-8")
    lib = load([tmp_path])
    assert problem(lib, "split") == "the verifier rejects the example's output (one right answer: (3, 4))"


def test_outputs_shown_in_a_rendered_prompt():
    prompt = ("1. (its input is called n) Add 4 to n. Example: 10 -> 14.\n"
              "2. (its input is called s) Count. Example: 'a -> b' -> [1, 2].\n"
              "Problem 3. Nothing to copy here.\nInput n = 5")
    assert outputs_shown(prompt) == ["14", "[1, 2]"]
