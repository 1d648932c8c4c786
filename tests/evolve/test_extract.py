"""Taking the .races module out of a completion."""

from racesl.evolve.extract import MAX_CHARS, extract_module
from racesl.evolve.extract import parse_completion as extract

MOD = "module m\n\nenv f(n: Int) -> Int:\n    \"\"\"Double n.\"\"\"\n    return 2 * n\n"


def test_last_races_block_wins():
    text = f"First try:\n```races\nmodule old\n```\nBetter:\n```races\n{MOD}```\nDone."
    ex = extract(text)
    assert ex.text == MOD and ex.fence == "races" and ex.reason is None


def test_races_preferred_over_python():
    text = f"```races\n{MOD}```\nand in Python:\n```python\ndef env_f(n):\n    return 2 * n\n```"
    assert extract(text).text == MOD


def test_python_or_bare_fallback_needs_an_env():
    assert extract(f"```python\n{MOD}```").text == MOD
    assert extract(f"```\n{MOD}```").fence == ""
    ex = extract("```python\nprint('hi')\n```")
    assert ex.text is None and "no ```races block" in ex.reason


def test_no_block_and_plain_prose():
    for text in ("", "I cannot do that.", MOD):  # unfenced code is not taken
        ex = extract(text)
        assert ex.text is None and "no ```races block" in ex.reason


def test_unclosed_last_fence_is_taken():
    ex = extract("Here:\n```races\n" + MOD.rstrip("\n"))
    assert ex.text == MOD


def test_empty_and_oversized_blocks():
    assert "empty" in extract("```races\n\n```").reason
    big = "```races\n" + MOD + "# " + "x" * MAX_CHARS + "\n```"
    ex = extract(big)
    assert ex.text is None and "over the 20,000 allowed" in ex.reason


def test_longer_fences_and_tildes():
    assert extract(f"~~~races\n{MOD}~~~").text == MOD
    inner = f"````races\n{MOD}```\nstill inside\n````"
    assert extract(inner).text == MOD + "```\nstill inside\n"


def test_the_plain_hook():
    assert extract_module(f"```races\n{MOD}```") == MOD
    assert extract_module("no code") is None
