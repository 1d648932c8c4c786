"""The gates that run the candidate: sample, determinism, nontrivial.

`sample` is `racesc check --untrusted` on the candidate's environments: `probe_env` draws
the inputs (the same per-item seeded stream) and runs each twice in the sandbox workers;
most runs must reach a value of the declared type within fuel, and no contract, law or
sampler may fail. Its runs are kept on the candidate, so `determinism` (the double run's
E601, then the same runs under other hash seeds in fresh interpreters) and `nontrivial`
(the solver's static proof first, then the kept outputs against the compile's value
filters) run nothing new in this process. Every environment of the module must pass.
"""

from __future__ import annotations

from collections import Counter

from racesl.admit import domain
from racesl.admit.front import _first_error
from racesl.admit.gates import Candidate

_FATAL = ("E602", "E600", "E603", "E610", "E611", "E612")  # a sampler that never works, a broken contract,
# a false law; a generator that fails, draws differently from one seed, or disagrees with its body or checker


def _r(x: float) -> float:
    return round(float(x), 4)


def _top(counts: Counter, skip: str = "ok", k: int = 3) -> str:
    items = sorted(((n, s) for s, n in counts.items() if s != skip and n), key=lambda t: (-t[0], t[1]))
    return ", ".join(f"{s} {n}" for n, s in items[:k])


def _sample_hint(status: str, cfg) -> str:
    if status == "fuel":
        return (f"bound the loops or lower the input bounds, so a run takes at most {cfg.fuel} steps")
    if status == "timeout":
        return f"make the body cheaper or lower the input bounds, so a run ends within {cfg.wall:g} s"
    if status == "no sample":
        return "widen the input refinement, or add @sample(x=helper) that draws valid inputs"
    if status == "size":
        return "lower the input bounds, so values stay within the size limits"
    return "narrow the input refinement to the inputs the body handles, or guard the failing case"


def sample(cand: Candidate, ctx) -> str | None:
    """Sampled inputs of each environment, run in the `--untrusted` workers."""
    from racesl.probe import probe_env
    from racesl.sandbox_runner import SandboxRunner

    cfg = ctx.config
    n = cfg.samples
    cand.refused.clear()  # (this gate's refusals only)
    envs_scores: dict = {}
    cand.scores["sample"] = {"samples": n, "fuel": cfg.fuel, "envs": envs_scores}
    failures: list[str] = []
    box = SandboxRunner(cand.own_lib, memory_mb=cfg.memory_mb, wall=cfg.wall)
    try:
        def runner(env, x, settings=()):
            return box.run(env, x, settings, fuel=cfg.fuel, wall=cfg.wall)

        for env in cand.envs:
            kept: list = []
            before = len(failures)
            counts, diags, _ = probe_env(cand.own_lib, env, n, cfg.seed, runner=runner,
                                         on_run=lambda x, st, run, kept=kept: kept.append((x, st, run)))
            cand.outputs[env.qualname] = kept
            envs_scores[env.name] = {"ok": _r(counts["ok"] / n) if n else 0.0,
                                     "statuses": {s: c for s, c in sorted(counts.items()) if c}}
            cand.found.extend(d for d in diags if d.code == "E601")
            fatal = sorted((d for d in diags if d.code in _FATAL), key=lambda d: _FATAL.index(d.code))
            if fatal:
                failures.append(_first_error(fatal[:1], cand.file))
            elif n and counts["ok"] / n < cfg.min_ok:
                worst = _top(counts, k=1).rsplit(" ", 1)[0]
                failures.append(f"{env.name}: {counts['ok']}/{n} sampled inputs ran to a value "
                                f"({_top(counts)}); {_sample_hint(worst, cfg)}")
            if len(failures) > before:  # refused one by one: its siblings are still judged
                cand.refused[env.name] = failures[-1]
                continue
            if env.source:  # (a generator environment's inputs are drawn with their answers: it never runs on others)
                continue
            runs = domain.run_declared(cand.own_lib, env, runner, cfg.seed)
            cand.declared[env.qualname] = runs
            ok, judged, bad = domain.failing(runs)
            envs_scores[env.name]["declared"] = {"drawn": len(runs), "judged": judged, "ok": ok,
                                                 "statuses": dict(sorted(bad.items()))}
            if judged >= domain.MIN_RUNS and ok / judged < cfg.min_ok:
                failures.append(f"{env.name}: on its declared input type, {ok}/{judged} drawn inputs ran to a "
                                f"value ({_top(bad)}); {domain.narrow_hint(env)}")
                cand.refused[env.name] = failures[-1]
    finally:
        box.close()
    if failures:
        more = f" (and {len(failures) - 1} more environment(s))" if len(failures) > 1 else ""
        return failures[0] + more
    return None


