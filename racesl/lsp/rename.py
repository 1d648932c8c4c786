"""Rename, with prepareRename: environments, helpers, types, parameters and locals.

What a name refers to comes from the occurrence index (racesl.lsp.index) through
`definition.occurrences_of`, the search `references` runs: a module-level name is renamed in
every module the workspace knows (open documents, workspace files; the stdlib cannot refer
to them), a parameter or local in its item. Two places the index does not list are
renamed with a parameter, so that the modules still check: the `{name}` placeholders of an
environment's description (every setting must appear there) and keyword arguments of calls
to its function, `f(name=...)`, in any module. (`@sample(name=...)` keywords are in the index.)

Refused with an error response, so that the editor says why:
- a name declared in the bundled stdlib, or anything in a stdlib file: it is read-only;
- a new name that is not an identifier, is a keyword, a reserved or a built-in name
  (InvalidParams);
- a clash: for a module-level name, with a top-level name of a module that uses it bare
  (its own, and those that `from`-import it), with an assigned local there, or with a
  parameter of a function that uses it; for a parameter or local, with another name of its
  item or a module-level name;
- a module with syntax errors that mentions the name: the part that does not parse (see
  racesl.lsp.incremental) may hold occurrences the index cannot see.
- a name whose meaning is its spelling (BOUND_BY_NAME): `rng`, which the checker gives the
  random generator's methods (`rng.randint`, ...) only under that name, so a sampler's
  `rng` renamed stops checking, and a local renamed to `rng` would change meaning. prepareRename
  answers these with the same error, so that the editor never offers them.
prepareRename answers null where nothing can be renamed: builtins, base types, keywords,
decorators, laws, methods, modules, the `it` of refinements, unresolved names. What needs
no rule of its own: settings are bound by name, but every place that names one (the
description's `{placeholders}`, `@sample(name=...)`, keyword arguments) is renamed with it;
new names that are keywords, reserved, built-in or `it` are refused (name_problem).

The edit uses `documentChanges` (versioned for open documents, so that a client drops it
if a buffer changed meanwhile) when the client supports them, otherwise `changes`.
"""

from __future__ import annotations

import os
import re
import string
import unicodedata
from pathlib import Path

import attrs
from lsprotocol import types as L
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from racesl.check import names as N
from racesl.lsp import definition as DE
from racesl.lsp import index as I
from racesl.lsp.analysis import SYNTAX_CODES, Workspace
from racesl.lsp.context import View
from racesl.lsp.documents import path_to_uri
from racesl.syntax import ast as A
from racesl.syntax.lexer import FORBIDDEN_WORDS, KEYWORDS, TOP_KEYWORDS

RESERVED = KEYWORDS | TOP_KEYWORDS | FORBIDDEN_WORDS | {"True", "False", "None"}
BOUND_BY_NAME = {  # a parameter or local whose name the checker reads: never renamed, never a new name
    "rng": "the checker knows a sampler's random generator by this name ("
           + ", ".join(f"rng.{m}" for m in N.RNG_METHODS) + ")",
}
_FIELD_END = re.compile(r"[.\[!:]")


class RenameRefused(JsonRpcException):
    """A rename that cannot be done here; the client shows the message (LSP RequestFailed)."""

    CODE = -32803


@attrs.frozen
class Target:
    """What a rename at a position renames: the occurrence under the cursor, and for a
    parameter or local the function it belongs to (None in a type's refinement)."""

    occ: I.Occ
    func: A.FuncDef | None = attrs.field(default=None, eq=False)

    @property
    def is_symbol(self) -> bool:
        return self.occ.target[0] == "sym"

    @property
    def old(self) -> str:
        return self.occ.target[-1]

    @property
    def is_param(self) -> bool:
        t = self.occ.target
        return self.func is not None and t[2] == 0 and any(p.name == t[3] for p in self.func.params)


# ------------------------------------------------------------ requests


def prepare_rename(view: View, p: L.Position) -> L.PrepareRenamePlaceholder | None:
    tgt = target_at(view, p)
    rng = view.range(tgt.occ.span) if tgt is not None else None
    return L.PrepareRenamePlaceholder(rng, tgt.old) if rng is not None else None


def rename(view: View, p: L.Position, new: str, document_changes: bool = True) -> L.WorkspaceEdit:
    tgt = target_at(view, p)
    if tgt is None:
        raise RenameRefused("there is no environment, helper, type, parameter or local here to rename")
    why = name_problem(new)
    if why:
        raise JsonRpcInvalidParams(f"cannot rename '{tgt.old}' to '{new}': {why}")
    if new == tgt.old:
        return L.WorkspaceEdit(changes={})
    ranges = symbol_edits(view, tgt, new) if tgt.is_symbol else local_edits(view, tgt, new)
    return workspace_edit(view.ws, ranges, new, document_changes)


def wants_document_changes(caps: L.ClientCapabilities | None) -> bool:
    ws = caps.workspace if caps is not None else None
    we = ws.workspace_edit if ws is not None else None
    return bool(we is not None and we.document_changes)


