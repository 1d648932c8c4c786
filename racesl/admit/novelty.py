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

Settings and sub-domains (issue 47): an environment with settings is compared once per
setting value (`setting_values`), against pool environments, compositions and repeats
(`_repeated`: P applied 2..3 times), and the mean over the values decides, so a pool
environment behind a setting (`rotate k quarter turns`) is met. The pool's environments run
on the candidate's own inputs whatever their own refinements declare (`unchecked`), so a copy
restricted to values outside the pool's declared domain is met too. Per candidate, the work
is against the index (shapes, a shingle index, a shortlist beyond OWN_SCAN environments of a
shape), not a scan of the pool.

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
SETTING_VALUES = 4  # setting values a candidate environment with settings is compared at, one by one
REPEATS = 3  # a pool environment applied up to this many times in a row is a behaviour of the pool too
OWN_SCAN = 64  # up to this many pool environments of a shape, all are run on the candidate's own inputs;
SHORTLIST = 8  # beyond, the nearest this many on the probes (the candidate's body run outside its refinement)
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
    chained: dict = attrs.field(factory=dict)  # (qualname, canonical input) → (answer, value): repeats
    by_shape: dict = attrs.field(factory=dict)  # input shape → its pool environments' qualnames, sorted
    out_shapes: dict = attrs.field(factory=dict)  # qualname → output shape
    postings: dict = attrs.field(factory=dict)  # shingle → qualnames holding it (the text index)

    def nearest_text(self, text: frozenset) -> tuple[float, str | None]:
        """(Jaccard, qualname) of the pool text nearest to `text`, through the shingle index:
        only environments sharing a shingle are compared, never the whole pool."""
        return _nearest_text(self.postings, self.texts, text)


def _nearest_text(postings: dict, texts: dict, text: frozenset, skip: str | None = None) -> tuple:
    common: Counter = Counter()
    for sh in text:
        common.update(postings.get(sh, ()))
    best = (0.0, None)
    for q, k in sorted(common.items()):
        if q == skip:
            continue
        j = k / (len(text) + len(texts[q]) - k)
        if j > best[0]:
            best = (j, q)
    return best


def _quantile(xs: list[float], q: float) -> float:
    if not xs:
        return 0.0
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def answers_of(lib, env, probes, cfg, values: list | None = None, settings: tuple | None = None,
               unchecked: bool = False) -> tuple:
    """Canonical outputs (or "!status") of `env` on `probes`; the values themselves appended
    to `values` when given (None for a failed run). `settings`: one setting value for every
    probe (else drawn per probe). `unchecked`: the input's refinement and the output type are
    not checked, only the shape (what the body computes on values outside its declared
    domain: how a copy restricted to a sub-domain is met on the pool's side)."""
    from racesl.runtime.contract import canonical
    from racesl.sample.default import NoSample
    from racesl.sample.seeding import item_rng

    out = []
    for i, x in enumerate(probes):
        if not unchecked and lib.conforms(x, env.input) is not None:
            out.append("!input")
            if values is not None:
                values.append(None)
            continue
        try:
            st = settings if settings is not None else \
                lib.sample_settings(env, item_rng(cfg.seed, "novelty-settings", i), i % 3)
        except NoSample:
            out.append("!setting")
            if values is not None:
                values.append(None)
            continue
        r = lib.run(env, x, st, fuel=cfg.fuel, wall=cfg.wall, check_output=not unchecked)
        out.append(canonical(r.value) if r.ok else "!" + r.status)
        if values is not None:
            values.append(r.value if r.ok else None)
    return tuple(out)


def setting_values(lib, env, cfg) -> list[tuple]:
    """Up to SETTING_VALUES distinct setting values of `env`, drawn by its own samplers (in
    draw order): novelty compares the candidate once per value, so a setting cannot hide a
    copy (`k = 1` of a `rotate k quarter turns` is the pool's one rotation)."""
    from racesl.runtime.contract import canonical
    from racesl.sample.default import NoSample
    from racesl.sample.seeding import item_rng

    found: dict = {}
    for j in range(SETTING_VALUES * 6):
        try:
            st = lib.sample_settings(env, item_rng(cfg.seed, "novelty-setting-values", env.qualname, j), j % 3)
        except NoSample:
            continue
        found.setdefault(canonical(st), st)
        if len(found) >= SETTING_VALUES:
            break
    return list(found.values())


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


