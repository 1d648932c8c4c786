"""Compile configuration: operators and sizes, filters, search bounds; from races.toml
and the command line (the command line wins).

Every check lives on the frozen classes (attrs validators), so races.toml, `--filter`, the
train TOML and a Python caller all meet the same rules; the front ends only turn text into
values and say where a value came from.
"""

from __future__ import annotations

import difflib
import json
import re
import tomllib
from pathlib import Path
from typing import ClassVar

import attrs

from racesl.runtime.limits import MAX_FUEL
from racesl.templates import problem as template_problem

OPERATORS = ("sequential", "parallel", "sort", "select", "branch", "loop", "individual")
# what a compile builds unless told: every operator but `individual` (the paper's RL_individual
# baseline, one environment a task, asked for by name)
DEFAULT_OPERATORS = OPERATORS[:6]
# The paper's main run: sequential and parallel 2–12, sort and select 2–6.
DEFAULT_SIZES = {"sequential": (2, 12), "parallel": (2, 12), "sort": (2, 6), "select": (2, 6),
                 "branch": (2, 6), "loop": (2, 6), "individual": (1, 1)}
MAX_SIZE = 64  # the largest composition size an operator range may reach
MAX_LEVEL = 40  # racesl.sample.default.MAX_LEVEL: samplers treat higher levels as this


class ConfigError(ValueError):
    """A wrong setting, in one line that says what is wrong and how to fix it. `section` and
    `key` say which setting, so a loader holding the file's text can add file:line."""

    def __init__(self, message: str, section: str | None = None, key: str | None = None):
        super().__init__(message)
        self.message, self.section, self.key = message, section, key

    def __str__(self) -> str:
        return self.message

    def located(self, where: str) -> ConfigError:
        """The same error, prefixed with `where` (`races.toml:12` or a file name)."""
        return ConfigError(f"{where}: {self.message}", self.section, self.key)

    def moved(self, section: str) -> ConfigError:
        """The same error for a setting kept under another section (the train TOML keeps
        [compile]'s settings in [data])."""
        msg = self.message.replace(f"[{self.section}]", f"[{section}]") if self.section else self.message
        return ConfigError(msg, section, self.key)


# ------------------------------------------------------------ validators shared by every config class


def _setting(inst, attr) -> str:
    return f"[{inst.SECTION}] {attr.name}"


def show(value) -> str:
    """A value as the TOML file would spell it (`true`, `"big"`, `[5]`)."""
    try:
        return json.dumps(value, default=str)
    except (TypeError, ValueError):
        return repr(value)


def _fail(inst, attr, wanted: str, value) -> ConfigError:
    return ConfigError(f"{_setting(inst, attr)} must be {wanted}, not {show(value)}", inst.SECTION, attr.name)


def _bounds(lo, hi, above: bool = False) -> str:
    if lo is not None and hi is not None:
        return f" from {lo} to {hi}"
    if lo is not None:
        return f" above {lo}" if above else f" of at least {lo}"
    return ""


def whole(lo: int | None = None, hi: int | None = None):
    """An int in lo..hi; a bool is no int here (TOML's `true` is not a count)."""
    def check(inst, attr, value):
        if type(value) is not int or (lo is not None and value < lo) or (hi is not None and value > hi):
            raise _fail(inst, attr, "a whole number" + _bounds(lo, hi), value)
    return check


def number(lo: float | None = None, hi: float | None = None, above: bool = False):
    """An int or float in [lo, hi] (in (lo, ...) with `above`); not a bool, not NaN."""
    def check(inst, attr, value):
        ok = type(value) in (int, float) and value == value
        ok = ok and (lo is None or (value > lo if above else value >= lo)) and (hi is None or value <= hi)
        if not ok:
            raise _fail(inst, attr, "a number" + _bounds(lo, hi, above), value)
    return check


def flag(inst, attr, value) -> None:
    if type(value) is not bool:
        raise _fail(inst, attr, "true or false", value)


def one_of(*choices: str):
    def check(inst, attr, value):
        if value not in choices:
            raise _fail(inst, attr, "one of " + ", ".join(f'"{c}"' for c in choices), value)
    return check


def text(inst, attr, value) -> None:
    if not isinstance(value, str):
        raise _fail(inst, attr, "text (a quoted string)", value)


