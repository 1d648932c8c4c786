"""Verifier soundness (part of the contract gate): a `@verify` checker must not accept what
the reference does not.

A checker is what scores an answer, so one that also says True for a fixed answer on every
input hands the reward to a policy that learns that answer. Each candidate environment with
a checker is scored on its own sampled inputs against non-reference answers: the outputs it
gave on its other inputs, the output type's simplest values (`corners`: bounds, 0, 1, "",
[]), and values drawn from it at low and high levels, each tried as a fixed answer on every
input.
A checker may rightly accept another answer now and then (several answers are right: that
is what @verify is for), so an answer counts against it only when it is accepted, while the
reference differs, on more than `LIMIT` of the inputs.
"""

from __future__ import annotations

LIMIT = 0.25  # share of inputs on which one fixed non-reference answer may be accepted
INPUTS = 24  # sampled inputs the checker is scored on
DRAWN = 12  # answers drawn from the output type
OBSERVED = 12  # of the environment's own outputs (on other inputs)
MIN_INPUTS = 6


MAX_CORNERS = 64


def corners(sampler) -> list:
    """The simplest values of a sampler's type: each integer's bounds and 0, 1, -1 where
    allowed; the empty string and list; tuples of those (at most MAX_CORNERS). A backdoor
    answer is most likely one of these; a value outside the type is filtered later."""
    from racesl.sample import default as D

    if isinstance(sampler, D.IntSampler):
        r = sampler._range
        if r.empty:
            return []
        if r.choices is not None:
            return sorted(r.choices)[:4] + sorted(r.choices)[-2:]
        vals = [v for v in (r.lo, r.hi, 0, 1, -1) if v is not None]
        return list(dict.fromkeys(v for v in vals if r.allows(v)))
    if isinstance(sampler, D.BoolSampler):
        return [False, True]
    if isinstance(sampler, D.StrSampler):
        return ["", "a"]
    if isinstance(sampler, D.ListSampler):
        return [[]] + [[v] for v in corners(sampler.elem)[:3]]
    if isinstance(sampler, D.TupleSampler):
        out = [()]
        for c in sampler.components:
            out = [(*o, v) for o in out for v in corners(c)][:MAX_CORNERS]
        return out
    return []


def _answers(lib, env, outputs: list, seed: int) -> list:
    """(canonical text, value) of the fixed answers tried: observed outputs, then draws."""
    from racesl.runtime.contract import canonical
    from racesl.sample.default import NoSample, sampler_for
    from racesl.sample.seeding import item_rng

    found: dict[str, object] = {}
    for v in outputs:
        found.setdefault(canonical(v), v)
        if len(found) >= OBSERVED:
            break
    sampler = sampler_for(env.output)
    try:
        simple = corners(sampler)
    except Exception:  # noqa: BLE001 - a sampler of a shape corners does not know: draws only
        simple = []
    for v in simple:
        if lib.conforms(v, env.output) is None:
            found.setdefault(canonical(v), v)
    for i in range(DRAWN):
        try:
            v = sampler.draw(item_rng(seed, "verify-answers", env.qualname, i), (0, 0, 1, 2, 4, 8)[i % 6],
                             lib.check_pred)
        except NoSample:
            continue
        found.setdefault(canonical(v), v)
    return list(found.items())


def unsound(cand, ctx) -> str | None:
    """The reason the first checker that accepts a fixed non-reference answer too often is
    refused, or None; its numbers go to `cand.scores["contract"]["verify"]`."""
    from racesl.runtime.contract import canonical
    from racesl.lower.effects import fresh
    from racesl.runtime.grades import grade

    lib = cand.own_lib or cand.lib
    rows: dict = {}
    for env in cand.envs:
        if env.verify is None or env.latent is not None:  # (a latent checker needs the drawn value)
            continue
        runs = [(x, r.value) for x, _, r in cand.outputs.get(env.qualname, ()) if r.ok][:INPUTS]
        if len(runs) < MIN_INPUTS:
            continue
        refs = [canonical(y) for _, y in runs]
        worst = (0.0, None, 0, 0)
        for text, value in _answers(lib, env, [y for _, y in runs], ctx.config.seed):
            tried = accepted = 0
            for (x, _), ref in zip(runs, refs):
                if ref == text:
                    continue
                tried += 1
                out = lib.program.call(env.verify, (fresh(x), fresh(value)), fuel=ctx.config.fuel,
                                       wall=ctx.config.wall)
                accepted += float(grade(env, out.status, out.value) or 0)  # (a graded checker: its grade)
            share = accepted / tried if tried else 0.0
            if tried >= MIN_INPUTS and share > worst[0]:
                worst = (share, text, accepted, tried)
        share, text, accepted, tried = worst
        rows[env.name] = {"worst_share": round(share, 4), "answer": text, "inputs": len(runs)}
        if share > LIMIT:
            cand.scores.setdefault("contract", {})["verify"] = rows
            shown = text if len(text) <= 30 else text[:27] + "..."
            return (f"{env.name}: its @verify checker accepts the fixed answer {shown} on {accepted}/{tried} "
                    f"sampled inputs whose reference answer differs (the limit is {LIMIT:.0%}): a policy that "
                    "learns that answer is rewarded; make the checker accept only right answers")
    if rows:
        cand.scores.setdefault("contract", {})["verify"] = rows
    return None
