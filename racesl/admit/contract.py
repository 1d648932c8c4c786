"""The contract gate (EvoEnv's L5 on racesl): on tasks whose chains run through the
candidate, every operator's reference answer scores 1.0 and perturbed answers score less.

The tasks are built by the compile's own search and operators over pool + candidate, with the
usage weights tilted so the search picks the candidate's environments; a task counts only
when its chain holds one of them. A module that no operator can build a task through fails
here too: it would add nothing to a compile.

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


def tasks_through(cand, ctx, want: int, operators=DEFAULT_OPERATORS) -> tuple[list[dict], Counter]:
    """Up to `want` task records whose chains hold a candidate environment, the operators
    taken in turn; the search's drop counts beside them."""
    from racesl.compile import Generator
    from racesl.records import to_record
    from racesl.sample.seeding import item_rng
    from racesl.search.config import CompileConfig

    cfg = CompileConfig(n=max(want, 1), seed=ctx.config.seed, operators=tuple((op, *SIZES) for op in operators))
    gen = Generator(cand.lib, cfg, graph=cand.graph)
    mine = {e.qualname for e in cand.envs}
    quota = {q: WEIGHT if q in mine else 1.0 for q in gen.search.names + gen.search.conditions}
    records, stats, seen = [], Counter(), set()
    for i in range(want * TRIES_PER_TASK):
        if len(records) >= want:
            break
        op = operators[i % len(operators)]
        rng = item_rng(ctx.config.seed, "contract", cand.module, i)
        task = getattr(gen.builder, op)(rng, rng.choice(SIZES), quota, stats)
        if task is None or not mine.intersection(task.chain) or task.key() in seen:
            continue
        seen.add(task.key())
        records.append(to_record(task, i, ctx.config.seed, cand.lib.hash))
    return records, stats


def contract(cand, ctx) -> str | None:
    from racesl.admit.soundness import unsound
    from racesl.rewards import register, score

    why = unsound(cand, ctx)  # a checker that accepts a fixed wrong answer: no task through it is sound
    if why is not None:
        return why
    register(cand.lib)
    records, stats = tasks_through(cand, ctx, ctx.config.contract_tasks)
    per_op = Counter(r["operator"] for r in records)
    scores = {"tasks": len(records), "by_operator": dict(sorted(per_op.items())), "reference_ok": 0,
              "perturbed": 0, "perturbed_rejected": 0}
    cand.scores["contract"] = {**scores, **cand.scores.get("contract", {})}
    scores = cand.scores["contract"]
    if not records:
        top = ", ".join(f"{k} {v}" for k, v in stats.most_common(3)) or "no chain found"
        return (f"no task through the candidate could be built in {ctx.config.contract_tasks * TRIES_PER_TASK} "
                f"tries (search drops: {top}); its outputs may all be filtered values, or no chain fits its types")
    for r in records:
        got = score(r, f"<answer>{r['answer']}</answer>")
        if got != 1.0:
            return (f"the reference answer of a {r['operator']} task through {', '.join(r['chain'])} scores "
                    f"{got:g}, not 1: the reward and the task disagree")
        scores["reference_ok"] += 1
        wrong = perturbations(r["answer"], r["operator"])
        results = [score(r, f"<answer>{p}</answer>") for p in wrong]
        scores["perturbed"] += len(results)
        scores["perturbed_rejected"] += sum(s < 1.0 for s in results)
        if results and all(s == 1.0 for s in results):
            return (f"the reward of a {r['operator']} task through {', '.join(r['chain'])} accepts wrong "
                    f"answers (e.g. {wrong[0]!r} for {r['answer']!r}): its outputs do not pin the answer")
    cand.material["instances"] = [r for r in records if r["operator"] in ("sequential", "parallel", "branch",
                                                                         "loop")][:ctx.config.calibration_instances]
    return None
