"""Sampling diagnostics on save: what `racesc check` finds only by running a file's
environments (E600–E604, W600 and W603 from `racesl.probe.probe_env`) and what it finds
with the signature graph and the solver after checking (W300, W301), published next to the
regular diagnostics with `source = "racesl sampler"`.

When. On didOpen and didSave (the text the user meant to keep), only when the document and
its imports check without errors (`racesc check` runs nothing otherwise). The sampler's
findings are dropped at the next edit of the document (they described other text) until the
next save. A newer save or edit cancels a probe still running (its child is killed) and a
result that arrives for text the document no longer has is discarded: results are keyed by
the exact text they were computed for.

Where. The probe runs the user's code, so it runs in a child process (`python -c`, this
interpreter and sys.path, PYTHONHASHSEED fixed), never in the server: on the child's main
thread, so the watchdog's wall limits apply to every call as in `racesc check`; with an
address-space limit (`memory_mb` above its size once the compiler is imported) and a CPU
limit (`cpu_s`), and killed by the server after `timeout` seconds. That confines more than
`racesc check --untrusted`, whose worker processes run only the bodies while samplers and
refinement checks run in the checking process; here all of them run in the child, so the
child runs bodies in-process (no second layer of workers to start on every save). The
server awaits the child asynchronously and stays responsive.

Cost. `samples` (12) inputs per environment instead of check's 50, seed 0: the same text
gives the same diagnostics, and the same guarded edges that never passed (racesl.passing),
which hover and code lens leave out while the document keeps that text. Other hash seeds (check's `SeedProbe`, which starts two more
interpreters) are not tried.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
from typing import Callable

import attrs

from racesl.diagnostics import Diagnostic, Label, Severity, Span
from racesl.lsp.children import ask_child, kill as _kill

log = logging.getLogger("racesl.lsp")

SOURCE = "racesl sampler"
SAMPLES = 12
SEED = 0
TIMEOUT = 60.0  # seconds before the server kills a probe
MEMORY_MB = 1024
CPU_S = 60


# ---------------------------------------------------------------- the probe itself (in the child)


def probe_document(path: str, text: str, include=(), samples: int = SAMPLES, seed: int = SEED,
                   solver: bool = True, marks: dict | None = None) -> list[Diagnostic]:
    """The diagnostics `racesc check --samples N --seed S path` adds to the checker's, for
    `text` as the content of `path`, restricted to `path`: composition and solver warnings
    (W300, W301) and the sampling probe's findings. [] when the text does not check. With
    `marks` (a dict), the guarded edges out of `path`'s environments that never passed in
    these runs are added to it (racesl.passing), for hover and code lens."""
    from racesl.check import check_paths
    from racesl.graph.diagnostics import composition_diagnostics
    from racesl.graph.signature import build_graph
    from racesl.library import ConstantError, Library
    from racesl.passing import Recorder, never_passed
    from racesl.runtime.watchdog import WATCHDOG
    from racesl.probe import probe_env

    checked = check_paths([path], list(include), overlay={path: text})
    if not checked.ok or not checked.modules:
        return []
    try:
        lib = Library(checked)
    except ConstantError as e:  # a module constant that does not evaluate: say so where it is (E443)
        d = e.diagnostic
        return [attrs.evolve(d, path=path)] if d is not None and _same_file(path)(d.path) else []
    graph, z3 = build_graph(lib.envs.values(), solver)
    out = composition_diagnostics(graph, lib.root_envs, z3)
    rec = Recorder()
    with WATCHDOG.session():
        for env in lib.root_envs:
            out += probe_env(lib, env, samples, seed, on_run=rec.on_run(env))[1]
    if marks is not None:
        marks.update(never_passed(graph, rec.outputs, lib))
    mine = _same_file(path)
    return sorted((attrs.evolve(d, path=path) for d in out if mine(d.path)), key=Diagnostic.sort_key)


def _same_file(path: str) -> Callable[[str | None], bool]:
    want = os.path.realpath(path)
    return lambda p: p is not None and (p == path or os.path.realpath(p) == want)


def to_json(d: Diagnostic) -> dict:
    return {"code": d.code, "message": d.message, "span": attrs.astuple(d.span), "path": d.path,
            "severity": d.severity.value, "hint": d.hint,
            "labels": [[attrs.astuple(lab.span), lab.message, lab.path] for lab in d.labels]}


def from_json(o: dict) -> Diagnostic:
    return Diagnostic(str(o["code"]), str(o["message"]), Span(*o["span"]), str(o["path"]),
                      Severity(o["severity"]), o.get("hint"),
                      tuple(Label(Span(*s), str(m), p) for s, m, p in o.get("labels") or ()))


def _limit(memory_mb: int, cpu_s: int) -> None:
    from racesl.runtime.children import limit_cpu, limit_memory

    if memory_mb:
        limit_memory(memory_mb)
    if cpu_s:
        limit_cpu(cpu_s)


def child_main() -> None:
    """The child's entry: a JSON request on stdin, `{"diagnostics": [...], "never_passed":
    [[source, target, kind], ...]}` on stdout."""
    req = json.loads(sys.stdin.buffer.read())
    import racesl.graph.signature  # noqa: F401 — the compiler's imports before the limits
    import racesl.library  # noqa: F401
    import racesl.solver  # noqa: F401

    _limit(int(req.get("memory_mb") or 0), int(req.get("cpu_s") or 0))
    marks: dict = {}
    diags = probe_document(req["path"], req["text"], req.get("include") or (), int(req["samples"]),
                           int(req["seed"]), bool(req.get("solver", True)), marks)
    sys.stdout.write(json.dumps({"diagnostics": [to_json(d) for d in diags],
                                 "never_passed": sorted([a, b, k] for (a, b), k in marks.items())}))
    sys.stdout.flush()
    os._exit(0)  # no interpreter shutdown



# ---------------------------------------------------------------- the server's side


@attrs.define
class _Result:
    text: str
    diagnostics: list[Diagnostic]
    never_passed: dict = attrs.Factory(dict)  # (source, target) → kind: racesl.passing


class Sampling:
    """Sampler diagnostics per open document: `start` a probe (on open, on save),
    `invalidate` on an edit, `diagnostics_for(uri, text)` when publishing, `close`."""

    def __init__(self, samples: int = SAMPLES, seed: int = SEED, timeout: float = TIMEOUT,
                 memory_mb: int = MEMORY_MB, cpu_s: int = CPU_S, solver: bool = True):
        self.samples, self.seed, self.timeout = samples, seed, timeout
        self.memory_mb, self.cpu_s, self.solver = memory_mb, cpu_s, solver
        self.enabled = True  # (initializationOptions {"sampling": false} turns it off)
        self.results: dict[str, _Result] = {}
        self.tasks: dict[str, asyncio.Task] = {}
        self.runs = 0  # probes finished (for tests and logs)
        self._one: asyncio.Semaphore | None = None
        self._procs: set = set()  # children running now

    def diagnostics_for(self, uri: str, text: str) -> list[Diagnostic]:
        r = self.results.get(uri)
        return r.diagnostics if r is not None and r.text == text else []

    def never_passed(self) -> dict[tuple[str, str], str]:
        """The guarded edges that never passed in the latest probe of each document (only
        results for a document's current text are kept): hover and code lens leave them out."""
        out: dict[tuple[str, str], str] = {}
        for r in self.results.values():
            out.update(r.never_passed)
        return out

    def invalidate(self, uri: str) -> bool:
        """Cancel a running probe and forget the last result; True when there was one to drop."""
        task = self.tasks.pop(uri, None)
        if task is not None:
            task.cancel()
        return self.results.pop(uri, None) is not None

    close = invalidate

    def close_all(self) -> None:
        """On shutdown: cancel every probe and kill every child now."""
        for uri in list(self.tasks):
            self.invalidate(uri)
        for proc in list(self._procs):
            _kill(proc)

    def start(self, uri: str, path: str, text: str, include, done: Callable[[str], None]) -> None:
        """Probe `text` (the content of `path`) in the background; `done(uri)` once its result
        is stored, unless a newer `start` or `invalidate` came first."""
        self.invalidate(uri)
        if not self.enabled:
            return
        loop = asyncio.get_event_loop()
        task = loop.create_task(self._run(uri, path, text, [str(p) for p in include], done))
        self.tasks[uri] = task

    async def _run(self, uri: str, path: str, text: str, include: list[str], done) -> None:
        me = asyncio.current_task()
        if self._one is None:
            self._one = asyncio.Semaphore(1)
        try:
            async with self._one:  # one child at a time, whatever the number of documents
                got = await self._child(path, text, include)
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 — a probe that fails publishes nothing, the server goes on
            log.exception("racesl lsp: sampling %s failed", uri)
            got = None
        if self.tasks.get(uri) is not me:
            return  # superseded
        del self.tasks[uri]
        self.runs += 1
        if got is None:
            return
        self.results[uri] = _Result(text, *got)
        done(uri)

    async def _child(self, path: str, text: str, include: list[str]) -> tuple[list[Diagnostic], dict] | None:
        req = {"path": path, "text": text, "include": include, "samples": self.samples, "seed": self.seed,
               "solver": self.solver, "memory_mb": self.memory_mb, "cpu_s": self.cpu_s}
        try:
            reply = await ask_child("racesl.lsp.sampling", req, self.timeout, self._procs, f"sampling {path}")
        except asyncio.TimeoutError:
            log.warning("racesl lsp: sampling %s took over %.0f s; stopped", path, self.timeout)
            return None
        if reply is None:
            return None
        marks = {(str(a), str(b)): str(k) for a, b, k in reply.get("never_passed") or ()}
        return [from_json(o) for o in reply["diagnostics"]], marks
