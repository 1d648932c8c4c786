"""The admission gates, their order and names, and what one candidate carries through them.

A candidate (a `.races` module, hand-written or generated) passes the gates in `GATES`
order; the first that rejects it ends its run. Each gate is a function

    gate(cand: Candidate, ctx: Context) -> str | None    # None: passed; else the reason

that may record its numbers in `cand.scores[<gate name>]` (plain JSON values) and may fill
later fields of the candidate (the checked modules, the library, the sampled outputs) for
the gates after it. `MODEL_GATES` run only when a model backend is given.
"""

from __future__ import annotations

from typing import Any

import attrs

GATES = ("parse", "check", "sample", "determinism", "nontrivial", "composes", "contract", "novelty",
         "review", "calibration")
MODEL_GATES = ("review", "calibration")
MODEL_FREE_GATES = tuple(g for g in GATES if g not in MODEL_GATES)


@attrs.frozen
class Verdict:
    """What `racesc admit --json` prints for one candidate."""

    file: str
    admitted: bool
    gate: str | None  # the first gate that rejected it; None when admitted
    reason: str  # why it was rejected, or a one-line summary when admitted
    scores: dict[str, Any]  # gate → its numbers
    module: str | None = None  # the module name it has (or would have) in the pool
    passed: tuple[str, ...] = ()  # the gates it passed, in order
    seconds: float = 0.0

    def to_json(self) -> dict:
        return {"file": self.file, "admitted": self.admitted, "gate": self.gate, "reason": self.reason,
                "scores": self.scores, "module": self.module, "passed": list(self.passed),
                "seconds": round(self.seconds, 3)}


@attrs.define
class Candidate:
    """One candidate module on its way through the gates."""

    file: str  # where it came from (a path, or "<completion 3>" for generated text)
    text: str
    module: str | None = None  # the name it has in the pool (fixed up by the check gate)
    scores: dict[str, Any] = attrs.field(factory=dict)
    # filled by the gates, for the gates after them:
    tree: Any = None  # parse: racesl.syntax.ast.Module
    checked: Any = None  # check: racesl.check.Checked of pool + candidate
    lib: Any = None  # check: racesl.library.Library of pool + candidate
    own_lib: Any = None  # check: the library of the candidate and what it imports (less to load in workers)
    envs: list = attrs.field(factory=list)  # check: the candidate's EnvSigs
    outputs: dict = attrs.field(factory=dict)  # sample: env qualname → [(input, settings, Run)]
    declared: dict = attrs.field(factory=dict)  # sample: the same, drawn from the declared types (admit.domain)
    material: dict = attrs.field(factory=dict)  # contract: task records for the calibration gate
    found: list = attrs.field(factory=list)  # sample: diagnostics a later gate reports (E601 of the double run)
    graph: Any = None  # composes: racesl.graph.signature.SignatureGraph of pool + candidate
    parents: tuple = ()  # composes: the pool environments it has an edge with
    fingerprints: dict = attrs.field(factory=dict)  # novelty: env qualname → behaviour fingerprint
    workdir: Any = None  # a temporary folder holding the candidate as <module>.races
    # the environments (by name) the refusing gate refused one by one, each with its reason:
    # where they are some, not all, of the module's, the others can be admitted without them
    refused: dict = attrs.field(factory=dict)
