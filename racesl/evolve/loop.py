"""The evolve loop: prompts → completions → `.races` blocks → gates → pool → reward.

One step asks the generator for `candidates_per_step` modules, runs each through every gate
(racesl.admit.run.admit_text: the candidate's code only ever runs in a limited child
process), adds the admitted ones to the pool before the next candidate is judged (so a
later one is compared with them), rotates the pool, and then commits the step: its rows go
to `<pool>/evolve.jsonl` (one atomic rewrite; rows of an unfinished earlier attempt at the
same step are replaced) and the pool's step advances. Starting again continues at the
pool's step, so an interrupted run resumes; a step whose commit was cut off is redone.

A step in which the generator gave no completion at all (the endpoint refused or failed every
request) is not committed: its rows are written (so evolve.jsonl says why), the pool's step
stays, and the run stops there (`EvolveSummary.stalled`), so a rerun retries that step instead of
skipping it; the CLI exits non-zero.

`Evolver` holds the pieces `--train` (racesl.evolve.grpo) reuses: `prompts(step)` for the
generator role's rows, `judge(step, i, prompt, completion)` as its reward, `commit(step,
rows)` after each generation.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import attrs

from racesl.admit.gates import GATES
from racesl.evolve.config import EXTRACT, EvolveConfig
from racesl.evolve.extract import module_text
from racesl.evolve.prompt import Prompt, build_prompt
from racesl.evolve.reward import generator_reward
from racesl.sample.seeding import derive_seed

GENERATE = "generate"  # the backend gave no completion (an error or timeout reply)
POOL_WRITE = "pool"  # admitted, but the pool refused the file (should not happen: check renames)
FUNNEL = (GENERATE, EXTRACT, *GATES)
LOG = "evolve.jsonl"


@attrs.frozen
class Row:
    """One candidate, as a line of evolve.jsonl."""

    step: int
    index: int
    gate: str | None  # where it stopped (FUNNEL names); None: admitted
    reason: str
    reward: float | None  # None for a completion that never came (nothing to reward)
    module: str | None
    shape: str
    seeds: tuple[str, ...]
    seconds: float
    status: str = "ok"  # the backend's reply status
    scores: dict = attrs.field(factory=dict)

    @property
    def admitted(self) -> bool:
        return self.gate is None

    def to_json(self) -> dict:
        return {"step": self.step, "index": self.index, "admitted": self.admitted, "gate": self.gate,
                "reason": self.reason, "reward": self.reward, "module": self.module, "shape": self.shape,
                "seeds": list(self.seeds), "seconds": round(self.seconds, 3), "status": self.status,
                "scores": self.scores}


@attrs.define
class EvolveSummary:
    generator: str
    first_step: int  # the pool's step when this run began
    last_step: int  # the pool's step when it ended
    rows: list[Row]
    seconds: float
    retired: list[str] = attrs.field(factory=list)
    pool: dict = attrs.field(factory=dict)  # racesl.pool.Pool.summary()
    log: str | None = None
    stalled: int | None = None  # the step that got no completion at all (not committed; the run stopped)

    def failures(self) -> list[tuple[str, int]]:
        """(cause, candidates) of the candidates the generator gave no completion, most common
        first: one line each on the terminal."""
        counts: dict[str, int] = {}
        for r in self.rows:
            if r.gate == GENERATE:
                counts[r.reason] = counts.get(r.reason, 0) + 1
        return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))

    @property
    def candidates(self) -> int:
        return len(self.rows)

    def funnel(self) -> dict[str, int]:
        """Candidates rejected at each gate, in order (the pool-write refusals last when any)."""
        out = {g: sum(r.gate == g for r in self.rows) for g in FUNNEL}
        if any(r.gate == POOL_WRITE for r in self.rows):
            out[POOL_WRITE] = sum(r.gate == POOL_WRITE for r in self.rows)
        return out

    @property
    def admitted(self) -> list[str]:
        return [r.module for r in self.rows if r.admitted and r.module]

    @property
    def reward_mean(self) -> float | None:
        rs = [r.reward for r in self.rows if r.reward is not None]
        return round(sum(rs) / len(rs), 4) if rs else None

    @property
    def seconds_per_candidate(self) -> float | None:
        return round(self.seconds / len(self.rows), 3) if self.rows else None

    def to_json(self) -> dict:
        return {"command": "evolve", "generator": self.generator, "first_step": self.first_step,
                "last_step": self.last_step, "candidates": self.candidates, "funnel": self.funnel(),
                "admitted": self.admitted, "retired": self.retired, "reward_mean": self.reward_mean,
                "seconds": round(self.seconds, 3), "seconds_per_candidate": self.seconds_per_candidate,
                "pool": self.pool, "log": self.log, "stalled": self.stalled,
                "failures": [{"reason": r, "candidates": n} for r, n in self.failures()]}


def request_seed(seed: int, step: int, i: int) -> int:
    """The sampling seed of candidate i of a step (31 bits: every server takes it)."""
    return derive_seed(seed, "evolve", "request", step, i) % (2 ** 31)


def open_generator(cfg: EvolveConfig):
    """The generator backend of [generator] (model or endpoint; exactly one is set)."""
    from racesl.generation import open_backend

    g = cfg.generator
    cfg.require_generator()
    if g.endpoint:
        kw = {"timeout": g.timeout, "retries": g.retries, "max_reply_bytes": g.max_reply_bytes,
              "grammar_field": g.grammar_field}
        if g.served_model:
            kw["served_model"] = g.served_model
        backend = open_backend(None, g.endpoint, **kw)
    else:
        backend = open_backend(g.model, None)
    constrained(cfg, backend)  # a ValueError (one line) when asked for and not possible
    return backend


def constrained(cfg: EvolveConfig, backend) -> bool:
    """Whether candidates are decoded under the generation grammar: `[generator] constrained`,
    or, unset, whether the backend can. Asked for and impossible: a ValueError saying why."""
    want = cfg.generator.constrained
    can = bool(getattr(backend, "supports_grammar", False))
    if want and not can:
        from racesl.generation.constrained import INSTALL

        raise ValueError(f"[generator] constrained = true, but {getattr(backend, 'name', 'this backend')} cannot "
                         f"decode under a grammar: {INSTALL}, or set constrained = false")
    if want is None:  # unset: a local decoder that can; never an endpoint (a server may refuse the field)
        return can and not getattr(backend, "remote", False)
    return bool(want)


class Evolver:
    """The pool, its admission context and the generator, for one evolve run."""

    def __init__(self, cfg: EvolveConfig, backend, *, pool=None):
        from racesl.admit.context import Context
        from racesl.pool import Pool, PoolError

        self.cfg, self.backend = cfg, backend
        self.pool = pool if pool is not None else Pool.open(cfg.pool.dir, seeds=cfg.pool.seeds)
        if not self.pool.writable:
            raise PoolError("evolve needs a pool folder to write to: set [pool] dir (or --pool DIR), not stdlib")
        judge = backend if cfg.generator.model_gates else None
        self.ctx = Context(self.pool, cfg.admit, judge)
        self.name = getattr(backend, "name", type(backend).__name__)
        self.constrained = constrained(cfg, backend)

    @property
    def log_path(self) -> Path:
        return Path(self.pool.root) / LOG

    def prompts(self, step: int) -> list[Prompt]:
        g = self.cfg.generator
        checked = self.ctx.pool_checked()
        return [build_prompt(checked, g.seed, step, i, system=g.system, constrained=self.constrained,
                             per_step=g.candidates_per_step)
                for i in range(g.candidates_per_step)]

    def requests(self, step: int, prompts: list[Prompt]) -> list:
        from racesl.generation import Request

        from racesl.evolve.grammar import generation_grammar

        g = self.cfg.generator
        return [Request(prompt=p.text, system=p.system, temperature=g.temperature, seed=request_seed(g.seed, step, i),
                        max_tokens=g.max_tokens, n=1,
                        grammar=generation_grammar(p.module) if self.constrained else None)
                for i, p in enumerate(prompts)]

    def generate(self, requests: list) -> list:
        """The backend's replies, one per request; a backend that raises or answers short
        gives error replies, never an exception."""
        from racesl.generation import Reply

        try:
            replies = list(self.backend.generate(requests))
        except Exception as e:  # noqa: BLE001 — a broken backend must not end the run
            replies = []
            detail = f"the backend raised {type(e).__name__}: {e}"
        else:
            detail = "the backend returned no reply for this request"
        return replies[:len(requests)] + [Reply(texts=("",), status="error", detail=detail)
                                          for _ in range(len(requests) - len(replies))]

    def failed(self, step: int, i: int, prompt: Prompt, reply) -> Row:
        detail = getattr(reply, "detail", None) or "no completion"
        return Row(step, i, GENERATE, f"the generator gave no completion ({reply.status}): {detail}", None, None,
                   prompt.shape, prompt.seeds, float(getattr(reply, "seconds", 0.0) or 0.0), str(reply.status))

    def judge(self, step: int, i: int, prompt: Prompt, completion: str) -> Row:
        """One completion through extraction and every gate; admitted modules join the pool."""
        from racesl.admit.run import admit_text
        from racesl.pool import PoolError

        t0 = time.perf_counter()
        w = self.cfg.reward
        ex = module_text(completion, self.constrained)
        if ex.text is None:
            return Row(step, i, EXTRACT, ex.reason or "", generator_reward(EXTRACT, {}, w), None, prompt.shape,
                       prompt.seeds, time.perf_counter() - t0)
        verdict, out = admit_text(ex.text, f"{prompt.module}.races", self.ctx)
        gate, reason = verdict.gate, verdict.reason
        if verdict.admitted:
            try:
                self.ctx.admitted(out, write=True, generator=self.name, step=step, origin="generated")
            except PoolError as e:
                gate, reason = POOL_WRITE, f"admitted, but the pool refused it: {e}"
        reward = 0.0 if gate == POOL_WRITE else generator_reward(gate, verdict.scores, w)
        return Row(step, i, gate, reason, reward, verdict.module, prompt.shape, prompt.seeds,
                   time.perf_counter() - t0, scores=verdict.scores)

    def commit(self, step: int, rows: list[Row]) -> list[str]:
        """End `step`: rotate the pool, write its rows, advance the pool's step. Returns the
        modules retired."""
        p = self.cfg.pool
        retired = self.pool.rotate(step, max_age=p.max_age, seed_floor=p.seed_floor)
        if retired:
            self.ctx.refresh()
        self._write_rows(step, rows)
        self.pool.advance(step + 1)
        return [e.module for e in retired]

    def _write_rows(self, step: int, rows: list[Row]) -> None:
        from racesl.atomic import atomic_write

        kept: list[str] = []
        if self.log_path.exists():
            for line in self.log_path.read_text(encoding="utf-8").splitlines():
                try:
                    old = json.loads(line)
                except json.JSONDecodeError:
                    continue  # a torn line cannot happen with atomic writes; skip one from elsewhere
                if isinstance(old, dict) and isinstance(old.get("step"), int) and old["step"] < step:
                    kept.append(line)
        new = [json.dumps(r.to_json(), sort_keys=True, ensure_ascii=False) for r in rows]
        blob = "".join(x + "\n" for x in kept + new)

        def write(tmp):
            Path(tmp).write_text(blob, encoding="utf-8")

        atomic_write(self.log_path, write)

    def step(self, step: int, progress=None, done: int = 0, total: int = 0) -> list[Row]:
        prompts = self.prompts(step)
        replies = self.generate(self.requests(step, prompts))
        rows = []
        for i, (p, reply) in enumerate(zip(prompts, replies)):
            ok = reply.status == "ok" and reply.texts
            row = self.judge(step, i, p, reply.texts[0]) if ok else self.failed(step, i, p, reply)
            if ok:
                row = attrs.evolve(row, seconds=row.seconds + float(getattr(reply, "seconds", 0.0) or 0.0))
            rows.append(row)
            if progress is not None:
                progress(done + i + 1, total, row)
        return rows

    def close(self) -> None:
        self.ctx.close()


def evolve(cfg: EvolveConfig, backend, *, progress=None, pool=None) -> EvolveSummary:
    """Run steps from the pool's step up to [generator] steps. `progress(done, total, row)`
    is called after each candidate."""
    t0 = time.perf_counter()
    ev = Evolver(cfg, backend, pool=pool)
    first = ev.pool.step
    rows: list[Row] = []
    retired: list[str] = []
    n = cfg.generator.candidates_per_step
    total = max(0, cfg.generator.steps - first) * n
    stalled = None
    try:
        for step in range(first, cfg.generator.steps):
            got = ev.step(step, progress, len(rows), total)
            rows += got
            if got and all(r.gate == GENERATE for r in got):  # nothing came back: retry it, never skip it
                ev._write_rows(step, got)
                stalled = step
                break
            retired += ev.commit(step, got)
    finally:
        ev.close()
    return EvolveSummary(ev.name, first, ev.pool.step, rows, time.perf_counter() - t0, retired, ev.pool.summary(),
                         str(ev.log_path), stalled)
