"""Scoring completions against task records (RACES rewards, plus branch and loop).

- sequential: longest correct prefix of the intermediate outputs, K / t;
- parallel: mean correctness over the items;
- sort: 1 when running all candidates in the answered order from x0 reaches the target;
- select: 1 when running the answered distinct candidates from x0 reaches the target;
- branch, loop: 1 when the final value is right.
"""

from __future__ import annotations

from racesl.rewards.libraries import library_for
from racesl.rewards.parse import _parse, expected_value, extract_answer, matches, parse_labels, split_items
from racesl.runtime.contract import canonical, parse_literal


def score(record: dict, completion) -> float:
    """The reward of a completion for a task record, in [0, 1]. Never raises."""
    try:
        given = extract_answer(completion)
        if given is None:
            return 0.0
        if given == record["answer"]:
            return 1.0
        op = record["operator"]
        if op in ("sequential", "parallel"):
            return _prefix_or_mean(record, given, op)
        if op in ("branch", "loop"):
            return 1.0 if matches(given, record["answer"]) else 0.0
        if op in ("sort", "select"):
            return _reexecute(record, given, op)
        return 0.0
    except Exception:  # a reward must never take training down
        return 0.0


def _items(given: str) -> list[str]:
    """The answer's items as canonical texts where the whole answer is a literal list (the
    common case, one parse), else as raw item texts split tolerantly."""
    ok, value = _parse(given)
    if ok and type(value) in (list, tuple):
        return [canonical(v) for v in value]
    items = split_items(given)
    return items if items is not None else [given]


def _prefix_or_mean(record: dict, given: str, op: str) -> float:
    expected = record["trace"]
    items = _items(given)
    if op == "parallel":
        return sum(1 for got, want in zip(items, expected) if matches(got, want)) / len(expected)
    verify_last = bool(record.get("extra", {}).get("verify"))
    k = 0
    for pos, (got, want) in enumerate(zip(items, expected)):
        last = pos == len(expected) - 1
        if last and verify_last:
            ok = _verified(record, got)
        else:
            ok = matches(got, want)
        if not ok:
            break
        k += 1
    return k / len(expected)


def _verified(record: dict, got: str) -> bool:
    """The last step ends in a @verify environment: any answer its checker accepts is right."""
    if matches(got, record["trace"][-1]):
        return True
    lib = library_for(record["library"])
    if lib is None:
        return False
    env = lib.envs.get(record["chain"][-1])
    if env is None or env.verify is None:
        return False
    try:
        value = parse_literal(got)
    except ValueError:
        return False
    if lib.conforms(value, env.output) is not None:
        return False
    x = expected_value(record["trace"][-2] if len(record["trace"]) > 1 else record["input"])
    out = lib.program.call(env.verify, (x, value))
    return out.status == "ok" and out.value is True


def _reexecute(record: dict, given: str, op: str) -> float:
    labels = parse_labels(given)
    if not labels:
        return 0.0
    extra = record["extra"]
    cands = extra["candidates"]
    letters = [chr(ord("A") + k) for k in range(len(cands))]
    if len(set(labels)) != len(labels) or any(lab not in letters for lab in labels):
        return 0.0
    if op == "sort" and len(labels) != len(cands):
        return 0.0
    if ", ".join(labels) == record["answer"]:
        return 1.0
    lib = library_for(record["library"])
    if lib is None:
        return 0.0
    value = expected_value(record["input"])
    fuel = 400
    for lab in labels:
        c = cands[letters.index(lab)]
        env = lib.envs.get(c["env"])
        if env is None:
            return 0.0
        settings = tuple(expected_value(c["settings"][s.name]) for s in env.settings)
        if lib.conforms(value, env.input) is not None:
            return 0.0
        r = lib.run(env, value, settings, fuel=fuel)
        if not r.ok:
            return 0.0
        value = r.value
    return 1.0 if canonical(value) == extra["target"] else 0.0
