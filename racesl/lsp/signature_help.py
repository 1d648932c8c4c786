"""Signature help: inside a call, the callee's signature with the active parameter marked.

Why its own module: it reads the call around the cursor from the *text* (racesl's own
lexer over the top-level item before the cursor), not from the AST, because while one
types a call the parenthesis is not closed yet and the item does not parse; names are
then resolved in the current analysis and, failing that, in the last one that parsed.

What it knows (every fact read from the table the checker uses, never a copy):

- helpers and environments of this module and imported ones (`f(`, `m.f(`, from-imports):
  parameters and return type as declared, resolved types and the description as docs;
- builtins: arity, keywords and result kind from racesl.types.builtins; parameter names
  and the one-line docs from the hover's table (racesl.lsp.hover.BUILTIN_DOCS), used only
  where they agree with the arity (else arg1, arg2, ...);
- methods, for the receiver's inferred type (every receiver that has the method when the
  type is unknown): arity and keywords from the same table; parameter names and docs
  from CPython's own (the language means what CPython computes);
- decorators (racesl.check.names.DECORATORS): @sample takes the decorated environment's
  parameter names as keywords, each a helper `(rng, level) -> T`; @tags, @verify, @laws.

Keyword arguments make the named parameter active; in nested calls the innermost wins.
Parameter labels are offsets into the signature label in the negotiated position
encoding (plain substrings for a client without labelOffsetSupport).
"""

from __future__ import annotations

import functools
import inspect
import random
import re

import attrs
from lsprotocol import types as L

from racesl.check import names as N
from racesl.check.model import EnvSig, declared_name
from racesl.lsp import hover as H
from racesl.lsp import index as I
from racesl.lsp.context import View
from racesl.lsp.documents import units
from racesl.syntax import ast as A
from racesl.syntax.lexer import tokenize
from racesl.types import builtins as B
from racesl.types import types as T

MAX_SCAN = 200_000  # characters of an item read before the cursor (a runaway open bracket)
_RESULT_NAMES = {"int": "Int", "bool": "Bool", "str": "Str", "list": "List", "tuple": "Tuple", "set": "Set",
                 "dict": "Dict"}
_RECEIVER_TYPES = {"Str": str, "List": list, "Dict": dict, "Tuple": tuple, "rng": random.Random}
_TOP_ITEM = re.compile(r"^(?:@|env\b|def\b|type\b|newtype\b|import\b|from\b|module\b|[A-Za-z_]\w*\s*[:=])")  # (the last: a constant)
_HEADER = re.compile(r"^(env|def)\s+(\w+)")


# ---------------------------------------------------------------- the call at the cursor

@attrs.define
class Frame:
    """One open bracket before the cursor; for `(`, what is called and where the cursor is."""

    open: str
    callee: tuple | None  # ("name", n) ("attr", receiver, n) ("decorator", n) ("header",) ("expr",)
    argi: int = 0  # arguments before the current one
    kw: str | None = None  # the current argument's keyword
    used: list = attrs.Factory(list)  # keywords of the arguments before
    ntoks: int = 0  # tokens of the current argument so far
    lam: int = 0  # lambdas whose ':' is still to come (their commas separate parameters)


def _callee(toks, i: int) -> tuple | None:
    """What the `(` at toks[i] calls (None: a parenthesized expression or a tuple)."""
    if i == 0:
        return None
    p = toks[i - 1]
    if p.kind == "OP" and p.value in (")", "]"):
        return ("expr",)
    if p.kind != "NAME":
        return None
    q = toks[i - 2] if i >= 2 else None
    if q is not None and q.kind == "OP" and q.value == ".":
        r = toks[i - 3] if i >= 3 else None
        before = toks[i - 4] if i >= 4 else None
        if r is not None and r.kind == "NAME" and not (before is not None and before.kind == "OP"
                                                       and before.value == "."):
            return ("attr", ("name", r.value), p.value)
        if r is not None and r.kind == "STRING":
            return ("attr", ("str",), p.value)
        if r is not None and r.kind in ("INT", "FLOAT"):
            return ("attr", ("int",), p.value)
        return ("attr", ("expr",), p.value)
    if q is not None and q.kind == "OP" and q.value == "@":
        return ("decorator", p.value)
    if q is not None and q.kind == "KW" and q.value in ("def", "env"):
        return ("header",)
    return ("name", p.value)


