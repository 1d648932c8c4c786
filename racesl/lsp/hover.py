"""Hover: what a name is.

- environments: the declared signature, the resolved one with every refinement, the
  description, settings, tags/laws/verifier, and where it sits in the signature graph of
  the loaded library ("composes after N envs (k proved) · before M envs (j proved)"),
  without the guarded edges that never passed in the sampler's runs (racesl.passing);
- helpers and types: signature / definition; parameters and locals: their inferred type
  (from the checker's `local_types`); builtins, methods, decorators, modules: a line each.

When the item under the cursor does not parse (the buffer is mid-edit), the word under the
cursor is looked up by name in the current analysis and in the last one that parsed.
"""

from __future__ import annotations

import difflib
import re

from lsprotocol import types as L

from racesl.check import names as N
from racesl.check.model import CheckedModule, EnvSig, HelperSig
from racesl.diagnostics import Span
from racesl.lsp import index as I
from racesl.lsp.context import View
from racesl.syntax import ast as A
from racesl.syntax.emit import expr_text
from racesl.text import plural
from racesl.types import types as T

BUILTIN_DOCS = {
    "abs": "abs(x) — absolute value", "all": "all(iterable) — True when every element is true",
    "any": "any(iterable) — True when some element is true", "bin": "bin(n) — '0b…' text of an Int",
    "bool": "bool(x) — truth value", "chr": "chr(i) — the one-character Str with code point i",
    "divmod": "divmod(a, b) — (a // b, a % b)", "enumerate": "enumerate(xs, start=0) — (index, element) pairs",
    "hex": "hex(n) — '0x…' text of an Int", "int": "int(x, base=10) — an Int from a Str or Bool",
    "len": "len(x) — length of a Str, List, Tuple or Dict", "list": "list(xs) — a List of the elements",
    "max": "max(xs, key=, default=) — the largest element", "min": "min(xs, key=, default=) — the smallest element",
    "ord": "ord(c) — code point of a one-character Str", "pow": "pow(b, e, m=) — b ** e (mod m)",
    "range": "range(stop) / range(start, stop, step) — Ints", "reversed": "reversed(xs) — elements backwards",
    "sorted": "sorted(xs, key=, reverse=) — a sorted List", "str": "str(x) — text of a value",
    "sum": "sum(xs, start=0) — the sum", "tuple": "tuple(xs) — a Tuple of the elements",
    "zip": "zip(a, b, ...) — tuples of elements side by side", "set": "set(xs) — a set (body values only)",
    "dict": "dict(pairs) — a Dict",
}
DECORATOR_DOCS = {
    "generate": "`@generate(draw)` — `draw(rng, level) -> Tuple[I, O]` draws an input with its answer; the "
                "environment (its body may be the docstring alone) is a source: it only starts chains",
    "sample": "`@sample(param=helper)` — draw `param` with `helper(rng, level)` instead of from its type",
    "tags": '`@tags("...")` — categories of the environment',
    "verify": "`@verify(checker)` — `checker(input, answer) -> Bool` accepts any right answer "
              "(`-> Int where 0 <= it <= N` grades it: value / N; a third parameter takes a generator's "
              "latent value); the environment becomes terminal (it may only end a chain)",
    "laws": "`@laws(idempotent)` / `@laws(involution)` — algebraic laws, tested on samples and used to "
            "skip pointless chains",
    "fuel": "`@fuel(N)` — this environment's or helper's step budget: N steps (1 to 1,000,000; to 20,000,000 "
            "for a @generate helper or a @verify checker) instead of 400 when it is the call that runs; its "
            "wall limit grows with it, to 30 s at most",
    "layout": "`@layout(rows)` — show a `List[List[T]]` or `List[Str]` input (or shown output) one row per "
              "line in a fenced block in prompts and catalogue pages; answers stay literals",
}
LAW_DOCS = {
    "idempotent": "idempotent: applying the environment twice equals applying it once (f(f(x)) == f(x))",
    "involution": "involution: applying the environment twice gives the input back (f(f(x)) == x)",
}
BASE_TYPE_DOCS = {
    "Int": "Int — integers", "Bool": "Bool — True or False", "Str": "Str — text",
    "List": "List[T] — lists of T", "Tuple": "Tuple[T1, ..., Tn] — fixed-size tuples",
    "Dict": "Dict[K, V] — dictionaries",
}


def _code(text: str) -> str:
    return f"```races\n{text}\n```"


