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
        if q in graph.envs and env.source and not env.terminal and not graph.successors(q):  # (with
            # @verify it is meant for parallel items only)
            out.append(Diagnostic(
                "W301", f"the generator environment '{env.name}' starts no chain: nothing takes its "
                f"{T.erase(env.output)}", env.span, env.path, Severity.WARNING,
                "it still makes parallel items; import modules that take its output type to chain it"))
        elif q in graph.envs and not env.source and not graph.successors(q) and not graph.predecessors(q) \
                and not decides_branches(graph, env, solver):
            out.append(Diagnostic(
                "W301", f"'{env.name}' composes with no environment: nothing returns "
                f"{T.erase(env.input)} into it and nothing takes its {T.erase(env.output)}",
                env.span, env.path, Severity.WARNING,
                f"a Bool environment composes only as a branch's condition, and no environment that "
                f"starts a chain takes values of its input type ({env.input}): import modules that do"
                if _is_bool(env) else
                "it can still appear in parallel tasks; import modules with matching types to chain it"))
    return out


def _is_bool(env) -> bool:
    return isinstance(T.shape(env.output), T.BoolT)


def decides_branches(graph, env, solver=None) -> bool:
    """Does `env`, a Bool environment, compose with the branch operator: is there a start
    environment (one that chains on, not a generator's) that runs on a value of its input
    type, so both arms can run on the input the condition judges (racesl.operators.build,
    `branch`)? Without a solver, shapes decide."""
    from racesl.graph.signature import syntactic_classify

    if not _is_bool(env) or env.source:
        return False
    cached = getattr(solver, "cached", None)
    classify = cached.classify if cached else solver.classify if solver is not None else syntactic_classify
    shape = T.erase(env.input)
    return any(o.qualname != env.qualname and not o.source and not o.terminal and T.erase(o.input) == shape
               and graph.successors(o.qualname) and classify(env.input, o.input) is not None
               for o in graph.envs.values())