def _step(lib, env, v, cfg) -> tuple[str, object]:
    """One step of a composition walk: `env` on `v`, as (its canonical answer, its value), or
    ("!input", None) when `v` is no input of `env`, ("!status", None) when the run fails."""
    from racesl.runtime.contract import canonical

    if lib.conforms(v, env.input) is not None:
        return "!input", None
    r = lib.run(env, v, (), fuel=cfg.fuel, wall=cfg.wall)
    return (canonical(r.value), r.value) if r.ok else ("!" + r.status, None)


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
            if T.shape_name(p2.input) != mid:
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
                    got = index.memo[key] = _step(lib, p2, v, cfg)[0]
                out.append(got)
            r = relation(mine, tuple(out))
            if r[0] > best[0][0]:
                best = (r, f"{q1} ; {q2}")
    return best


def pool_index(ctx, previous: Index | None = None) -> Index:
    """The pool's index, built once per pool. `previous`: the index of the pool before a
    module joined it (racesl.admit.context.Context.extend): the probes are drawn again as from
    scratch, and an environment's answers are taken from it where its shape's probes did not
    change (the same index a fresh build makes, for less)."""
    if ctx.novelty is not None:
        return ctx.novelty
    from racesl.runtime.contract import canonical
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
    same = set() if previous is None else \
        {k for k, xs in probes.items() if k in previous.probes
         and [canonical(x) for x in xs] == [canonical(x) for x in previous.probes[k]]}
    values: dict = {}
    answers: dict = {}
    for e in envs:
        q = e.qualname
        if shapes[q] in same and q in previous.answers:
            answers[q], values[q] = previous.answers[q], list(previous.values.get(q) or [])
        else:
            answers[q] = answers_of(lib, e, probes[shapes[q]], cfg, values.setdefault(q, []))
    texts = {e.qualname: shingles(_source(checked, e), e.description, keep) for e in envs}
    postings: dict = {}
    for q, t in texts.items():
        for sh in t:
            postings.setdefault(sh, []).append(q)
    nn_b, nn_t = [], []
    for e in envs:
        q = e.qualname
        nn_b.append(max((agreement(answers[q], answers[o.qualname])[0] for o in by_shape[shapes[q]]
                         if o.qualname != q), default=0.0))
        nn_t.append(_nearest_text(postings, texts, texts[q], skip=q)[0])
    ctx.novelty = Index(probes, answers, shapes, texts,
                        max(BEHAVIOUR_FLOOR, _quantile(nn_b, QUANTILE)), max(TEXT_FLOOR, _quantile(nn_t, QUANTILE)),
                        nn_b, nn_t, values,
                        by_shape={k: [e.qualname for e in g] for k, g in by_shape.items()},
                        out_shapes={e.qualname: T.shape_name(e.output) for e in envs}, postings=postings)
    if previous is not None:  # (pool runs on values: the pool's environments did not change)
        ctx.novelty.memo.update(previous.memo)
        ctx.novelty.chained.update(previous.chained)
    return ctx.novelty


def _nearest(index: Index, mine: tuple, shape: str) -> tuple:
    """((agreement, shared, map), name) of the pool environment nearest to `mine`."""
    best = ((0.0, 0, "same"), None)
    for q in index.by_shape.get(shape, ()):
        r = relation(mine, index.answers[q])
        if r[0] > best[0][0]:
            best = (r, q)
    return best


