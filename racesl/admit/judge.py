"""The model gates: `review` (the model judges each environment's description against its
code) and `calibration` (the solver's success rate on the candidate's tasks).

Both run in the parent process on the plain data a candidate's child handed back (a
racesl.admit.run.Outcome: text, module, envs, scores, material): they call the model, never
the candidate's code. `review_outcome(out, ctx)` / `calibration_outcome(out, ctx)` return None
(passed) or the reason, and record their numbers in `out.scores`; `review` / `calibration` are
the same gates with the usual gate signature, on a Candidate.

Decisions (EvoEnv: K = 3 reviews, any reject rejects; m = 8 instances, 0 < â < 1):
- a review reply without a readable `VERDICT:` line counts as a reject, and so does a backend
  error: admission needs the model's positive word, and a failing backend must not admit;
- every request carries an explicit seed (sha256 of config seed, gate, module, env or
  instance, vote), temperature and max_tokens, so a run is reproducible on a seeded backend;
- calibration counts an instance solved when its reward is 1.0 (full marks); any backend
  error rejects (â over fewer than m answers would not be EvoEnv's estimate).
"""

from __future__ import annotations

import math
import re
from typing import Any

import attrs

from racesl.syntax.docstrings import description as docstring_text

OK = "ok"  # Reply.status of a reply that came back

REVIEW_SYSTEM = ("You review environments of a task library for reinforcement learning. An environment is a "
                 "function in races, a small typed subset of Python: its description is the task a solver "
                 "reads, its code computes the reference answer. You judge whether they agree.")

REVIEW_PROMPT = """Environment `{name}` of module `{module}`.

Signature: {signature}

Description (what the solver reads; `{{name}}` stands for a setting's value):
{description}

Code:
```
{code}
```

Does the description say exactly what the code returns, for every input the signature allows, so that \
a careful solver who reads only the description and the input computes the same answer? Reject it when \
it is wrong, ambiguous or incomplete (a rule, an order, a tie-break or an output format that the code \
imposes and the description omits), or when the code ignores its input or is trivial.

End your reply with one line, either
VERDICT: ACCEPT
or
VERDICT: REJECT: <the one thing to fix>"""

SOLVE_SYSTEM = None  # the solver sees the record's own prompt (it asks for <answer>...</answer>), as in training

MAX_CODE = 6000  # characters of code in a review prompt: the environment, then the helpers it uses
MAX_WHY = 200  # characters of a reject's reason kept

_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_VERDICT = re.compile(r"verdict\W*(accept(?:ed)?|reject(?:ed)?)\b\W*(.*)", re.IGNORECASE)


@attrs.frozen
class Plain:
    """The fields of racesl.admit.run.Outcome the model gates read (built from a Candidate)."""

    text: str
    module: str | None
    envs: tuple[str, ...]
    scores: dict
    material: dict


# ---------------------------------------------------------------- what the review reads


def _source(text: str, node) -> str:
    return text[node.span.start:node.span.end].rstrip()


def _used(fd, defs: dict, types: dict) -> list:
    """The module's helpers and type declarations `fd` uses, transitively, in source order."""
    from racesl.syntax import ast as A

    seen: dict[str, Any] = {}
    todo = [fd]
    while todo:
        for n in A.walk(todo.pop()):
            name = n.id if isinstance(n, A.Name) else n.name if isinstance(n, A.TypeExpr) else None
            item = defs.get(name) or types.get(name)
            if item is not None and name not in seen and item is not fd:
                seen[name] = item
                todo.append(item)
    return sorted(seen.values(), key=lambda it: it.span.start)


def env_entries(text: str, sigs: dict | None = None, names=None) -> list[dict]:
    """One {name, signature, description, code} per environment of a module's text, in source
    order (only `names`, when given). `sigs` (env name → racesl.check EnvSig) supplies the
    checked signature and description; without it they are read from the text as written."""
    from racesl.syntax import ast as A
    from racesl.syntax.parser import parse_module

    text = text.removeprefix("\ufeff")  # the parser drops it too: spans index the text without it
    tree, _ = parse_module(text)
    funcs = [it for it in tree.items if isinstance(it, A.FuncDef)]
    defs = {f.name: f for f in funcs if not f.is_env}
    types = {t.name: t for t in tree.items if isinstance(t, A.TypeDecl)}
    out = []
    for f in funcs:
        if not f.is_env or (names is not None and f.name not in names):
            continue
        sig = (sigs or {}).get(f.name)
        if sig is not None:
            signature, description = sig.signature(), sig.description
        else:
            params = ", ".join(_source(text, p) for p in f.params)
            ret = f" -> {_source(text, f.returns)}" if f.returns is not None else ""
            signature = f"env {f.name}({params}){ret}"
            doc = f.docstring.value if f.docstring is not None else None
            description = docstring_text(doc) if isinstance(doc, str) else ""
        code = _source(text, f)
        parts, left, omitted = [], MAX_CODE - len(code), []
        for h in _used(f, defs, types):
            src = _source(text, h)
            if len(src) + 2 <= left:
                parts.append(src)
                left -= len(src) + 2
            else:
                omitted.append(h.name)
        if omitted:
            parts.append("# (not shown: " + ", ".join(omitted) + ")")
        out.append({"name": f.name, "signature": signature, "description": description,
                    "code": "\n\n".join([*parts, code])})
    return out


