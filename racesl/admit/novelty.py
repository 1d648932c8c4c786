"""The novelty gate: is the candidate something the pool does not already have?

Behaviour first: every environment runs on a fixed, seeded probe set of inputs per input
shape (drawn from the pool's own samplers for that shape), and a candidate environment that
gives the same outputs as a pool environment on (nearly) every probe both answer is the same
function, however it is written. Then text: token 3-shingles of description and code, with
identifiers other than the language's own names folded to one token, compared by Jaccard —
a renamed copy keeps its shingles. Both thresholds come from the pool's own nearest-neighbour
distribution (they are printed in the scores), with floors, so a pool of near-duplicates
cannot lower the bar to nothing.

Pool environments run here, in process (trusted); a candidate's run inside its limited
child (racesl.admit.run), with fuel, like the other running gates.
"""

from __future__ import annotations

import hashlib
import re

import attrs

BEHAVIOUR_FLOOR = 0.9  # agreement on shared probes at or above which two environments are one
TEXT_FLOOR = 0.7  # shingle Jaccard at or above which a text is a copy
QUANTILE = 0.95  # of the pool's nearest-neighbour similarities: the threshold when above the floor
MIN_SHARED = 6  # probes both must answer before agreement counts
_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+|[^\sA-Za-z0-9_]")


def _keep_names() -> frozenset[str]:
    from racesl.types.builtins import ENTRIES

    words = {"env", "def", "return", "for", "in", "if", "elif", "else", "while", "and", "or", "not", "is",
             "True", "False", "None", "lambda", "break", "continue", "pass", "assert", "type", "where", "it",
             "Int", "Str", "Bool", "List", "Tuple", "Dict", "Set"}
    return frozenset(words | {e.name for e in ENTRIES})


def shingles(code: str, doc: str, keep: frozenset[str]) -> frozenset[str]:
    """3-shingles of the code's tokens (other identifiers folded to `_`) and of the
    description's words."""
    toks = [t if not t[0].isalpha() and t[0] != "_" or t in keep else "_" for t in _TOKEN.findall(code)]
    words = re.findall(r"\w+", doc.lower())
    out = set()
    for seq, tag in ((toks, "c"), (words, "d")):
        out.update(f"{tag}:{seq[i]} {seq[i + 1]} {seq[i + 2]}" for i in range(len(seq) - 2))
    return frozenset(out)


def jaccard(a: frozenset, b: frozenset) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


def _source(checked, env) -> str:
    text = checked.modules[env.module].text
    s = env.node.span
    return text[s.start:s.end]


@attrs.define
class Index:
    """The pool's probe inputs per shape, its environments' answers and shingles, and the
    thresholds read from their nearest-neighbour distribution."""

    probes: dict  # shape → [(input, settings-rng-key)] drawn from the pool's samplers
    answers: dict  # qualname → tuple of canonical outputs or "!status" per probe of its shape
    shapes: dict  # qualname → shape
    texts: dict  # qualname → shingles
    behaviour_threshold: float
    text_threshold: float
    nn_behaviour: list  # each pool env's nearest agreement (for the printout)
    nn_text: list


def _quantile(xs: list[float], q: float) -> float:
    if not xs:
        return 0.0
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def answers_of(lib, env, probes, cfg) -> tuple:
    from racesl.runtime.contract import canonical
    from racesl.sample.default import NoSample
    from racesl.sample.seeding import item_rng

    out = []
    for i, x in enumerate(probes):
        if lib.conforms(x, env.input) is not None:
            out.append("!input")
            continue
        try:
            st = lib.sample_settings(env, item_rng(cfg.seed, "novelty-settings", i), i % 3)
        except NoSample:
            out.append("!setting")
            continue
        r = lib.run(env, x, st, fuel=cfg.fuel, wall=cfg.wall)
        out.append(canonical(r.value) if r.ok else "!" + r.status)
    return tuple(out)


def agreement(a: tuple, b: tuple) -> tuple[float, int]:
    both = [(x, y) for x, y in zip(a, b) if not x.startswith("!") and not y.startswith("!")]
    if len(both) < MIN_SHARED:
        return 0.0, len(both)
    return sum(x == y for x, y in both) / len(both), len(both)


