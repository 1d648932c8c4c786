"""Every written generator task re-derives (issue 45, racesl.operators.rederive): a pair a
generator environment drew is held to its body (or its @verify checker) before the task is
written, in `Generator.make`, the one gate of compile, the training stream and the
curriculum; a pair that disagrees is dropped and counted (`generator_disagrees`), never
written. Compiles under two hash seeds, in fresh processes, are byte-identical."""

from __future__ import annotations

import ast
import json
from collections import Counter
from pathlib import Path

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from racesl.check import check_paths
from racesl.compile import Generator
from racesl.library import Library
from racesl.operators import rederive
from racesl.sample.seeding import item_rng
from racesl.search.config import CompileConfig
from tests.support.generators import LIAR
from tests.support.tasks import run_racesc

# add_up's helper agrees with the body at levels 0-2 and adds 1 from level 3 on; unreverse
# has no body, and its helper draws a wrong answer at level 4 and up, which its checker
# rejects; halve and shout take their outputs, so both start chains
SOURCE = LIAR + '''
env halve(n: Int where 0 <= it <= 200) -> Int where 0 <= it <= 100:
    """Halve n, rounding down."""
    return n // 2

def word(rng, level) -> Tuple[Str where 3 <= len(it) <= 6 and it.isalpha() and it.islower(), Str where 3 <= len(it) <= 6 and it.isalpha() and it.islower()]:
    w = rng.choice(["kitten", "turtle", "violin", "pencil", "rocket", "jungle", "button", "carrot", "dragon",
                    "frozen", "guitar", "hammer", "jacket", "ladder", "monkey", "muffin", "pepper", "pocket",
                    "potato", "purple", "rabbit", "summer", "tomato", "window", "yellow", "zebra", "tiger",
                    "honey", "apple", "eagle", "cherry", "coffee", "banana", "basket", "bridge", "butter"])
    if level >= 4:
        return (w[::-1], w[1:] + w[0])
    return (w[::-1], w)

def reversed_of(s, w) -> Bool:
    return w[::-1] == s

@generate(word)
@verify(reversed_of)
env unreverse(s: Str where 3 <= len(it) <= 6 and it.isalpha() and it.islower()) -> Str where 3 <= len(it) <= 6 and it.isalpha() and it.islower():
    """Reverse the letters of s back into a common English word."""

env shout(s: Str where 3 <= len(it) <= 6 and it.isalpha() and it.islower()) -> Str:
    """Write s in capital letters."""
    return s.upper()
'''
OPS = (("sequential", 2, 3), ("parallel", 2, 3), ("sort", 2, 3), ("select", 2, 3), ("individual", 1, 1))


def truth(q: str, x_text: str, answer: str) -> bool:
    """The right answer, worked out here from the task's input alone (not by racesl)."""
    x = ast.literal_eval(x_text)
    if q == "liar.add_up":
        return int(answer) == sum(x)
    if q == "liar.unreverse":
        return ast.literal_eval(answer) == x[::-1]
    return True


def pairs(task) -> list[tuple[str, str, str]]:
    out = []
    for k, q in enumerate(task.chain):
        if q in ("liar.add_up", "liar.unreverse"):
            x = task.extra["inputs"][k] if task.operator == "parallel" else task.input
            assert k == 0 or task.operator == "parallel"
            out.append((q, x, task.trace[k]))
    return out


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    d = tmp_path_factory.mktemp("liar")
    (d / "liar.races").write_text(SOURCE, encoding="utf-8")
    (d / "races.toml").write_text("[compile]\nmax_level = 6\n", encoding="utf-8")
    return d


@pytest.fixture(scope="module")
def gen(project):
    checked = check_paths([project / "liar.races"])
    assert checked.ok, [d.headline() for d in checked.diagnostics]
    lib = Library(checked)
    return Generator(lib, CompileConfig(n=100, seed=0, max_level=6, operators=OPS))


@given(st.integers(0, 2**32), st.sampled_from(OPS))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_every_made_generator_task_rederives(gen, i, op):
    name, lo, hi = op
    rng = item_rng(7, "rederive", i)
    quota = {q: 1e6 for q in gen.search.names}
    stats: Counter = Counter()
    task = gen.make(name, rng.randint(max(lo, 2) if name != "individual" else 1, hi), rng, quota, stats)
    if task is None:
        return
    for q, x, answer in pairs(task):
        assert truth(q, x, answer), (task.operator, q, x, answer)