# ------------------------------------------------------------ what is renamed


def is_stdlib(ws: Workspace, path: str) -> bool:
    """Is `path` one of the bundled stdlib's files (the workspace lists them apart)?"""
    real = os.path.realpath(path)
    return any(real == os.path.realpath(f) for f in ws.stdlib_files())


def target_at(view: View, p: L.Position) -> Target | None:
    occ = view.occurrence_at(p)
    if occ is None:
        return None
    t = occ.target
    if t[0] == "sym":
        d = view.symbol_definition(t[1], t[2])
        if d is None:
            return None
        if is_stdlib(view.ws, d[0]):
            raise RenameRefused(f"'{t[2]}' is declared in the bundled stdlib (module {t[1]}), which is read-only")
        return Target(occ)
    if t[0] == "local" and occ.item is not None:
        if is_stdlib(view.ws, view.a.path):
            raise RenameRefused(f"{Path(view.a.path).name} is a file of the bundled stdlib, which is read-only")
        if t[-1] in BOUND_BY_NAME:
            raise RenameRefused(f"'{t[-1]}' cannot be renamed: {BOUND_BY_NAME[t[-1]]}")
        return Target(occ, occ.func)
    return None


def name_problem(new: str) -> str | None:
    """Why `new` cannot name anything, or None."""
    if not new.isidentifier():
        return "it is not a valid identifier"
    if unicodedata.normalize("NFKC", new) != new:
        return f"racesl reads it as '{unicodedata.normalize('NFKC', new)}' (NFKC); write that"
    if new in RESERVED:
        return "it is a keyword"
    if new == "it":
        return "'it' is reserved for the value a refinement constrains"
    if new in BOUND_BY_NAME:
        return f"'{new}' is reserved: {BOUND_BY_NAME[new]}"
    p = N.name_problem(new)
    if p:
        return p[1]
    if new in N.BUILTINS or new in I.BASE_TYPE_NAMES:
        return "it is a built-in name"
    return None


# ------------------------------------------------------------ module-level names


def symbol_edits(view: View, tgt: Target, new: str) -> list[tuple[str, L.Range]]:
    mods = DE.known_modules(view)
    refuse_broken(view, mods, tgt.old)
    found = DE.occurrences_of(view, tgt.occ, mods)
    by_path: dict[str, list[I.Occ]] = {}
    for path, o in found:
        by_path.setdefault(path, []).append(o)
    for name, path, ns, ast in mods:
        occs = by_path.get(path)
        if not occs:
            continue
        if is_stdlib(view.ws, path):
            raise RenameRefused(f"'{tgt.old}' is used in the bundled stdlib ({name}), which is read-only")
        if name == tgt.occ.target[1] or any(isinstance(o.item, A.FromImport) for o in occs):
            why = module_clash(view, name, ns, ast, occs, new)
            if why:
                raise RenameRefused(f"cannot rename '{tgt.old}' to '{new}': {why}")
    return [(path, span_range(view, path, o.span)) for path, o in found]


def module_clash(view: View, module: str, ns: I.Namespace, ast: A.Module, users: list[I.Occ],
                 new: str) -> str | None:
    """Would `new`, used bare in `module`, clash there?"""
    hit = ns.get(new)
    if hit is not None:
        what = "imported" if hit[1][0] == "mod" or hit[1][1] != module else "defined"
        return f"'{new}' is already {what} in module {module}"
    using = {id(o.item) for o in users}
    for it in ast.items:
        if not isinstance(it, A.Node):
            continue
        for o in view.indexer.item(it, ns):
            if o.name == new and o.target[0] == "local" and (o.kind == "local" or id(it) in using):
                owner = getattr(it, "name", "?")
                return f"'{new}' is a {'parameter' if o.kind == 'param' else 'local'} of '{owner}' in module {module}"
    return None


def refuse_broken(view: View, mods, old: str) -> None:
    """Refuse when a module with syntax errors mentions `old`: the part of it that does not
    parse is not in the index, and an occurrence there would be left behind."""
    word = re.compile(rf"(?<!\w){re.escape(old)}(?!\w)")
    for name, path, _, _ in mods:
        cm = view.module(name)
        if cm is None or not any(d.code in SYNTAX_CODES and d.is_error for d in cm.diagnostics):
            continue
        text = view.ws.text_for(path)
        if text is not None and word.search(text):
            raise RenameRefused(f"{Path(path).name} has syntax errors and mentions '{old}': fix them first, or "
                                "occurrences in the part that does not parse would be missed")


# ------------------------------------------------------------ parameters and locals


