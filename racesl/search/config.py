"""Compile configuration: operators and sizes, filters, search bounds; from races.toml
and the command line (the command line wins)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import attrs

from racesl.runtime.limits import MAX_FUEL

OPERATORS = ("sequential", "parallel", "sort", "select", "branch", "loop")
# The paper's main run: sequential and parallel 2–12, sort and select 2–6.
DEFAULT_SIZES = {"sequential": (2, 12), "parallel": (2, 12), "sort": (2, 6), "select": (2, 6),
                 "branch": (2, 6), "loop": (2, 6)}


class ConfigError(ValueError):
    pass


def _step_budget(_inst, _attr, value) -> None:
    # here, not in each front end: races.toml and `--filter max_steps=` both build Filters
    if type(value) is not int or not 0 <= value <= MAX_FUEL:
        raise ConfigError(f"filters.max_steps must be an integer between 0 and {MAX_FUEL}, not {value!r}")


def _share(inst, attr, value) -> None:
    if type(value) not in (int, float) or not 0 <= value <= 1:
        raise ConfigError(f"filters.{attr.name} must be a number between 0 and 1, not {value!r}")


def _distractors(value) -> tuple[int, int]:
    """`4`, `"3-5"` or `[3, 5]` → (lo, hi) with 1 <= lo <= hi <= 24."""
    if isinstance(value, str):
        a, _, b = value.partition("-")
        try:
            value = (int(a), int(b or a))
        except ValueError:
            raise ConfigError(f"distractors must be a count or a range like 3-5, not {value!r}") from None
    if type(value) is int:
        value = (value, value)
    if (not isinstance(value, (tuple, list)) or len(value) != 2 or any(type(v) is not int for v in value)
            or not 1 <= value[0] <= value[1] <= 24):
        raise ConfigError(f"distractors must be a count or a range lo-hi with 1 <= lo <= hi <= 24, not {value!r}")
    return tuple(value)


@attrs.frozen
class Filters:
    """The paper's degenerate-expansion filters; every one can be turned off or moved."""

    max_steps: int = attrs.field(default=400, validator=_step_budget)  # at most MAX_FUEL: see runtime.limits
    wall: float = 2.0
    drop_values: tuple = (0, 1)  # compared by type and value: True is not 1
    max_int: int = 500
    max_text: int = 100
    repeated_state: bool = True
    sibling_duplicate: bool = True
    repeated_char: bool = True
    min_path: int = 2
    # guessable answers (not in the paper; see docs/compile.md, "Filters")
    bool_values: bool = True  # drop Bool outputs: a coin flip answers them (a branch's condition is exempt)
    sort_orders: float = attrs.field(default=0.25, validator=_share)  # drop sort tasks more orders solve
    answer_share: float = attrs.field(default=0.03, validator=_share)  # cap an answer's share of its cell


FILTER_NAMES = ("error", "fuel", "timeout", "size", "assert", "domain", "value", "bool", "big_int", "long_text",
                "repeated_char", "repeated_state", "sibling_duplicate", "law", "min_path", "sort_orders",
                "answer_share")


def _task_count(_inst, _attr, value) -> None:
    # a compile stops when it has n tasks: n < 1 would never stop
    if type(value) is not int or value < 1:
        raise ConfigError(f"the task count n must be a whole number of at least 1, not {value!r}")


@attrs.frozen
class CompileConfig:
    n: int = attrs.field(default=1000, validator=_task_count)
    seed: int = 0
    operators: tuple[tuple[str, int, int], ...] = tuple((o, *DEFAULT_SIZES[o]) for o in OPERATORS)
    filters: Filters = Filters()
    expansions: int = 6  # candidate next environments tried from one state
    restarts: int = 12  # fresh starts before a task index is given up
    max_level: int = 2  # difficulty levels sampled: 0..max_level
    distractors: tuple[int, int] = attrs.field(default=(3, 5), converter=_distractors)
    # select: how many wrong candidates are shown beside the path, drawn uniformly in this range
    batch: int = 256  # tasks per deterministic batch (quotas update between batches)
    quota_slack: float = 1.5  # usage quota per env = slack × fair share
    solver: bool = True  # prove edges and prune degenerate environments with Z3
    templates: dict = attrs.field(factory=dict, eq=False)  # operator → template text
    include: tuple[str, ...] = ()

    def sizes(self, op: str) -> tuple[int, int]:
        for name, lo, hi in self.operators:
            if name == op:
                return lo, hi
        raise KeyError(op)


def parse_operators(spec: str) -> tuple[tuple[str, int, int], ...]:
    """`sequential=2-12,sort=2-6,loop` → ((name, lo, hi), ...); a bare name takes its defaults."""
    out = []
    for part in filter(None, (p.strip() for p in spec.split(","))):
        name, _, rng = part.partition("=")
        name = name.strip()
        if name not in OPERATORS:
            raise ConfigError(f"unknown operator '{name}' (operators: {', '.join(OPERATORS)})")
        lo, hi = DEFAULT_SIZES[name]
        if rng:
            a, _, b = rng.partition("-")
            try:
                lo, hi = int(a), int(b or a)
            except ValueError:
                raise ConfigError(f"bad size range '{rng}' for {name}: write e.g. {name}=2-6") from None
        if not (1 <= lo <= hi <= 64):
            raise ConfigError(f"size range {lo}-{hi} for {name} must satisfy 1 <= lo <= hi <= 64")
        out.append((name, lo, hi))
    if not out:
        raise ConfigError("no operators given")
    return tuple(out)


def load_toml(path: str | Path) -> dict:
    p = Path(path)
    try:
        with p.open("rb") as f:
            return tomllib.load(f)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{p}: {e}") from None


def from_toml(data: dict, base: Path) -> dict:
    """Keyword arguments for CompileConfig from a races.toml table."""
    kw: dict = {}
    comp = data.get("compile", {})
    for key in ("n", "seed", "expansions", "restarts", "max_level", "batch"):
        if key in comp:
            kw[key] = int(comp[key])
    if "distractors" in comp:
        kw["distractors"] = comp["distractors"]
    if "solver" in comp:
        kw["solver"] = bool(comp["solver"])
    if "include" in comp:
        kw["include"] = tuple(str((base / p).resolve()) for p in comp["include"])
    ops = data.get("operators")
    if ops:
        kw["operators"] = parse_operators(",".join(f"{k}={v}" if v is not True else k for k, v in ops.items()))
    filt = data.get("filters")
    if filt:
        fields = {f.name for f in attrs.fields(Filters)}
        bad = set(filt) - fields
        if bad:
            raise ConfigError(f"unknown filter setting(s): {', '.join(sorted(bad))} (known: {', '.join(sorted(fields))})")
        if "drop_values" in filt:
            filt = dict(filt, drop_values=tuple(filt["drop_values"]))
        kw["filters"] = Filters(**filt)
    tmpl = data.get("templates")
    if tmpl:
        out = {}
        for op, val in tmpl.items():
            if op not in OPERATORS:
                raise ConfigError(f"template for unknown operator '{op}'")
            p = base / val
            out[op] = p.read_text(encoding="utf-8") if not "\n" in val and p.exists() else val
        kw["templates"] = out
    return kw