def determinism(cand: Candidate, ctx) -> str | None:
    """Same outputs twice in one process (the sample gate's double run), and the same
    outputs in two fresh interpreters with other hash seeds (only for environments that
    build a set, the one source of order that changes between processes)."""
    from racesl.probe import SeedProbe, set_builders

    cfg = ctx.config
    builders = set_builders(cand.own_lib, cand.envs)
    scores = {"in_run": len(cand.found), "set_builders": sorted(e.name for e in builders), "compared": 0}
    cand.scores["determinism"] = scores
    if cand.found:
        return _first_error(cand.found[:1], cand.file)
    if not builders:
        return None
    probe = SeedProbe(cand.own_lib, builders, fuel=cfg.fuel, wall=cfg.wall, memory_mb=cfg.memory_mb)
    try:
        for env in builders:
            if env.generate is not None:  # a generator's draws, drawn again (racesl.probe)
                probe.draws(env, cfg.seed, cfg.samples)
                continue
            for x, st, run in cand.outputs.get(env.qualname, ()):
                probe.add(env, x, st, run)
        scores["compared"] = len(probe.runs)
        scores["hash_seeds"] = list(probe.seeds)
        diags = probe.finish()
    finally:
        probe.close()
    return _first_error(diags[:1], cand.file) if diags else None


_STATIC_WHAT = {"value": "one of the values the compile drops", "big_int": "an integer too large to keep",
                "long_text": "too long to keep", "repeated_char": "one character repeated", "bool": "a Bool"}


def _filter_words(name: str, filters) -> str:
    """What a value filter drops, in words (racesl.search.filters.value_filter)."""
    if name == "value":
        return " or ".join(map(repr, filters.drop_values)) or "listed values"
    if name == "bool":
        return "True/False"
    if name == "big_int":
        return f"integers beyond ±{filters.max_int}"
    if name == "long_text":
        return f"texts longer than {filters.max_text} characters"
    return "strings of one character repeated" if name == "repeated_char" else name


def _dropped_hint(top: str, filters) -> str:
    if top in ("value", "bool"):
        return ("return a value with more outcomes that is rarely " + _filter_words(top, filters) +
                " (a count, a sum, a position)")
    if top == "big_int":
        return f"keep outputs within ±{filters.max_int} (a smaller range, a remainder)"
    if top == "long_text":
        return f"return something shorter than {filters.max_text} characters"
    return "return a value that varies with the input"


def dropped_message(name: str, texts: list[str], drops: Counter, filters, limit: float) -> str:
    """The nontrivial refusal for outputs the compile's value filters drop, saying what was
    measured: how many outputs of how many each filter drops (and what that filter drops),
    the limit, and how many distinct outputs there were (the most common with its count)."""
    n, dropped = len(texts), sum(drops.values())
    parts = ", ".join(f"{k} are {_filter_words(f, filters)}" for f, k in
                      sorted(drops.items(), key=lambda t: (-t[1], t[0])))
    common = Counter(texts).most_common(3)
    shown = ", ".join(f"{_short(t)} ×{k}" for t, k in common)
    top = max(drops, key=lambda f: (drops[f], f)) if drops else ""
    return (f"{name}: {dropped} of {n} sampled outputs are values the compile drops ({parts}), more than the "
            f"{limit:.0%} allowed; {len(set(texts))} distinct output(s), the most common {shown}: "
            f"{_dropped_hint(top, filters)}")


