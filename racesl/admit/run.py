"""Running the gates: one candidate at a time, each in a limited child process.

The pool is checked, lowered and indexed once in this process (it is trusted: seeds and
modules already admitted); each candidate then runs its model-free gates in a forked
child with memory, CPU and wall limits, so a candidate can neither hang nor crash the
caller — a dead child is a rejection at the gate it was in. The model gates (review,
calibration) run here, on plain data the child handed back: they call the model, not the
candidate's code.
"""

from __future__ import annotations

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


def run_gates(cand: Candidate, ctx: Context, gates=MODEL_FREE_GATES, progress=None) -> Outcome:
    """The gates in order, in this process, until one rejects. `progress` (a shared int)
    is set to the index of the gate running, so a parent can name the gate a dead child
    was in."""
    funcs = _gate_functions()
    passed: list[str] = []
    for g in gates:
        if progress is not None:
            progress.value = GATES.index(g)
        reason = funcs[g](cand, ctx)
        if reason is not None:
            return _outcome(cand, g, reason, passed)
        passed.append(g)
    return _outcome(cand, None, "", passed)


def _outcome(cand: Candidate, gate, reason: str, passed) -> Outcome:
    material = dict(getattr(cand, "material", None) or {})
    if gate is None and cand.envs:  # what the review gate reads, taken while the EnvSigs are at hand
        from racesl.admit.judge import review_material

        material.setdefault("envs", review_material(cand))
    return Outcome(gate, reason, cand.scores, tuple(passed), cand.module, cand.text,
                   tuple(e.qualname for e in cand.envs), tuple(cand.parents), dict(cand.fingerprints), material)


def _isolated(cand: Candidate, ctx: Context) -> Outcome:
    from racesl.runtime.children import ChildFailed, run_limited

    progress = mp.get_context("fork").Value("i", 0, lock=False)
    try:
        return run_limited(lambda: run_gates(cand, ctx, progress=progress), memory_mb=CHILD_MEMORY_MB,
                           cpu_s=CHILD_CPU_S, wall_s=CHILD_WALL_S, daemon=False)
    except ChildFailed as exc:
        gate = GATES[progress.value]
        return Outcome(gate, f"the candidate's checks did not finish: {exc}", {gate: {"failed": str(exc)}},
                       MODEL_FREE_GATES[:MODEL_FREE_GATES.index(gate)], None, cand.text)


def admit_text(text: str, file: str, ctx: Context, *, isolate: bool = True) -> tuple[Verdict, Outcome]:
    """Every gate for one candidate (the model gates when `ctx.backend` is set)."""
    t0 = time.perf_counter()
    ctx.warm()
    cand = Candidate(file, text)
    out = _isolated(cand, ctx) if isolate else run_gates(cand, ctx)
    if out.gate is None and ctx.backend is not None:
        from racesl.admit import judge

        for g in ("review", "calibration"):
            reason = getattr(judge, g + "_outcome")(out, ctx)
            if reason is not None:
                out = attrs.evolve(out, gate=g, reason=reason)
                break
            out = attrs.evolve(out, passed=out.passed + (g,))
    admitted = out.gate is None
    reason = out.reason if not admitted else _summary(out)
    return Verdict(file, admitted, out.gate, reason, out.scores, out.module, out.passed,
                   time.perf_counter() - t0), out


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
