"""`racesc run`'s one line for an input or setting that is not a valid value (issue 35), as
goldens: the whole line, exactly. A value of the right base type names the refinement it
misses (by its declared name where it has one), not the base type it has; a refinement
check that was cut off says so (it counts as false, which is not the same as false)."""

from __future__ import annotations

import pytest

from racesl.cli.main import main

SOURCE = '''type Small = Int where 0 <= it <= 5

def slow_ok(s: Str) -> Bool:
    t = 0
    for i in range(100000):
        t += 1
    return True

type Slow = Str where slow_ok(it)

env bump(x: Small) -> Int:
    """Add one to x."""
    return x + 1

env inline(x: Int where 0 <= it <= 5, k: Small) -> Int:
    """Add {k} to x."""
    return x + k

env echo(s: Slow) -> Str:
    """Return s."""
    return s

env inline_slow(s: Str where slow_ok(it)) -> Str:
    """Return s."""
    return s

env count(xs: List[Small] where len(it) <= 3) -> Int:
    """Count the items of xs."""
    return len(xs)

env lcm(p: Tuple[Int where 1 <= it <= 100, Int where 1 <= it <= 100]) -> Int:
    """Multiply the two numbers of p."""
    return p[0] * p[1]

type Pos = Int where it > 0

env lcm_named(p: Tuple[Pos, Pos]) -> Int:
    """Multiply the two numbers of p."""
    return p[0] * p[1]

env tagged(p: Tuple[Str where slow_ok(it), Int where it > 0]) -> Int:
    """Return the number of p."""
    return p[1]
'''

# (environment, arguments, the line racesc writes to stderr)
GOLDEN = [
    ("bump", ["--input", "7"], "racesc: input 1: 7 is an Int but not a Small (0 <= it <= 5)"),
    ("bump", ["--input", "'7'"],
     "racesc: input 1: not a Small: expected Int where 0 <= it <= 5, got str '7'"),
    ("inline", ["--input", "7", "--setting", "k=1"],
     "racesc: input 1: 7 is an Int but outside its refinement (0 <= it <= 5)"),
    ("inline", ["--input", "1", "--setting", "k=9"],
     "racesc: error: setting k: 9 is an Int but not a Small (0 <= it <= 5)"),
    ("echo", ["--input", "'abc'"],
     "racesc: input 1: 'abc' is a Str, but checking whether it is a Slow (`slow_ok(it)`) was stopped: fuel, "
     "which counts as false"),
    ("inline_slow", ["--input", "'abc'"],
     "racesc: input 1: 'abc' is a Str, but checking its refinement (`slow_ok(it)`) was stopped: fuel, "
     "which counts as false"),
    ("echo", ["--input", "5"], "racesc: input 1: not a Slow: expected Str where slow_ok(it), got int 5"),
    ("count", ["--input", "[1, 9]"],
     "racesc: input 1: [1, 9] is a List[Int] but not a List[Small]: element 1: 9 violates 0 <= it <= 5"),
    ("count", ["--input", "[1, 2, 3, 4]"],
     "racesc: input 1: [1, 2, 3, 4] is a List[Small] but outside its refinement (len(it) <= 3)"),
    ("lcm", ["--input", "(0, 3)"],  # refinements inside the type: shown, not the erased type twice
     "racesc: input 1: (0, 3) is a Tuple[Int, Int] but not a Tuple[Int where 1 <= it <= 100, "
     "Int where 1 <= it <= 100]: component 0: 0 violates 1 <= it <= 100"),
    ("lcm_named", ["--input", "(0, 3)"],  # the alias the signature writes
     "racesc: input 1: (0, 3) is a Tuple[Int, Int] but not a Tuple[Pos, Pos]: component 0: 0 violates it > 0"),
    ("lcm", ["--input", "(0, 'b')"],  # the shape it misses (component 1), not a refinement met first
     "racesc: input 1: not a Tuple[Int where 1 <= it <= 100, Int where 1 <= it <= 100]: component 1: "
     "expected Int where 1 <= it <= 100, got str 'b'"),
    ("tagged", ["--input", "('a', 3)"],  # a check inside the type cut off: the refined type, not "its"
     "racesc: input 1: ('a', 3) is a Tuple[Str, Int], but checking whether it is a Tuple[Str where "
     "slow_ok(it), Int where it > 0] (`slow_ok(it)`) was stopped: fuel, which counts as false"),
]


@pytest.mark.parametrize("env,args,line", GOLDEN, ids=[f"{g[0]}-{k}" for k, g in enumerate(GOLDEN)])
def test_an_invalid_value_is_one_line_naming_what_it_misses(tmp_path, capsys, env, args, line):
    p = tmp_path / "m.races"
    p.write_text(SOURCE, encoding="utf-8")
    rc = main(["run", str(p), env, *args])
    out, err = capsys.readouterr()
    assert line in err.splitlines(), err
    assert "Traceback" not in err
    assert (rc, out) == ((2, "") if "error:" in line else (0, "!input\n"))