def maybe_text(inst, attr, value) -> None:
    if value is not None:
        text(inst, attr, value)


def texts(inst, attr, value) -> None:
    if not isinstance(value, tuple) or not all(isinstance(v, str) for v in value):
        raise _fail(inst, attr, 'a list of paths, e.g. ["lib"]', value)


def as_tuple(value):
    """Lists from TOML become tuples (frozen configs stay hashable); anything else is left
    for the validator to refuse."""
    return tuple(value) if isinstance(value, list) else value


def unknown_keys(section: str, table: dict, known, hints: dict | None = None) -> None:
    """Refuse keys of `table` not in `known`, with the closest known one as a suggestion."""
    bad = [k for k in table if k not in known]
    if not bad:
        return
    words, all_hinted = [], True
    for b in bad:
        close = difflib.get_close_matches(b, list(known), n=1)
        hint = (hints or {}).get(b) or (f"did you mean {close[0]}?" if close else None)
        words.append(f"{b} ({hint})" if hint else b)
        all_hinted = all_hinted and hint is not None
    known_list = "" if all_hinted else f"; known: {', '.join(known)}"
    raise ConfigError(f"unknown setting{'s' if len(bad) > 1 else ''} in [{section}]: {', '.join(words)}"
                      f"{known_list}", section, bad[0])


def unknown_sections(data: dict, known) -> None:
    bad = [k for k in data if k not in known]
    if bad:
        close = difflib.get_close_matches(bad[0], list(known), n=1)
        hint = f" (did you mean [{close[0]}]?)" if close else ""
        raise ConfigError(f"unknown section [{bad[0]}]{hint}; sections: {', '.join(known)}", bad[0])
    for name in known:
        if name in data and not isinstance(data[name], dict):
            raise ConfigError(f"[{name}] must be a table (a [{name}] header with key = value lines), "
                              f"not {show(data[name])}", name)


# ------------------------------------------------------------ Filters


def _drop_values(inst, attr, value) -> None:
    # the language's values only: a float or a date can never equal an output
    def plain(v) -> bool:
        if isinstance(v, (list, tuple)):
            return all(plain(x) for x in v)
        if isinstance(v, dict):
            return all(plain(k) and plain(x) for k, x in v.items())
        return type(v) in (int, bool, str)

    if not isinstance(value, tuple) or not plain(value):
        raise _fail(inst, attr, "a list of values (whole numbers, booleans, text, lists), e.g. [0, 1]", value)


@attrs.frozen
class Filters:
    """The paper's degenerate-expansion filters; every one can be turned off or moved."""

    SECTION: ClassVar[str] = "filters"

    max_steps: int = attrs.field(default=400, validator=whole(0, MAX_FUEL))  # at most MAX_FUEL: see runtime.limits
    wall: float = attrs.field(default=2.0, validator=number(0, above=True))  # seconds a call
    # compared by type and value: True is not 1
    drop_values: tuple = attrs.field(default=(0, 1), converter=as_tuple, validator=_drop_values)
    max_int: int = attrs.field(default=500, validator=whole(0))
    max_text: int = attrs.field(default=100, validator=whole(0))
    repeated_state: bool = attrs.field(default=True, validator=flag)
    sibling_duplicate: bool = attrs.field(default=True, validator=flag)
    repeated_char: bool = attrs.field(default=True, validator=flag)
    min_path: int = attrs.field(default=2, validator=whole(1, MAX_SIZE))
    # guessable answers (not in the paper; see docs/compile.md, "Filters")
    # drop Bool outputs: a coin flip answers them (a branch's condition is exempt)
    bool_values: bool = attrs.field(default=True, validator=flag)
    sort_orders: float = attrs.field(default=0.25, validator=number(0, 1))  # drop sort tasks more orders solve
    answer_share: float = attrs.field(default=0.03, validator=number(0, 1))  # cap an answer's share of its cell
    # cap the share of an environment's most common output among its answers (racesl.operators.outputs)
    item_share: float = attrs.field(default=0.03, validator=number(0, 1))


FILTER_NAMES = ("error", "fuel", "timeout", "size", "assert", "domain", "value", "bool", "big_int", "long_text",
                "repeated_char", "repeated_state", "sibling_duplicate", "law", "min_path", "sort_orders",
                "answer_share", "guessable")