def _repeated(index: Index, ctx, mine: tuple, shape: str) -> tuple:
    """((agreement, shared, map), "P x k") of the nearest repeat P(P(...P(x))) (2..REPEATS
    times) of a pool environment P without settings whose input and output shapes are
    `shape`: a candidate's setting may only count the times a pool environment is applied.
    Runs share the compositions' cache and bound."""
    from racesl.runtime.contract import canonical

    cfg, lib = ctx.config, ctx.pool_lib()
    best, runs = ((0.0, 0, "same"), None), 0
    for q, s in sorted(index.shapes.items()):
        p = lib.envs[q]
        if s != shape or p.settings or index.out_shapes.get(q) != shape:
            continue
        vals = list(index.values.get(q) or [])
        for k in range(2, REPEATS + 1):
            texts, nxt = [], []
            for v in vals:
                if v is None:
                    texts.append("!input")
                    nxt.append(None)
                    continue
                key = (q, canonical(v))
                got = index.chained.get(key)
                if got is None:
                    if runs >= MAX_COMPOSITION_RUNS:
                        return best
                    runs += 1
                    got = index.chained[key] = _step(lib, p, v, cfg)
                texts.append(got[0])
                nxt.append(got[1])
            if len(texts) < len(vals):
                break
            r = relation(mine, tuple(texts))
            if r[0] > best[0][0]:
                best = (r, f"{q} x {k}")
            vals = nxt
    return best


def _own_inputs(cand, env) -> list:
    """Up to OWN_PROBES distinct inputs of the candidate's own draws (sampled, then declared)."""
    from racesl.runtime.contract import canonical

    seen, xs = set(), []
    for x, _, _ in list(cand.outputs.get(env.qualname, ())) + list(cand.declared.get(env.qualname, ())):
        key = canonical(x)
        if key not in seen:
            seen.add(key)
            xs.append(x)
    return xs[:OWN_PROBES]


def _on_own_inputs(cand, ctx, env, lib, shape: str, settings: tuple | None = None,
                   names: list | None = None, cache: dict | None = None) -> tuple:
    """The nearest pool environment of the same input shape on the candidate's own inputs
    (sampled and declared-domain draws): where a sub-domain copy cannot hide. The pool's
    environments run on those values whatever their own refinements say (`unchecked`): a
    copy of `digit_sum` restricted to 8-digit numbers is met though the pool's declares
    0..999999. `names`: only these pool environments (the shortlist); else all of the shape."""
    xs = _own_inputs(cand, env)
    if len(xs) < MIN_SHARED:
        return ((0.0, 0, "same"), None)
    mine = answers_of(lib, env, xs, ctx.config, settings=settings)
    pool_lib = ctx.pool_lib()
    best = ((0.0, 0, "same"), None)
    index = pool_index(ctx)
    for q in (sorted(names) if names is not None else sorted(index.shapes)):
        if index.shapes.get(q) != shape:
            continue
        theirs = None if cache is None else cache.get(q)
        if theirs is None:  # (the pool's side on these inputs: the same for every setting value)
            theirs = answers_of(pool_lib, pool_lib.envs[q], xs, ctx.config, unchecked=True)
            if cache is not None:
                cache[q] = theirs
        r = relation(mine, theirs)
        if r[0] > best[0][0]:
            best = (r, q)
    return best


def _nearest_each(index: Index, mine: tuple, shape: str, k: int) -> list[str]:
    """The `k` pool environments of `shape` nearest to `mine` (agreement above 0)."""
    found = []
    for q in index.by_shape.get(shape, ()):
        r = relation(mine, index.answers[q])
        if r[0] > 0:
            found.append((-r[0], q))
    return [q for _, q in sorted(found)[:k]]


def behaviour(cand, ctx, env, lib, index: Index, settings: tuple | None, cache: dict | None = None) -> tuple:
    """((agreement, shared, map), twin) of one candidate environment (at one setting value,
    when given) against the pool's behaviours: each pool environment on the probes of its
    shape; the candidate's body on those probes outside its own refinement, which shortlists
    the pool environments a sub-domain copy would follow; those (or, in a small pool, all of
    the shape) on the candidate's own inputs; depth-2 compositions; and repeats."""
    from racesl.types import types as T

    shape = T.shape_name(env.input)
    probes = index.probes.get(shape, [])
    mine = answers_of(lib, env, probes, ctx.config, settings=settings) if probes else ()
    wide = answers_of(lib, env, probes, ctx.config, settings=settings, unchecked=True) if probes else ()
    best = _nearest(index, mine, shape)
    group = index.by_shape.get(shape, ())
    names = None if len(group) <= OWN_SCAN else sorted(set(_nearest_each(index, wide, shape, SHORTLIST)) |
                                                            set(_nearest_each(index, mine, shape, SHORTLIST)))
    for look in (lambda: _on_own_inputs(cand, ctx, env, lib, shape, settings, names, cache),
                 lambda: _composed(index, ctx, mine, shape, T.shape_name(env.output)) if probes else None,
                 lambda: _repeated(index, ctx, mine, shape) if probes else None):
        if best[1] is not None and best[0][0] >= index.behaviour_threshold:
            break  # (found already: the costlier comparisons are not needed)
        other = look()
        if other is not None and other[1] is not None and other[0][0] > best[0][0]:
            best = other
    return best, mine