def type_text(te: A.TypeExpr | None) -> str:
    """A type expression as declared."""
    if te is None:
        return "?"
    from racesl.syntax.emit import expr_text

    s = te.name
    if te.args:
        s += "[" + ", ".join(type_text(a) for a in te.args) + "]"
    if te.where is not None:
        try:
            s += " where " + (te.where_text or expr_text(te.where))
        except Exception:  # noqa: BLE001 — a display helper must not fail a hover
            s += " where …"
    return s


def declared_signature(fn: A.FuncDef) -> str:
    params = ", ".join(p.name + (f": {type_text(p.annotation)}" if p.annotation is not None else "")
                       for p in fn.params)
    ret = f" -> {type_text(fn.returns)}" if fn.returns is not None else ""
    return f"{fn.kind} {fn.name}({params}){ret}"


Edges = list[tuple[EnvSig, str]]  # (environment, edge kind)


def composition_edges(envs: list[EnvSig], q: EnvSig, never_passed=()) -> tuple[Edges, Edges]:
    """(predecessors, successors) of one environment in the signature graph of `envs`, each
    with its edge's kind: the rule of `SignatureGraph` (equal shapes; terminal environments
    end chains, generator environments start them; edges classified syntactically), for one
    node only. Edges in `never_passed` ((source, target) pairs: guarded edges that never
    passed in the sampler's runs, racesl.passing) are left out."""
    from racesl.graph.signature import syntactic_classify

    before: Edges = []
    after: Edges = []
    qin, qout = T.erase(q.input), T.erase(q.output)
    for e in envs:
        if not e.terminal and not q.source and T.erase(e.output) == qin:  # (no edge enters a generator)
            kind = syntactic_classify(e.output, q.input)
            if kind is not None and (e.qualname, q.qualname) not in never_passed:
                before.append((e, kind))
        if not q.terminal and not e.source and T.erase(e.input) == qout:
            kind = syntactic_classify(q.output, e.input)
            if kind is not None and (q.qualname, e.qualname) not in never_passed:
                after.append((e, kind))
    return before, after


def composition_counts(envs: list[EnvSig], q: EnvSig, never_passed=()) -> tuple[int, int, int, int]:
    """(predecessors, proved of them, successors, proved of them) of one environment."""
    from racesl.graph.signature import PROVED

    before, after = composition_edges(envs, q, never_passed)
    return (len(before), sum(k == PROVED for _, k in before), len(after), sum(k == PROVED for _, k in after))


def library_envs(view: View, sig: EnvSig) -> list[EnvSig] | None:
    """Every environment of the loaded library, `sig` included; None when it cannot be loaded."""
    try:
        lib = view.ws.library()
    except Exception:  # noqa: BLE001 — the library is best effort
        return None
    envs = lib.envs()
    if sig.qualname not in {e.qualname for e in envs}:
        envs = envs + [sig]
    return envs


def never_passed(view: View) -> dict[tuple[str, str], str]:
    """The guarded edges the sampler saw never pass (racesl.lsp.sampling): left out."""
    try:
        return view.ws.never_passed()
    except Exception:  # noqa: BLE001 — best effort, like the library
        return {}


def composition_line(view: View, sig: EnvSig) -> str | None:
    envs = library_envs(view, sig)
    if envs is None:
        return None
    np, kp, ns, ks = composition_counts(envs, sig, never_passed(view))
    return (f"composes after {plural(np, 'env')} ({kp} proved) · "
            f"before {plural(ns, 'env')} ({ks} proved) in the loaded library ({plural(len(envs), 'env')})")


def env_markdown(view: View, sig: EnvSig | None, fn: A.FuncDef | None, module: str) -> str:
    parts = []
    if fn is not None:
        deco = "".join(f"@{d.name}(…)\n" if (d.args or d.keywords) else f"@{d.name}\n" for d in fn.decorators)
        parts.append(_code(deco + declared_signature(fn)))
    if sig is not None:
        parts.append(f"**{sig.qualname}** : `{sig.input}` → `{sig.output}`")
        if sig.description:
            parts.append(sig.description)
        if sig.settings:
            parts.append("Settings: " + ", ".join(f"`{s.name}: {s.type}`" for s in sig.settings))
        extra = []
        if sig.tags:
            extra.append("tags: " + ", ".join(sig.tags))
        if sig.laws:
            extra.append("laws: " + ", ".join(sig.laws))
        if sig.terminal:
            extra.append("terminal (has a verifier)")
        if sig.source:
            extra.append(f"generator (@generate({sig.generate.split('__')[-1]})): a source, it only starts chains")
        if sig.samplers:
            extra.append("samplers: " + ", ".join(f"{p}" for p, _ in sig.samplers))
        if extra:
            parts.append(" · ".join(extra))
        comp = composition_line(view, sig)
        if comp:
            parts.append(comp)
    elif fn is not None:
        parts.append(f"environment `{module}.{fn.name}` (its signature does not check yet)")
    return "\n\n".join(parts)


