"""The two compiler paths agree: in-process and `--untrusted` (issue 17).

In-process, `Library.run` executes the instrumented AST compiled directly; a
`SandboxRunner` worker executes `lower_to_source`'s text, which CPython re-reads (and
NFKC-normalises names in). The same call must give the same status, value and steps in
both, over the bundled stdlib and over small programs aimed at the places where AST and
text can part ways (non-ASCII names, big constants, strings with escapes).
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from racesl.library import load
from racesl.resources import stdlib_dir
from racesl.runtime.contract import canonical
from racesl.sample.seeding import item_rng
from racesl.sandbox_runner import SandboxRunner

SEED = 5
FUEL = 400
WALL = 2.0
# Wall-clock limits are not part of the comparison: a loaded machine may hit one in one mode only.
_UNTIMED = ("timeout",)


def _outcome(r) -> tuple:
    """Status, value and steps. Steps only where both modes define them: a run that ends or
    runs out of fuel. After another cut-off the in-process meter holds no step count
    (`Program.function`), so `Library.run` reports 0, while a worker reports the steps
    charged before the cut."""
    done = r.status in ("ok", "contract")
    return r.status, canonical(r.value) if done else None, r.steps if done or r.status == "fuel" else None


def _compare(lib, calls) -> list[str]:
    """calls: (env, x, settings). In-process first, then the same calls in one worker."""
    here = [lib.run(env, copy.deepcopy(x), copy.deepcopy(st), fuel=FUEL, wall=WALL) for env, x, st in calls]
    with SandboxRunner(lib, wall=WALL) as runner:
        there = [runner.run(env, copy.deepcopy(x), copy.deepcopy(st), fuel=FUEL, wall=WALL)
                 for env, x, st in calls]
    problems = []
    for (env, x, st), a, b in zip(calls, here, there):
        if a.status in _UNTIMED or b.status in _UNTIMED:
            continue
        if _outcome(a) != _outcome(b):
            shown = f"{env.qualname}({', '.join(canonical(v) for v in (x, *st))})"
            problems.append(f"{shown}: in-process {_outcome(a)} {a.detail or ''}; "
                            f"worker {_outcome(b)} {b.detail or ''}")
    return problems


def test_stdlib_answers_the_same_in_both_modes():
    lib = load(sorted(stdlib_dir().glob("*.races")))
    assert len(lib.root_envs) >= 50
    calls = []
    for env in lib.root_envs:
        for i, level in enumerate((0, 2)):
            rng = item_rng(SEED, env.qualname, i)
            x = lib.sample_input(env, rng, level)
            calls.append((env, x, lib.sample_settings(env, rng, level)))
    problems = _compare(lib, calls)
    assert not problems, "\n".join(problems[:20])


PROGRAMS = '''module twomodes

env nfkc(x: Int) -> Int:
    """`ﬁ` and `fi` are one name (CPython reads source text so)."""
    ﬁ = 1
    fi = 2
    ｙ = 10
    return ﬁ + y + x

env wide_names(s: Str where len(it) <= 8) -> Str:
    """Non-ASCII names, attributes and keyword arguments."""
    ｖａｌｓ = [s, s.upper()]
    return "-".join(sorted(ｖａｌｓ, reverse=True))

env escapes(n: Int where 0 <= it <= 5) -> Str:
    """Escapes and quotes survive the round trip through text."""
    t = "a\\tb\\n'\\"\\\\" * n
    return f"{t!r}|{n:>4}|{'é' * n}"

env big_constant(x: Int where 0 <= it <= 9) -> Int:
    """A constant wider than the int-to-str limit, written in hex."""
    k = 0x''' + "f" * 1200 + '''
    return (k >> (4 * 1190)) + x

env runs_out(n: Int where 0 <= it <= 100) -> Int:
    """Fuel ends at the same step in both."""
    t = 0
    for i in range(n * 100):
        t += i
    return t

env grows(n: Int where 0 <= it <= 30) -> Int:
    """A size guard trips in both, or in neither."""
    s = "ab"
    for _ in range(n):
        s = s + s
    return len(s)

def down(n: Int) -> Int:
    return 0 if n <= 0 else 1 + down(n - 1)

env recurse(n: Int where 0 <= it <= 5000) -> Int:
    """Recursion bound."""
    return down(n)

env fails(n: Int where 0 <= it <= 3) -> Int:
    """Assertion and error statuses."""
    assert n != 1, "one"
    return [1, 2][n]

env dicts(xs: List[Int] where len(it) <= 6) -> List[Tuple[Int, Int]]:
    """Order of dicts and sets is part of the value."""
    d = {}
    for v in xs:
        d[v % 3] = d.get(v % 3, 0) + v
    return sorted(d.items()) + [(len(set(xs)), sum(xs))]
'''


def test_handwritten_programs_answer_the_same_in_both_modes(tmp_path: Path):
    src = tmp_path / "twomodes.races"
    src.write_text(PROGRAMS, encoding="utf-8")
    lib = load([src])
    envs = {env.name: env for env in lib.root_envs}
    inputs = {
        "nfkc": [0, 5],
        "wide_names": ["", "ab", "ﬁx"],
        "escapes": [0, 3],
        "big_constant": [0, 9],
        "runs_out": [0, 1, 100],
        "grows": [1, 30],
        "recurse": [3, 5000],
        "fails": [0, 1, 3],
        "dicts": [[], [3, 1, 4, 1, 5, 9]],
    }
    assert set(inputs) == set(envs)
    calls = [(envs[name], x, ()) for name, xs in inputs.items() for x in xs]
    problems = _compare(lib, calls)
    assert not problems, "\n".join(problems)
    nfkc = lib.run(envs["nfkc"], 5)
    assert (nfkc.status, nfkc.value) == ("ok", 2 + 10 + 5)  # `ﬁ` is `fi`: the later store wins


@pytest.mark.parametrize("x", [0, 7])
def test_random_inputs_of_the_handwritten_programs(tmp_path: Path, x):
    """Sampled inputs too, so the comparison does not rest on the inputs chosen above."""
    src = tmp_path / "twomodes.races"
    src.write_text(PROGRAMS, encoding="utf-8")
    lib = load([src])
    calls = []
    for env in lib.root_envs:
        rng = item_rng(SEED + x, env.qualname, x)
        calls.append((env, lib.sample_input(env, rng, 2), ()))
    problems = _compare(lib, calls)
    assert not problems, "\n".join(problems)