def call_at(text: str, start: int, cursor: int) -> Frame | None:
    """The innermost call open at `cursor`, reading text[start:cursor] (start: where the
    lexer's state is clean, a top-level item's first line). None outside any call."""
    start = max(start, cursor - MAX_SCAN)
    toks, _ = tokenize(text[start:cursor])
    frames: list[Frame] = []
    reset = False
    for i, t in enumerate(toks):
        if t.kind in ("NEWLINE", "INDENT", "DEDENT", "EOF"):
            reset = reset or t.kind == "NEWLINE"  # (the lexer closed any open bracket: a new statement)
            continue
        if reset:
            frames.clear()
            reset = False
        top = frames[-1] if frames else None
        if t.kind == "OP" and t.value in "([{":
            if top is not None:
                top.ntoks += 1
            frames.append(Frame(t.value, _callee(toks, i) if t.value == "(" else None))
        elif t.kind == "OP" and t.value in ")]}":
            if frames:
                frames.pop()
            if frames:
                frames[-1].ntoks += 1
        elif top is None:
            continue
        elif t.kind == "OP" and t.value == "," and not top.lam:
            if top.kw is not None:
                top.used.append(top.kw)
            top.argi += 1
            top.kw = None
            top.ntoks = 0
        elif t.kind == "OP" and t.value == "=" and top.open == "(" and top.ntoks == 1 \
                and toks[i - 1].kind == "NAME":
            top.kw = toks[i - 1].value
            top.ntoks += 1
        else:
            if t.kind == "KW" and t.value == "lambda":
                top.lam += 1
            elif t.kind == "OP" and t.value == ":" and top.lam:
                top.lam -= 1
            top.ntoks += 1
    for f in reversed(frames):
        if f.open != "(" or f.callee is None:
            continue  # inside a list, a dict or parentheses: the call around them
        return None if f.callee == ("header",) else f
    return None


# ---------------------------------------------------------------- signatures

@attrs.frozen
class Param:
    label: str
    name: str | None = None  # the keyword that passes it (None: by position only)
    positional: bool = True
    variadic: bool = False  # takes every further positional argument
    doc: str | None = None


@attrs.frozen
class Sig:
    prefix: str
    params: tuple[Param, ...]
    suffix: str
    doc: str | None = None
    keywords_only: bool = False  # every argument is a keyword (@sample)

    @property
    def label(self) -> str:
        return self.prefix + ", ".join(p.label for p in self.params) + self.suffix

    def active(self, f: Frame) -> int | None:
        """The parameter the cursor's argument goes to (None: no parameter takes it)."""
        if f.kw is not None:
            return next((i for i, p in enumerate(self.params) if p.name == f.kw), None)
        if self.keywords_only:
            return next((i for i, p in enumerate(self.params) if p.name not in f.used), None)
        pos = [i for i, p in enumerate(self.params) if p.positional]
        if f.argi < len(pos):
            return pos[f.argi]
        var = next((i for i, p in enumerate(self.params) if p.variadic), None)
        if var is not None or f.ntoks:
            return var
        # a new argument past the positional ones: the first keyword not given yet
        return next((i for i, p in enumerate(self.params) if not p.positional and p.name not in f.used), None)


def _resolved_line(name: str, params, returns) -> str:
    ps = ", ".join(f"{n}: {t if t is not None else '?'}" for n, t in params)
    return f"`{name}({ps})" + (f" -> {returns}`" if returns is not None else "`")


