"""The gate every built task passes before it is written: its generator pairs re-derived.

A generator environment (`@generate(helper)`: racesl.check.generators) records the answer
its helper drew, not one the body computed. `racesc check` samples the helper against the
body (or the `@verify` checker) at every level a compile draws (E612, racesl.probe), but a
helper can still be wrong on a draw the check never made. So each drawn pair in a task is
derived again here, from the task alone (its input, settings and recorded answer):

- with a `@verify` checker, the checker must accept the recorded answer for the input;
- else with a body, the body run on the input and settings must give the recorded answer;
- a bodiless generator without a checker has nothing to derive its answer again with.

A pair that does not hold drops its task, counted as `generator_disagrees` in the
compile's statistics (its summary and `--json` "dropped"). `Generator.make` calls
`disagrees` for every task of every producer (compile, the training stream, a
curriculum), so none of them can write one. Nothing here draws from the task's rng:
output stays byte-identical for any worker count.
"""

from __future__ import annotations

from racesl.runtime.contract import canonical, parse_literal

REASON = "generator_disagrees"  # the statistic a dropped task counts under


def generator_pairs(task, envs) -> list[tuple]:
    """(environment, input text, settings {name: text}, answer text) of each generator
    environment's step in `task`: the first step of a chain, any parallel item."""
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
            out.append((env, None, task.settings[k], task.trace[k]))
            continue
        out.append((env, x_text, task.settings[k], task.trace[k]))
    return out


def disagrees(lib, task, runner=None, fuel: int = 400, wall: float = 2.0) -> str | None:
    """Why a generator pair of `task` does not hold, in words, or None when every pair holds
    (or there is none). `runner` runs bodies (`runner.run(env, x, settings, fuel=, wall=)`;
    the sandbox's under `--untrusted`; default `lib`)."""
    runner = runner or lib
    for env, x_text, given, answer in generator_pairs(task, lib.envs):
        if x_text is None:
            return f"the generator environment {env.qualname} stands mid-chain"
        try:
            x = parse_literal(x_text)
            settings = tuple(parse_literal(given[s.name]) for s in env.settings)
            drawn = parse_literal(answer)
        except (ValueError, KeyError):
            return f"the pair of {env.qualname} cannot be read back: ({x_text}, {answer})"
        if env.verify is not None:
            status, value, _ = lib.aux_call(env.verify, (x, drawn))
            if status != "ok" or value is not True:
                return f"the checker of {env.qualname} rejects the drawn answer {answer} for {x_text}"
        elif env.node.body:
            run = runner.run(env, x, settings, fuel=fuel, wall=wall)
            got = canonical(run.value) if run.ok else "!" + run.status
            if got != answer:
                return f"{env.qualname}({x_text}) gives {got}, but its generator drew {answer}"
    return None
