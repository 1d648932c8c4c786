"""Which environments a compile uses, and how often: `envs` (a seeded sample of N spread over
modules, or the names in a file), `exclude`, `[weights]` and `[text_limits]` (racesl.search.config).

Everything here is a function of the library, the config and its seed, so every worker, Ray
actor and training stream that builds a `Generator` makes the same choice. An environment
left out is excluded from the search like one the solver pruned; a weight scales its usage
quota (`Search.initial_quota`), so its share of appearances follows its weight.

Names: `module.env`, a module (all its environments), or a bare `env` name when one module
has it. A name that is none of these is a ConfigError with the closest names as a hint.
"""

from __future__ import annotations

import difflib
from collections import defaultdict
from pathlib import Path

import attrs

from racesl.sample.seeding import item_rng
from racesl.search.config import ConfigError


@attrs.frozen
class Choice:
    """The environments a compile may use, why the others are left out, and the weights
    that differ from 1."""

    chosen: tuple[str, ...]  # qualnames, sorted
    left_out: dict = attrs.field(eq=False)  # qualname → why (in name order)
    weights: dict = attrs.field(eq=False)  # qualname → weight, for chosen environments whose weight is not 1
    spec: dict = attrs.field(eq=False)  # what the config asked for: envs, exclude, weights (as written)

    @property
    def active(self) -> bool:
        """Whether any of envs, exclude or weights was given (else the compile is as before)."""
        return bool(self.spec)

    def to_json(self) -> dict:
        """What the sidecar and the summary record: the settings as given, the chosen
        environments, and the effective weights."""
        return {**self.spec, "chosen": list(self.chosen), "left_out": len(self.left_out),
                "effective_weights": dict(sorted(self.weights.items()))}


class Names:
    """The names a library answers to: qualnames, modules, bare environment names."""

    def __init__(self, envs: dict):
        self.envs = envs
        self.modules: dict[str, list[str]] = defaultdict(list)
        self.bare: dict[str, list[str]] = defaultdict(list)
        for q in sorted(envs):
            self.modules[envs[q].module].append(q)
            self.bare[envs[q].name].append(q)

    def resolve(self, name: str) -> list[str]:
        """The qualnames `name` means; ConfigError (without a location) when none or several
        modules' environments of that bare name."""
        name = name.strip()
        if name in self.envs:
            return [name]
        if name in self.modules:
            return list(self.modules[name])
        hit = self.bare.get(name)
        if hit and len(hit) == 1:
            return list(hit)
        if hit:
            raise ConfigError(f"'{name}' names environments in several modules ({', '.join(hit)}): write module.env")
        words = sorted(set(self.envs) | set(self.modules) | set(self.bare))
        close = difflib.get_close_matches(name, words, n=3, cutoff=0.6)
        hint = f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else \
            f" (modules: {', '.join(sorted(self.modules)[:12])}{' …' if len(self.modules) > 12 else ''})"
        raise ConfigError(f"no environment or module '{name}'{hint}")