def function_sig(fn: A.FuncDef, sig=None) -> Sig:
    """A helper's or an environment's signature as declared; resolved types and the
    description (or docstring) as documentation. `sig`: its EnvSig / HelperSig if checked."""
    resolved: dict[str, object] = {}
    if isinstance(sig, EnvSig):
        resolved = {sig.input_name: sig.input, **{s.name: s.type for s in sig.settings}}
    elif sig is not None:
        resolved = {n: t for n, t in sig.params if t is not None}
    params = []
    for k, p in enumerate(fn.params):
        label = p.name + (f": {H.type_text(p.annotation)}" if p.annotation is not None else "")
        role = ("input" if k == 0 else "setting") if fn.is_env else "parameter"
        t = resolved.get(p.name)
        doc = f"{role} `{p.name}: {t}`" if t is not None else role
        if fn.is_env and k > 0:
            doc += f", written into the description as `{{{p.name}}}`"
        params.append(Param(label, p.name, doc=doc))
    suffix = ")" + (f" -> {H.type_text(fn.returns)}" if fn.returns is not None else "")
    parts = []
    if fn.docstring is not None and isinstance(fn.docstring.value, str) and fn.docstring.value.strip():
        parts.append(fn.docstring.value.strip())
    if isinstance(sig, EnvSig):
        parts.append(f"**{sig.qualname}** : `{sig.input}` → `{sig.output}`")
    elif sig is not None:
        parts.append(f"helper **{sig.qualname}** " + _resolved_line(fn.name, sig.params, sig.returns))
    return Sig(f"{fn.kind} {fn.name}(", tuple(params), suffix, "\n\n".join(parts) or None)


def _result_suffix(e: B.Entry) -> str:
    r = _RESULT_NAMES.get(e.result)
    return f") -> {r}" if r else ")"


def _generic_params(e: B.Entry) -> list[Param]:
    """arg1, arg2=, ...: the table's arity with no names (where no names agree with it)."""
    out = []
    top = e.max_args if e.max_args is not None else max(e.min_args, 1)
    for k in range(top):
        out.append(Param(f"arg{k + 1}" + ("=" if k >= e.min_args else ""),
                         variadic=e.max_args is None and k == top - 1))
    out.extend(Param(f"{kw}=", kw, positional=False) for kw in sorted(e.keywords))
    return out


def _builtin_alternative(e: B.Entry, text: str) -> list[Param] | None:
    """The parameters of `name(a, b=, ...)` as hover writes a builtin, checked against the
    table: None where they do not agree with its arity and keywords."""
    m = re.fullmatch(rf"{re.escape(e.name)}\((.*)\)", text.strip())
    if m is None:
        return None
    toks = [t.strip() for t in m.group(1).split(",") if t.strip()]
    has_dots = "..." in toks
    params: list[Param] = []
    npos = 0
    for k, tok in enumerate(toks):
        if tok == "...":
            params.append(Param("...", variadic=True))
            continue
        name = tok.split("=", 1)[0].strip()
        if not name.isidentifier():
            return None
        kw = name if name in e.keywords else None
        positional = kw is None or (e.max_args is not None and k < e.max_args)
        npos += positional
        params.append(Param(tok, kw, positional))
    if e.max_args is not None and npos > e.max_args:
        return None
    if e.max_args is None and not has_dots:  # max(xs, key=) is also max(a, b, c): the last positional takes the rest
        last = max((i for i, p in enumerate(params) if p.positional), default=None)
        if last is None:
            return None
        params[last] = attrs.evolve(params[last], variadic=True)
    return params


