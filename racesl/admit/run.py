"""Running the gates: one candidate at a time, each in a limited child process.

Two bounds and one rescue: each candidate has a time budget across the gates that run its
code (`[admit] time_budget`: its child's wall limit, shared by every retry below), past which
it is refused at the gate it was in; the model gates are bounded by the backend's own
timeout and retries. And a module whose refusing gate refused only some of its environments
(sample, nontrivial, novelty, review judge them one by one) is judged again without those,
re-checked from the parse gate on, so one refused environment does not sink its sound
siblings; the verdict names each environment left out, the gate and the reason.

The pool is checked, lowered and indexed once in this process (it is trusted: seeds and
modules already admitted); each candidate then runs its model-free gates in a forked
child with memory, CPU and wall limits, so a candidate can neither hang nor crash the
caller — a dead child is a rejection at the gate it was in. The model gates (review,
calibration) run here, on plain data the child handed back: they call the model, not the
candidate's code.
"""

from __future__ import annotations

import gc
import multiprocessing as mp
import time
from pathlib import Path

import attrs

from racesl.admit.context import Context
from racesl.admit.gates import GATES, MODEL_FREE_GATES, Candidate, Verdict

CHILD_MEMORY_MB = 2048  # address space a candidate's child may add to what it starts with
CHILD_CPU_S = 300
CHILD_WALL_S = 300.0


def _gate_functions() -> dict:
    from racesl.admit import contract, front, judge, novelty, running

    return {"parse": front.parse, "check": front.check, "sample": running.sample,
            "determinism": running.determinism, "nontrivial": running.nontrivial, "composes": front.composes,
            "contract": contract.contract, "novelty": novelty.novelty, "review": judge.review,
            "calibration": judge.calibration}


@attrs.frozen
class Outcome:
    """What a candidate's child hands back: its verdict so far and the plain data that the
    model gates and the pool need."""

    gate: str | None  # the gate that rejected it, else None
    reason: str
    scores: dict
    passed: tuple[str, ...]
    module: str | None
    text: str
    envs: tuple[str, ...] = ()
    parents: tuple[str, ...] = ()
    fingerprints: dict = attrs.field(factory=dict)
    material: dict = attrs.field(factory=dict)  # for the model gates: descriptions, instances
    refused: dict = attrs.field(factory=dict)  # env name → reason, where the refusing gate refused some
    timing: dict = attrs.field(factory=dict)  # gate → seconds (benchmarks read it; never in scores)


def run_gates(cand: Candidate, ctx: Context, gates=MODEL_FREE_GATES, progress=None) -> Outcome:
    """The gates in order, in this process, until one rejects. `progress` (a shared int)
    is set to the index of the gate running, so a parent can name the gate a dead child
    was in."""
    funcs = _gate_functions()
    passed: list[str] = []
    timing: dict = {}
    for g in gates:
        if progress is not None:
            progress.value = GATES.index(g)
        t = time.perf_counter()
        reason = funcs[g](cand, ctx)
        timing[g] = round(time.perf_counter() - t, 4)
        if reason is not None:
            return _outcome(cand, g, reason, passed, timing)
        passed.append(g)
    return _outcome(cand, None, "", passed, timing)


def _outcome(cand: Candidate, gate, reason: str, passed, timing=None) -> Outcome:
    material = dict(getattr(cand, "material", None) or {})
    if gate is None and cand.envs:  # what the review gate reads, taken while the EnvSigs are at hand
        from racesl.admit.judge import review_material

        material.setdefault("envs", review_material(cand))
    refused = dict(cand.refused) if gate is not None else {}
    return Outcome(gate, reason, cand.scores, tuple(passed), cand.module, cand.text,
                   tuple(e.qualname for e in cand.envs), tuple(cand.parents), dict(cand.fingerprints), material,
                   refused, dict(timing or {}))


def _over_budget(gate: str, budget: float) -> str:
    return (f"the candidate used up its time budget of {budget:g} s ([admit] time_budget) in the {gate} gate: "
            "its environments run too long on the sampled inputs; make them cheaper (smaller inputs, fewer "
            "steps) so each run ends well within the per-run wall limit")


def _isolated(cand: Candidate, ctx: Context, deadline: float | None = None) -> Outcome:
    from racesl.runtime.children import ChildFailed, run_limited

    progress = mp.get_context("fork").Value("i", 0, lock=False)
    wall = CHILD_WALL_S if deadline is None else max(0.5, min(CHILD_WALL_S, deadline - time.monotonic()))

    def child() -> Outcome:
        ctx.in_child = True  # (in the forked child only: what the gates change there dies with it)
        return run_gates(cand, ctx, progress=progress)

    # the pool's objects (checked modules, libraries, the novelty index) are what the child
    # reads: frozen, the child's collector never walks them (a walk grew with the pool and
    # copied every page it touched), and only what the candidate allocates is collected
    gc.freeze()
    try:
        return run_limited(child, memory_mb=CHILD_MEMORY_MB,
                           cpu_s=min(CHILD_CPU_S, int(wall) + 5), wall_s=wall, daemon=False)
    except ChildFailed as exc:
        gate = GATES[progress.value]
        budget = deadline is not None and wall < CHILD_WALL_S and time.monotonic() >= deadline - 0.05
        reason = (_over_budget(gate, ctx.config.time_budget) if budget
                  else f"the candidate's checks did not finish: {exc}")
        return Outcome(gate, reason, {gate: {"failed": str(exc), **({"time_budget": ctx.config.time_budget}
                                                                    if budget else {})}},
                       MODEL_FREE_GATES[:MODEL_FREE_GATES.index(gate)], None, cand.text)
    finally:
        gc.unfreeze()