def helper_markdown(sig: HelperSig | None, fn: A.FuncDef | None, module: str) -> str:
    parts = []
    if fn is not None:
        parts.append(_code(declared_signature(fn)))
    if sig is not None:
        params = ", ".join(f"{n}: {t if t is not None else '?'}" for n, t in sig.params)
        ret = f" -> {sig.returns}" if sig.returns is not None else ""
        parts.append(f"helper **{sig.qualname}**({params}){ret}")
    elif fn is None:
        parts.append(f"helper `{module}`")
    return "\n\n".join(parts)


def type_markdown(cm: CheckedModule | None, name: str, module: str) -> str:
    decl = None
    if cm is not None:
        decl = next((it for it in cm.ast.items if isinstance(it, A.TypeDecl) and it.name == name), None)
    parts = []
    if decl is not None:
        parts.append(_code(f"{'newtype' if decl.nominal else 'type'} {name} = {type_text(decl.type)}"))
    t = cm.types.get(name) if cm is not None else None
    if t is not None:
        if isinstance(t, T.NewT):
            parts.append(f"nominal type **{t.name}** over `{t.underlying}`")
        else:
            parts.append(f"**{module}.{name}** = `{t}`")
    return "\n\n".join(parts) or f"type `{module}.{name}`"


def _find_func(cm: CheckedModule | None, name: str) -> A.FuncDef | None:
    if cm is None:
        return None
    return next((it for it in cm.ast.items if isinstance(it, A.FuncDef) and it.name == name), None)


def symbol_markdown(view: View, module: str, name: str, kind: str | None = None) -> str | None:
    cm = view.module(module)
    kind = kind if kind not in (None, "unknown", "member") else view.kind_of(module, name)
    if kind == "env":
        return env_markdown(view, cm.envs.get(name) if cm else None, _find_func(cm, name), module)
    if kind == "helper":
        return helper_markdown(cm.helpers.get(name) if cm else None, _find_func(cm, name), module)
    if kind == "type":
        return type_markdown(cm, name, module)
    if kind == "constant":
        return constant_markdown(cm, name, module)
    return None


def constant_markdown(cm: CheckedModule | None, name: str, module: str) -> str:
    """A module constant: its declaration (a long value cut short) and what it is."""
    decl = None if cm is None else next(
        (it for it in cm.ast.items if isinstance(it, A.ConstDef) and it.name == name), None)
    if decl is None:
        return f"constant `{module}.{name}`"
    t = cm.constants[name].type if name in cm.constants else None
    head = f"{name}: {t if t is not None else type_text(decl.annotation) if decl.annotation else '?'}"
    value = expr_text(decl.value)
    if len(value) > 80 or "\n" in value:
        value = value.replace("\n", " ")[:77] + "..."
    return _code(f"{head} = {value}") + f"\n\nconstant **{module}.{name}**, evaluated once when the library loads"


def local_markdown(view: View, occ: I.Occ, cm: CheckedModule | None) -> str:
    fn = occ.func
    t = None
    scope = occ.target[2] if occ.target[0] == "local" else 0
    if fn is not None and cm is not None and scope == 0:
        t = (cm.local_types.get(fn.name) or {}).get(occ.name)
    what = "parameter" if occ.kind == "param" else "local"
    if scope:
        what = "comprehension variable" if occ.kind == "local" else "lambda parameter"
    owner = f" of `{fn.name}`" if fn is not None else ""
    if t is not None and not isinstance(t, T.AnyT):
        return _code(f"{occ.name}: {t}") + f"\n\n{what}{owner}"
    return _code(occ.name) + f"\n\n{what}{owner} (type not inferred)"