def read_names(path: str | Path) -> list[tuple[int, str]]:
    """(line number, name) of each name in an envs file: one a line, `#` starts a comment,
    blank lines are skipped."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"[compile] envs: cannot read the file of names {p}: "
                          f"{getattr(e, 'strerror', None) or e}", "compile", "envs") from None
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        name = line.split("#", 1)[0].strip()
        if name:
            out.append((n, name))
    if not out:
        raise ConfigError(f"{p}: the file of environments names none (one module.env or env a line)",
                          "compile", "envs")
    return out


def spread_sample(pool: list[str], envs: dict, k: int, seed: int) -> list[str]:
    """k of `pool`, spread over modules: the modules in a seeded order, each module's
    environments in a seeded order, then one from each module in turn until k are taken."""
    rng = item_rng(seed, "envs")
    by_module: dict[str, list[str]] = defaultdict(list)
    for q in sorted(pool):
        by_module[envs[q].module].append(q)
    modules = sorted(by_module)
    rng.shuffle(modules)
    for m in modules:
        rng.shuffle(by_module[m])
    taken: list[str] = []
    depth = 0
    while len(taken) < k:
        for m in modules:
            if depth < len(by_module[m]):
                taken.append(by_module[m][depth])
                if len(taken) == k:
                    break
        depth += 1
    return taken


def _weights(names: Names, pairs) -> dict[str, float]:
    """{qualname: weight} of every environment a [weights] entry names: a module's weight
    for each of its environments, an environment's own weight over its module's."""
    return {q: float(w) for q, w in _by_name(names, pairs, "weights").items()}


def _by_name(names: Names, pairs, section: str) -> dict:
    """{qualname: value} of every environment a per-name table's entries name: a module's value
    for each of its environments, then an environment's own over its module's ([weights],
    [text_limits]); ConfigError naming the section and entry for a name no module or
    environment has."""
    out: dict = {}
    for specific in (False, True):
        for name, v in pairs:
            try:
                hit = names.resolve(name)
            except ConfigError as e:
                raise ConfigError(f'[{section}] "{name}": {e.message}', section, name) from None
            if (name.strip() in names.modules and name.strip() not in names.envs) != specific:
                for q in hit:
                    out[q] = v
    return out


def text_limits(envs: dict, cfg) -> dict[str, int]:
    """{qualname: characters} of every environment a [text_limits] entry names: its own
    max_text in place of the [filters] one (a module's limit for each of its environments,
    an environment's own over its module's, as in [weights]). Empty without the section."""
    if not cfg.text_limits:
        return {}
    return _by_name(Names(envs), cfg.text_limits, "text_limits")


def env_filters(envs: dict, cfg) -> dict:
    """{qualname: Filters} of every environment with a text limit of its own ([text_limits]):
    the config's filters with that max_text. The one place a compile's filters become an
    environment's: the search (racesl.search.engine), the solver's pruning and the "never
    used" reasons all read it."""
    return {q: attrs.evolve(cfg.filters, max_text=n) for q, n in text_limits(envs, cfg).items()}


def choose(envs: dict, cfg, usable) -> Choice:
    """The Choice for `cfg` over the library's environments `envs` ({qualname: EnvSig});
    `usable`: those the search could use at all (a sample of N is drawn among these, so
    none of the N is one the solver pruned)."""
    spec: dict = {}
    if cfg.envs is not None:
        spec["envs"] = cfg.envs
    if cfg.exclude:
        spec["exclude"] = list(cfg.exclude)
    if cfg.weights:
        spec["weights"] = dict(cfg.weights)
    if not spec:
        return Choice(tuple(sorted(envs)), {}, {}, {})
    names = Names(envs)
    left: dict[str, str] = {}
    weights = _weights(names, cfg.weights)
    for q, w in sorted(weights.items()):
        if w == 0:
            left[q] = "its weight is 0 ([weights])"
    for name in cfg.exclude:
        try:
            hit = names.resolve(name)
        except ConfigError as e:
            raise ConfigError(f"[compile] exclude: {e.message}", "compile", "exclude") from None
        for q in hit:
            left.setdefault(q, f"excluded (exclude: {name})")
    pool = [q for q in sorted(envs) if q not in left]
    if isinstance(cfg.envs, str):
        listed: set[str] = set()
        for n, name in read_names(cfg.envs):
            try:
                listed.update(names.resolve(name))
            except ConfigError as e:
                raise ConfigError(f"{cfg.envs}:{n}: {e.message}") from None
        for q in pool:
            if q not in listed:
                left[q] = f"not listed in {cfg.envs}"
    elif isinstance(cfg.envs, int):
        usable = set(usable)
        candidates = [q for q in pool if q in usable]
        if cfg.envs > len(candidates):
            raise ConfigError(f"[compile] envs: {cfg.envs} environments asked for, but only {len(candidates)} of "
                              f"{len(envs)} can be used (the others are excluded, weighted 0 or pruned): ask for "
                              "fewer", "compile", "envs")
        drawn = set(spread_sample(candidates, envs, cfg.envs, cfg.seed))
        for q in pool:
            if q not in drawn:
                left[q] = f"not among the {cfg.envs} environments drawn (envs = {cfg.envs}, seed {cfg.seed})"
    chosen = tuple(q for q in sorted(envs) if q not in left)
    if not chosen:
        raise ConfigError("the environment settings leave no environment to compile (envs, exclude, [weights])",
                          "compile", "envs" if cfg.envs is not None else "exclude")
    effective = {q: w for q, w in sorted(weights.items()) if q not in left and w != 1.0}
    return Choice(chosen, dict(sorted(left.items())), effective, spec)
