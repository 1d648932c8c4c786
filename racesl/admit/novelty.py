"""The novelty gate: is the candidate something the pool does not already have?

Behaviour first: every environment runs on a fixed, seeded probe set of inputs per input
shape (drawn from the pool's own samplers for that shape), and a candidate environment that
gives the same outputs as a pool environment on (nearly) every probe both answer is the same
function, however it is written. Then text: token 3-shingles of description and code, with
identifiers other than the language's own names folded to one token, compared by Jaccard —
a renamed copy keeps its shingles. Both thresholds come from the pool's own nearest-neighbour
distribution (they are printed in the scores), with floors, so a pool of near-duplicates
cannot lower the bar to nothing.

Transformations do not hide a copy (`relation`): outputs that follow a pool environment's
by a constant offset or factor, or by a fixed relabelling (a many-to-one output mapped one to
one), count as the same behaviour. Depth-2 compositions of pool environments (`P2(P1(x))`)
are compared too (`_composed`: the pool's side cached on the index, pairs pruned by shape
and by whether the candidate's outputs are a function of P1's, the runs bounded). And the
candidate's own inputs (its sampled and declared-domain draws) are run through every pool
environment of the same input shape, so a copy restricted to a sub-domain the pool's
probes never reach is still met there.

Pool environments run here, in process (trusted); a candidate's run inside its limited
child (racesl.admit.run), with fuel, like the other running gates.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from fractions import Fraction

import attrs

BEHAVIOUR_FLOOR = 0.9  # agreement on shared probes at or above which two environments are one
TEXT_FLOOR = 0.7  # shingle Jaccard at or above which a text is a copy
QUANTILE = 0.95  # of the pool's nearest-neighbour similarities: the threshold when above the floor
MIN_SHARED = 6  # probes both must answer before agreement counts
MAX_COMPOSITION_RUNS = 20000  # new pool runs one candidate environment's composition search may make
OWN_PROBES = 24  # of the candidate's own inputs, run through the pool's environments of its shape
_INT = re.compile(r"-?\d+\Z")
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
    values: dict = attrs.field(factory=dict)  # qualname → its output values per probe (None: failed)
    memo: dict = attrs.field(factory=dict)  # (qualname, canonical input) → answer: compositions' second steps


def _quantile(xs: list[float], q: float) -> float:
    if not xs:
        return 0.0
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def answers_of(lib, env, probes, cfg, values: list | None = None) -> tuple:
    """Canonical outputs (or "!status") of `env` on `probes`; the values themselves appended
    to `values` when given (None for a failed run)."""
    from racesl.runtime.contract import canonical
    from racesl.sample.default import NoSample
    from racesl.sample.seeding import item_rng

    out = []
    for i, x in enumerate(probes):
        if lib.conforms(x, env.input) is not None:
            out.append("!input")
            if values is not None:
                values.append(None)
            continue
        try:
            st = lib.sample_settings(env, item_rng(cfg.seed, "novelty-settings", i), i % 3)
        except NoSample:
            out.append("!setting")
            if values is not None:
                values.append(None)
            continue
        r = lib.run(env, x, st, fuel=cfg.fuel, wall=cfg.wall)
        out.append(canonical(r.value) if r.ok else "!" + r.status)
        if values is not None:
            values.append(r.value if r.ok else None)
    return tuple(out)


def agreement(a: tuple, b: tuple) -> tuple[float, int]:
    both = [(x, y) for x, y in zip(a, b) if not x.startswith("!") and not y.startswith("!")]
    if len(both) < MIN_SHARED:
        return 0.0, len(both)
    return sum(x == y for x, y in both) / len(both), len(both)


def relation(a: tuple, b: tuple) -> tuple[float, int, str]:
    """(agreement, shared probes, the map) of `a` against `b` under the simplest map that
    explains it best: identity, `+c`, `×k`, or a fixed relabelling of a many-to-one output."""
    both = [(x, y) for x, y in zip(a, b) if not x.startswith("!") and not y.startswith("!")]
    n = len(both)
    if n < MIN_SHARED:
        return 0.0, n, "same"
    best = (sum(x == y for x, y in both) / n, n, "same")
    if all(_INT.match(x) and _INT.match(y) for x, y in both):
        pairs = [(int(x), int(y)) for x, y in both]
        c, k = Counter(x - y for x, y in pairs).most_common(1)[0]
        if c and k / n > best[0]:
            best = (k / n, n, f"offset {c:+d}")
        ratios = Counter(Fraction(x, y) for x, y in pairs if y)
        if ratios:
            f, _ = ratios.most_common(1)[0]
            k = sum(x == f * y for x, y in pairs)
            if f not in (0, 1) and k / n > best[0]:
                best = (k / n, n, f"factor {f}")
    labels = {y for _, y in both}
    if 2 <= len(labels) <= n // 3:  # many-to-one: a relabelling means the same partition of the inputs
        forward: dict = {}
        for x, y in both:
            forward.setdefault(y, Counter())[x] += 1
        kept = {y: c.most_common(1)[0] for y, c in forward.items()}
        images = [x for x, _ in kept.values()]
        if len(set(images)) == len(images):  # one to one
            share = sum(k for _, k in kept.values()) / n
            if share > best[0]:
                best = (share, n, "relabelled")
    return best


def _composed(index: Index, ctx, mine: tuple, shape: str, out_shape: str) -> tuple:
    """((agreement, shared, map), "P1 ; P2") of the depth-2 pool composition nearest to `mine`
    on the probes of `shape`. The pool's side is cached once per index (each P1's outputs on
    the probes; each P2's answer on a value, as met); a P1 is tried only when `mine` is a
    function of its outputs (it must be, for any P2), a P2 only when its output shape is the
    candidate's; at most MAX_COMPOSITION_RUNS new pool runs per candidate environment."""
    from racesl.runtime.contract import canonical
    from racesl.types import types as T

    cfg, lib = ctx.config, ctx.pool_lib()
    envs = {q: lib.envs[q] for q in index.shapes}
    seconds = [q for q, s in sorted(index.shapes.items()) if s == out_shape and not envs[q].settings]
    best, runs = ((0.0, 0, "same"), None), 0
    for q1, s in sorted(index.shapes.items()):
        p1 = envs[q1]
        if s != shape or isinstance(T.shape(p1.output), T.BoolT):
            continue
        firsts = index.values.get(q1) or []
        texts = index.answers[q1]
        pairs = [(t, m) for t, m in zip(texts, mine) if not t.startswith("!") and not m.startswith("!")]
        if len(pairs) < MIN_SHARED:
            continue
        image: dict = {}
        for t, m in pairs:
            image.setdefault(t, Counter())[m] += 1
        if sum(c.most_common(1)[0][1] for c in image.values()) / len(pairs) < BEHAVIOUR_FLOOR:
            continue  # mine is not a function of P1's outputs: no P2 makes it one
        mid = T.shape_name(p1.output)
        for q2 in seconds:
            p2 = envs[q2]
            if T.shape_name(p2.input) != mid or q2 == q1:
                continue
            out = []
            for v in firsts:
                if v is None:
                    out.append("!input")
                    continue
                key = (q2, canonical(v))
                got = index.memo.get(key)
                if got is None:
                    if runs >= MAX_COMPOSITION_RUNS:
                        return best
                    runs += 1
                    if lib.conforms(v, p2.input) is not None:
                        got = "!input"
                    else:
                        r = lib.run(p2, v, (), fuel=cfg.fuel, wall=cfg.wall)
                        got = canonical(r.value) if r.ok else "!" + r.status
                    index.memo[key] = got
                out.append(got)
            r = relation(mine, tuple(out))
            if r[0] > best[0][0]:
                best = (r, f"{q1} ; {q2}")
    return best


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
    values: dict = {}
    answers = {e.qualname: answers_of(lib, e, probes[shapes[e.qualname]], cfg, values.setdefault(e.qualname, []))
               for e in envs}
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
                        nn_b, nn_t, values)
    return ctx.novelty


