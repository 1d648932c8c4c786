"""Task operators: every record is consistent with its chain (replayed independently),
prompts show what the answer needs, and templates can be replaced."""

from __future__ import annotations

import math
import string
from collections import Counter

import pytest

from racesl import templates
from racesl.catalogue import examples
from racesl.compile import compile_tasks
from racesl.operators.build import MIN_SELECTIONS, describe
from racesl.records import Task
from racesl.runtime.watchdog import WATCHDOG
from racesl.runtime.contract import canonical, parse_literal
from racesl.search.config import DEFAULT_SIZES, CompileConfig, parse_operators
from tests.support.tasks import OPERATORS, letters, oracle_reaches, replay_chain, stdlib, stdlib_records

N = 600


@pytest.fixture(scope="module")
def lib():
    return stdlib()


@pytest.fixture(scope="module")
def by_op():
    out = {op: [] for op in OPERATORS}
    for r in stdlib_records(N, 0):
        out[r["operator"]].append(r)
    assert all(out[op] for op in OPERATORS), {k: len(v) for k, v in out.items()}
    return out


def _desc(lib, q, settings_text: dict) -> str:
    """The description as a prompt must show it: settings written in, and the example
    sentence worked for those settings (the stdlib's examples all run under any setting)."""
    env = lib.envs[q]
    settings = tuple(parse_literal(settings_text[s.name]) for s in env.settings)
    text = describe(env, settings)
    if not env.settings:
        return text
    ex = examples.parse(env.description)
    with WATCHDOG.session():
        out = lib.run(env, ex.input, settings)
    worked = f"Example: {canonical(ex.input)} -> {canonical(out.value)}." if out.ok else ""
    return text.replace(ex.text, worked).rstrip()


def test_examples_are_worked_for_the_settings_shown(lib, by_op):
    shown = 0
    for r in by_op["sequential"]:
        for q, st in zip(r["chain"], r["settings"]):
            env = lib.envs[q]
            if env.settings and ", with " not in examples.parse(env.description).text:
                continue
            if env.settings:
                line = _desc(lib, q, st)
                assert ", with " not in line.split("Example")[-1], line  # the author's settings never show
                shown += "Example: " in line
    assert shown > 20


def test_sizes_in_range(by_op):
    for op, recs in by_op.items():
        lo, hi = DEFAULT_SIZES[op]
        assert all(lo <= r["size"] <= hi for r in recs), op


@pytest.mark.parametrize("op", ["sequential", "sort", "select"])
def test_chains_replay(lib, by_op, op):
    for r in by_op[op]:
        assert len(r["chain"]) == len(r["trace"]) == r["size"]
        assert replay_chain(lib, r["input"], r["chain"], r["settings"]) == r["trace"], r["id"]
        states = [r["input"], *r["trace"]]
        assert len(set(states)) == len(states), r["id"]  # no state repeated along the path
        for q in r["chain"][:-1]:
            assert not lib.envs[q].terminal  # a terminal environment only ends chains
        for a, b in zip(r["chain"], r["chain"][1:]):
            if a == b:
                assert not {"idempotent", "involution"} & set(lib.envs[a].laws), r["id"]


def test_sequential(lib, by_op):
    for r in by_op["sequential"]:
        assert r["answer"] == "[" + ", ".join(r["trace"]) + "]"
        assert r["extra"].get("verify", False) == lib.envs[r["chain"][-1]].terminal
        p = r["prompt"]
        assert f"Input: {r['input']}" in p
        for k, (q, st) in enumerate(zip(r["chain"], r["settings"]), 1):
            assert f"{k}. (its input is called {lib.envs[q].input_name}) {_desc(lib, q, st)}" in p
        assert "<answer>" in p


def test_parallel(lib, by_op):
    for r in by_op["parallel"]:
        inputs = r["extra"]["inputs"]
        assert len(inputs) == len(r["chain"]) == len(r["trace"]) == r["size"]
        assert r["input"] == inputs[0]
        assert r["answer"] == "[" + ", ".join(r["trace"]) + "]"
        items = set()
        for k, (q, st, x, y) in enumerate(zip(r["chain"], r["settings"], inputs, r["trace"]), 1):
            assert replay_chain(lib, x, [q], [st]) == [y], r["id"]
            assert f"Problem {k}. {_desc(lib, q, st)}\nInput {lib.envs[q].input_name} = {x}" in r["prompt"]
            items.add((q, x, y))
        assert len(items) == r["size"]  # no item repeated


def test_sort(lib, by_op):
    for r in by_op["sort"]:
        cands = r["extra"]["candidates"]
        assert r["extra"]["target"] == r["trace"][-1]
        assert len(cands) == r["size"]
        labels = r["answer"].split(", ")
        assert sorted(labels) == letters(r["size"])
        for lab, q, st in zip(labels, r["chain"], r["settings"]):
            assert cands[ord(lab) - 65] == {"env": q, "settings": st}
        assert oracle_reaches(lib, r, labels)
        p = r["prompt"]
        assert r["input"] in p and r["extra"]["target"] in p
        for k, c in enumerate(cands):
            assert f"({letters(26)[k]}) (its input is called {lib.envs[c['env']].input_name}) " \
                   f"{_desc(lib, c['env'], c['settings'])}" in p