# ------------------------------------------------------------ CompileConfig


def _task_count(_inst, _attr, value) -> None:
    # a compile stops when it has n tasks: n < 1 would never stop
    if type(value) is not int or value < 1:
        raise ConfigError(f"the task count n must be a whole number of at least 1, not {show(value)}", "compile", "n")


def _distractors(value) -> tuple[int, int]:
    """`4`, `"3-5"` or `[3, 5]` → (lo, hi) with 1 <= lo <= hi <= 24."""
    if isinstance(value, str):
        a, _, b = value.partition("-")
        try:
            value = (int(a), int(b or a))
        except ValueError:
            raise ConfigError(f"[compile] distractors must be a count or a range like \"3-5\", not {show(value)}",
                              "compile", "distractors") from None
    if type(value) is int:
        value = (value, value)
    if (not isinstance(value, (tuple, list)) or len(value) != 2 or any(type(v) is not int for v in value)
            or not 1 <= value[0] <= value[1] <= 24):
        raise ConfigError("[compile] distractors must be a count or a range lo-hi with 1 <= lo <= hi <= 24, "
                          f"not {show(value)}", "compile", "distractors")
    return tuple(value)


def _size_range(name: str, lo, hi) -> None:
    if name == "individual" and (lo, hi) != (1, 1):
        raise ConfigError(f"size {lo}-{hi} for individual: an individual task is one environment, its size is 1 "
                          "(write individual or individual=1)", "operators", name)
    if type(lo) is not int or type(hi) is not int or not 1 <= lo <= hi <= MAX_SIZE:
        raise ConfigError(f"size range {lo}-{hi} for {name} must satisfy 1 <= lo <= hi <= {MAX_SIZE}",
                          "operators", name)


def _operators(_inst, _attr, value) -> None:
    if not isinstance(value, tuple) or not value:
        raise ConfigError("no operators given: enable at least one, e.g. sequential = \"2-6\"", "operators")
    for item in value:
        if not isinstance(item, tuple) or len(item) != 3 or item[0] not in OPERATORS:
            raise ConfigError(f"operators must be (name, lo, hi) with a name in {', '.join(OPERATORS)}, "
                              f"not {item!r}", "operators")
        _size_range(*item)


def _filters_ok(_inst, _attr, value) -> None:
    if not isinstance(value, Filters):
        raise ConfigError(f"filters must be a racesl.search.config.Filters, not {value!r}", "filters")


def _templates_ok(_inst, _attr, value) -> None:
    # unknown fields and malformed text would fail mid-compile; required fields are checked
    # where a user writes the template (races.toml), since code may drop them on purpose
    if not isinstance(value, dict):
        raise ConfigError(f"templates must map operator names to template text, not {value!r}", "templates")
    for op, tmpl in value.items():
        if op not in OPERATORS:
            raise _unknown_operator(op, "templates")
        why = template_problem(op, tmpl, require=False)
        if why:
            raise ConfigError(f"[templates] {op} {why}", "templates", op)


def _envs_spec(_inst, _attr, value) -> None:
    if value is None or (type(value) is int and value >= 1) or (isinstance(value, str) and value.strip()):
        return
    raise ConfigError(f'[compile] envs must be a count of at least 1 (envs = 50) or a file of names '
                      f'(envs = "envs.txt"), not {show(value)}', "compile", "envs")


def _names(_inst, attr, value) -> None:
    if not isinstance(value, tuple) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ConfigError(f'[compile] {attr.name} must be a list of environment or module names, e.g. '
                          f'{attr.name} = ["ciphers", "numbers.fibonacci"], not {show(value)}', "compile", attr.name)


def _holdout(_inst, _attr, value) -> None:
    if value is not None:
        HoldoutSpec.parse(value)


def _part(inst, _attr, value) -> None:
    if value not in ("train", "test"):
        raise ConfigError(f'[compile] part must be "train" or "test", not {show(value)}', "compile", "part")
    if value == "test" and inst.holdout is None:
        raise ConfigError('[compile] part = "test" needs a holdout (e.g. holdout = "pairs=0.2"): '
                          "without one nothing is held out for a test part", "compile", "part")