def _nearest(index: Index, mine: tuple, shape: str) -> tuple:
    """((agreement, shared, map), name) of the pool environment nearest to `mine`."""
    best = ((0.0, 0, "same"), None)
    for q, theirs in index.answers.items():
        if index.shapes[q] == shape:
            r = relation(mine, theirs)
            if r[0] > best[0][0]:
                best = (r, q)
    return best


def _on_own_inputs(cand, ctx, env, lib, shape: str) -> tuple:
    """The nearest pool environment of the same input shape on the candidate's own inputs
    (sampled and declared-domain draws): where a sub-domain copy cannot hide."""
    from racesl.runtime.contract import canonical

    seen, xs = set(), []
    for x, _, _ in list(cand.outputs.get(env.qualname, ())) + list(cand.declared.get(env.qualname, ())):
        key = canonical(x)
        if key not in seen:
            seen.add(key)
            xs.append(x)
    xs = xs[:OWN_PROBES]
    if len(xs) < MIN_SHARED:
        return ((0.0, 0, "same"), None)
    mine = answers_of(lib, env, xs, ctx.config)
    pool_lib = ctx.pool_lib()
    best = ((0.0, 0, "same"), None)
    for q, s in sorted(pool_index(ctx).shapes.items()):
        if s != shape:
            continue
        r = relation(mine, answers_of(pool_lib, pool_lib.envs[q], xs, ctx.config))
        if r[0] > best[0][0]:
            best = (r, q)
    return best


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
        (agree, shared, how), twin = _nearest(index, mine, shape)
        for look in (lambda: _on_own_inputs(cand, ctx, env, lib, shape),
                     lambda: _composed(index, ctx, mine, shape, T.shape_name(env.output)) if probes else None):
            if twin is not None and agree >= index.behaviour_threshold:
                break  # (found already: the costlier comparisons are not needed)
            other = look()
            if other is not None and other[1] is not None and other[0][0] > agree:
                (agree, shared, how), twin = other
        text = shingles(_source(cand.checked, env), env.description, keep)
        best_t = max(((jaccard(text, t), q) for q, t in index.texts.items()), default=(0.0, None))
        rows[env.name] = {"behaviour": {"nearest": twin, "agreement": round(agree, 4), "shared": shared,
                                        "map": how, "probes": len(probes)},
                          "text": {"nearest": best_t[1], "jaccard": round(best_t[0], 4)}}
        cand.fingerprints[env.qualname] = _digest(mine)
        cand.fingerprints.setdefault("text", {})[env.name] = _digest(sorted(text))
        if twin is not None and agree >= index.behaviour_threshold:
            mapped = "" if how == "same" else f" ({how})"
            problems.append(f"{env.name} behaves like {twin}{mapped} on {round(agree * shared)}/{shared} probe inputs "
                            "both answer: the same function written differently")
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