def _digest(obj) -> str:
    return hashlib.sha256(repr(obj).encode("utf-8")).hexdigest()[:16]


def novelty(cand, ctx) -> str | None:
    from racesl.runtime.contract import canonical
    from racesl.types import types as T

    index = pool_index(ctx)
    cfg, keep = ctx.config, _keep_names()
    lib = cand.own_lib or cand.lib
    rows, problems = {}, []
    cand.refused.clear()  # (this gate's refusals only)
    for env in cand.envs:
        shape = T.shape_name(env.input)
        probes = index.probes.get(shape, [])
        values = setting_values(lib, env, cfg) if env.settings else [None]
        per, cache = [], {}
        for st in values:
            (r, twin), mine = behaviour(cand, ctx, env, lib, index, st, cache)
            per.append((r, twin, st, mine))
        # a copy at every setting value is a copy: the mean agreement over the values decides
        agree = sum(r[0] for r, _, _, _ in per) / len(per)
        (_, shared, how), twin, _, mine = max(per, key=lambda t: t[0][0])
        text = shingles(_source(cand.checked, env), env.description, keep)
        best_t = index.nearest_text(text)
        rows[env.name] = {"behaviour": {"nearest": twin, "agreement": round(agree, 4), "shared": shared,
                                        "map": how, "probes": len(probes)},
                          "text": {"nearest": best_t[1], "jaccard": round(best_t[0], 4)}}
        if env.settings:
            rows[env.name]["behaviour"]["per_setting"] = [
                {"settings": {s.name: canonical(v) for s, v in zip(env.settings, st)}, "nearest": t,
                 "agreement": round(r[0], 4), "map": r[2]} for r, t, st, _ in per]
        cand.fingerprints[env.qualname] = _digest(per[0][3])
        cand.fingerprints.setdefault("text", {})[env.name] = _digest(sorted(text))
        why = None
        if twin is not None and agree >= index.behaviour_threshold:
            mapped = "" if how == "same" else f" ({how})"
            if len(per) > 1:
                each = ", ".join(f"{_shown(env, st)}: {t or 'none'} {r[0]:.2f}" for r, t, st, _ in per)
                why = (f"{env.name} behaves like the pool at each of its setting values ({each}; mean agreement "
                       f"{agree:.2f}): a pool environment behind a setting")
            else:
                why = (f"{env.name} behaves like {twin}{mapped} on {round(agree * shared)}/{shared} probe inputs "
                       "both answer: the same function written differently")
        elif best_t[1] is not None and best_t[0] >= index.text_threshold:
            why = (f"{env.name}'s text is a near copy of {best_t[1]} "
                   f"(shingle Jaccard {best_t[0]:.2f} ≥ {index.text_threshold:.2f})")
        if why:
            problems.append(why)
            cand.refused[env.name] = why + "; write an environment that computes something the pool does not"
    cand.scores["novelty"] = {"envs": rows, "thresholds": {
        "behaviour": round(index.behaviour_threshold, 4), "text": round(index.text_threshold, 4),
        "pool_nn_behaviour_p95": round(_quantile(index.nn_behaviour, QUANTILE), 4),
        "pool_nn_text_p95": round(_quantile(index.nn_text, QUANTILE), 4)}}
    if problems:
        return "; ".join(problems) + "; write an environment that computes something the pool does not"
    return None


def _shown(env, st: tuple) -> str:
    from racesl.runtime.contract import canonical

    return ", ".join(f"{s.name} = {canonical(v)}" for s, v in zip(env.settings, st))
