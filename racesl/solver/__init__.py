"""The refinement solver (Z3): edge classification for the signature graph, static pruning
of always-degenerate outputs, sampler bounds and refinement diagnostics.

Importing this package does not import z3; the first query does (~0.1 s).

    from racesl.solver import Solver
    s = Solver()
    s.implies(["0 <= it <= 10"], ["it < 20"], "int")      # "yes"
    SignatureGraph(envs, classify=s.classify)              # proved / guarded / no edge
    always_degenerate(env.output, cfg.filters)             # "long_text" or None
    int_bounds(["3 <= it and it % 2 == 1 and it < 40"])     # (3, 39)
    unsat_refinement(t)                                    # a Pred no value satisfies, or None
"""

from racesl.solver.bounds import EMPTY_BOUNDS, int_bounds
from racesl.solver.prune import always_degenerate, min_repr_len
from racesl.solver.solver import (
    DEFAULT_RLIMIT, DEFAULT_TIMEOUT_MS, GUARDED, PROVED, Solver, default_solver, parse_pred,
)

__all__ = ["Solver", "default_solver", "classify", "unsat_refinement", "always_degenerate", "int_bounds",
           "min_repr_len", "parse_pred", "PROVED", "GUARDED", "DEFAULT_RLIMIT", "DEFAULT_TIMEOUT_MS",
           "EMPTY_BOUNDS"]


def classify(out_type, in_type):
    """`default_solver().classify`: "proved" | "guarded" | None."""
    return default_solver().classify(out_type, in_type)


def unsat_refinement(t):
    """`default_solver().unsat_refinement`: a predicate of `t` that no value satisfies, or None."""
    return default_solver().unsat_refinement(t)