def pool_index(ctx) -> Index:
    if ctx.novelty is not None:
        return ctx.novelty
    from racesl.sample.default import NoSample
    from racesl.sample.seeding import item_rng
    from racesl.types import types as T

    cfg, lib, checked = ctx.config, ctx.pool_lib(), ctx.pool_checked()
    keep = _keep_names()
    envs = sorted(ctx.pool_envs(), key=lambda e: e.qualname)
    by_shape: dict = {}
    for e in envs:
        by_shape.setdefault(T.shape_name(e.input), []).append(e)
    probes: dict = {}
    for shape, group in sorted(by_shape.items()):
        xs = []
        for i in range(cfg.probes):
            env = group[i % len(group)]
            try:
                xs.append(lib.sample_input(env, item_rng(cfg.seed, "novelty", shape, i), i % 3))
            except NoSample:
                continue
        probes[shape] = xs
    shapes = {e.qualname: T.shape_name(e.input) for e in envs}
    answers = {e.qualname: answers_of(lib, e, probes[shapes[e.qualname]], cfg) for e in envs}
    texts = {e.qualname: shingles(_source(checked, e), e.description, keep) for e in envs}
    nn_b, nn_t = [], []
    for e in envs:
        q = e.qualname
        others = [o for o in envs if o.qualname != q]
        nn_b.append(max((agreement(answers[q], answers[o.qualname])[0] for o in by_shape[shapes[q]]
                         if o.qualname != q), default=0.0))
        nn_t.append(max((jaccard(texts[q], texts[o.qualname]) for o in others), default=0.0))
    ctx.novelty = Index(probes, answers, shapes, texts,
                        max(BEHAVIOUR_FLOOR, _quantile(nn_b, QUANTILE)), max(TEXT_FLOOR, _quantile(nn_t, QUANTILE)),
                        nn_b, nn_t)
    return ctx.novelty


def _digest(obj) -> str:
    return hashlib.sha256(repr(obj).encode("utf-8")).hexdigest()[:16]


def novelty(cand, ctx) -> str | None:
    from racesl.types import types as T

    index = pool_index(ctx)
    cfg, keep = ctx.config, _keep_names()
    lib = cand.own_lib or cand.lib
    rows, problems = {}, []
    for env in cand.envs:
        shape = T.shape_name(env.input)
        probes = index.probes.get(shape, [])
        mine = answers_of(lib, env, probes, cfg) if probes else ()
        best_b = max(((agreement(mine, index.answers[q]), q) for q in index.answers if index.shapes[q] == shape),
                     default=((0.0, 0), None))
        (agree, shared), twin = best_b
        text = shingles(_source(cand.checked, env), env.description, keep)
        best_t = max(((jaccard(text, t), q) for q, t in index.texts.items()), default=(0.0, None))
        rows[env.name] = {"behaviour": {"nearest": twin, "agreement": round(agree, 4), "shared": shared,
                                        "probes": len(probes)},
                          "text": {"nearest": best_t[1], "jaccard": round(best_t[0], 4)}}
        cand.fingerprints[env.qualname] = _digest(mine)
        cand.fingerprints.setdefault("text", {})[env.name] = _digest(sorted(text))
        if twin is not None and agree >= index.behaviour_threshold:
            problems.append(f"{env.name} behaves like {twin} on {round(agree * shared)}/{shared} probe inputs both "
                            "answer: the same function written differently")
        elif best_t[1] is not None and best_t[0] >= index.text_threshold:
            problems.append(f"{env.name}'s text is a near copy of {best_t[1]} "
                            f"(shingle Jaccard {best_t[0]:.2f} ≥ {index.text_threshold:.2f})")
    cand.scores["novelty"] = {"envs": rows, "thresholds": {
        "behaviour": round(index.behaviour_threshold, 4), "text": round(index.text_threshold, 4),
        "pool_nn_behaviour_p95": round(_quantile(index.nn_behaviour, QUANTILE), 4),
        "pool_nn_text_p95": round(_quantile(index.nn_text, QUANTILE), 4)}}
    if problems:
        return "; ".join(problems) + "; write an environment that computes something the pool does not"
    return None
