"""Why an environment never made it into a task: `racesc compile` names the environments it
never used, and a user needs the reason to fix it (a filter that drops every output, an
input domain no sampler reaches, or no edge to anything)."""

from __future__ import annotations

import random
from collections import Counter

from racesl.runtime.contract import canonical
from racesl.sample.seeding import item_rng
from racesl.search.engine import DROP_AFTER
from racesl.search.filters import value_filter
from racesl.search.subsets import env_filters
from racesl.text import plural

SAMPLES = 24

_HINTS = {
    "repeated_char": "a one-letter or empty Str counts as one repeated character; "
                     "`--filter repeated_char=false` keeps them",
    "value": "0 and 1 are dropped as too easy to guess; `--filter drop_values=[]` keeps them",
    "bool": "a Bool answer is a coin flip; Bool environments serve only as branch conditions",
    "big_int": "raise `--filter max_int=N`",
    "fuel": "declare the budget it needs with @fuel(N) on the environment, raise `--filter max_steps=N`, "
            "or make the body cheaper",
    "assert": "its asserts reject most sampled inputs; give it a sampler for its domain",
}


def _dropped(calls: int, wall: float) -> str:
    return (f"dropped after {plural(calls, 'call')} timed out (the wall limit, {wall:g} s each): "
            "make the body cheaper, or raise `--filter wall=S`")


# What each reason a run is dropped for is, in words: the summary names the real cause.
_WORDS = {"long_text": "over the text limit", "big_int": "over the integer limit", "value": "a guessable value",
          "bool": "a Bool (guessable)", "repeated_char": "one repeated character (guessable)",
          "guessable": "its answer given away by the environment alone", "domain": "input outside its type",
          "contract": "output outside its type", "repeated_state": "a copy of its input",
          "error": "an error", "fuel": "out of steps", "timeout": "out of time", "assert": "its asserts",
          "size": "a value too large to build", "recursion": "too deep a recursion"}


def _hint(why: str, f, qualname: str) -> str | None:
    """What to do about `why` for environment `qualname` under its filters `f`."""
    if why == "long_text":
        return (f"its values' text is over {f.max_text} characters: give it a limit of its own in races.toml "
                f'([text_limits] "{qualname}" = N) or raise `--filter max_text=N` for every environment')
    if why == "guessable":
        return ("its outputs are too often the same (item_share) or shown by its description's example: "
                "widen its inputs, or raise `--filter item_share=X`")
    if why == "domain":
        return "the values that reach it rarely fit its input's refinement: widen the refinement"
    return _HINTS.get(why)


def refused_clause(refused: Counter, f, qualname: str) -> str:
    """"the search dropped its runs 57 times (long_text 50: over the text limit; guessable 7):
    HINT" for one environment's refusal counts, largest first (ties by name)."""
    total = sum(refused.values())
    ranked = sorted(refused.items(), key=lambda kv: (-kv[1], kv[0]))
    counts = "; ".join(f"{why} {n}" + (f": {_WORDS[why]}" if k == 0 and why in _WORDS else "")
                       for k, (why, n) in enumerate(ranked))
    hint = _hint(ranked[0][0], f, qualname)
    return f"the search dropped its runs {plural(total, 'time')} ({counts})" + (f": {hint}" if hint else "")


def why_unused(lib, cfg, env, graph=None, run=None, refused: Counter | None = None) -> str:
    """One clause: what stops `env` from appearing, found by running it on a few sampled
    inputs through the compile's own filters (deterministic: a fixed per-env seed), with
    `run` (`lib.run`, or a SandboxRunner's); DROP_AFTER timeouts end the sampling. An
    environment that no filter lets through is named for that first, even when it has no
    edge either: the filter is the cause a user can act on (a text limit, not the types).
    `refused`: why the compile's search dropped its runs ({why: count}); where sampled runs
    pass but the search dropped some, those counts are the cause named, not the types."""
    isolated = graph is not None and not graph.successors(env.qualname) and not graph.predecessors(env.qualname)
    reasons: Counter = Counter()
    f = env_filters(lib.envs, cfg).get(env.qualname, cfg.filters) if cfg.text_limits else cfg.filters
    for i in range(SAMPLES):
        rng: random.Random = item_rng(cfg.seed, "unused", env.qualname, i)
        try:
            if env.source:  # a generator environment: its answer is drawn, never run (racesl.check.generators)
                x, drawn = lib.draw(env, rng, i % (cfg.max_level + 1))
                reasons[value_filter(f, drawn, canonical(drawn)) or "ok"] += 1
                continue
            x = lib.sample_input(env, rng, i % (cfg.max_level + 1))
            settings = lib.sample_settings(env, rng, i % (cfg.max_level + 1))
        except Exception:  # a sampler that fails: `racesc check` reports it in full
            reasons["sampler"] += 1
            continue
        r = (run or lib.run)(env, x, settings, fuel=f.max_steps, wall=f.wall)
        reasons[r.status if r.status != "ok" else value_filter(f, r.value, canonical(r.value)) or "ok"] += 1
        if reasons["timeout"] >= DROP_AFTER:
            return _dropped(reasons["timeout"], f.wall)
    ok = reasons.pop("ok", 0)
    if ok and refused:
        return f"{ok} of {plural(SAMPLES, 'sampled run')} pass the filters, but {refused_clause(refused, f, env.qualname)}"
    if ok and isolated:
        return "no environment's output type is its input type, nor its output any one's input"
    if ok:
        return (f"{ok} of {plural(SAMPLES, 'sampled run')} pass the filters; the chains around it were "
                "dropped, or it lost to the usage quotas")
    counts = ", ".join(f"{why} {n}" for why, n in sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0])))
    blame = [why for why, _ in reasons.most_common() if why in _HINTS and why != "assert"] or list(reasons)
    hint = _hint(blame[0], f, env.qualname) if blame[0] == "long_text" else _HINTS.get(blame[0])
    return f"no usable output in {plural(SAMPLES, 'sampled run')} ({counts})" + (f": {hint}" if hint else "")


def unused_reasons(lib, cfg, graph, usage, pruned: dict[str, str], dropped: dict[str, int] | None = None,
                   run=None, left_out: dict[str, str] | None = None,
                   refused: dict[str, Counter] | None = None) -> dict[str, str]:
    """{environment: why} for every environment no task used, in name order; `dropped`:
    {environment: timed-out calls} of those the search stopped running (never run again
    here); `run`: as for `why_unused`; `left_out`: {environment: why} of those the
    environment settings left out (racesl.search.subsets; never run here either); `refused`:
    {environment: {why: count}} of the runs the search dropped (Summary.refused)."""
    out = {}
    for q in sorted(lib.envs):
        if usage[q]:
            continue
        if left_out and q in left_out:
            out[q] = left_out[q]
        elif q in pruned:
            out[q] = f"the solver proved every output is dropped ({pruned[q]})"
        elif dropped and q in dropped:
            out[q] = _dropped(dropped[q], cfg.filters.wall)
        else:
            out[q] = why_unused(lib, cfg, lib.envs[q], graph, run, (refused or {}).get(q))
    return out