def review_material(cand) -> list[dict]:
    """What the review gate reads of a checked candidate (its child puts it into
    `Outcome.material["envs"]`): each environment's checked signature, description and code."""
    if not cand.envs:
        return []
    sigs = {e.name: e for e in cand.envs}
    return env_entries(cand.text, sigs, set(sigs))


# ---------------------------------------------------------------- asking the model


def request_seed(seed: int, *keys) -> int:
    """A request's seed: stable across processes and runs, below 2**31 (every server takes it)."""
    from racesl.sample.seeding import derive_seed

    return derive_seed(seed, *keys) % (2 ** 31)


def _ask(ctx, requests: list) -> list:
    """The backend's replies, one per request (a missing one reads as an error reply)."""
    replies = list(ctx.backend.generate(requests))
    return replies[:len(requests)] + [None] * (len(requests) - len(replies))


def _failure(reply) -> str | None:
    """None when the reply came back with a text, else a short 'status: detail'."""
    if reply is None:
        return "missing: the backend returned fewer replies than requests"
    if reply.status != OK:
        return f"{reply.status}: {reply.detail}"[:MAX_WHY]
    if not reply.texts:
        return "empty: no text in the reply"
    return None


def read_verdict(text: str) -> tuple[str, str]:
    """("accept" | "reject" | "unparsable", why) from a review reply: the last VERDICT line
    outside <think> blocks counts; case, markdown and punctuation around it are ignored."""
    body = _THINK.sub("", text or "")
    found = None
    for line in body.splitlines():
        m = _VERDICT.search(line.replace("*", "").replace("`", ""))
        if m:
            found = m
    if found is None:
        return "unparsable", ""
    kind = "accept" if found.group(1).lower().startswith("accept") else "reject"
    why = " ".join(found.group(2).split()).strip(" .:-")[:MAX_WHY]
    return kind, why


def _no_backend(gate: str) -> str:
    return f"the {gate} gate needs a model: give --model PATH or --endpoint URL"


