"""The language server: pygls wiring, document sync, debounce, and error containment.

Responsiveness. An edit is applied to the text at once. Analysis (incremental parse and
check) runs on the leading edge when the user had paused (no edit for `debounce` seconds),
otherwise `debounce` after the last edit of a burst (at most `max_wait` after the burst
began). A request (hover, completion, ...) flushes a pending analysis first, so answers
always match the text the client sees. Diagnostics are published after each analysis.
On open and on save the sampler (racesl.lsp.sampling) probes the document in a child
process; its findings are published with the analysis' until the next edit.

Long work never runs on the event loop. An analysis that would parse or check a document
over LARGE_CHARS characters runs on a worker thread (one at a time); while it runs the
loop does not touch the workspace: requests are answered at once from nothing (null,
empty lists), notifications are kept and applied in order when it ends, and its
diagnostics are published then. Edits made meanwhile are analysed next (intermediate
versions are skipped). Formatting a large document runs in a child process
(racesl.lsp.format_jobs), killed when an edit supersedes it. docs/editors.md states the
bounds measured.

No handler may take the server down: each one catches and logs its own exceptions; no
message either: oversized ones are refused by the reader (racesl.lsp.transport), and a
request whose params do not fit its method gets an InvalidParams error (RacesProtocol).
"""

from __future__ import annotations

import asyncio
import functools
import gc
import json
import logging
import sys
import time
import queue
import threading
from concurrent.futures import Executor, Future
from pathlib import Path

from lsprotocol import types as L
from pygls.exceptions import JsonRpcContentModified, JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method

from racesl import __version__
from racesl.lsp import code_actions as CA
from racesl.lsp import code_lens as CL
from racesl.lsp import completion as CO
from racesl.lsp import definition as DE
from racesl.lsp import diagnostics as DG
from racesl.lsp import format_jobs as FJ
from racesl.lsp import hover as HO
from racesl.lsp import index as I
from racesl.lsp import inlay_hints as IH
from racesl.lsp import rename as RN
from racesl.lsp import sampling as SA
from racesl.lsp import signature_help as SH
from racesl.lsp import symbols as SY
from racesl.lsp import workspace_symbols as WS
from racesl.lsp.analysis import Analysis, LibraryPending, Workspace
from racesl.lsp.context import Positions, View
from racesl.lsp.documents import uri_to_path
from racesl.lsp.semantic_tokens import LEGEND, SemanticTokens
from racesl.lsp.transport import BoundedStdin

log = logging.getLogger("racesl.lsp")

DEFAULT_DEBOUNCE = 0.075
MAX_WAIT = 0.4
REQUEST_FAILED = -32803  # LSP's RequestFailed
LARGE_CHARS = 200_000  # a document over this is analysed on the worker thread (~1 s of parse and check)