def nontrivial(cand: Candidate, ctx) -> str | None:
    """Not a constant, not mostly values the compile would drop: first what the solver proves
    of the output type, then the sampled outputs. Each environment is judged on its own (its
    refusal recorded in `cand.refused`); a module of conditions only is refused whole."""
    from racesl.search.config import Filters
    from racesl.types import types as T

    cfg = ctx.config
    filters = Filters()  # the compile's defaults
    cand.refused.clear()  # (this gate's refusals only)
    envs_scores: dict = {}
    scores = {"static": None, "envs": envs_scores}
    cand.scores["nontrivial"] = scores
    cached = ctx.solver().cached
    conditions = set()  # Bool-valued: never an answer, but a branch's condition
    for env in cand.envs:  # the static proof: nothing runs
        why = cached.degenerate(env.output, filters)
        if why is None and filters.bool_values and isinstance(T.shape(env.output), T.BoolT):
            conditions.add(env.qualname)
        envs_scores[env.name] = {"static": why, "condition": env.qualname in conditions}
        if why is not None:
            scores["static"] = scores["static"] or why
            cand.refused[env.name] = (
                f"{env.name}: the solver proves every output of type {env.output} is "
                f"{_STATIC_WHAT.get(why, why)} (filter '{why}'): a constant or a guess, never an answer; "
                "widen the output type so it has values the compile keeps")
    if not cand.refused and conditions and len(conditions) == len(cand.envs):
        env = cand.envs[0]
        return (f"{env.name}: its output type {env.output} has two values, and the compile drops Bool outputs "
                "(a coin flip answers them); a module of conditions only adds no answer: return a value with "
                "more outcomes (a count, a sum, a position), or add such an environment beside it")
    for env in cand.envs:  # (an environment the sample gate did not run, as in a test, is not judged here)
        if env.name not in cand.refused and env.qualname in cand.outputs:
            why = _sampled_degenerate(cand, env, env.qualname in conditions, cfg, filters, envs_scores[env.name])
            if why:
                cand.refused[env.name] = why
    if cand.refused:
        first = next(iter(cand.refused.values()))
        more = len(cand.refused) - 1
        return first + (f" (and {more} more environment(s))" if more else "")
    return None


def _sampled_degenerate(cand, env, condition: bool, cfg, filters, row: dict) -> str | None:
    """The nontrivial checks of one environment's sampled (and declared-domain) outputs."""
    from racesl.runtime.contract import canonical
    from racesl.search.filters import value_filter

    values = [run.value for _, _, run in cand.outputs.get(env.qualname, ()) if run.ok]
    texts = [canonical(v) for v in values]
    drops = Counter(w for w in (value_filter(filters, v, t) for v, t in zip(values, texts)) if w)
    distinct = sorted(set(texts))
    n, dropped = len(values), sum(drops.values())
    share = dropped / n if n else 0.0
    row.update({"outputs": n, "distinct": len(distinct), "dropped": _r(share), "dropped_count": dropped,
                "filters": dict(sorted(drops.items()))})
    if condition:  # a condition needs both outcomes, nothing more
        if len(distinct) < 2:
            return (f"{env.name}: always {distinct[0] if distinct else 'failing'} on {n} sampled inputs: a "
                    "condition that never changes; make it depend on the input")
        return None
    if share > cfg.max_dropped:
        return dropped_message(env.name, texts, drops, filters, cfg.max_dropped)
    if len(distinct) < cfg.min_distinct:
        shown = ", ".join(t if len(t) <= 20 else t[:17] + "..." for t in distinct) or "none"
        what = "a constant" if len(distinct) <= 1 else "nearly a constant"
        return (f"{env.name}: {len(distinct)} distinct output(s) in {n} sampled runs ({shown}): {what}; "
                f"make the output depend on the input (at least {cfg.min_distinct} distinct values)")
    mode, top = domain.mode_share(texts)
    row["mode_share"] = _r(mode)
    if n >= domain.MIN_RUNS and mode >= domain.MODE_LIMIT:
        return (f"{env.name}: {_short(top)} on {round(mode * n)}/{n} sampled runs ({mode:.0%}, the limit is "
                f"{domain.MODE_LIMIT:.0%}): nearly a constant, which a guess answers; make the output depend "
                "on the input")
    return _declared_degenerate(env, cand.declared.get(env.qualname, ()), cfg, row)


def _short(text: str | None) -> str:
    text = text or "none"
    return text if len(text) <= 20 else text[:17] + "..."


def _declared_degenerate(env, runs, cfg, scores: dict) -> str | None:
    """The nontrivial checks on the declared-domain runs (racesl.admit.domain)."""
    from racesl.runtime.contract import canonical

    texts = [canonical(r.value) for _, _, r in runs if r.ok]
    if len(texts) < domain.MIN_RUNS or not domain.judged_shape(env):
        return None
    distinct = len(set(texts))
    mode, top = domain.mode_share(texts)
    scores["declared"] = {"outputs": len(texts), "distinct": distinct, "mode_share": _r(mode)}
    if distinct < cfg.min_distinct:
        what = "a constant" if distinct <= 1 else "nearly a constant"
        return (f"{env.name}: {distinct} distinct output(s) on {len(texts)} inputs drawn from its declared type: "
                f"{what} there; {domain.narrow_hint(env)}")
    if mode >= domain.MODE_LIMIT:
        return (f"{env.name}: {_short(top)} on {round(mode * len(texts))}/{len(texts)} inputs drawn from its "
                f"declared type ({mode:.0%}, the limit is {domain.MODE_LIMIT:.0%}): degenerate there; "
                f"{domain.narrow_hint(env)}")
    return None
