"""Every operator's task passes one gate (racesl.operators.build: `Builder._gate`) that asks
the keep rule (racesl.operators.outputs) of each item its answer is made of, in that item's
context; no operator answers around it."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from racesl.compile.generator import Generator
from racesl.operators.build import OPERATOR_BUILDERS, answer_items
from racesl.operators.outputs import OWN, after, contexts, looped
from racesl.search.config import CompileConfig, parse_operators
from tests.support.tasks import stdlib

VALUE_OPS = ("sequential", "parallel", "branch", "loop", "individual")


@pytest.fixture(scope="module")
def gen():
    return Generator(stdlib(), CompileConfig(n=50, seed=0, operators=parse_operators(
        "sequential=2-3,parallel=2-3,sort=2-3,select=2-3,branch=2-3,loop=2-3,individual")))


def _made(gen, name: str, size: int, tries: int = 40):
    quota = gen.search.initial_quota(gen.mean_size)
    for k in range(tries):
        stats: Counter = Counter()
        task = getattr(gen.builder, name)(random.Random(k), size, quota, stats)
        if task is not None:
            return task, stats
    pytest.fail(f"no {name} task in {tries} tries")


def test_every_operator_is_gated():
    assert set(OPERATOR_BUILDERS) == {"sequential", "parallel", "sort", "select", "branch", "loop", "individual"}
    for name, build in OPERATOR_BUILDERS.items():
        assert getattr(build, "__wrapped__", None) is not None, name  # (functools.wraps of _gated)


@pytest.mark.parametrize("name", VALUE_OPS)
def test_the_gate_asks_of_every_answer_item(gen, name, monkeypatch):
    """With the keep rule refusing everything, no value-answer operator makes a task, and the
    refusals are counted as `guessable`; with it allowing everything, each task's answer items
    are exactly what `answer_items` names, in the right context."""
    size = 1 if name == "individual" else 3
    asked: list = []
    monkeypatch.setattr(gen.builder.outputs, "keep", lambda env, text, rng, ctx=OWN: asked.append((env.qualname, text, ctx)) or True)
    task, _ = _made(gen, name, size)
    items = answer_items(task)
    assert items and {(q, t, c) for _, q, t, c in items} <= set(asked)
    answer_texts = {t for _, _, t, _ in items}
    if name in ("branch", "loop", "individual"):
        assert answer_texts == {task.answer}
    if name == "branch":
        assert items[0][3] == after(size - 1)
    if name == "loop":
        assert items[0][3] == looped(size)
    monkeypatch.setattr(gen.builder.outputs, "keep", lambda env, text, rng, ctx=OWN: False)
    quota = gen.search.initial_quota(gen.mean_size)
    refused = Counter()
    for k in range(10):
        stats: Counter = Counter()
        assert getattr(gen.builder, name)(random.Random(k), size, quota, stats) is None
        refused.update(stats)
    assert refused["guessable"] > 0


@pytest.mark.parametrize("name", ("sort", "select"))
def test_letter_answers_have_no_value_items(gen, name, monkeypatch):
    monkeypatch.setattr(gen.builder.outputs, "keep", lambda env, text, rng, ctx=OWN: False)
    task, _ = _made(gen, name, 3)
    assert answer_items(task) == []


def test_deep_answers_pass_every_profile_up_to_their_depth():
    assert contexts(OWN) == [OWN]
    assert contexts(after(2)) == [OWN, after(1), after(2)]
    assert contexts(after(9)) == [OWN, after(1), after(2), after(3)]  # (profiled to depth 3)
    assert contexts(looped(4)) == [OWN, looped(4)]