class RacesProtocol(LanguageServerProtocol):
    """Keeps pygls from maintaining its own copy of each document (ours is authoritative:
    it splits lines exactly at \\r\\n, \\r and \\n as LSP does, and clamps bad positions).
    A request whose params pygls cannot structure gets an error response (pygls logs and
    drops it, and the client waits for an answer forever)."""

    def structure_message(self, data):
        try:
            return super().structure_message(data)
        except JsonRpcException as e:
            rid = data.get("id") if isinstance(data, dict) else None
            if "method" in data and isinstance(rid, (int, str)) and not isinstance(rid, bool):
                self.reply_error(rid, e.code, f"{e.message}: the params do not fit {str(data['method'])[:100]}")
            raise

    def reply_error(self, rid, code: int, message: str) -> None:
        """Send a JSON-RPC error response (framed as pygls frames its own)."""
        body = json.dumps({"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}})
        try:
            self.writer.write(f"Content-Length: {len(body)}\r\nContent-Type: {self.CONTENT_TYPE}; "
                              f"charset={self.CHARSET}\r\n\r\n{body}".encode(self.CHARSET))
        except Exception:  # noqa: BLE001 — a lost pipe ends the server through pygls's own path
            log.exception("racesl lsp: could not send an error response")

    @lsp_method(L.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: L.DidOpenTextDocumentParams):
        if (handler := self.fm.features.get(L.TEXT_DOCUMENT_DID_OPEN)) is not None:
            yield handler, (params,), None

    @lsp_method(L.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: L.DidChangeTextDocumentParams):
        if (handler := self.fm.features.get(L.TEXT_DOCUMENT_DID_CHANGE)) is not None:
            yield handler, (params,), None

    @lsp_method(L.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: L.DidCloseTextDocumentParams):
        if (handler := self.fm.features.get(L.TEXT_DOCUMENT_DID_CLOSE)) is not None:
            yield handler, (params,), None


class _DaemonWorker(Executor):
    """One daemon thread running what is submitted, in order: the server's exit never waits
    for an analysis under way (a ThreadPoolExecutor's thread is joined at exit)."""

    def __init__(self):
        self._q: queue.SimpleQueue = queue.SimpleQueue()
        threading.Thread(target=self._run, name="racesl-analysis", daemon=True).start()

    def submit(self, fn, /, *args, **kwargs) -> Future:
        f: Future = Future()
        self._q.put((f, fn, args, kwargs))
        return f

    def _run(self) -> None:
        while True:
            f, fn, args, kwargs = self._q.get()
            if not f.set_running_or_notify_cancel():
                continue
            try:
                f.set_result(fn(*args, **kwargs))
            except BaseException as e:  # noqa: BLE001 — the loop's side reports it
                f.set_exception(e)


def _guard(default=None):
    def deco(f):
        @functools.wraps(f)
        def wrapped(*args, **kwargs):
            try:
                return f(*args, **kwargs)
            except JsonRpcException:
                raise  # a deliberate refusal (rename): the client gets it as an error response
            except Exception:  # noqa: BLE001 — log, answer empty, keep serving
                log.exception("racesl lsp: %s failed", f.__name__)
                return default() if callable(default) else default
        return wrapped
    return deco


class RacesServer(LanguageServer):
    def __init__(self, include: list[str] | None = None, debounce: float = DEFAULT_DEBOUNCE):
        super().__init__("racesl", __version__, protocol_cls=RacesProtocol,
                         text_document_sync_kind=L.TextDocumentSyncKind.Incremental)
        self.include = list(include or [])
        self.debounce = debounce
        self.ws = Workspace(self.include)
        self.indexer = I.Indexer()
        self.sem = SemanticTokens()
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._burst_start: dict[str, float] = {}
        self._last_edit: dict[str, float] = {}
        self.timings: list[float] = []
        self._warm: asyncio.Task | None = None
        self.sampling = SA.Sampling()
        self.formatter = FJ.Formatter()
        self.ws.large_chars = LARGE_CHARS
        self.ws.never_passed = self.sampling.never_passed
        self.background = False  # a worker-thread job owns the workspace: the loop keeps off it
        self._executor = _DaemonWorker()
        self._deferred: list = []  # notifications that came while `background`, in order
        self._pending: set[str] = set()  # documents to analyse once the job ends
        self._probe_after: set[str] = set()  # documents to probe once the job ends

    # ------------------------------------------------------------ helpers

    @property
    def enc(self) -> str:
        try:
            e = self.workspace.position_encoding
        except Exception:  # noqa: BLE001 — before initialize
            e = None
        return str(getattr(e, "value", e) or "utf-16")

    def analyze_now(self, uri: str) -> Analysis | None:
        """The analysis of the document's current text, or, when that is long work (then
        started on the worker thread) or a job runs, the last one (None before the first)."""
        timer = self._timers.pop(uri, None)
        if timer is not None:
            timer.cancel()
        self._burst_start.pop(uri, None)
        if uri not in self.ws.docs:
            return None
        prev = self.ws.analyses.get(uri)
        if self.background:
            self._pending.add(uri)
            return prev
        if self.ws.long_work(uri):
            self.in_background(functools.partial(self.ws.analyze, uri),
                               lambda a: self._analysed(uri, prev, a), f"analysis of {uri}")
            return prev
        try:
            a = self.ws.analyze(uri)
        except Exception:  # noqa: BLE001
            log.exception("racesl lsp: analysis of %s failed", uri)
            return prev
        self._analysed(uri, prev, a)
        return a

    def _analysed(self, uri: str, prev: Analysis | None, a: Analysis) -> None:
        if a is not prev:
            self.timings.append(a.elapsed)
            self.publish(a)
            if a.elapsed > 0.25:  # a large (first) analysis: keep its survivors out of later collections
                gc.collect()
                gc.freeze()
            for other in self.ws.dependents(uri):
                self.schedule(other, force_delay=True)

    # ------------------------------------------------------------ the worker thread

    def in_background(self, fn, done, what: str) -> asyncio.Future:
        """Run `fn()` on the worker thread, then `done(result)` on the loop. Until then the
        loop keeps off the workspace (`background`): see `answered` and `when_free`. The
        future it returns resolves after `done` and the kept notifications have run."""
        self.background = True
        fut = asyncio.get_event_loop().run_in_executor(self._executor, fn)

        def finished(f) -> None:
            self.background = False
            try:
                done(f.result())
            except Exception:  # noqa: BLE001
                log.exception("racesl lsp: %s failed", what)
            self._resume()
        fut.add_done_callback(finished)
        return fut

    async def long_request(self, uri: str, fn, default):
        """`fn(view)` for a request over the whole document: on the worker thread when the
        document is large (semantic tokens and symbols of 1M characters take seconds)."""
        if self.background:
            return default()
        v = self.view(uri)
        if v is None:
            return default()
        try:
            if len(v.a.text) <= LARGE_CHARS:
                return fn(v)
            return await self.in_background(lambda: fn(v), lambda r: None, "a request")
        except JsonRpcException:
            raise
        except Exception:  # noqa: BLE001 — log, answer empty, keep serving
            log.exception("racesl lsp: %s failed", getattr(fn, "__name__", "a request"))
            return default()

    def when_free(self, fn, *args) -> None:
        """`fn(*args)` now, or when the running job ends (notifications keep their order)."""
        if self.background or self._deferred:
            self._deferred.append((fn, args))
            if not self.background:
                self._resume()
        else:
            fn(*args)

    def _resume(self) -> None:
        while self._deferred and not self.background:
            fn, args = self._deferred.pop(0)
            fn(*args)
        if self.background:
            return
        for uri in sorted(self._pending):
            if uri in self.ws.docs:
                self.schedule(uri, force_delay=True)
        self._pending.clear()
        probes, self._probe_after = self._probe_after, set()
        for uri in sorted(probes):
            self.probe(uri)

    def publish(self, a: Analysis) -> None:
        try:
            diags = DG.for_document(a, Positions(self.ws, self.enc),
                                    {SA.SOURCE: self.sampling.diagnostics_for(a.uri, a.text)})
        except Exception:  # noqa: BLE001
            log.exception("racesl lsp: converting diagnostics of %s failed", a.uri)
            diags = []
        self.text_document_publish_diagnostics(L.PublishDiagnosticsParams(uri=a.uri, diagnostics=diags,
                                                                          version=a.version))

    def probe(self, uri: str) -> None:
        """Start the sampler on the document's text (on open, on save): only when it checks
        without errors and declares environments, as `racesc check` runs nothing otherwise."""
        a = self.analyze_now(uri)
        doc = self.ws.docs.get(uri)
        if self.background:
            self._probe_after.add(uri)
            return
        if a is None or doc is None or a.text is not doc.text:
            return
        if not a.checked.ok or a.module is None or not a.module.envs:
            if self.sampling.invalidate(uri):
                self.publish(a)
            return
        self.sampling.start(uri, a.path, a.text, self.ws.include, self._sampled)

    def _sampled(self, uri: str) -> None:
        self.when_free(self._publish_sampled, uri)

    def _publish_sampled(self, uri: str) -> None:
        a = self.ws.analyses.get(uri)
        if a is not None and uri in self.ws.docs:
            self.publish(a)  # (the sampler's findings only join an analysis of the same text)

    def schedule(self, uri: str, force_delay: bool = False) -> None:
        loop = asyncio.get_event_loop()
        now = time.monotonic()
        last = self._last_edit.get(uri)
        self._last_edit[uri] = now
        pending = uri in self._timers
        if not force_delay and not pending and (last is None or now - last >= self.debounce):
            self.analyze_now(uri)  # leading edge: the user had paused
            return
        start = self._burst_start.setdefault(uri, now)
        if pending:
            self._timers.pop(uri).cancel()
        delay = max(0.0, min(self.debounce, start + MAX_WAIT - now))
        self._timers[uri] = loop.call_later(delay, self._fire, uri)

    def _busy(self, idle: float) -> bool:
        return self.background or bool(self._timers) or \
            time.monotonic() - max(self._last_edit.values(), default=0.0) < idle

    def warm_library(self, idle: float = 1.0) -> None:
        """Parse and check the library (stdlib, workspace) once the user has been idle for
        `idle` seconds, one file at a time, so that the first hover's composition counts
        do not wait for it and typing is never held up for long."""
        if self._warm is not None:
            return

        async def warm():
            try:
                while self._busy(idle):
                    await asyncio.sleep(idle / 2)
                paths = self.ws.stdlib_files() + self.ws.workspace_files()
                self.publish_skipped()
                for path in paths:
                    while self._busy(idle):
                        await asyncio.sleep(idle / 2)
                    if self.ws.doc_by_path(path) is None:
                        try:
                            self.ws.driver.disk.get(path)
                        except OSError:
                            pass
                    await asyncio.sleep(0)
                while self._busy(idle):
                    await asyncio.sleep(idle / 2)
                if all(len(d.text) <= LARGE_CHARS for d in self.ws.docs.values()):
                    self.ws.library()  # (with a large document open, only a rename asks for it: it is long work)
            except Exception:  # noqa: BLE001
                log.exception("racesl lsp: checking the library failed")

        self._warm = asyncio.get_event_loop().create_task(warm())

    def publish_skipped(self) -> None:
        """A W202 warning at each FIFO, socket or device named *.races that the workspace scan
        skipped (never opened: reading one would block the server)."""
        for d in self.ws.skipped_files:
            at = L.Range(L.Position(0, 0), L.Position(0, 0))
            warning = L.Diagnostic(at, d.message, L.DiagnosticSeverity.Warning, d.code, source="racesl")
            self.text_document_publish_diagnostics(L.PublishDiagnosticsParams(uri=Path(d.path).as_uri(),
                                                                              diagnostics=[warning]))

    def _fire(self, uri: str) -> None:
        self._timers.pop(uri, None)
        self.analyze_now(uri)

    def view(self, uri: str) -> View | None:
        if uri not in self.ws.docs:
            return None
        a = self.analyze_now(uri)  # (returns the last analysis when nothing changed since)
        if a is None or self.background:  # (a job now owns the workspace)
            return None
        return View(self.ws, a, self.enc, self.indexer)


def build_server(include: list[str] | None = None, debounce: float = DEFAULT_DEBOUNCE) -> RacesServer:
    server = RacesServer(include, debounce)

    def answered(default=None):
        """`_guard`, and while a job owns the workspace, `default` at once."""
        def deco(f):
            guarded = _guard(default)(f)

            @functools.wraps(f)
            def wrapped(*args, **kwargs):
                if server.background:
                    return default() if callable(default) else default
                return guarded(*args, **kwargs)
            return wrapped
        return deco

    @server.feature(L.INITIALIZE)
    @_guard()
    def initialize(params: L.InitializeParams) -> None:
        roots = []
        for f in params.workspace_folders or []:
            roots.append(uri_to_path(f.uri))
        if not roots and params.root_uri:
            roots.append(uri_to_path(params.root_uri))
        elif not roots and params.root_path:
            roots.append(params.root_path)
        opts = params.initialization_options if isinstance(params.initialization_options, dict) else {}
        include = server.include + [str(p) for p in opts.get("include", []) or []]
        if "debounceMs" in opts:
            try:
                server.debounce = max(0.0, float(opts["debounceMs"]) / 1000)
            except (TypeError, ValueError):
                pass
        server.ws = Workspace(include, [Path(r) for r in roots])
        server.ws.large_chars = LARGE_CHARS
        server.ws.never_passed = server.sampling.never_passed
        if opts.get("sampling") is False:
            server.sampling.enabled = False

    @server.feature(L.SHUTDOWN)
    @_guard()
    def shutdown(params) -> None:
        server.sampling.close_all()
        server.formatter.close_all()

    @server.feature(L.TEXT_DOCUMENT_DID_OPEN)
    @_guard()
    def did_open(params: L.DidOpenTextDocumentParams) -> None:
        server.when_free(opened, params)

    @_guard()
    def opened(params: L.DidOpenTextDocumentParams) -> None:
        td = params.text_document
        server.ws.open(td.uri, td.text, td.version)
        server.analyze_now(td.uri)
        server._last_edit[td.uri] = time.monotonic()  # (activity: the library warms up after a pause)
        server.warm_library()
        server.probe(td.uri)

    @server.feature(L.TEXT_DOCUMENT_DID_CHANGE)
    @_guard()
    def did_change(params: L.DidChangeTextDocumentParams) -> None:
        server.formatter.cancel(params.text_document.uri)  # (now: its edits are for the old text)
        server.when_free(changed, params)

    @_guard()
    def changed(params: L.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        doc = server.ws.docs.get(uri)
        if doc is None:
            return
        enc = server.enc
        for ch in params.content_changes:
            rng = getattr(ch, "range", None)
            if rng is None:
                doc.apply_change(None, None, ch.text, enc)
            else:
                doc.apply_change((rng.start.line, rng.start.character), (rng.end.line, rng.end.character),
                                 ch.text, enc)
        doc.version = params.text_document.version
        server.sampling.invalidate(uri)  # (the next analysis publishes without them)
        server.schedule(uri)

    @server.feature(L.TEXT_DOCUMENT_DID_CLOSE)
    @_guard()
    def did_close(params: L.DidCloseTextDocumentParams) -> None:
        server.formatter.cancel(params.text_document.uri)
        server.when_free(closed, params)

    @_guard()
    def closed(params: L.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        timer = server._timers.pop(uri, None)
        if timer is not None:
            timer.cancel()
        dependents = server.ws.dependents(uri)
        server.ws.close(uri)
        server.sampling.close(uri)
        server._last_edit.pop(uri, None)
        server.text_document_publish_diagnostics(L.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
        for other in dependents:  # they now read the file from disk
            server.schedule(other, force_delay=True)

    @server.feature(L.TEXT_DOCUMENT_DID_SAVE)
    @_guard()
    def did_save(params: L.DidSaveTextDocumentParams) -> None:
        server.when_free(saved, params)

    @_guard()
    def saved(params: L.DidSaveTextDocumentParams) -> None:
        server.ws.forget_workspace_files()
        server.probe(params.text_document.uri)

    @server.feature(L.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    @_guard()
    def watched(params: L.DidChangeWatchedFilesParams) -> None:
        server.when_free(server.ws.forget_workspace_files)

    @server.feature(L.TEXT_DOCUMENT_HOVER)
    @answered()
    def hover(params: L.HoverParams) -> L.Hover | None:
        v = server.view(params.text_document.uri)
        return HO.hover(v, params.position) if v is not None else None

    @server.feature(L.TEXT_DOCUMENT_COMPLETION, L.CompletionOptions(trigger_characters=[".", "@"]))
    @answered()
    def completion(params: L.CompletionParams) -> L.CompletionList | None:
        v = server.view(params.text_document.uri)
        return CO.complete(v, params.position) if v is not None else None

    @server.feature(L.TEXT_DOCUMENT_DEFINITION)
    @answered(list)
    def definition(params: L.DefinitionParams) -> list[L.Location]:
        v = server.view(params.text_document.uri)
        return DE.definition(v, params.position) if v is not None else []

    @server.feature(L.TEXT_DOCUMENT_REFERENCES)
    @answered(list)
    def references(params: L.ReferenceParams) -> list[L.Location]:
        v = server.view(params.text_document.uri)
        if v is None:
            return []
        return DE.references(v, params.position, bool(params.context and params.context.include_declaration))

    @server.feature(L.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    async def document_symbol(params: L.DocumentSymbolParams) -> list[L.DocumentSymbol]:
        return await server.long_request(params.text_document.uri, SY.document_symbols, list)

    @server.feature(L.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, LEGEND)
    async def semantic_tokens(params: L.SemanticTokensParams) -> L.SemanticTokens:
        return await server.long_request(params.text_document.uri, server.sem.full,
                                         lambda: L.SemanticTokens(data=[]))

    @server.feature(L.TEXT_DOCUMENT_SEMANTIC_TOKENS_RANGE, LEGEND)
    @answered(lambda: L.SemanticTokens(data=[]))
    def semantic_tokens_range(params: L.SemanticTokensRangeParams) -> L.SemanticTokens:
        v = server.view(params.text_document.uri)
        if v is None:
            return L.SemanticTokens(data=[])
        return server.sem.full(v, (params.range.start.line, params.range.end.line))

    @server.feature(L.TEXT_DOCUMENT_CODE_ACTION,
                    L.CodeActionOptions(code_action_kinds=[L.CodeActionKind.QuickFix]))
    @_guard(list)
    def code_action(params: L.CodeActionParams) -> list[L.CodeAction]:
        return CA.code_actions(params.text_document.uri, params)

    @server.feature(L.TEXT_DOCUMENT_SIGNATURE_HELP, L.SignatureHelpOptions(trigger_characters=["(", ","]))
    @answered()
    def signature_help(params: L.SignatureHelpParams) -> L.SignatureHelp | None:
        v = server.view(params.text_document.uri)
        if v is None:
            return None
        offsets, markdown = SH.client_options(server.client_capabilities)
        return SH.signature_help(v, params.position, offsets, markdown)

    @server.feature(L.TEXT_DOCUMENT_INLAY_HINT)
    @answered(list)
    def inlay_hint(params: L.InlayHintParams) -> list[L.InlayHint]:
        v = server.view(params.text_document.uri)
        return IH.inlay_hints(v, params.range) if v is not None else []

    @server.feature(L.TEXT_DOCUMENT_FORMATTING)
    async def formatting(params: L.DocumentFormattingParams) -> list[L.TextEdit] | None:
        """Large documents in a child (format_jobs): never on the loop. The text is the
        document's own (the worker thread only reads it); not while edits wait to be applied."""
        uri = params.text_document.uri
        doc = server.ws.docs.get(uri)
        if doc is None or server._deferred:
            return None
        try:
            return await server.formatter.format(uri, doc.text, uri_to_path(uri), server.enc)
        except FJ.Superseded:
            raise JsonRpcContentModified("the document changed while it was being formatted") from None
        except FJ.TooSlow:
            raise JsonRpcException(f"formatting took over {server.formatter.timeout:g} s and was stopped; "
                                   f"run racesc fmt on the file", code=REQUEST_FAILED) from None
        except Exception:  # noqa: BLE001 — log, answer empty, keep serving
            log.exception("racesl lsp: formatting failed")
            return None

    # ------------------------------------------------ rename, workspace symbols, code lens

    def analyze_open() -> None:  # (cross-module features see every open document's latest text)
        for uri in list(server.ws.docs):
            server.analyze_now(uri)

    @server.feature(L.TEXT_DOCUMENT_PREPARE_RENAME)
    @answered()
    def prepare_rename(params: L.PrepareRenameParams) -> L.PrepareRenamePlaceholder | None:
        v = server.view(params.text_document.uri)
        return RN.prepare_rename(v, params.position) if v is not None else None

    @server.feature(L.TEXT_DOCUMENT_RENAME)
    @answered()
    def rename(params: L.RenameParams) -> L.WorkspaceEdit | None:
        analyze_open()
        v = server.view(params.text_document.uri)
        if v is None:
            return None
        try:
            server.ws.library()  # (every module that may use the name: a rename must see them all)
        except LibraryPending:
            server.in_background(server.ws.library, lambda lib: None, "checking the library")
            raise RN.RenameRefused("the workspace's modules are being checked (a large document is open); "
                                   "try again in a few seconds") from None
        return RN.rename(v, params.position, params.new_name, RN.wants_document_changes(server.client_capabilities))

    @server.feature(L.WORKSPACE_SYMBOL)
    @answered(list)
    def workspace_symbol(params: L.WorkspaceSymbolParams) -> list[L.WorkspaceSymbol]:
        analyze_open()
        if server.background:  # (a document's analysis went to the worker thread)
            return []
        return WS.workspace_symbols(server.ws, params.query or "", server.enc)

    @server.feature(L.TEXT_DOCUMENT_CODE_LENS)
    @answered(list)
    def code_lens(params: L.CodeLensParams) -> list[L.CodeLens]:
        v = server.view(params.text_document.uri)
        return CL.code_lenses(v) if v is not None else []

    @server.feature(L.CODE_LENS_RESOLVE)
    @_guard()
    def code_lens_resolve(lens: L.CodeLens) -> L.CodeLens:
        uri = lens.data.get("uri") if isinstance(lens.data, dict) else None
        return CL.resolve(server.view(uri) if isinstance(uri, str) else None, lens)

    return server


def tune_gc() -> None:
    """Fewer, cheaper garbage collections: the server keeps many long-lived objects (ASTs,
    checked modules, caches), and a full collection walks them all (tens of ms on a
    2,000-line file). Long-lived objects are frozen after each large analysis."""
    gc.set_threshold(20_000, 20, 20)


def serve(include: list[str] | None = None, debounce: float = DEFAULT_DEBOUNCE, stdin=None) -> None:
    tune_gc()
    server = build_server(include, debounce)

    def refused(why: str) -> None:  # (from the reader's thread: one write, which the stream serialises)
        server.window_log_message(L.LogMessageParams(type=L.MessageType.Error, message=why))

    server.start_io(stdin=BoundedStdin(stdin or sys.stdin.buffer, on_refused=refused))