def local_edits(view: View, tgt: Target, new: str) -> list[tuple[str, L.Range]]:
    occ = tgt.occ
    broken = view.a.module is None or any(d.code in SYNTAX_CODES and d.is_error for d in view.a.diagnostics())
    if broken and tgt.old in view.a.ast.skipped_names:
        raise RenameRefused(f"a statement that mentions '{tgt.old}' does not parse: fix it first")
    owner = f"'{tgt.func.name}'" if tgt.func is not None else "this refinement"
    for o in view.occurrences(occ.item):
        if o.name == new and o.target != occ.target and o.target[0] in ("local", "unknown"):
            raise RenameRefused(f"cannot rename '{tgt.old}' to '{new}': {owner} already uses '{new}'")
    if view.ns.get(new) is not None:
        raise RenameRefused(f"cannot rename '{tgt.old}' to '{new}': '{new}' is a module-level name of "
                            f"{view.a.module_name}, which it would shadow")
    out = [(path, span_range(view, path, o.span)) for path, o in DE.occurrences_of(view, occ)]
    if tgt.is_param:
        if tgt.func.is_env:
            out += [(view.a.path, r) for r in placeholder_ranges(view, tgt.func, tgt.old)]
        out += keyword_edits(view, tgt.func, tgt.old)
    return out


def keyword_edits(view: View, fn: A.FuncDef, old: str) -> list[tuple[str, L.Range]]:
    """`fn(old=...)` keywords of calls to `fn`, in every module that refers to it."""
    kind = "env" if fn.is_env else "helper"
    callee = I.Occ(fn.name_span, fn.name, kind, ("sym", view.a.module_name, fn.name), True)
    refs = DE.occurrences_of(view, callee)
    at = {(path, o.span.line, o.span.col) for path, o in refs}
    items: dict[int, tuple[str, A.Node]] = {}
    for path, o in refs:
        if o.item is not None:
            items.setdefault(id(o.item), (path, o.item))
    out = []
    for path, item in items.values():
        for n in A.walk(item):
            if not isinstance(n, A.Call) or not any(k.name == old for k in n.keywords):
                continue
            f = n.func
            span = f.span if isinstance(f, A.Name) else f.attr_span if isinstance(f, A.Attribute) else None
            if span is not None and (path, span.line, span.col) in at:
                out += [(path, span_range(view, path, I.name_span(k.span, k.name))) for k in n.keywords
                        if k.name == old]
    return out


def placeholder_offsets(src: str, name: str) -> list[int]:
    """Offsets in a docstring's source of its `{name}` fields, read as `string.Formatter`
    reads them (`{{` and `}}` are literal braces)."""
    out, i, n = [], 0, len(src)
    while i < n:
        c = src[i]
        if c == "{" and src.startswith("{{", i):
            i += 2
        elif c == "{":
            j = src.find("}", i + 1)
            if j < 0:
                break
            if _FIELD_END.split(src[i + 1:j], 1)[0] == name:
                out.append(i + 1)
            i = j + 1
        else:
            i += 2 if src.startswith("}}", i) else 1
    return out


def placeholder_ranges(view: View, fn: A.FuncDef, old: str) -> list[L.Range]:
    doc = fn.docstring
    if doc is None or not isinstance(doc.value, str) or "{" not in doc.value:
        return []
    try:
        want = sum(1 for _, f, _, _ in string.Formatter().parse(doc.value)
                   if f is not None and _FIELD_END.split(f, 1)[0] == old)
    except ValueError:  # a malformed description: the checker reports it
        return []
    if not want:
        return []
    r = view.pos.real(view.a.path, doc.span)
    idx = view.pos.line_index(view.a.path)
    if r is None or idx is None:
        raise RenameRefused("the document changed during the rename: try again")
    base = idx.offset(r[0], r[1])
    offsets = placeholder_offsets(idx.text[base: idx.offset(r[2], r[3])], old)
    if len(offsets) != want:
        raise RenameRefused(f"the placeholders {{{old}}} of the description of '{fn.name}' could not be located")
    out = []
    for off in offsets:
        line, col = idx.position(base + off)
        out.append(view.pos.range_of(idx, line, col, line, col + len(old)))
    return out


# ------------------------------------------------------------ the edit


def span_range(view: View, path: str, span) -> L.Range:
    rng = view.pos.range(path, span)
    if rng is None:
        raise RenameRefused("the document changed during the rename: try again")
    return rng


def workspace_edit(ws: Workspace, ranges: list[tuple[str, L.Range]], new: str,
                   document_changes: bool) -> L.WorkspaceEdit:
    per_uri: dict[str, dict[tuple, L.Range]] = {}
    versions: dict[str, int | None] = {}
    for path, r in ranges:
        doc = ws.doc_by_path(path)
        uri = doc.uri if doc is not None else path_to_uri(path)
        versions[uri] = doc.version if doc is not None else None
        per_uri.setdefault(uri, {})[(r.start.line, r.start.character, r.end.line, r.end.character)] = r
    edits = {uri: [L.TextEdit(rs[k], new) for k in sorted(rs)] for uri, rs in sorted(per_uri.items())}
    if not document_changes:
        return L.WorkspaceEdit(changes=edits)
    return L.WorkspaceEdit(document_changes=[
        L.TextDocumentEdit(L.OptionalVersionedTextDocumentIdentifier(uri, versions[uri]), es)
        for uri, es in edits.items()])