def test_select(lib, by_op):
    for r in by_op["select"]:
        cands = r["extra"]["candidates"]
        distractors = len(cands) - r["size"]
        lo, hi = CompileConfig().distractors
        assert lo <= distractors  # the range, raised for short paths (MIN_SELECTIONS)
        assert distractors <= hi or math.perm(len(cands) - 1, r["size"]) < MIN_SELECTIONS
        assert math.perm(len(cands), r["size"]) >= MIN_SELECTIONS
        labels = r["answer"].split(", ")
        assert len(set(labels)) == len(labels) == r["size"]
        for lab, q, st in zip(labels, r["chain"], r["settings"]):
            assert cands[ord(lab) - 65] == {"env": q, "settings": st}
        others = [c for k, c in enumerate(cands) if letters(26)[k] not in labels]
        assert not {c["env"] for c in others} & set(r["chain"])  # distractors are other environments
        assert len({c["env"] for c in others}) == len(others)
        assert oracle_reaches(lib, r, labels)
        for c in cands:
            assert _desc(lib, c["env"], c["settings"]) in r["prompt"]


def test_select_distractors_are_domain_compatible(lib, by_op):
    """A distractor was executable where it was met: its input type matches the shape of
    some state along the path."""
    from racesl.types import types as T

    for r in by_op["select"]:
        shapes = {T.erase(lib.envs[q].input) for q in r["chain"]}
        for c in r["extra"]["candidates"]:
            assert T.erase(lib.envs[c["env"]].input) in shapes, (r["id"], c["env"])


def test_branch(lib, by_op):
    for r in by_op["branch"]:
        ex = r["extra"]
        cond = ex["condition"]
        assert replay_chain(lib, r["input"], [cond["env"]], [cond["settings"]]) == [canonical(ex["value"])]
        n = r["size"]
        assert len(ex["then"]) == len(ex["else"]) == n
        assert r["chain"] == [cond["env"], *ex["then"], *ex["else"]]
        then_t = replay_chain(lib, r["input"], ex["then"], r["settings"][1:1 + n])
        else_t = replay_chain(lib, r["input"], ex["else"], r["settings"][1 + n:])
        assert r["trace"] == [canonical(ex["value"]), *then_t, *else_t]
        assert then_t[-1] != else_t[-1]  # the condition matters
        assert r["answer"] == (then_t if ex["value"] else else_t)[-1]
        assert _desc(lib, cond["env"], cond["settings"]) in r["prompt"]
        assert f"Let x = {r['input']}." in r["prompt"]


def test_loop(lib, by_op):
    for r in by_op["loop"]:
        k = r["extra"]["times"]
        assert k == r["size"] == len(r["trace"])
        assert len(r["chain"]) == 1 and len(r["settings"]) == 1
        q = r["chain"][0]
        assert replay_chain(lib, r["input"], [q] * k, r["settings"] * k) == r["trace"]
        assert len({r["input"], *r["trace"]}) == k + 1
        assert r["answer"] == r["trace"][-1]
        assert not {"idempotent", "involution"} & set(lib.envs[q].laws)
        assert f"{k} times" in r["prompt"] and _desc(lib, q, r["settings"][0]) in r["prompt"]


def test_task_keys_are_unique(lib):
    from tests.support.tasks import stdlib_tasks

    tasks, summary = stdlib_tasks(N, 0)
    assert len({t.key() for t in tasks}) == len(tasks)
    assert summary.by_operator == Counter(t.operator for t in tasks)
    assert summary.tasks == len(tasks) == sum(summary.by_size.values())
    for t in tasks:
        assert isinstance(t, Task)
        assert t.steps >= 0


def test_templates_are_format_strings():
    fields = {"sequential": {"x0", "steps"}, "parallel": {"problems"}, "sort": {"x0", "target", "candidates", "count"},
              "select": {"x0", "target", "candidates"}, "branch": {"x0", "condition", "then_steps", "else_steps"},
              "loop": {"x0", "times", "description"}}
    for op in OPERATORS:
        names = {f for _, f, _, _ in string.Formatter().parse(templates.DEFAULTS[op]) if f}
        assert fields[op] <= names, op
        assert "<answer>" in templates.DEFAULTS[op]


def test_custom_templates(lib):
    tmpl = {op: f"[{op}] x0={{x0}}" if op not in ("parallel",) else "[parallel] {count} {problems}" for op in OPERATORS}
    tmpl["loop"] = "[loop] {x0} {times} {input_name}: {description}"
    cfg = CompileConfig(n=60, seed=1, templates=tmpl,
                        operators=parse_operators(",".join(f"{op}=2-3" for op in OPERATORS)))
    tasks, _ = compile_tasks(lib, cfg)
    seen = set()
    for t in tasks:
        assert t.prompt.startswith(f"[{t.operator}] "), t.prompt[:80]
        seen.add(t.operator)
        if t.operator not in ("parallel", "loop"):
            assert t.prompt == f"[{t.operator}] x0={t.input}"
    assert seen == set(OPERATORS)
    # the templates change prompts only, never the tasks
    plain, _ = compile_tasks(lib, CompileConfig(n=60, seed=1, operators=cfg.operators))
    assert [t.key() for t in plain] == [t.key() for t in tasks]