# The largest [weights] entry. Weights are relative (each quota is scaled by its weight over
# the mean weight), so a larger bound buys nothing, and without one the mean of a few 1e308
# weights overflows to inf and every quota to 0 (a compile of 0 tasks, exit 0: issue 44).
# Every producer of a CompileConfig (compile, races.toml, the train TOML's [weights]) meets
# this validator, and the engine's sum of weights stays far from overflow.
MAX_WEIGHT = 1_000_000


def _weight_pairs(value):
    """A [weights] table ({name: weight}) as sorted (name, weight) pairs: hashable, and the
    same config whatever order the file lists them in."""
    if isinstance(value, dict):
        return tuple(sorted(value.items(), key=lambda kv: str(kv[0])))
    return as_tuple(value)


def _named_entries(section: str, value, maps_to: str, entry: str):
    """The (name, value) entries of a per-name table ([weights], [text_limits]), once the table
    and each entry have their shape; ConfigError naming the section otherwise."""
    if not isinstance(value, tuple):
        raise ConfigError(f"[{section}] must map environment or module names to {maps_to}, not {show(value)}",
                          section)
    for item in value:
        if not isinstance(item, tuple) or len(item) != 2 or not isinstance(item[0], str) or not item[0]:
            raise ConfigError(f"[{section}] entries must be name = {entry}, not {show(item)}", section)
        yield item


def _shown_number(x) -> str:
    """A wrong number as a message shows it: a 401-digit one by its length."""
    shown = show(x)
    return shown if len(shown) <= 40 else f"a number of {len(shown)} digits"


def _weights(_inst, _attr, value) -> None:
    for name, w in _named_entries("weights", value, 'weights, e.g. "ciphers" = 2.0', "weight"):
        # compared, never converted: a 401-digit int is no float, and NaN fails both bounds
        if type(w) not in (int, float) or not 0 <= w <= MAX_WEIGHT:
            shown = _shown_number(w)
            raise ConfigError(f'[weights] "{name}" must be a finite number of at least 0 (0: never used) and at '
                              f"most {MAX_WEIGHT:,} (weights are relative: 2 doubles a share), not {shown}",
                              "weights", name)


# The largest [text_limits] entry: a value's text is shown in a prompt, and a prompt of
# 100,000 characters is no task (the global max_text has no cap; this one keeps a typo of
# a few zeros from letting whole documents through one environment).
MAX_TEXT_LIMIT = 100_000


def _text_limits(_inst, _attr, value) -> None:
    for name, n in _named_entries("text_limits", value, 'a number of characters, e.g. "grids" = 400',
                                  "characters"):
        if type(n) is not int or not 0 <= n <= MAX_TEXT_LIMIT:
            shown = _shown_number(n)
            raise ConfigError(f'[text_limits] "{name}" must be a whole number of characters from 0 to '
                              f"{MAX_TEXT_LIMIT:,} (the longest text form of a value shown), not {shown}",
                              "text_limits", name)