def test_disagreeing_pairs_are_dropped_and_counted(gen):
    stats: Counter = Counter()
    made = checked = 0
    quota = {q: 1e6 for q in gen.search.names}
    for i in range(300):
        rng = item_rng(3, "dropped", i)
        name, lo, hi = OPS[i % len(OPS)]
        task = gen.make(name, hi, rng, quota, stats)
        if task is not None:
            made += 1
            for q, x, answer in pairs(task):
                checked += 1
                assert truth(q, x, answer)
    assert made > 50 and checked > 20
    assert stats[rederive.REASON] > 10  # levels 3-6 of add_up, 4-6 of unreverse


@pytest.fixture(scope="module")
def singles(gen) -> dict:
    """An individual task of each generator environment: {environment: task}."""
    quota = {q: 1e6 for q in gen.search.names}
    made: dict = {}
    for k in range(2000):
        task = gen.make("individual", 1, item_rng(1, "singles", k), quota, Counter())
        if task is not None and pairs(task):
            made.setdefault(task.chain[0], task)
        if len(made) == 2:
            return made
    raise AssertionError(f"no individual task of each generator in 2000 draws: {sorted(made)}")


@pytest.mark.parametrize("q", ["liar.add_up", "liar.unreverse"])
def test_the_gate_reads_a_task_alone_and_never_raises(gen, singles, q):
    task = singles[q]
    lib = gen.lib
    assert rederive.disagrees(lib, task) is None
    wrong = "'zzzzzz'" if q == "liar.unreverse" else str(int(task.answer) + 1)
    assert rederive.disagrees(lib, attrs.evolve(task, trace=(wrong,), answer=wrong)) is not None
    for bad in ("", "[", "1e400", "(", "'" * 3, "x" * 100_001):
        assert rederive.disagrees(lib, attrs.evolve(task, trace=(bad,), answer=bad)) is not None
        assert rederive.disagrees(lib, attrs.evolve(task, input=bad)) is not None


@given(st.one_of(st.text(max_size=40), st.integers(-5, 300).map(str), st.sampled_from(
    ["'kitten'", '"kitten"', "'turtle'", " 12", "12 ", "True", "[1]", "1e400", "None"])))
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_any_recorded_answer_text_is_judged_without_raising(gen, singles, text):
    """A body's answer must be the recorded text exactly (answers are canonical texts); a
    checker judges the recorded value, however it is quoted."""
    from racesl.runtime.contract import parse_literal

    for q, task in singles.items():
        why = rederive.disagrees(gen.lib, attrs.evolve(task, trace=(text,), answer=text))
        if q == "liar.add_up":
            holds = text == task.answer
        else:
            try:
                holds = parse_literal(text) == ast.literal_eval(task.input)[::-1]
            except ValueError:
                holds = False
        assert (why is None) == holds, (q, text, why)


def _compile(project: Path, out: str, seed: str, workers: str = "1") -> tuple[dict, bytes]:
    p = run_racesc("compile", ".", "-n", "60", "--seed", "2", "-o", out, "--json", "--workers", workers,
                   "--operators", "sequential=2-3,parallel=2-3,individual=1", cwd=project,
                   env={"PYTHONHASHSEED": seed}, timeout=600)
    return json.loads(p.stdout), (project / out).read_bytes()


def test_compile_drops_counts_and_never_writes_a_disagreeing_pair(project):
    summary, data = _compile(project, "a.jsonl", "1")
    assert summary["tasks"] == 60
    assert summary["dropped"].get(rederive.REASON, 0) > 0
    seen = 0
    for line in data.decode().splitlines():
        r = json.loads(line)
        for k, q in enumerate(r["chain"]):
            if q in ("liar.add_up", "liar.unreverse"):
                x = r["extra"]["inputs"][k] if r["operator"] == "parallel" else r["input"]
                assert truth(q, x, r["trace"][k]), r
                seen += 1
    assert seen >= 10
    # a fresh process with another hash seed, and two workers: the same bytes
    again, data2 = _compile(project, "b.jsonl", "2", workers="2")
    assert data2 == data and again["dropped"] == summary["dropped"]
