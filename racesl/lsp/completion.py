"""Completion, by context read from the text before the cursor (so it works on a line that
does not parse yet, which is most lines while one is typing):

- `import |`, `from |`            module names (stdlib, the document's folder, include paths)
- `from m import a, |`            the names module m exports
- `@|`, `@laws(|`                 decorators, laws
- `m.|` for an imported module    its environments, helpers and types
- `x.|`                           methods valid for x's type when inferred (Str/List/Dict/Tuple,
                                  `rng` in samplers), every allowed method otherwise
- after `:` / `->` in a signature, in `type T = |`     type names
- anywhere else                   locals of the enclosing function, module-level names,
                                  builtins and keywords
"""

from __future__ import annotations

import re
from pathlib import Path

from lsprotocol import types as L

from racesl.check import names as N
from racesl.lsp import hover as H
from racesl.lsp import index as I
from racesl.lsp.context import View
from racesl.syntax import ast as A
from racesl.syntax.lexer import KEYWORDS
from racesl.types import builtins as B
from racesl.types import types as T

K = L.CompletionItemKind

_IMPORT = re.compile(r"^\s*(?:import|from)\s+([\w.]*)$")
_FROM_IMPORT = re.compile(r"^\s*from\s+([\w.]+)\s+import\s+(?:[\w\s,()]*,\s*|\(?\s*)?(\w*)$")
_DECORATOR = re.compile(r"^\s*@(\w*)$")
_LAWS = re.compile(r"^\s*@laws\(([\w\s,]*)$")
_SAMPLE_KW = re.compile(r"^\s*@sample\((?:[^)]*,\s*)?(\w*)$")
_MEMBER = re.compile(r"([A-Za-z_]\w*)\s*\.\s*(\w*)$")
_LITERAL_MEMBER = re.compile(r"""(?:["']|\]|\))\s*\.\s*(\w*)$""")
_TYPE_DECL = re.compile(r"^\s*(?:type|newtype)\s+\w+\s*=")
_TOP_KEYWORDS = ("env", "def", "type", "newtype", "import", "from", "module")
_STMT_KEYWORDS = sorted(KEYWORDS - {"import", "from", "where", "is"}) + ["True", "False"]


def _item(label: str, kind, detail: str | None = None, sort: str = "5", insert: str | None = None) -> L.CompletionItem:
    return L.CompletionItem(label=label, kind=kind, detail=detail, sort_text=f"{sort}{label}",
                            insert_text=insert)


def module_names(view: View) -> list[str]:
    names: set[str] = set()
    dirs = [Path(view.a.path).parent] + list(view.ws.include)
    try:
        from racesl import resources

        dirs.append(resources.stdlib_dir())
    except FileNotFoundError:
        pass
    for d in dirs:
        try:
            names.update(p.stem for p in d.glob("*.races"))
        except OSError:
            continue
    names.discard(view.a.module_name)
    return sorted(names)


def _exports(view: View, module: str) -> list[L.CompletionItem]:
    cm = view.module(module)
    if cm is None:
        try:
            from racesl import resources

            p = resources.stdlib_dir() / f"{module}.races"
            if not p.exists():
                p = Path(view.a.path).parent / f"{module}.races"
            cm = view.ws.all_modules().get(module) if p.exists() else None
        except FileNotFoundError:
            cm = None
    if cm is None:
        return []
    out = []
    for name, sig in cm.envs.items():
        out.append(_item(name, K.Function, f"env {sig.input} -> {sig.output}", "1"))
    for name, h in cm.helpers.items():
        out.append(_item(name, K.Function, H.declared_signature(h.node), "2"))
    for name, t in cm.types.items():
        out.append(_item(name, K.Class, f"type {t}", "3"))
    return out


def _arities(receiver: str | None) -> dict:
    """name -> (min, max, keywords) of a receiver's methods (None: of any receiver's)."""
    if receiver is None:
        return B.methods_all()
    return {e.name: (e.min_args, e.max_args, e.keywords) for e in B.methods(receiver)}


def _methods(table: dict, owner: str) -> list[L.CompletionItem]:
    out = []
    for name, (lo, hi, kws) in sorted(table.items()):
        arity = B.arity_text(lo, hi)
        out.append(_item(name, K.Method, f"{owner}.{name}() · {arity} {'argument' if arity == '1' else 'arguments'}", "1"))
    return out


def _receiver_methods(t) -> tuple[dict, str]:
    rt = T.shape(T.unwrap(t)) if t is not None else T.ANY
    for shape, owner in ((T.StrT, "Str"), (T.ListT, "List"), (T.DictT, "Dict"), (T.TupleT, "Tuple")):
        if isinstance(rt, shape):
            return _arities(owner), owner
    return _arities(None), "any"


def _local_types(view: View, func: str | None) -> dict:
    if func is None:
        return {}
    out: dict = {}
    good = view.ws.last_good.get(view.a.uri)
    for a in ([good] if good is not None else []) + [view.a]:  # the current analysis wins
        cm = a.module
        if cm is not None and func in cm.local_types:
            out.update(cm.local_types[func])
    return out