@attrs.frozen
class CompileConfig:
    SECTION: ClassVar[str] = "compile"

    n: int = attrs.field(default=1000, validator=_task_count)
    seed: int = attrs.field(default=0, validator=whole())
    operators: tuple[tuple[str, int, int], ...] = attrs.field(
        default=tuple((o, *DEFAULT_SIZES[o]) for o in DEFAULT_OPERATORS), converter=as_tuple, validator=_operators)
    filters: Filters = attrs.field(default=Filters(), validator=_filters_ok)
    expansions: int = attrs.field(default=6, validator=whole(1))  # candidate next environments tried from one state
    restarts: int = attrs.field(default=12, validator=whole(1))  # fresh starts before a task index is given up
    max_level: int = attrs.field(default=2, validator=whole(0, MAX_LEVEL))  # difficulty levels sampled: 0..max_level
    distractors: tuple[int, int] = attrs.field(default=(3, 5), converter=_distractors)
    # select: how many wrong candidates are shown beside the path, drawn uniformly in this range
    batch: int = attrs.field(default=256, validator=whole(1))  # tasks per deterministic batch (quotas update between)
    # tasks per independent block: quotas, the duplicate check and the answer-share filter
    # start afresh in each (what lets shards build blocks apart, and bounds memory)
    block: int = attrs.field(default=100_000, validator=whole(1))
    quota_slack: float = attrs.field(default=1.5, validator=number(0, above=True))  # quota = slack × fair share
    solver: bool = attrs.field(default=True, validator=flag)  # prove edges and prune degenerate envs with Z3
    templates: dict = attrs.field(factory=dict, eq=False, validator=_templates_ok)  # operator → template text
    include: tuple[str, ...] = attrs.field(default=(), converter=as_tuple, validator=texts)
    # which environments the search may use (racesl.search.subsets): a seeded sample of this
    # many, spread over modules, or the names in this file; less the excluded names
    envs: int | str | None = attrs.field(default=None, validator=_envs_spec)
    exclude: tuple[str, ...] = attrs.field(default=(), converter=as_tuple, validator=_names)
    # (environment or module, weight): an environment's share of appearances follows its weight
    weights: tuple[tuple[str, float], ...] = attrs.field(default=(), converter=_weight_pairs, validator=_weights)
    # (environment or module, characters): that environment's own max_text, in place of the
    # [filters] one (racesl.search.subsets.text_limits; its outputs only)
    text_limits: tuple[tuple[str, int], ...] = attrs.field(default=(), converter=_weight_pairs,
                                                           validator=_text_limits)
    # a held-out split (racesl.search.holdout): what test tasks hold and train tasks never show
    holdout: str | None = attrs.field(default=None, validator=_holdout)
    part: str = attrs.field(default="train", validator=_part)

    def sizes(self, op: str) -> tuple[int, int]:
        for name, lo, hi in self.operators:
            if name == op:
                return lo, hi
        raise KeyError(op)


# ------------------------------------------------------------ held-out splits (racesl.search.holdout)

_ITEM = re.compile(r"\s*(envs|pairs)\s*=\s*([0-9]*\.?[0-9]+)\s*$|\s*size\s*>=\s*([0-9]+)\s*$")
_FORM = "envs=F, pairs=F and size>=K, comma-separated (F a share between 0 and 1), e.g. pairs=0.2"


@attrs.frozen
class HoldoutSpec:
    """What a held-out split holds out, as `--holdout` spells it; racesl.search.holdout
    draws the held-out environments and pairs from it."""

    envs: float | None = None
    pairs: float | None = None
    min_size: int | None = None

    @classmethod
    def parse(cls, text: str) -> HoldoutSpec:
        """`pairs=0.2,size>=5` → HoldoutSpec; ConfigError (section compile, key holdout) naming
        the part that is wrong."""
        if not isinstance(text, str) or not text.strip():
            raise ConfigError(f"[compile] holdout must be text such as \"pairs=0.2\" ({_FORM})", "compile", "holdout")
        got: dict = {}
        for part in text.split(","):
            m = _ITEM.fullmatch(part)
            if m is None:
                raise ConfigError(f"[compile] holdout: cannot read {part.strip()!r}: write {_FORM}",
                                  "compile", "holdout")
            key = m.group(1) or "min_size"
            if key in got:
                raise ConfigError(f"[compile] holdout: {key.replace('min_size', 'size')} is given twice",
                                  "compile", "holdout")
            if key == "min_size":
                k = int(m.group(3))
                if k < 2:
                    raise ConfigError(f"[compile] holdout: size>={k} would hold out every task: K must be at least 2",
                                      "compile", "holdout")
                got[key] = k
            else:
                f = float(m.group(2))
                if not 0 < f < 1:
                    raise ConfigError(f"[compile] holdout: {key}={m.group(2)} must be a share above 0 and below 1",
                                      "compile", "holdout")
                got[key] = f
        return cls(**got)

    def __str__(self) -> str:
        parts = [f"envs={self.envs:g}"] if self.envs is not None else []
        parts += [f"pairs={self.pairs:g}"] if self.pairs is not None else []
        parts += [f"size>={self.min_size}"] if self.min_size is not None else []
        return ",".join(parts)


def _unknown_operator(name: str, section: str) -> ConfigError:
    close = difflib.get_close_matches(name, OPERATORS, n=1)
    hint = f"did you mean {close[0]}? " if close else ""
    return ConfigError(f"unknown operator '{name}' ({hint}operators: {', '.join(OPERATORS)})", section, name)


