"""Guarded edges that never passed in `racesc check`'s sampling.

A guarded edge A → B is one the solver could neither prove nor refute (an opaque helper,
say). `racesc check` samples A's inputs and runs A (racesl.probe); the edge *passed* when
some output of those runs is a value of B's input type, refinements included. An edge whose
A gave outputs, none of which B takes, *never passed*: the composing views leave it out
(`racesc graph`, the language server's hover and code lens, the compile summary's counts),
since it overstates how a library composes. An A that gave no output at all marks nothing.

The search keeps such edges: other inputs (other levels, other chains) may pass, and an
edge that never passes costs the search only a rejected draw, so the tasks of a compile
are the same with and without the record.

The record is a function of the sources (the library's hash), the seed and the number of
samples, and of nothing else: each environment draws from its own stream
(`item_rng(seed, env, i)`), whatever the order or the process. check saves it in the
cache folder (racesl.solver.cache) as `passes-<key>-s<seed>-n<samples>.json` (the key:
the library's hash and the environments sampled); `racesc
graph` reads it or samples the same way, `racesc compile` reads the one of check's
defaults when there is one.

    rec = Recorder()
    probe_env(lib, env, samples, seed, on_run=rec.on_run(env))   # for each root env
    marks = never_passed(graph, rec.outputs, lib)                # {(A, B): "guarded"}
    save_record(lib, seed, samples, rec.sampled, marks)
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from racesl.atomic import atomic_write
from racesl.graph.signature import GUARDED, SignatureGraph
from racesl.solver.cache import cache_dir

CHECK_SAMPLES, CHECK_SEED = 50, 0  # `racesc check`'s defaults: the record compile reads

Marks = dict[tuple[str, str], str]  # (source, target) → the edge's kind


class Recorder:
    """Collects the outputs of check's sampled runs, per environment: `on_run(env)` is
    probe_env's `on_run` callback (the first run of each sampled input)."""

    def __init__(self):
        self.outputs: dict[str, dict[str, Any]] = {}  # env → {canonical text: value}, in sample order
        self.sampled: set[str] = set()

    def on_run(self, env):
        from racesl.runtime.contract import canonical

        mine = self.outputs.setdefault(env.qualname, {})
        self.sampled.add(env.qualname)

        def record(x, settings, run) -> None:
            if run.ok:
                try:
                    mine.setdefault(canonical(run.value), run.value)
                except Exception:  # noqa: BLE001 — a value too large to render: not evidence
                    pass
        return record


def never_passed(graph: SignatureGraph, outputs: dict[str, dict[str, Any]], lib) -> Marks:
    """The guarded edges A → B with outputs of A recorded, none of which is a value of B's
    input type (`lib.conforms`)."""
    out: Marks = {}
    for e in graph.edges():
        if e.kind != GUARDED:
            continue
        vals = outputs.get(e.src)
        if not vals:
            continue
        want = graph.envs[e.dst].input
        if not any(lib.conforms(v, want, text) is None for text, v in vals.items()):
            out[e.src, e.dst] = e.kind
    return out


def _key(lib) -> str:
    """The library's hash and the environments sampled (the files named, not their imports)."""
    h = hashlib.sha256(lib.hash.encode())
    for e in sorted(e.qualname for e in lib.root_envs):
        h.update(f"\n{e}".encode())
    return h.hexdigest()


def record_path(lib, seed: int, samples: int) -> Path | None:
    d = cache_dir()
    if d is None:
        return None
    return d / f"passes-{_key(lib)[:32]}-s{seed}-n{samples}.json"


def save_record(lib, seed: int, samples: int, sampled, marks: Marks) -> None:
    path = record_path(lib, seed, samples)
    if path is None:
        return
    text = json.dumps({"key": _key(lib), "seed": seed, "samples": samples, "sampled": sorted(sampled),
                       "never_passed": sorted([a, b, k] for (a, b), k in marks.items())}, sort_keys=True)
    try:
        atomic_write(path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
    except (OSError, ValueError):
        pass  # a record that cannot be written is only a missed speed-up


def load_record(lib, seed: int, samples: int) -> tuple[set[str], Marks] | None:
    """(the environments sampled, the marks) of a saved record, or None."""
    path = record_path(lib, seed, samples)
    if path is None:
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("key") != _key(lib):
            return None
        return set(data["sampled"]), {(a, b): k for a, b, k in data["never_passed"]}
    except (OSError, ValueError, KeyError, TypeError):
        return None


def sample_marks(lib, graph: SignatureGraph, samples: int = CHECK_SAMPLES, seed: int = CHECK_SEED) -> Marks:
    """The record of check's sampling of `lib.root_envs`: read, or made now (check's
    probe, without the other hash seeds) and saved."""
    got = load_record(lib, seed, samples)
    if got is not None:
        return got[1]
    from racesl.probe import probe_env
    from racesl.runtime.watchdog import WATCHDOG

    rec = Recorder()
    with WATCHDOG.session():
        for env in lib.root_envs:
            probe_env(lib, env, samples, seed, on_run=rec.on_run(env))
    marks = never_passed(graph, rec.outputs, lib)
    save_record(lib, seed, samples, rec.sampled, marks)
    return marks


def recorded_counts(lib, graph: SignatureGraph) -> dict[str, int]:
    """The graph's counts without the guarded edges that never passed, by the record of
    check's default sampling of these sources when check (or graph) saved one; the whole
    graph's counts otherwise. Only read: compiling samples nothing more."""
    try:
        got = load_record(lib, CHECK_SEED, CHECK_SAMPLES)
    except AttributeError:  # (a library without sources to key a record by)
        got = None
    return graph.composing(got[1]).counts() if got is not None else graph.counts()