def _judge_once(text: str, file: str, ctx: Context, isolate: bool, deadline: float) -> Outcome:
    """Every gate once on `text`: the model-free ones (in a limited child), then the model
    gates when `ctx.backend` is set (review refuses environments one by one)."""
    cand = Candidate(file, text)
    out = _isolated(cand, ctx, deadline) if isolate else run_gates(cand, ctx)
    if out.gate is None and ctx.backend is not None:
        from racesl.admit import judge

        for g in ("review", "calibration"):
            reason = getattr(judge, g + "_outcome")(out, ctx)
            if reason is not None:
                refused = judge.refused_by_review(out) if g == "review" else {}
                out = attrs.evolve(out, gate=g, reason=reason, refused=refused)
                break
            out = attrs.evolve(out, passed=out.passed + (g,))
    return out


def _partial(out: Outcome) -> list[str] | None:
    """The environments to leave out and judge the module again without: those the refusing
    gate refused one by one, when they are some but not all of the module's."""
    if out.gate is None or not out.refused:
        return None
    names = {q.rsplit(".", 1)[-1] for q in out.envs}
    drop = sorted(set(out.refused) & names)
    return drop if drop and len(drop) < len(names) else None


def admit_text(text: str, file: str, ctx: Context, *, isolate: bool = True) -> tuple[Verdict, Outcome]:
    """Every gate for one candidate (the model gates when `ctx.backend` is set). Where the
    refusing gate refused only some environments, the module is judged again without them
    (racesl.admit.partial), within the same time budget."""
    from racesl.admit.partial import without_envs

    t0 = time.perf_counter()
    ctx.warm()
    deadline = time.monotonic() + ctx.config.time_budget
    left_out: dict[str, dict] = {}
    out = _judge_once(text, file, ctx, isolate, deadline)
    while (drop := _partial(out)) is not None:
        smaller = without_envs(out.text, drop)
        if smaller is None:
            out = attrs.evolve(out, reason=out.reason + " (the module is judged whole: its other environments "
                               "cannot be kept without " + ", ".join(drop) + ")")
            break
        for name in drop:
            left_out[name] = {"gate": out.gate, "reason": out.refused[name]}
        if time.monotonic() >= deadline:
            out = attrs.evolve(out, reason=_over_budget(out.gate, ctx.config.time_budget), refused={})
            break
        out = _judge_once(smaller, file, ctx, isolate, deadline)
    if left_out:
        out.scores["partial"] = {"left_out": left_out,
                                 "kept": sorted(q.rsplit(".", 1)[-1] for q in out.envs) if out.gate is None else []}
    admitted = out.gate is None
    reason = out.reason if not admitted else _summary(out)
    if left_out:
        reason += "; " + _left_out_text(left_out, admitted)
    return Verdict(file, admitted, out.gate, reason, out.scores, out.module, out.passed,
                   time.perf_counter() - t0), out


def _left_out_text(left_out: dict, admitted: bool) -> str:
    each = "; ".join(f"{name} (refused at {v['gate']}: {v['reason']})" for name, v in sorted(left_out.items()))
    head = "admitted without" if admitted else "judged again without"
    return f"{head} {len(left_out)} environment(s) that the gates refused: {each}"


def _summary(out: Outcome) -> str:
    return f"{len(out.envs)} environment(s), {len(out.parents)} pool neighbour(s); passed " + ", ".join(out.passed)


def read_candidate(path: str | Path) -> tuple[str, str | None]:
    """A candidate file's text, or (partial text, the reason it cannot be read)."""
    from racesl.check.loader import irregular
    from racesl.syntax.parser import decode_source

    what = irregular(path)  # (never opened: reading a FIFO blocks forever)
    if what is not None:
        return "", f"cannot read {path}: {what}, not a regular file"
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        return "", f"cannot read {path}: {e.strerror}"
    text, diags = decode_source(data, str(path))
    return text, (diags[0].headline() + f" — {diags[0].hint}" if diags else None)


def admit_files(files, ctx: Context, *, write: bool = True, generator: str | None = None,
                step: int | None = None, origin: str = "admitted", on_verdict=None) -> list[Verdict]:
    """`racesc admit`: each file through the gates; the admitted ones are added to the pool
    (when it is writable and `write`) before the next candidate runs, so a later candidate
    is compared with them too."""
    verdicts = []
    for f in files:
        text, unreadable = read_candidate(f)
        if unreadable:
            v = Verdict(str(f), False, "parse", unreadable, {"parse": {"errors": 1}})
        else:
            v, out = admit_text(text, str(f), ctx)
            if v.admitted:
                ctx.admitted(out, write=write, generator=generator, step=step, origin=origin)
        verdicts.append(v)
        if on_verdict is not None:
            on_verdict(v)
    return verdicts