def parse_operators(spec: str) -> tuple[tuple[str, int, int], ...]:
    """`sequential=2-12,sort=2-6,loop` → ((name, lo, hi), ...); a bare name takes its defaults."""
    out = []
    for part in filter(None, (p.strip() for p in spec.split(","))):
        name, _, rng = part.partition("=")
        name = name.strip()
        if name not in OPERATORS:
            raise _unknown_operator(name, "operators")
        lo, hi = DEFAULT_SIZES[name]
        if rng:
            a, _, b = rng.partition("-")
            try:
                lo, hi = int(a), int(b or a)
            except ValueError:
                raise ConfigError(f"bad size range '{rng}' for {name}: write e.g. {name}=2-6",
                                  "operators", name) from None
        _size_range(name, lo, hi)
        out.append((name, lo, hi))
    if not out:
        raise ConfigError("no operators given", "operators")
    return tuple(out)


# ------------------------------------------------------------ races.toml

SECTIONS = ("compile", "operators", "filters", "templates", "weights", "text_limits")
COMPILE_KEYS = ("sources", "n", "seed", "expansions", "restarts", "max_level", "batch", "block", "quota_slack",
                "distractors", "solver", "include", "envs", "exclude", "holdout", "part")
# command-line options people write into races.toml
CLI_ONLY = {"format": "a command-line option: --format", "workers": "a command-line option: --workers",
            "output": "a command-line option: -o", "out": "a command-line option: -o",
            "audit": "a command-line option: --no-audit", "quiet": "a command-line option: -q"}
TEXT_SUFFIXES = (".txt", ".md", ".tmpl", ".template", ".prompt", ".j2", ".jinja")


def load_toml(path: str | Path) -> dict:
    return read_toml(path)[1]


def read_toml(path: str | Path) -> tuple[str, dict]:
    """A TOML file's text (to find a setting's line for an error) and its table; a file that
    cannot be read or parsed is a ConfigError naming it."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
        return text, tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{p}: {e}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"cannot read {p}: {getattr(e, 'strerror', None) or e}") from None


def key_line(text: str, section: str | None, key: str | None = None) -> int | None:
    """The line of `key = ...` under `[section]` (or of the `[section]` header itself), by a
    plain scan: tomllib keeps no positions, and this finds every ordinary layout."""
    current = None
    for n, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if s.startswith("["):
            current = s.strip("[]").split("]")[0].strip().strip('"\'')
            if key is None and current == section:
                return n
        elif key is not None and current == section and re.match(rf"""["']?{re.escape(key)}["']?\s*=""", s):
            return n
    return None


def locate(err: ConfigError, path: Path, text: str) -> ConfigError:
    """`err` prefixed with path:line of its setting, or with the path alone."""
    line = key_line(text, err.section, err.key) if err.section else None
    return err.located(f"{path}:{line}" if line else str(path))


def _paths(section: str, key: str, value, base: Path) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(p, str) for p in value):
        raise ConfigError(f'[{section}] {key} must be a list of paths, e.g. {key} = ["lib"], not {show(value)}',
                          section, key)
    return tuple(str((base / p).resolve()) for p in value)


def _operator_spec(name: str, value) -> str | None:
    """One `[operators]` entry as parse_operators text: true, false (left out), a size, a
    range "2-6" or [2, 6]."""
    if value is True:
        return name
    if value is False:
        return None
    if type(value) is int:
        return f"{name}={value}"
    if isinstance(value, list) and len(value) == 2 and all(type(v) is int for v in value):
        return f"{name}={value[0]}-{value[1]}"
    if isinstance(value, str) and "," not in value:
        return f"{name}={value}"
    raise ConfigError(f'[operators] {name} must be true, false, a size or a range like "2-6", not {show(value)}',
                      "operators", name)


def _operators_from(table: dict) -> tuple[tuple[str, int, int], ...]:
    for name in table:
        if name not in OPERATORS:
            raise _unknown_operator(name, "operators")
    specs = [s for s in (_operator_spec(k, v) for k, v in table.items()) if s]
    if not specs:
        raise ConfigError("[operators] leaves every operator out: enable at least one", "operators")
    return parse_operators(",".join(specs))


