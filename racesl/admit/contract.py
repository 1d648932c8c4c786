"""The contract gate (EvoEnv's L5 on racesl): on tasks whose chains run through the
candidate, every operator's reference answer scores 1.0 and perturbed answers score less.

The tasks are built by the compile's own search and operators over pool + candidate, with the
usage weights tilted so the search picks the candidate's environments; a task counts only
when its chain holds one of them. A module that no operator can build a task through fails
here too: it would add nothing to a compile.

The calibration gate's instances are built here too, with or without a model
(`calibration_instances`): the value tasks through the candidate, topped up with individual
tasks of its environments alone, so every candidate reaches a calibration decision and
every gate before calibration judges a module the same way in both modes.

Before any task, each `@verify` checker is scored against fixed non-reference answers
(racesl.admit.soundness): a checker that accepts a wrong answer on many inputs would make
every task through it reward that answer.
"""

from __future__ import annotations

import re
from collections import Counter

from racesl.search.config import DEFAULT_OPERATORS

SIZES = (2, 3)
TRIES_PER_TASK = 8  # attempts per wanted task before the gate gives up on the rest
WEIGHT = 1e6  # usage weight of a candidate environment (the pool's: 1)


def perturbations(answer: str, operator: str = "sequential") -> list[str]:
    """Wrong answers near the right one, each different from `answer` as text: a value's
    last digit or letter changed; for sort, two labels swapped (first two, last two) and
    the order reversed; for select (a choice, order free), a label not chosen put in."""
    out = []
    labels = list(dict.fromkeys(re.findall(r"\b[A-Z]\b", answer)))
    if operator == "select" and labels:
        spare = next(c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ" if c not in labels)
        out.append(re.sub(rf"\b{labels[0]}\b", spare, answer, count=1))
    elif operator == "sort" and len(labels) >= 2:
        for a, b in ((labels[0], labels[1]), (labels[-2], labels[-1])):
            out.append(re.sub(rf"\b[{a}{b}]\b", lambda x, a=a, b=b: b if x.group() == a else a, answer))
        out.append(", ".join(reversed(labels)))
    else:
        m = list(re.finditer(r"\d", answer))
        if m:
            i = m[-1].start()
            out.append(answer[:i] + str((int(answer[i]) + 1) % 10) + answer[i + 1:])
        m = list(re.finditer(r"[a-z]", answer))
        if m:
            i = m[-1].start()
            out.append(answer[:i] + ("b" if answer[i] == "a" else "a") + answer[i + 1:])
    return [p for p in dict.fromkeys(out) if p != answer]


VALUE_OPERATORS = ("sequential", "parallel", "branch", "loop", "individual")  # answers that are values
CHOICE_OPERATORS = ("sort", "select")  # answers that are labels: any that reaches the target is right


def _generator(cand, ctx, want: int, operators):
    from racesl.compile import Generator
    from racesl.search.config import CompileConfig

    cfg = CompileConfig(n=max(want, 1), seed=ctx.config.seed, operators=tuple((op, *SIZES) for op in operators))
    return Generator(cand.lib, cfg, graph=cand.graph)


def tasks_through(cand, ctx, want: int, operators=DEFAULT_OPERATORS, *, gen=None, tag: str = "contract",
                  seen: set | None = None) -> tuple[list[dict], Counter]:
    """Up to `want` task records whose chains hold a candidate environment, the operators
    taken in turn (each task's rng: `item_rng(seed, tag, module, i)`); the search's drop
    counts beside them. `seen`: task keys already taken (none is built twice)."""
    from racesl.records import to_record
    from racesl.sample.seeding import item_rng

    gen = gen if gen is not None else _generator(cand, ctx, want, operators)
    mine = {e.qualname for e in cand.envs}
    quota = {q: WEIGHT if q in mine else 1.0 for q in gen.search.names + gen.search.conditions}
    records, stats, seen = [], Counter(), set() if seen is None else seen
    for i in range(want * TRIES_PER_TASK):
        if len(records) >= want:
            break
        op = operators[i % len(operators)]
        rng = item_rng(ctx.config.seed, tag, cand.module, i)
        task = getattr(gen.builder, op)(rng, rng.choice(SIZES), quota, stats)
        if task is None or not mine.intersection(task.chain) or task.key() in seen:
            continue
        seen.add(task.key())
        records.append(to_record(task, i, ctx.config.seed, cand.lib.hash))
    return records, stats


def calibration_instances(cand, ctx, records: list[dict], gen, seen: set) -> tuple[list[dict], int]:
    """EvoEnv's m calibration instances: the value tasks among `records` (composed through the
    candidate), topped up where compositions are scarce with individual tasks of the
    candidate's environments alone (EvoEnv calibrates on instances of the candidate
    environment itself): first from the inputs the sample gate ran (`sampled_instances`),
    then from the compile's individual operator. Returns (instances, how many are individual)."""
    m = ctx.config.calibration_instances
    got = [r for r in records if r["operator"] in VALUE_OPERATORS][:m]
    if len(got) >= m:
        return got, 0
    extra = sampled_instances(cand, ctx, gen, m - len(got), seen)
    if len(got) + len(extra) < m:
        more, _ = tasks_through(cand, ctx, m - len(got) - len(extra), ("individual",), gen=gen, tag="calibration",
                                seen=seen)
        extra += more
    return got + extra, len(extra)


def sampled_instances(cand, ctx, gen, want: int, seen: set) -> list[dict]:
    """Up to `want` individual task records made from the sample gate's runs of the candidate's
    environments (input, settings, output): each a task the compile's individual operator
    could make — its output kept by the value filters, not the input itself, not shown by the
    description's example — chosen by a seeded shuffle, the environments taken in turn."""
    from racesl.catalogue.examples import outputs_shown
    from racesl.records import Task, to_record
    from racesl.runtime.contract import canonical
    from racesl.sample.seeding import item_rng
    from racesl.search.filters import value_filter

    builder, filters = gen.builder, gen.search.cfg.filters
    per_env: list[list[Task]] = []
    for env in cand.envs:
        if env.source:  # (a generator's instances are drawn with their answers: the operator makes them)
            continue
        tasks, inputs = [], set()
        for x, st, run in cand.outputs.get(env.qualname, ()):
            if not run.ok:
                continue
            x_text, y_text = canonical(x), canonical(run.value)
            if x_text in inputs or y_text == x_text or value_filter(filters, run.value, y_text):
                continue
            description = builder.describe(env, st)
            if y_text in outputs_shown(description):
                continue
            shown = {s.name: canonical(v) for s, v in zip(env.settings, st)}
            prompt = builder.tmpl["individual"].format(x0=x_text, input_name=env.input_name, description=description)
            task = Task("individual", 1, (env.qualname,), (shown,), x_text, (y_text,), prompt, y_text, run.steps, 0,
                        {"verify": True} if env.terminal else {})
            if task.key() in seen:
                continue
            inputs.add(x_text)
            tasks.append(task)
        item_rng(ctx.config.seed, "calibration", cand.module, env.qualname).shuffle(tasks)
        per_env.append(tasks)
    chosen: list[Task] = []
    while len(chosen) < want and any(per_env):
        for tasks in per_env:
            if tasks and len(chosen) < want:
                chosen.append(tasks.pop(0))
    for t in chosen:
        seen.add(t.key())
    return [to_record(t, 10_000 + i, ctx.config.seed, cand.lib.hash) for i, t in enumerate(chosen)]


def judge_record(r: dict) -> tuple[str | None, int, int]:
    """(the refusal, perturbed answers tried, perturbed answers scored below 1) of one task
    record: its reference answer must score 1, and for a value answer one perturbation must
    score less. A sort or select answer is a choice of labels, and any choice that reaches the
    target is right by the operator's definition (the reward re-executes it): a perturbed
    choice that scores 1 is another right answer, so it is counted, never a refusal (whether
    modes with and without model gates drew such a task decided the verdict before)."""
    from racesl.rewards import score

    got = score(r, f"<answer>{r['answer']}</answer>")
    if got != 1.0:
        return (f"the reference answer of a {r['operator']} task through {', '.join(r['chain'])} scores "
                f"{got:g}, not 1: the reward and the task disagree"), 0, 0
    wrong = perturbations(r["answer"], r["operator"])
    results = [score(r, f"<answer>{p}</answer>") for p in wrong]
    rejected = sum(x < 1.0 for x in results)
    if results and not rejected and r["operator"] not in CHOICE_OPERATORS:
        return (f"the reward of a {r['operator']} task through {', '.join(r['chain'])} accepts wrong "
                f"answers (e.g. {wrong[0]!r} for {r['answer']!r}): its outputs do not pin the answer"), \
            len(results), rejected
    return None, len(results), rejected


def contract(cand, ctx) -> str | None:
    from racesl.admit.soundness import unsound
    from racesl.rewards import register

    why = unsound(cand, ctx)  # a checker that accepts a fixed wrong answer: no task through it is sound
    if why is not None:
        return why
    register(cand.lib)
    gen = _generator(cand, ctx, ctx.config.contract_tasks, DEFAULT_OPERATORS)
    seen: set = set()
    records, stats = tasks_through(cand, ctx, ctx.config.contract_tasks, gen=gen, seen=seen)
    if not records:  # composed through nothing (its inputs are no environment's outputs): its own instances
        records = sampled_instances(cand, ctx, gen, ctx.config.contract_tasks, seen)
    if not records:
        records, more = tasks_through(cand, ctx, ctx.config.contract_tasks, ("individual",), gen=gen, seen=seen)
        stats.update(more)
    per_op = Counter(r["operator"] for r in records)
    scores = {"tasks": len(records), "by_operator": dict(sorted(per_op.items())), "reference_ok": 0,
              "perturbed": 0, "perturbed_rejected": 0, "other_right_choices": 0}
    cand.scores["contract"] = {**scores, **cand.scores.get("contract", {})}
    scores = cand.scores["contract"]
    if not records:
        top = ", ".join(f"{k} {v}" for k, v in stats.most_common(3)) or "no chain found"
        return (f"no task through the candidate could be built in {ctx.config.contract_tasks * TRIES_PER_TASK} "
                f"tries, nor one of its environments alone (search drops: {top}); its outputs may all be "
                "filtered values")
    # the calibration gate's instances are built here, with or without a model to ask: the
    # verdict of every gate before calibration does not depend on whether the model gates run
    instances, individual = calibration_instances(cand, ctx, records, gen, seen)
    scores["calibration_instances"] = {"built": len(instances), "individual": individual}
    for r in records + instances[len(instances) - individual:]:
        why, tried, rejected = judge_record(r)
        if why is not None:
            return why
        scores["reference_ok"] += 1
        scores["perturbed"] += tried
        scores["perturbed_rejected"] += rejected
        if r["operator"] in CHOICE_OPERATORS and tried and not rejected:
            scores["other_right_choices"] += 1
    cand.material["instances"] = instances[:ctx.config.calibration_instances]
    return None
