"""The gate every built task passes before it is written: its generator pairs re-derived.

A generator environment (`@generate(helper)`: racesl.check.generators) records the answer
its helper drew, not one the body computed. `racesc check` samples the helper against the
body (or the `@verify` checker) at every level a compile draws (E612, racesl.probe), but a
helper can still be wrong on a draw the check never made. So each drawn pair in a task is
derived again here, from the task alone (its input, settings and recorded answer):

- with a `@verify` checker, the checker must accept the recorded answer for the input (a
  graded checker: give it its full grade), given the recorded latent value where the
  generator draws one (`extra["latents"]`, racesl.check.verifiers);
- else with a body, the body run on the input and settings must give the recorded answer;
- a bodiless generator without a checker has nothing to derive its answer again with.

A pair that does not hold drops its task, counted as `generator_disagrees` in the
compile's statistics (its summary and `--json` "dropped"). `Generator.make` calls
`disagrees` for every task of every producer (compile, the training stream, a
curriculum), so none of them can write one. Nothing here draws from the task's rng:
output stays byte-identical for any worker count.
"""

from __future__ import annotations

from racesl.runtime import grades as V
from racesl.runtime.contract import canonical, parse_literal

REASON = "generator_disagrees"  # the statistic a dropped task counts under
LATENTS = "latents"  # the record's `extra` key: per chain element, a latent's text or null


def latent_extra(steps) -> dict:
    """`{"latents": [text or None, ...]}` for the steps of a task (one per chain element) when
    some generator among them drew a latent value, else {} (so records of environments
    without one stay as they were). The builders put it in the task's `extra`; the rewards
    and `disagrees` read it back."""
    if all(s.latent is None for s in steps):
        return {}
    return {LATENTS: [None if s.latent is None else canonical(s.latent) for s in steps]}


def latent_text(extra: dict, k: int) -> str:
    """The recorded latent text of chain element k; ValueError, saying what is wrong, when the
    record has none there (missing, or not a string)."""
    got = extra.get(LATENTS) if isinstance(extra, dict) else None
    if not isinstance(got, list) or not 0 <= k < len(got) or not isinstance(got[k], str):
        raise ValueError(f'no latent value recorded for step {k + 1} (extra "{LATENTS}": a list of texts)')
    return got[k]


def generator_pairs(task, envs) -> list[tuple]:
    """(environment, input text, settings {name: text}, answer text, chain index k) of each
    generator environment's step in `task`: the first step of a chain, any parallel item."""
    out = []
    for k, q in enumerate(task.chain):
        env = envs.get(q)
        if env is None or env.generate is None:
            continue
        if task.operator == "parallel":
            x_text = task.extra["inputs"][k]
        elif k == 0 and task.operator in ("sequential", "sort", "select", "individual"):
            x_text = task.input
        else:  # a source is never run mid-chain: a task that holds one there is wrong
            out.append((env, None, task.settings[k], task.trace[k], k))
            continue
        out.append((env, x_text, task.settings[k], task.trace[k], k))
    return out


def disagrees(lib, task, runner=None, fuel: int = 400, wall: float = 2.0) -> str | None:
    """Why a generator pair of `task` does not hold, in words, or None when every pair holds
    (or there is none). `runner` runs bodies (`runner.run(env, x, settings, fuel=, wall=)`;
    the sandbox's under `--untrusted`; default `lib`)."""
    runner = runner or lib
    for env, x_text, given, answer, k in generator_pairs(task, lib.envs):
        if x_text is None:
            return f"the generator environment {env.qualname} stands mid-chain"
        try:
            x = parse_literal(x_text)
            settings = tuple(parse_literal(given[s.name]) for s in env.settings)
            drawn = parse_literal(answer)
            latent = parse_literal(latent_text(task.extra, k)) if env.latent is not None else None
        except (ValueError, KeyError):
            return f"the pair of {env.qualname} cannot be read back: ({x_text}, {answer})"
        if env.latent is not None and lib.conforms(latent, env.latent) is not None:
            return f"the latent value of {env.qualname} is outside {env.latent}"
        if env.verify is not None:
            status, value, _ = lib.aux_call(env.verify, V.args(env, x, drawn, latent))
            if not V.full(env, status, value):
                return f"the checker of {env.qualname} rejects the drawn answer {answer} for {x_text}"
        elif env.node.body:
            run = runner.run(env, x, settings, fuel=fuel, wall=wall)
            got = canonical(run.value) if run.ok else "!" + run.status
            if got != answer:
                return f"{env.qualname}({x_text}) gives {got}, but its generator drew {answer}"
    return None
