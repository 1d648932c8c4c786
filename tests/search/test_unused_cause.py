"""`racesc compile` names the real cause of an environment it never used: a filter that drops
every output is named even when the environment has no edge either (issue 48: a never-used
environment whose outputs all passed the 100-character text limit was said to have no
composing types)."""

from __future__ import annotations

import json

from racesl.cli.main import main

SOURCE = '''module wide

type Code = Str where 1 <= len(it) <= 8 and it.isalpha() and it.islower()

@sample(p=pick_pair)
env spell(p: Tuple[Str, Int where 1 <= it <= 3]) -> List[Str]:
    """Spell out each letter of the first item of p as a long phrase, as many times as its second."""
    return [c + " is the letter after " + chr(ord(c) - 1) + " in the alphabet" for c in p[0]] * p[1]

def pick_pair(rng, level) -> Tuple[Str, Int]:
    return (rng.choice(["cab", "dog", "bird"]), rng.randint(1, 3))

@sample(s=pick)
env twice(s: Code) -> Code:
    """Write s twice, then keep the first eight letters."""
    return (s + s)[:8]

@sample(s=pick)
env rotate(s: Code) -> Code:
    """Move the first letter of s to the end."""
    return s[1:] + s[:1]

def pick(rng, level) -> Str:
    return rng.choice(["cab", "dog", "bird", "fish", "horse"])
'''


def test_a_filter_is_named_before_the_missing_edges(tmp_path, capsys):
    src = tmp_path / "wide.races"
    src.write_text(SOURCE, encoding="utf-8")
    rc = main(["compile", str(src), "-n", "20", "-o", str(tmp_path / "t.jsonl"), "--json", "--no-audit"])
    assert rc in (0, 1)
    summary = json.loads(capsys.readouterr().out)
    unused = summary["never_used"]
    assert "wide.spell" in unused, unused
    assert "long_text" in unused["wide.spell"] and "max_text" in unused["wide.spell"], unused["wide.spell"]