def _file(base: Path, value: str) -> Path | None:
    """`base / value` resolved, or None when `value` cannot be a file name at all (a long
    one-line template: ENAMETOOLONG; a NUL character)."""
    try:
        p = (base / value).resolve()
        p.is_file()
        return p
    except (OSError, ValueError):
        return None


def _looks_like_path(value: str) -> bool:
    return "{" not in value or value.lower().endswith(TEXT_SUFFIXES)


def template_text(op: str, value, base: Path) -> str:
    """A [templates] value: the file it names (relative to `base`), else the text itself.
    A value that looks like a file name but names no file is refused, not used as the prompt."""
    if not isinstance(value, str):
        raise ConfigError(f"[templates] {op} must be template text or a file name, not {show(value)}",
                          "templates", op)
    if "\n" in value:
        return value
    p = _file(base, value)
    if p is None:
        return value
    if p.is_file():
        try:
            return p.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise ConfigError(f"[templates] {op}: cannot read {p}: {getattr(e, 'strerror', None) or e}",
                              "templates", op) from None
    if _looks_like_path(value):
        what = "is not a file" if p.exists() else "does not exist"
        raise ConfigError(f"[templates] {op}: the template file {p} {what} (a template is a file, relative to "
                          "the config file, or the text itself with its {fields})", "templates", op)
    return value


def _templates_from(table: dict, base: Path) -> dict:
    out = {}
    for op, value in table.items():
        if op not in OPERATORS:
            raise _unknown_operator(op, "templates")
        tmpl = template_text(op, value, base)
        why = template_problem(op, tmpl, require=True)
        if why:
            raise ConfigError(f"[templates] {op} {why}", "templates", op)
        out[op] = tmpl
    return out


def _filters_from(table: dict) -> Filters:
    unknown_keys("filters", table, [f.name for f in attrs.fields(Filters)])
    return Filters(**table)


def _flat(table: dict, prefix: str = "") -> dict:
    """[weights] with its dotted keys joined again: TOML reads an unquoted `lists.sum_all = 2`
    as a table {"lists": {"sum_all": 2}}; the name meant is "lists.sum_all"."""
    out = {}
    for k, v in table.items():
        if isinstance(v, dict):
            out.update(_flat(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def from_toml(data: dict, base: Path) -> dict:
    """Keyword arguments for CompileConfig from a races.toml table; every value is checked
    (ConfigError names the setting). `sources` is read by the CLI (`sources`)."""
    unknown_sections(data, SECTIONS)
    comp = data.get("compile", {})
    unknown_keys("compile", comp, COMPILE_KEYS, CLI_ONLY)
    kw = {k: v for k, v in comp.items() if k not in ("sources", "include")}
    if "include" in comp:
        kw["include"] = _paths("compile", "include", comp["include"], base)
    if isinstance(comp.get("envs"), str) and comp["envs"].strip():
        kw["envs"] = str((base / comp["envs"]).resolve())  # a file of names, relative to the config file
    if "sources" in comp:
        _paths("compile", "sources", comp["sources"], base)
    if data.get("operators"):
        kw["operators"] = _operators_from(data["operators"])
    if data.get("filters"):
        kw["filters"] = _filters_from(data["filters"])
    if data.get("templates"):
        kw["templates"] = _templates_from(data["templates"], base)
    if data.get("weights"):
        kw["weights"] = _flat(data["weights"])
    if data.get("text_limits"):
        kw["text_limits"] = _flat(data["text_limits"])
    CompileConfig(**kw)  # every value checked here, where the file is known
    return kw


def sources(data: dict, base: Path) -> list[str]:
    """[compile] sources, relative to the config file (default: its folder)."""
    return [str(base / p) for p in data.get("compile", {}).get("sources", ["."])]


def read_races_toml(path: str | Path) -> tuple[dict, list[str]]:
    """(CompileConfig keyword arguments, source paths) from a races.toml; a ConfigError says
    path:line of the setting that is wrong."""
    p = Path(path)
    data = load_toml(p)
    try:
        return from_toml(data, p.parent), sources(data, p.parent)
    except ConfigError as e:
        try:
            text = p.read_text(encoding="utf-8")
        except OSError:
            text = ""
        raise locate(e, p, text) from None
