"""Warnings that need the signature graph (and the solver): refinements no value can
satisfy, and environments that no other environment can follow or precede."""

from __future__ import annotations

from racesl.diagnostics import Diagnostic, Severity
from racesl.types import types as T


def composition_diagnostics(graph, roots, solver=None) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for env in roots:
        if solver is not None:
            for what, t in [(f"input '{env.input_name}'", env.input)] + \
                    [(f"setting '{s.name}'", s.type) for s in env.settings] + [("return type", env.output)]:
                bad = solver.unsat_refinement(t)
                if bad is not None:
                    out.append(Diagnostic(
                        "W300", f"no value satisfies the refinement of the {what} of '{env.name}': {bad.shown}",
                        bad.span, bad.path or env.path, Severity.WARNING,
                        "the conditions contradict each other; loosen one of them"))
        q = env.qualname
        if q in graph.envs and not graph.successors(q) and not graph.predecessors(q):
            out.append(Diagnostic(
                "W301", f"'{env.name}' composes with no environment: nothing returns "
                f"{T.erase(env.input)} into it and nothing takes its {T.erase(env.output)}",
                env.span, env.path, Severity.WARNING,
                "it can still appear in parallel tasks; import modules with matching types to chain it"))
    return out