def method_markdown(name: str) -> str:
    owners = [w for w, tbl in (("Str", N.STR_METHODS), ("List", N.LIST_METHODS), ("Dict", N.DICT_METHODS),
                               ("Tuple", N.TUPLE_METHODS), ("rng", N.RNG_METHODS)) if name in tbl]
    if not owners:
        return f"`.{name}()` is not an allowed method"
    return "method " + ", ".join(f"`{w}.{name}()`" for w in owners)


def describe(view: View, occ: I.Occ) -> str | None:
    t = occ.target
    if t[0] == "sym":
        return symbol_markdown(view, t[1], t[2], occ.kind)
    if t[0] == "mod":
        cm = view.module(t[1])
        if cm is None:
            return f"module `{t[1]}` (not found)"
        return (_code(f"module {cm.name}") + f"\n\n{cm.path}\n\n{plural(len(cm.envs), 'environment')}, "
                f"{plural(len(cm.helpers), 'helper')}, {plural(len(cm.types), 'type')}")
    if t[0] == "local":
        return local_markdown(view, occ, view.module(view.a.module_name))
    if t[0] == "it":
        return _code("it") + "\n\nthe value the refinement constrains"
    if t[0] == "builtin":
        if occ.name in ("True", "False"):
            return _code(f"{occ.name}: Bool")
        return _code(BUILTIN_DOCS.get(occ.name, occ.name)) + "\n\nbuiltin"
    if t[0] == "method":
        return method_markdown(occ.name)
    if t[0] == "decorator":
        return DECORATOR_DOCS.get(occ.name, f"`@{occ.name}` is not a decorator; decorators: "
                                  + ", ".join(N.DECORATORS))
    if t[0] == "law":
        return LAW_DOCS.get(occ.name)
    if t[0] == "basetype":
        return _code(BASE_TYPE_DOCS.get(occ.name, occ.name))
    return None


_FUNC_LINE = re.compile(r"^(?:env|def)\s+(\w+)")


def enclosing_function(view: View, line: int) -> str | None:
    idx = view.a.index
    for ln in range(min(line, idx.line_count - 1), -1, -1):
        m = _FUNC_LINE.match(idx.line(ln))
        if m:
            return m.group(1)
        text = idx.line(ln)
        if ln != line and text and not text[0].isspace() and not text.startswith(("#", "@")):
            return None
    return None


def by_name(view: View, word: str, line: int) -> str | None:
    """Hover for a word when the item under the cursor did not parse."""
    func = enclosing_function(view, line)
    candidates = [view.a]
    good = view.ws.last_good.get(view.a.uri)
    if good is not None and good is not view.a:
        candidates.append(good)
    for a in candidates:
        cm = a.module
        if cm is None:
            continue
        if func is not None:
            name = func
            if name not in cm.local_types:  # the header itself is mid-edit: take the closest name
                close = difflib.get_close_matches(func, list(cm.local_types), n=1, cutoff=0.6)
                name = close[0] if close else func
            fn = _find_func(cm, name)
            t = (cm.local_types.get(name) or {}).get(word)
            if t is not None and fn is not None:
                what = "parameter" if any(p.name == word for p in fn.params) else "local"
                return _code(f"{word}: {t}") + f"\n\n{what} of `{name}`"
        kind = view.kind_of(a.module_name, word)
        if kind is not None:
            return symbol_markdown(view, a.module_name, word, kind)
    hit = view.ns.get(word)
    if hit is not None:
        o = I.Occ(Span(1, 1, 1, 1), word, hit[0], hit[1])
        return describe(view, o)
    if word in N.BUILTINS:
        return _code(BUILTIN_DOCS.get(word, word)) + "\n\nbuiltin"
    if word in I.BASE_TYPE_NAMES:
        return _code(BASE_TYPE_DOCS[word])
    return None


def hover(view: View, p: L.Position) -> L.Hover | None:
    occ = view.occurrence_at(p)
    if occ is not None:
        text = describe(view, occ)
        if text:
            return L.Hover(L.MarkupContent(L.MarkupKind.Markdown, text), view.range(occ.span))
    word, a, b = view.word_at(p)
    if not word or word[0].isdigit():
        return None
    text = by_name(view, word, view.a.index.from_client(p.line, p.character, view.enc)[0])
    if not text:
        return None
    line = view.a.index.from_client(p.line, p.character, view.enc)[0]
    rng = view.pos.range_of(view.a.index, line, a, line, b)
    return L.Hover(L.MarkupContent(L.MarkupKind.Markdown, text), rng)
