"""The `individual` operator: one environment, one input, its output as the answer — the
RACES paper's RL_individual baseline, built from the same search, filters, records and
rewards as the composed operators, so the two can be trained and compared side by side.

The environment is drawn by usage quota like a parallel item (so `[weights]` and the
environment subsets apply), its output must pass the value filters, may not be the input
itself, is thinned where the environment alone gives it away (racesl.operators.outputs),
and may not be an output the description's example already shows. A generator environment
(`@generate`) draws its input with its answer, as at the start of a chain. A @verify environment's
task records `"verify": true`: its checker judges other answers (racesl.rewards.score).
"""

from __future__ import annotations

from racesl.catalogue.examples import outputs_shown
from racesl.operators.rederive import latent_extra
from racesl.records import Task
from racesl.runtime.contract import canonical
from racesl.templates import fill


def build_individual(builder, rng, quota, stats) -> Task | None:
    """One individual task, or None (counted in `stats`) when `restarts` draws found none."""
    search = builder.search
    repeated = search.cfg.filters.repeated_state
    for _ in range(search.cfg.restarts):
        search.set_quota(quota)
        q = next(iter(search.draw(rng, "all", search.names, 1)), None)
        if q is None:
            return None
        env = builder.envs[q]
        start = builder._run_start(env, rng, stats)  # sampled and run, or drawn by a generator
        if start is None:
            continue
        level, x, x_text, step = start
        settings = step.settings
        if repeated and step.text == x_text:
            stats["repeated_state"] += 1  # the answer would be a copy of the input
            continue
        if builder._guessable(0, step, rng, stats):
            continue  # (early: the gate reuses the coin; another draw may pass)
        description = builder.describe(env, settings)
        if step.text in outputs_shown(description):
            stats["guessable"] += 1  # the description's example shows the answer
            search.exec.refused[q, "guessable"] += 1
            continue
        prompt = fill(builder.tmpl["individual"], x0=builder.shown(env, x, x_text), input_name=env.input_name,
                      description=description)
        shown = {s.name: canonical(v) for s, v in zip(env.settings, settings)}
        task = Task("individual", 1, (q,), (shown,), x_text, (step.text,), prompt, step.text, step.steps, level,
                    {"verify": True, **latent_extra((step,))} if env.terminal else {})
        return task  # (the builder's gate then drops one whose prompt shows a generator's drawn answer)
    stats["restart"] += 1
    return None