def _local_names(view: View, func: str | None) -> set[str]:
    names: set[str] = set()
    if func is None:
        return names
    for a in (view.a, view.ws.last_good.get(view.a.uri)):
        if a is None:
            continue
        fn = next((it for it in a.ast.items if isinstance(it, A.FuncDef) and it.name == func), None)
        if fn is None:
            continue
        names.update(p.name for p in fn.params)
        for stmt in fn.body:
            for n in A.walk(stmt):
                if isinstance(n, (A.Assign, A.For, A.AugAssign)):
                    targets = n.targets if isinstance(n, A.Assign) else (n.target,)
                    for t in targets:
                        for x in A.walk(t):
                            if isinstance(x, A.Name):
                                names.add(x.id)
    return names


def _scope_items(view: View, types_only: bool = False) -> list[L.CompletionItem]:
    out = []
    for name, (kind, target) in sorted(view.ns.names.items()):
        if kind == "module":
            out.append(_item(name, K.Module, f"module {target[1]}", "4"))
        elif kind == "type":
            out.append(_item(name, K.Class, "type", "2"))
        elif not types_only and kind == "constant":
            cm = view.module(target[1])
            c = cm.constants.get(target[2]) if cm is not None else None
            out.append(_item(name, K.Constant, f"constant {c.type}" if c is not None else "constant", "2"))
        elif not types_only and kind in ("env", "helper", "unknown"):
            kind2 = kind if kind != "unknown" else (view.kind_of(target[1], target[2]) or "name")
            if kind2 == "type":
                out.append(_item(name, K.Class, "type", "2"))
                continue
            detail = kind2
            cm = view.module(target[1])
            if cm is not None and kind2 == "env" and target[2] in cm.envs:
                sig = cm.envs[target[2]]
                detail = f"env {sig.input} -> {sig.output}"
            out.append(_item(name, K.Function, detail, "2"))
    return out


def _is_type_position(line: str) -> bool:
    """After `name:` / `->` / `[` in a signature, or after `=` in a type declaration."""
    m = re.match(r"^\s*(?:env|def)\s+\w+\s*\(", line)
    decl = _TYPE_DECL.match(line)
    if m:
        rest, depth = line[m.end():], 1
    elif decl:
        rest, depth = line[decl.end():], 0
    else:
        return False
    rest = re.sub(r"[\w.]*$", "", rest).rstrip()
    for ch in rest:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
    if not rest:
        return bool(decl)
    if rest.endswith(("->", "[")):
        return True
    if rest.endswith(":"):
        return depth > 0  # a parameter's annotation, not the colon that ends the header
    if rest.endswith(","):
        return "[" in rest and rest.rfind("[") > rest.rfind("]")
    return False


def complete(view: View, p: L.Position) -> L.CompletionList:
    line_no, col = view.a.index.from_client(p.line, p.character, view.enc)
    line = view.a.index.line(line_no)[:col]
    items: list[L.CompletionItem] = []

    m = _FROM_IMPORT.match(line)
    if m:
        return L.CompletionList(False, _exports(view, m.group(1)))
    m = _IMPORT.match(line)
    if m:
        return L.CompletionList(False, [_item(n, K.Module, "module", "1") for n in module_names(view)])
    m = _LAWS.match(line)
    if m:
        return L.CompletionList(False, [_item(n, K.EnumMember, H.LAW_DOCS[n], "1") for n in N.LAWS])
    m = _DECORATOR.match(line)
    if m:
        return L.CompletionList(False, [_item(n, K.Function, H.DECORATOR_DOCS[n].split(" — ")[0].strip("`"), "1")
                                        for n in N.DECORATORS])
    func = H.enclosing_function(view, line_no)
    m = _MEMBER.search(line)
    if m and not re.search(r"\d\.\w*$", line):
        recv = m.group(1)
        locals_ = _local_names(view, func)
        hit = view.ns.get(recv)
        if hit is not None and hit[0] == "module" and recv not in locals_:
            return L.CompletionList(False, _exports(view, hit[1][1]))
        if recv == "rng" and "rng" in locals_:
            return L.CompletionList(False, _methods(_arities("rng"), "rng"))
        table, owner = _receiver_methods(_local_types(view, func).get(recv))
        return L.CompletionList(False, _methods(table, owner))
    m = _LITERAL_MEMBER.search(line)
    if m:
        table, owner = (_arities("Str"), "Str") if re.search(r"""["']\s*\.\s*\w*$""", line) else (_arities(None), "any")
        return L.CompletionList(False, _methods(table, owner))

    if _is_type_position(line):
        for n in I.BASE_TYPE_NAMES:
            items.append(_item(n, K.Class, H.BASE_TYPE_DOCS[n], "1"))
        items.extend(_scope_items(view, types_only=True))
        return L.CompletionList(False, items)

    stripped = line.lstrip()
    at_top = line == stripped and re.fullmatch(r"\w*", line) is not None
    if at_top:
        items.extend(_item(k, K.Keyword, None, "1") for k in _TOP_KEYWORDS)
        return L.CompletionList(False, items)
    if func is not None:
        types = _local_types(view, func)
        for name in sorted(_local_names(view, func) | set(types)):
            t = types.get(name)
            items.append(_item(name, K.Variable, str(t) if t is not None and not isinstance(t, T.AnyT) else None, "0"))
    items.extend(_scope_items(view))
    for name in sorted(e.name for e in B.builtins()):
        items.append(_item(name, K.Function, H.BUILTIN_DOCS.get(name), "6"))
    for kw in _STMT_KEYWORDS:
        items.append(_item(kw, K.Keyword, None, "7"))
    return L.CompletionList(False, items)