def review_outcome(out, ctx) -> str | None:
    """K reviews of every environment; any reject (or unreadable reply, or backend error) rejects."""
    from racesl.generation import Request

    if ctx.backend is None:
        return _no_backend("review")
    cfg = ctx.config
    k = cfg.review_votes
    temperature = getattr(cfg, "review_temperature", 0.7)
    envs = out.material.get("envs")
    if envs is None:  # no child material: read the environments from the text as written
        envs = env_entries(out.text, names={q.rsplit(".", 1)[-1] for q in out.envs} if out.envs else None)
    module = out.module or "candidate"
    if not envs:
        out.scores["review"] = {"envs": 0}
        return "the review found no environment in the candidate's text"
    requests = [Request(prompt=REVIEW_PROMPT.format(module=module, **e), system=REVIEW_SYSTEM,
                        temperature=temperature, seed=request_seed(cfg.seed, "review", module, e["name"], v),
                        max_tokens=cfg.review_max_tokens, n=1)
                for e in envs for v in range(k)]
    replies = _ask(ctx, requests)
    counts = {"accept": 0, "reject": 0, "unparsable": 0, "error": 0}
    per_env: dict[str, list[int]] = {}
    first: dict[str, tuple[str, str]] = {}  # kind → (env, why) of its first occurrence
    seconds, cut = 0.0, 0
    for i, reply in enumerate(replies):
        name = envs[i // k]["name"]
        seconds += getattr(reply, "seconds", 0.0) or 0.0
        failed = _failure(reply)
        kind, why = ("error", failed) if failed else read_verdict(reply.texts[0])
        if kind == "unparsable" and "cut at max_tokens" in str(getattr(reply, "detail", "") or ""):
            cut += 1
        counts[kind] += 1
        row = per_env.setdefault(name, [0, 0, 0, 0])
        row[("accept", "reject", "unparsable", "error").index(kind)] += 1
        first.setdefault(kind, (name, why))
    out.scores["review"] = {"envs": len(envs), "votes": len(requests), **counts, "per_env": per_env,
                            "seconds": round(seconds, 4), "cut": cut}
    if "error" in first:
        out.scores["review"]["status"] = first["error"][1]
    if counts["accept"] == len(requests):
        return None
    of = (lambda name: f" of {name}" if len(envs) > 1 else "")
    if "reject" in first:
        name, why = first["reject"]
        return (f"the model's review{of(name)} {per_env[name][1]}/{k} rejected: {why or 'no reason given'} "
                "— make the description say exactly what the code computes")
    if "unparsable" in first:
        name, _ = first["unparsable"]
        more = (f"; {cut} of them cut at review_max_tokens ({cfg.review_max_tokens}): raise [admit] "
                "review_max_tokens for a model that thinks at length" if cut else "")
        return (f"the model's review{of(name)} gave no verdict in {per_env[name][2]}/{k} replies "
                f"(no `VERDICT: ACCEPT` or `VERDICT: REJECT: ...` line): not admitted without one{more}")
    name, status = first["error"]
    return (f"the model backend failed on {counts['error']}/{len(requests)} review requests ({status}): "
            "not admitted without a review; check the model or endpoint and retry")


def refused_by_review(out) -> dict:
    """env name → the reason, for each environment the reviews refused (a reject or no
    verdict); empty when a backend error is among them (then nothing is judged one by one)."""
    r = out.scores.get("review") or {}
    per_env = r.get("per_env") or {}
    if r.get("error"):
        return {}
    return {name: f"the model's review {row[1]} rejected, {row[2]} gave no verdict"
            for name, row in sorted(per_env.items()) if row[1] or row[2]}


# ---------------------------------------------------------------- calibration


def calibration_score(a_hat: float, target: float, sigma: float) -> float:
    """EvoEnv's calibration score exp(-(â - target)² / (2σ²))."""
    return math.exp(-((a_hat - target) ** 2) / (2 * sigma ** 2))


def calibration_outcome(out, ctx) -> str | None:
    """The solver tries m instances; rejected unless its success rate â is strictly between 0 and 1."""
    from racesl.generation import Request
    from racesl.rewards import score

    if ctx.backend is None:
        return _no_backend("calibration")
    cfg = ctx.config
    m = cfg.calibration_instances
    instances = list(out.material.get("instances") or [])
    bad = next((i for i, r in enumerate(instances[:m])
                if not (isinstance(r, dict) and isinstance(r.get("prompt"), str) and "answer" in r)), None)
    if len(instances) < m or bad is not None:
        out.scores["calibration"] = {"instances": len(instances), "needed": m}
        if bad is not None:
            return f"calibration instance {bad} is not a task record with a prompt and an answer"
        return (f"only {len(instances)} of the {m} calibration instances could be built: the candidate needs "
                "more tasks through its environments (inputs the pool can feed it, outputs it can pass on)")
    instances = instances[:m]
    module = out.module or "candidate"
    requests = [Request(prompt=r["prompt"], system=SOLVE_SYSTEM, temperature=getattr(cfg, "solve_temperature", 1.0),
                        seed=request_seed(cfg.seed, "calibration", module, str(r.get("id", "")), i),
                        max_tokens=cfg.solve_max_tokens, n=1)
                for i, r in enumerate(instances)]
    replies = _ask(ctx, requests)
    failures = [f for f in map(_failure, replies) if f]
    if failures:
        out.scores["calibration"] = {"instances": m, "errors": len(failures), "status": failures[0]}
        return (f"the model backend failed on {len(failures)}/{m} calibration instances ({failures[0]}): "
                "not admitted without a calibration; check the model or endpoint and retry")
    rewards = [float(score(r, reply.texts[0])) for r, reply in zip(instances, replies)]
    solved = [1 if x >= 1.0 else 0 for x in rewards]
    a_hat = sum(solved) / m
    value = calibration_score(a_hat, cfg.target, cfg.sigma)
    out.scores["calibration"] = {"instances": m, "solved": sum(solved), "a_hat": round(a_hat, 4),
                                 "score": round(value, 4), "successes": solved,
                                 "mean_reward": round(sum(rewards) / m, 4),
                                 "seconds": round(sum(getattr(r, "seconds", 0.0) or 0.0 for r in replies), 4)}
    if a_hat >= 1.0:
        return (f"the solver solved {m}/{m}: too easy — make the task harder (larger inputs, more steps) "
                "or its description less revealing")
    if a_hat <= 0.0:
        return (f"the solver solved 0/{m}: too hard or unclear — make the description say exactly what to "
                "compute, or the task smaller")
    return None


# ---------------------------------------------------------------- the gates on a Candidate


def _plain(cand) -> Plain:
    material = dict(getattr(cand, "material", None) or {})
    if "envs" not in material and cand.envs:
        material["envs"] = review_material(cand)
    return Plain(cand.text, cand.module, tuple(e.qualname for e in cand.envs), cand.scores, material)


def review(cand, ctx) -> str | None:
    return review_outcome(_plain(cand), ctx)


def calibration(cand, ctx) -> str | None:
    return calibration_outcome(_plain(cand), ctx)