@functools.lru_cache(maxsize=None)
def builtin_sigs(name: str) -> tuple[Sig, ...]:
    """A builtin's signatures (several where its documentation gives alternatives: range)."""
    if name not in N.BUILTINS:
        return ()
    e = B.builtin(name)
    doc = H.BUILTIN_DOCS.get(name, "")
    head, _, what = doc.partition(" — ")
    arity = f"{B.arity_text(e.min_args, e.max_args)} positional"
    if e.keywords:
        arity += "; keywords " + ", ".join(f"`{k}=`" for k in sorted(e.keywords))
    text = "\n\n".join(x for x in (what.strip(), f"builtin · {arity}") if x)
    alts = [_builtin_alternative(e, h) for h in head.split(" / ")] if head else []
    covered = set().union(*({p.name for p in ps if p.name} for ps in alts if ps is not None)) if alts else set()
    widest = max((sum(p.positional for p in ps) for ps in alts if ps is not None), default=-1)
    if not alts or any(ps is None for ps in alts) or covered != set(e.keywords) \
            or (e.max_args is not None and widest != e.max_args):
        alts = [_generic_params(e)]
    return tuple(Sig(f"{name}(", tuple(ps), _result_suffix(e), text) for ps in alts)


def _cpython_names(obj) -> tuple[list[str], list[str], str]:
    """(positional names, keyword-only names, first paragraph of the doc) of a CPython method."""
    doc = (getattr(obj, "__doc__", None) or "").strip()
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        sig = None
    if sig is not None:
        pos = [p.name for p in sig.parameters.values() if p.name != "self"
               and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        kwo = [p.name for p in sig.parameters.values() if p.kind == p.KEYWORD_ONLY]
        body = doc
    else:
        first, _, body = doc.partition("\n")
        m = re.match(r"^\w+\.\w+\((.*?)\)", first)
        pos = [n.strip() for n in re.sub(r"[\[\]]", "", m.group(1)).split(",") if n.strip()] if m else []
        kwo = []
    para = body.strip().split("\n\n", 1)[0]
    return pos, kwo, " ".join(line.strip() for line in para.splitlines())[:400]


@functools.lru_cache(maxsize=None)
def method_sig(receiver: str, name: str) -> Sig | None:
    """`Str.find(sub, [start], [end]) -> Int`: one receiver's method."""
    e = next((x for x in B.methods(receiver) if x.name == name), None)
    if e is None:
        return None
    try:
        pos, kwo, doc = _cpython_names(getattr(_RECEIVER_TYPES[receiver], name))
    except AttributeError:
        pos, kwo, doc = [], [], ""
    params = []
    top = e.max_args if e.max_args is not None else max(len(pos), e.min_args, 1)
    for k in range(top):
        n = pos[k] if k < len(pos) and pos[k].isidentifier() else f"arg{k + 1}"
        kw = n if n in e.keywords else None
        label = n if k < e.min_args else (f"{n}=" if kw else f"[{n}]")
        params.append(Param(label, kw, variadic=e.max_args is None and k == top - 1))
    named = {p.name for p in params}
    rest = [n for n in kwo if n in e.keywords] + sorted(k for k in e.keywords if k not in kwo)
    params.extend(Param(f"{kw}=", kw, positional=False) for kw in rest if kw not in named)
    owner = "sampler `rng`" if receiver == "rng" else f"`{receiver}`"
    text = "\n\n".join(x for x in (doc, f"method of {owner} · {B.arity_text(e.min_args, e.max_args)} positional")
                       if x)
    return Sig(f"{receiver}.{name}(", tuple(params), _result_suffix(e), text)


def decorator_sigs(name: str, params: list[tuple[str, str]] | None, returns: str | None = None,
                   sig=None) -> tuple[Sig, ...]:
    """What a decorator of racesl.check.names.DECORATORS takes, for the environment it
    decorates: `params` its (name, declared type) pairs and `returns` its declared return
    type (None: unknown), `sig` its EnvSig when it checked."""
    if name not in N.DECORATORS:
        return ()
    doc = H.DECORATOR_DOCS.get(name)
    resolved = {}
    if sig is not None:
        resolved = {sig.input_name: sig.input, **{s.name: s.type for s in sig.settings}}
    if name == "sample":
        if not params:
            ps = (Param("param=(rng, level) -> T", None, positional=False,
                        doc="the parameter to draw, and the helper `(rng, level)` that draws it"),)
        else:
            ps = tuple(Param(f"{p}=(rng, level) -> {t}", p, positional=False,
                             doc=f"a helper `(rng, level)` drawing `{p}`"
                                 + (f" of `{resolved[p]}`" if p in resolved else "")
                                 + "; without one it is drawn from its type")
                       for p, t in params)
        return (Sig("@sample(", ps, ")", doc, keywords_only=True),)
    if name == "tags":
        return (Sig("@tags(", (Param("category: Str", variadic=True, doc="a string literal"),), ")", doc),)
    if name == "verify":
        inp, tin = params[0] if params else ("input", "T")
        tout = returns or "U"
        return (Sig("@verify(", (Param(f"checker=({inp}: {tin}, answer: {tout}) -> Bool",
                                       doc="a helper of two parameters: the input and a proposed answer"),),
                    ")", doc),)
    if name == "generate":
        tin = params[0][1] if params else "I"
        return (Sig("@generate(", (Param(f"draw=(rng, level) -> Tuple[{tin}, {returns or 'O'}]",
                                         doc="a helper drawing an input together with its answer"),), ")", doc),)
    if name == "laws":
        laws = "\n".join(f"- `{law}`: {H.LAW_DOCS.get(law, '')}" for law in N.LAWS)
        return (Sig("@laws(", (Param("law", variadic=True, doc=f"one of: {', '.join(N.LAWS)}"),), ")",
                    "\n\n".join(x for x in (doc, laws) if x)),)
    if name == "fuel":
        return (Sig("@fuel(", (Param("steps: Int", doc="an integer literal from 1 to 1,000,000 (to 20,000,000 for a "
                                              "@generate helper or a @verify checker; the default is 400)"),),
                    ")", doc),)
    if name == "layout":
        return (Sig("@layout(", (Param("form", doc="rows: one row per line (a grid or a list of Str)"),), ")", doc),)
    return (Sig(f"@{name}(", (Param("...", variadic=True),), ")", doc),)


# ---------------------------------------------------------------- resolution

def _analyses(view: View) -> list:
    good = view.ws.last_good.get(view.a.uri)
    return [view.a] + ([good] if good is not None and good is not view.a else [])


def _func(view: View, name: str) -> A.FuncDef | None:
    for a in _analyses(view):
        fn = next((it for it in a.ast.items if isinstance(it, A.FuncDef) and it.name == name), None)
        if fn is not None:
            return fn
    return None


def _locals(view: View, func: str | None) -> tuple[set[str], dict]:
    """Names bound in the enclosing function, and their inferred types."""
    names: set[str] = set()
    types: dict = {}
    if func is None:
        return names, types
    for a in reversed(_analyses(view)):  # the current analysis wins
        cm = a.module
        if cm is not None:
            types.update(cm.local_types.get(func) or {})
        fn = next((it for it in a.ast.items if isinstance(it, A.FuncDef) and it.name == func), None)
        if fn is None:
            continue
        names.update(p.name for p in fn.params)
        for n in (x for s in fn.body for x in A.walk(s)):
            if isinstance(n, (A.Assign, A.AugAssign, A.For)):
                targets = n.targets if isinstance(n, A.Assign) else (n.target,)
                out: list = []
                for t in targets:
                    A.assigned_names(t, out)
                names.update(x.id for x in out)
    return names, types


def _namespace(a) -> I.Namespace:
    """The analysis' top-level names. Without `kind_of` (an imported name's kind is then
    "unknown", which resolves the same way): asking what imported names are may check the
    whole library, too slow for a request sent at every `(`."""
    return I.namespace(a.module_name, a.ast)


def _symbol_sigs(view: View, module: str, name: str) -> tuple[Sig, ...]:
    """From the module as the current analysis checked it, else as the last good one did.
    Not from the library: a module the document's check did not load is one its imports
    do not reach, and checking the library for it would hold up a request sent at `(`."""
    for cm in (a.checked.modules.get(module) for a in _analyses(view)):
        if cm is None:
            continue
        sig = cm.envs.get(name) or cm.helpers.get(name)
        fn = sig.node if sig is not None else next(
            (it for it in cm.ast.items if isinstance(it, A.FuncDef) and it.name == name), None)
        if fn is not None:
            return (function_sig(fn, sig),)
    return ()


def _name_sigs(view: View, name: str, local: set[str]) -> tuple[Sig, ...]:
    if name in local:
        return ()
    for a in _analyses(view):
        ns = _namespace(a)
        hit = ns.get(name)
        if hit is None:
            continue
        kind, target = hit
        if kind in ("env", "helper", "unknown") and target[0] == "sym":
            got = _symbol_sigs(view, target[1], target[2])
            if got:
                return got
        return ()
    return builtin_sigs(name)


def _method_sigs(view: View, recv: tuple, name: str, local: set[str], types: dict) -> tuple[Sig, ...]:
    owners: tuple[str, ...] = ("Str", "List", "Dict", "Tuple")
    if recv[0] == "name":
        r = recv[1]
        hit = _namespace(view.a).get(r)
        if r not in local and hit is not None and hit[0] == "module":
            return _symbol_sigs(view, hit[1][1], name)
        if r == "rng" and r in local:
            owners = ("rng",)
        else:
            t = types.get(r)
            rt = T.shape(T.unwrap(t)) if t is not None else T.ANY
            for shape, owner in ((T.StrT, "Str"), (T.ListT, "List"), (T.DictT, "Dict"), (T.TupleT, "Tuple")):
                if isinstance(rt, shape):
                    owners = (owner,)
            if isinstance(rt, (T.IntT, T.BoolT, T.SetT)):
                return ()
    elif recv[0] == "str":
        owners = ("Str",)
    elif recv[0] == "int":
        return ()
    return tuple(s for s in (method_sig(o, name) for o in owners) if s is not None)


def _decorated(view: View, line: int) -> tuple[str, str] | None:
    """The function the decorator on `line` belongs to: (its name, its header's text)."""
    idx = view.a.index
    for ln in range(line, min(idx.line_count, line + 200)):
        text = idx.line(ln)
        m = _HEADER.match(text)
        if m:
            return m.group(2), text
        if ln > line and text and not text[0].isspace() and not text.startswith(("@", "#", ")")):
            return None
    return None


def _header_params(header: str) -> tuple[list[tuple[str, str]], str | None]:
    """(name, type) pairs and the return type read from an `env` header's text, for a
    header that does not parse: `env f(x: List[Int], k: Int where 0 <= it < 3) -> Str:`."""
    start = header.find("(")
    if start < 0:
        return [], None
    depth, cur, parts, end = 0, "", [], None
    for i in range(start + 1, len(header)):
        c = header[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                end = i
                break
            depth -= 1
        if c == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += c
    parts.append(cur)
    out = []
    for part in parts:
        name, _, t = part.partition(":")
        if name.strip().isidentifier():
            out.append((name.strip(), _strip_where(t.strip()) or "?"))
    ret = None
    if end is not None:
        m = re.match(r"\s*->\s*([\w.]+(?:\[[^:]*\])?)", header[end + 1:])
        ret = m.group(1) if m else None
    return out, ret


def _strip_where(t: str) -> str:
    """A type's text without its outermost refinement (`List[Int where it > 0] where ...`)."""
    depth = 0
    for m in re.finditer(r"[\[\](){}]|\bwhere\b", t):
        c = m.group()
        if c in "[({":
            depth += 1
        elif c in "])}":
            depth -= 1
        elif depth == 0:
            return t[:m.start()].strip()
    return t


def _decorator_sigs(view: View, name: str, line: int) -> tuple[Sig, ...]:
    found = _decorated(view, line)
    if found is None:
        return decorator_sigs(name, None)
    fname, header = found
    fn = _func(view, fname)
    sig = next((a.module.envs[fname] for a in _analyses(view) if a.module is not None and fname in a.module.envs),
               None)
    if fn is not None:
        params = [(p.name, declared_name(p.annotation, "?")) for p in fn.params]
        returns = declared_name(fn.returns, "?") if fn.returns is not None else None
    else:
        params, returns = _header_params(header)
    return decorator_sigs(name, params, returns, sig)


def _item_start(view: View, line: int) -> int:
    """Offset of the first line of the top-level item around `line` (a clean lexer state)."""
    idx = view.a.index
    p = view.a.placement.group_at(line)
    if p is not None and p.line0 <= line:
        return min(p.offset0, idx.offset(line, 0))
    for ln in range(line, max(-1, line - 2000), -1):
        if _TOP_ITEM.match(idx.line(ln)):
            return idx.offset(ln, 0)
    return idx.offset(max(0, line - 2000), 0)


def sigs_for(view: View, f: Frame, line: int) -> tuple[Sig, ...]:
    kind = f.callee[0]
    if kind == "decorator":
        return _decorator_sigs(view, f.callee[1], line)
    local, types = _locals(view, H.enclosing_function(view, line))
    if kind == "name":
        return _name_sigs(view, f.callee[1], local)
    if kind == "attr":
        return _method_sigs(view, f.callee[1], f.callee[2], local, types)
    return ()


# ---------------------------------------------------------------- LSP

def _information(s: Sig, active: int | None, enc: str, offsets: bool, markdown: bool) -> L.SignatureInformation:
    label = s.label
    params = []
    at = len(s.prefix)
    for k, p in enumerate(s.params):
        if k:
            at += 2
        if offsets:
            a = units(label[:at], enc)
            lab: str | tuple[int, int] = (a, a + units(p.label, enc))
        else:
            lab = p.label
        params.append(L.ParameterInformation(label=lab, documentation=_doc(p.doc, markdown)))
        at += len(p.label)
    return L.SignatureInformation(label=label, documentation=_doc(s.doc, markdown), parameters=params,
                                  active_parameter=active if active is not None else len(params))


def _doc(text: str | None, markdown: bool):
    if not text:
        return None
    return L.MarkupContent(L.MarkupKind.Markdown, text) if markdown else text


def client_options(caps: L.ClientCapabilities | None) -> tuple[bool, bool]:
    """(label offsets, markdown) as the client's signatureHelp capabilities allow."""
    si = getattr(getattr(getattr(caps, "text_document", None), "signature_help", None),
                 "signature_information", None)
    if si is None:
        return False, False
    pi = si.parameter_information
    offsets = bool(pi is not None and pi.label_offset_support)
    markdown = L.MarkupKind.Markdown in (si.documentation_format or [])
    return offsets, markdown


def signature_help(view: View, p: L.Position, offsets: bool = True, markdown: bool = True) -> L.SignatureHelp | None:
    line, col = view.a.index.from_client(p.line, p.character, view.enc)
    cursor = view.a.index.offset(line, col)
    f = call_at(view.a.text, _item_start(view, line), cursor)
    if f is None:
        return None
    sigs = sigs_for(view, f, line)
    if not sigs:
        return None
    actives = [s.active(f) for s in sigs]
    which = next((k for k, a in enumerate(actives) if a is not None), 0)
    infos = [_information(s, a, view.enc, offsets, markdown) for s, a in zip(sigs, actives)]
    return L.SignatureHelp(signatures=infos, active_signature=which, active_parameter=infos[which].active_parameter)
