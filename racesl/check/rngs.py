"""Which locals of a sampler hold an rng: the `rng` parameter, and every name only ever
assigned `R.fork(...)` of one (`walls = rng.fork("walls")`), so that `walls.randint(...)` is
checked against rng's methods (racesl.types.builtins, receiver "rng")."""

from __future__ import annotations

from racesl.syntax import ast as A

MAX_CHAIN = 8  # forks of forks followed this deep (each pass of `rng_locals` adds one link)


def rng_locals(body, params) -> set[str]:
    """The names in `body` that hold an rng (see the module docstring)."""
    out = {"rng"} if "rng" in params else set()
    for _ in range(MAX_CHAIN):
        before = set(out)
        forks: dict[str, bool] = {}  # name -> every assignment to it is a fork of an rng
        for stmt in body:
            for n in A.walk(stmt):
                if not isinstance(n, A.Assign):
                    continue
                v = n.value
                is_fork = isinstance(v, A.Call) and isinstance(v.func, A.Attribute) \
                    and v.func.attr == "fork" and isinstance(v.func.value, A.Name) and v.func.value.id in out
                for t in n.targets:
                    if isinstance(t, A.Name):
                        forks[t.id] = forks.get(t.id, True) and is_fork
                    else:
                        names: list[A.Name] = []
                        A.assigned_names(t, names)
                        for x in names:
                            forks[x.id] = False
        out |= {k for k, ok in forks.items() if ok and k not in params}
        if out == before:
            break
    return out
