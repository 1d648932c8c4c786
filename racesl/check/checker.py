"""Checking modules: names, imports, types, signatures, decorators and descriptions.

Input: parsed sources in dependency order (from the loader). Output: `CheckedModule`s
with typed `EnvSig`/`HelperSig`s and diagnostics. Bodies are checked by `body.py`.
"""

from __future__ import annotations

import os
import string

import attrs

from racesl.check import constants as C
from racesl.check import fuel as F
from racesl.check import layout as LO
from racesl.check import generators as G
from racesl.check import names as N
from racesl.check import settings as S
from racesl.check import verifiers as V
from racesl.check.body import BodyChecker, Scope, Symbol, has_unknown
from racesl.check.loader import Source
from racesl.check.model import CheckedModule, ConstSig, EnvSig, HelperSig, Setting
from racesl.diagnostics import Diagnostic, Label, Severity, Span
from racesl.syntax import ast as A
from racesl.syntax import braces
from racesl.syntax.docstrings import description
from racesl.syntax.emit import expr_text, qualify
from racesl.types import limits as TL
from racesl.text import article, plural
from racesl.types import types as T


class ModuleChecker:
    """Checks one module, given the modules it imports (already checked).

    `run` goes in passes: the module declaration, the module-level names, the type
    declarations, then for every function `check_signature`, then `check_body`, then for
    every environment with a signature `check_env_extras`.

    Extension points. A subclass may override `resolve_type`, `check_signature`,
    `check_body` and `check_env_extras` (the language server does, in
    racesl/lsp/replay.py, to replay results whose inputs did not change), and may replace
    the module's tables with `use_tables` before `run`. What makes a replay sound: each of
    these four steps reads the module only through its argument, the tables (`symbols`,
    `type_items`, `scope.skipped`), `resolving`, `out.envs` and the imported modules, and
    writes only `diags`, `resolved`, `scope.used`, `local_types`, a symbol's `returns` and
    `type`, and `out.envs` / `out.helpers` / `out.types`. Keep it so when changing them.
    """

    def __init__(self, src: Source, checked: dict[str, CheckedModule], broken: set[tuple[str, str]]):
        self.src = src
        self.checked = checked
        self.broken = broken
        self.name = src.name
        self.path = src.path
        self.out = CheckedModule(src.name, src.path, src.text, src.ast)
        self.diags = self.out.diagnostics
        self.diags.extend(src.diagnostics)
        self.symbols: dict[str, Symbol] = {}
        self.type_items: dict[str, A.TypeDecl] = {}
        self._resolving: set[str] = set()
        self.scope = Scope(self.name, self.symbols, self._exports, src.ast.skipped_names)
        self.local_types: dict[str, dict[str, T.Type]] = {}  # function name → local types (editor)
        self.resolved: dict[int, str] = {}

    def use_tables(self, symbols: dict[str, Symbol], type_items: dict[str, A.TypeDecl],
                   skipped: frozenset[str]) -> None:
        """Extension point: check with these (empty) tables of module-level names and type
        declarations and this set of names skipped by syntax recovery, in place of plain
        ones; the language server passes tables that log what is read from them. Call it
        before `run`; the body checkers see the same tables through `scope`."""
        self.symbols = symbols
        self.type_items = type_items
        self.scope.symbols = symbols
        self.scope.skipped = skipped

    @property
    def resolving(self) -> frozenset[str]:
        """The names of the type declarations being resolved now (to catch a type that
        refers to itself): besides its argument and the tables, an input of `resolve_type`."""
        return frozenset(self._resolving)

    def err(self, code, msg, span, hint=None, severity=Severity.ERROR, labels=()):
        self.diags.append(Diagnostic(code, msg, span, self.path, severity, hint, tuple(labels)))

    def _exports(self, module: str) -> dict[str, Symbol] | None:
        m = self.checked.get(module)
        return None if m is None else getattr(m, "exports", None)

    # ------------------------------------------------------------ driver

    def run(self) -> CheckedModule:
        items = self.src.ast.items
        self._module_decl(items)
        self._declare(items)
        self._bound_type_chains()
        for it in items:
            if isinstance(it, A.TypeDecl):
                self._type_decl(it)
        consts = [it for it in items if isinstance(it, A.ConstDef)]
        for c in consts:
            self._constant_type(c)
        funcs = [it for it in items if isinstance(it, A.FuncDef)]
        for fn in funcs:
            self.check_signature(fn)
        self._constants(consts, funcs)
        for fn in funcs:
            self.check_body(fn)
        for fn in funcs:
            if fn.is_env and fn.name in self.out.envs:
                self.check_env_extras(fn)
        F.role_caps(self)  # E411: a helper's @fuel past FUEL_CAP needs a @generate/@verify role
        self._unused_imports(items)
        self.out.exports = {k: v for k, v in self.symbols.items() if v.kind in ("env", "helper", "type", "const")
                            and not v.imported}
        self.out.local_types = self.local_types
        self.out.resolved = self.resolved
        return self.out

    def _module_decl(self, items) -> None:
        decls = [it for it in items if isinstance(it, A.ModuleDecl)]
        for k, d in enumerate(decls):
            if k > 0 or items[0] is not d:
                self.err("E205", "the module declaration must be the first line of the file", d.span,
                         "move `module ...` to the top, or remove it")
            elif d.name != self.name:
                file = os.path.basename(self.path)
                other = f" or declare `module {self.name}`" if self.name.isidentifier() else ""
                self.err("E205", f"module '{d.name}' is declared in a file named '{file}'", d.span,
                         f"rename the file to {d.name}.races{other}")

    def _declare(self, items) -> None:
        first: dict[str, Span] = {}

        def add(name: str, span: Span, sym: Symbol) -> None:
            p = N.name_problem(name)
            if p:
                self.err(p[0], p[1], span, p[2])
            if name in first:
                self.err("E201", f"'{name}' is defined more than once", span, "rename one of them",
                         labels=[(Label(first[name], "first defined here", self.path))])
                return
            if name in N.BUILTINS or name in ("Int", "Bool", "Str", "List", "Tuple", "Dict", "it"):
                self.err("E201", f"'{name}' is a built-in name", span, "pick another name")
                return
            first[name] = span
            self.symbols[name] = sym

        for it in items:
            if isinstance(it, A.Import):
                if it.module in self.checked and (self.name, it.module) not in self.broken:
                    add(it.module.split(".")[-1], it.module_span, Symbol("module", it.module, span=it.span))
                else:
                    self.symbols.setdefault(it.module, Symbol("error", it.module))
            elif isinstance(it, A.FromImport):
                mod = self.checked.get(it.module)
                if mod is None or (self.name, it.module) in self.broken:
                    for n in it.names:
                        self.symbols.setdefault(n.name, Symbol("error", n.name))
                    continue
                for n in it.names:
                    sym = mod.exports.get(n.name)
                    if sym is None:
                        close = N.suggest(n.name, mod.exports)
                        self.err("E204", f"module '{it.module}' has no name '{n.name}'", n.span,
                                 f"did you mean '{close}'?" if close else None)
                        self.symbols.setdefault(n.name, Symbol("error", n.name))
                    else:
                        add(n.name, n.span, attrs.evolve(sym, imported=True))
            elif isinstance(it, A.TypeDecl):
                self.type_items[it.name] = it
                add(it.name, it.name_span, Symbol("type", f"{self.name}.{it.name}", span=it.name_span, path=self.path))
            elif isinstance(it, A.ConstDef):
                add(it.name, it.name_span, Symbol("const", f"{self.name}.{it.name}", qualify(self.name, it.name),
                                                  span=it.name_span, path=self.path))
            elif isinstance(it, A.FuncDef):
                kind = "env" if it.is_env else "helper"
                add(it.name, it.name_span, Symbol(kind, f"{self.name}.{it.name}", qualify(self.name, it.name),
                                                  len(it.params), tuple(p.name for p in it.params),
                                                  span=it.name_span, path=self.path))

    # ------------------------------------------------------------ types

    def _type_decl(self, it: A.TypeDecl) -> T.Type:
        sym = self.symbols.get(it.name)
        if sym is not None and sym.type is not None:
            return sym.type
        if it.name in self._resolving:
            self.err("E305", f"type '{it.name}' refers to itself", it.name_span,
                     "racesl types are not recursive; bound the structure explicitly")
            return T.ANY
        self._resolving.add(it.name)
        try:
            t = self.resolve_type(it.type)
        finally:
            self._resolving.discard(it.name)
        if it.nominal:
            t = T.NewT(f"{self.name}.{it.name}", t)
        if sym is not None and sym.kind == "type":
            sym.type = t
        self.out.types[it.name] = t
        return t

    def resolve_type(self, te: A.TypeExpr) -> T.Type:
        """The type `te` denotes, reporting what is wrong with it. Extension point: called
        for every type expression of the module, nested ones included."""
        base = self._type_head(te)
        if te.where is None:
            return self._within_limits(te, base)
        checker = BodyChecker(self.scope, self.path, self.diags)
        checker.check_predicate(te.where, base)
        self.resolved.update(checker.resolved)
        if not self._narrow_constants(te.where):
            return base
        pred = T.Pred(te.where, expr_text(te.where), self.name, te.where.span, self.path, te.where_text)
        return self._within_limits(te, T.refine(base, (pred,)))

    # ------------------------------------------------------------ size limits (issue 33)

    def _bound_type_chains(self) -> None:
        """A type declaration resolved through more than MAX_CHAIN others (`type T2 = T1`,
        thousands deep, in any order) is refused where the chain first passes the bound; the
        declarations above it resolve to `?`. Resolution recurses a few frames a link."""
        for name, depth in TL.chain_depths(dict(self.type_items)).items():
            sym = self.symbols.get(name)
            if depth <= TL.MAX_CHAIN or sym is None or sym.kind != "type":
                continue
            if depth == TL.MAX_CHAIN + 1:
                self.err("E105", f"type '{name}' is declared through more than {TL.MAX_CHAIN} other "
                         "declarations", self.type_items[name].name_span,
                         "declare it from the types it is made of, not through a chain of aliases")
            sym.type = T.ANY

    def _within_limits(self, te: A.TypeExpr, t: T.Type) -> T.Type:
        """`t`, or `?` with an error when it nests deeper or writes out longer than the
        bounds of racesl.types.limits (aliases and newtypes compose types past what one
        declaration can write; everything downstream walks types recursively)."""
        problem = TL.too_big(t)
        if problem is None:
            return t
        self.err("E105", problem, te.span, "use a flatter type, or fewer levels of aliases and newtypes")
        return T.ANY

    def _narrow_constants(self, where: A.Expr) -> bool:
        """Whether every int literal of a refinement fits the runtime's Int bound; each one
        that does not is an error (no value of the type could pass it, and the solver,
        messages and records could not write it in decimal)."""
        wide = TL.wide_constants(where)
        for c in wide:
            self.err("E113", f"this constant has {c.value.bit_length():,} bits; a refinement's constants "
                     f"have at most {TL.MAX_CONST_BITS:,}", c.span,
                     "bound the type with a smaller number (Ints past the bound are cut off with !size)")
        return not wide

    def _type_head(self, te: A.TypeExpr) -> T.Type:
        name, args = te.name, te.args
        if name in T.BASE_TYPES:
            if args:
                self.err("E301", f"{name} takes no type arguments", te.span, f"write just {name}")
            return T.BASE_TYPES[name]
        if name == "List":
            if len(args) != 1:
                self.err("E301", f"List takes 1 type argument, {len(args)} given", te.span, "write List[T]")
                return T.ListT(T.ANY)
            return T.ListT(self.resolve_type(args[0]))
        if name == "Tuple":
            if not args:
                self.err("E301", "Tuple needs at least one type argument", te.span, "write Tuple[T1, T2]")
                return T.TupleT(())
            return T.TupleT(tuple(self.resolve_type(a) for a in args))
        if name == "Dict":
            if len(args) != 2:
                self.err("E301", f"Dict takes 2 type arguments, {len(args)} given", te.span, "write Dict[K, V]")
                return T.DictT(T.ANY, T.ANY)
            return T.DictT(self.resolve_type(args[0]), self.resolve_type(args[1]))
        sym = self._type_symbol(te)
        if sym is None:
            return T.ANY
        if args:
            self.err("E301", f"{name} takes no type arguments", te.span, f"write just {name}")
        return sym

    def _type_symbol(self, te: A.TypeExpr) -> T.Type | None:
        name = te.name
        if "." in name:
            mod, _, attr = name.rpartition(".")
            msym = self.symbols.get(mod)
            if msym is None or msym.kind not in ("module", "error"):
                self.err("E300", f"unknown type '{name}'", te.name_span, f"import {mod} first")
                return None
            if msym.kind == "error":
                return None
            self.scope.used.add(mod)
            member = self.scope.member(msym.qualname, attr)
            if member is None or member.kind != "type":
                self.err("E300", f"module '{mod}' has no type '{attr}'", te.name_span)
                return None
            return member.type
        sym = self.symbols.get(name)
        if sym is None:
            visible = [k for k, v in self.symbols.items() if v.kind == "type"] + list(T.BASE_TYPES) + ["List", "Tuple", "Dict"]
            close = N.suggest(name, visible)
            hint = f"did you mean '{close}'?" if close else "types: Int, Bool, Str, List[T], Tuple[...], Dict[K, V] and declared ones"
            if name in ("Set", "Float", "None", "float", "int", "str", "bool", "list", "dict"):
                hint = {"int": "write Int", "str": "write Str", "bool": "write Bool", "list": "write List[T]",
                        "dict": "write Dict[K, V]"}.get(name, "signature types are Int, Bool, Str, List, Tuple, Dict")
            self.err("E300", f"unknown type '{name}'", te.name_span, hint)
            return None
        self.scope.used.add(name)
        if sym.kind == "error":
            return None
        if sym.kind != "type":
            kind = {"env": "environment", "const": "constant"}.get(sym.kind, sym.kind)
            self.err("E305", f"'{name}' is {article(kind)}, not a type",
                     te.name_span)
            return None
        if sym.type is None and name in self.type_items:
            return self._type_decl(self.type_items[name])
        return sym.type

    # ------------------------------------------------------------ constants

    def _constant_type(self, c: A.ConstDef) -> None:
        """A constant's declared type, on its symbol before any body is checked (bodies infer
        with it): E440 when it is missing or could hold a part a body could change."""
        sym = self.symbols.get(c.name)
        if sym is None or sym.kind != "const" or sym.span != c.name_span:
            return  # a duplicate name (E201 said so)
        if c.annotation is None:
            self.err("E440", f"constant '{c.name}' needs a type", c.name_span,
                     f"write {c.name}: TYPE = ..., e.g. {c.name}: {self._guess(c.value)} = ...")
            return
        t = self.resolve_type(c.annotation)
        problem = C.constant_type_problem(t)
        if problem is not None:
            self.err("E440", f"constant '{c.name}' is declared {t}: {problem}", c.annotation.span,
                     "make the inner parts Strs or Tuples (a grid's rows as Strs: List[Str]), "
                     "or build the nested value in the helper that uses it")
            return
        sym.type = t

    def _guess(self, value: A.Expr) -> str:
        t = BodyChecker(self.scope, self.path, []).infer(value)
        return "Int" if isinstance(t, T.AnyT) else str(T.erase(t))

    def _constants(self, consts: list[A.ConstDef], funcs: list[A.FuncDef]) -> None:
        """Each constant's value (after the signatures: it may call helpers) and its order
        (it reads only the constants above it), into `out.constants`."""
        late = C.order_problems(consts, {fn.name: fn for fn in funcs})  # (a body may call an env too)
        for c in consts:
            sym = self.symbols.get(c.name)
            if sym is None or sym.kind != "const" or sym.span != c.name_span:
                continue
            checker = BodyChecker(self.scope, self.path, self.diags)
            checker.check_constant(c.value, sym.type)
            self.resolved.update(checker.resolved)
            if c.name in late:
                other, via = late[c.name]
                how = f" through '{via}'" if via else ""
                what = "itself" if other == c.name else f"'{other}', which is defined after it"
                self.err("E440", f"constant '{c.name}' reads {what}{how}", c.value.span,
                         "a constant may read only the constants above it: move it below them, "
                         "and break any cycle")
                continue
            if sym.type is None or c.annotation is None:
                continue
            self.out.constants[c.name] = ConstSig(sym.qualname, self.name, c.name, sym.pyname, sym.type,
                                                  self.path, c.name_span, c)

    # ------------------------------------------------------------ functions

    def check_signature(self, fn: A.FuncDef) -> None:
        """Parameters and return type of `fn`: sets its symbol's `returns` and adds its
        `EnvSig` (an environment with a complete signature) or `HelperSig` to `out`.
        Extension point: called once per function, in source order, after the type
        declarations."""
        params: list[tuple[str, T.Type | None]] = []
        seen: set[str] = set()
        for p in fn.params:
            prob = N.name_problem(p.name)
            if prob:
                self.err(prob[0], prob[1], p.span, prob[2])
            if p.name in seen:
                self.err("E408", f"duplicate parameter '{p.name}'", p.span, "rename it")
            seen.add(p.name)
            if p.annotation is None:
                if fn.is_env:
                    self.err("E304", f"parameter '{p.name}' of environment '{fn.name}' needs a type", p.span,
                             f"write {p.name}: Int (or the type it takes)")
                params.append((p.name, None))
            else:
                params.append((p.name, self.resolve_type(p.annotation)))
        returns = self.resolve_type(fn.returns) if fn.returns is not None else None
        sym = self.symbols.get(fn.name)
        if sym is not None and sym.kind in ("env", "helper") and sym.span == fn.name_span:
            sym.returns = returns
        if fn.is_env:
            self._env_signature(fn, params, returns)
        else:
            self.out.helpers[fn.name] = HelperSig(f"{self.name}.{fn.name}", self.name, fn.name,
                                                  qualify(self.name, fn.name), tuple(params), returns,
                                                  self.path, fn.name_span, fn, fuel=F.helper_budget(self, fn))

    def _env_signature(self, fn: A.FuncDef, params, returns) -> None:
        ok = True
        if not fn.params:
            self.err("E407", f"environment '{fn.name}' has no input parameter", fn.name_span,
                     f"write env {fn.name}(x: T) -> U")
            ok = False
        if fn.docstring is None:
            self.err("E400", f"environment '{fn.name}' has no description", fn.name_span,
                     'add a docstring saying what it computes: """Return ..."""')
        if not ok or any(t is None for _, t in params) or returns is None:
            return
        if isinstance(T.shape(returns), T.SetT) or any(isinstance(T.shape(t), T.SetT) for _, t in params):
            return
        self.out.envs[fn.name] = EnvSig(
            qualname=f"{self.name}.{fn.name}", module=self.name, name=fn.name,
            pyname=qualify(self.name, fn.name), input_name=params[0][0], input=params[0][1],
            settings=tuple(Setting(n, t) for n, t in params[1:]), output=returns,
            description=description(fn.docstring.value) if fn.docstring else "", tags=(), samplers=(),
            verify=None, laws=(), path=self.path, span=fn.name_span, node=fn)

    def check_body(self, fn: A.FuncDef) -> None:
        """The body of `fn`: sets `local_types[fn.name]` and adds to `resolved`. Extension
        point: called once per function, in source order, after every signature."""
        checker = BodyChecker(self.scope, self.path, self.diags)
        params = {}
        for p in fn.params:
            params[p.name] = self.resolve_type_quiet(p.annotation)
        returns = self.resolve_type_quiet(fn.returns)
        start = len(self.diags)
        self.local_types[fn.name] = checker.check_function(fn, params, returns)
        self.resolved.update(checker.resolved)
        if fn.is_env and G.bodiless(fn):  # no return to miss: E423 or @generate decides
            self.diags[start:] = [d for d in self.diags[start:] if d.code != "E507"]

    def resolve_type_quiet(self, te: A.TypeExpr | None) -> T.Type | None:
        """Resolve again without reporting (the signature pass already reported)."""
        if te is None:
            return None
        saved = len(self.diags)
        try:
            return self.resolve_type(te)
        finally:
            del self.diags[saved:]

    # ------------------------------------------------------------ environments

    def check_env_extras(self, fn: A.FuncDef) -> None:
        """The description's placeholders and the decorators of environment `fn`: replaces
        `out.envs[fn.name]` with its tags, samplers, verifier and laws filled in. Extension
        point: called once per environment in `out.envs`, in source order, after every
        body."""
        sig = self.out.envs[fn.name]
        self._placeholders(fn, sig)
        tags: list[str] = []
        samplers: dict[str, str] = {}
        verify = None
        scale = None
        generate = None
        latent = None
        fuel = None
        layout = None
        laws: list[str] = []
        seen: set[str] = set()
        for d in fn.decorators:
            if d.name not in N.DECORATORS:
                close = N.suggest(d.name, N.DECORATORS)
                self.err("E403", f"unknown decorator '@{d.name}'", d.span,
                         f"did you mean '@{close}'?" if close else
                         "decorators: " + ", ".join("@" + n for n in N.DECORATORS))
                continue
            if d.name in seen:
                self.err("E404", f"'@{d.name}' is given more than once", d.span, "merge them into one")
            seen.add(d.name)
            if d.name == "tags":
                for a in d.args:
                    if isinstance(a, A.Const) and isinstance(a.value, str):
                        tags.append(a.value)
                    else:
                        self.err("E404", "@tags takes string literals", a.span, '@tags("numbers", "parity")')
                if d.keywords:
                    self.err("E404", "@tags takes no keywords", d.span)
            elif d.name == "sample":
                if d.args:
                    self.err("E404", "@sample takes keyword arguments", d.span, "@sample(param=helper)")
                pnames = [p.name for p in fn.params]
                for k in d.keywords:
                    if k.name not in pnames:
                        self.err("E404", f"'{fn.name}' has no parameter '{k.name}'", k.span,
                                 f"parameters: {', '.join(pnames)}")
                        continue
                    py = self._helper_ref(k.value, 2, "E405", "a sampler helper(rng, level)")
                    if py:
                        samplers[k.name] = py
            elif d.name == "fuel":
                fuel = F.budget(self, d)
            elif d.name == "layout":
                layout = LO.form(self, fn, sig, d)
            elif d.name == "generate":
                got = G.generator_ref(self, fn, sig, d)
                if got is not None:
                    generate, latent = got
            elif d.name == "verify":
                if len(d.args) != 1 or d.keywords:
                    self.err("E404", "@verify takes one helper", d.span, "@verify(checker)")
                else:
                    got = V.checker_ref(self, fn, d, G.latent_of(self, fn))  # (Bool or graded; a latent third)
                    if got is not None:
                        verify, scale = got
            elif d.name == "laws":
                for a in d.args:
                    if isinstance(a, A.Name) and a.id in N.LAWS:
                        laws.append(a.id)
                    else:
                        self.err("E404", "unknown law", a.span, "laws: idempotent, involution")
                if laws and not T.same_shape(sig.input, sig.output) and not has_unknown(sig.input) \
                        and not has_unknown(sig.output):  # (an unknown type has its own E300)
                    self.err("E404", f"@laws({', '.join(laws)}) needs '{fn.name}' to return its input's type: "
                             f"it takes {T.erase(sig.input)} but returns {T.erase(sig.output)}", d.span,
                             "a law runs the environment on its own output (f(f(x))), so the output "
                             "must be a valid input; remove @laws or return the input's type")
        G.check_body_rule(self, fn, generate)
        S.unbounded_settings(self, fn, sig, samplers)  # W400: an Int setting drawn from an open range
        if generate is not None:
            G.conflicts(self, fn, sig, samplers, laws)
        self.out.envs[fn.name] = attrs.evolve(sig, tags=tuple(tags), samplers=tuple(sorted(samplers.items())),
                                              verify=verify, laws=tuple(laws), generate=generate,
                                              fuel=fuel, layout=layout, scale=scale if verify else None,
                                              latent=latent if generate and verify else None)

    def _helper_ref(self, e: A.Expr, nparams: int, code: str, what: str, returns: T.Type | None = None) -> str | None:
        """The helper `e` names, with `nparams` parameters (and, given `returns`, declared to
        return that type: a checker that returns an Int would make every answer but one wrong)."""
        sym = None
        if isinstance(e, A.Name):
            sym = self.scope.lookup(e.id)
        elif isinstance(e, A.Attribute) and isinstance(e.value, A.Name):
            msym = self.symbols.get(e.value.id)
            if msym is not None and msym.kind == "module":
                self.scope.used.add(e.value.id)
                sym = self.scope.member(msym.qualname, e.attr)
        if sym is None or sym.kind != "helper":
            self.err(code, f"expected {what}", e.span, "name a `def` helper of this module or an imported one")
            return None
        if sym.nparams != nparams:
            self.err(code, f"expected {what}, but it takes {plural(sym.nparams or 0, 'parameter')}", e.span)
            return None
        if returns is not None and sym.returns is not None and T.erase(sym.returns) != returns:
            self.err(code, f"expected {what}, but it is declared to return {T.erase(sym.returns)}", e.span,
                     f"declare it `-> {returns}`: True when the answer is right for the input")
            return None
        return sym.pyname

    def _placeholders(self, fn: A.FuncDef, sig: EnvSig) -> None:
        doc = fn.docstring
        if doc is None:
            return
        found: set[str] = set()
        try:
            parsed = [(f, spec, conv) for _, f, spec, conv  # (an example's values are values: braces.template)
                      in string.Formatter().parse(braces.template(description(doc.value))) if f is not None]
        except ValueError as e:
            self.err("E402", f"malformed placeholder in description: {e}", doc.span,
                     "write {{ and }} for literal braces; placeholders look like {name}")
            return
        settings = {s.name for s in sig.settings}
        fields = []
        for f, spec, conv in parsed:
            if not f.isidentifier():  # a literal's braces ({'a': 1}, {5}: an example's value), not a name
                raw = f + (f"!{conv}" if conv else "") + (f":{spec}" if spec else "")
                self.err("E402", f"'{{{raw}}}' in the description is a value's braces, not a placeholder",
                         doc.span, f"write the braces doubled, {braces.doubled('{' + raw + '}')}: a description is "
                         "a format string (inside an `Example:` sentence a value is written as it is)")
                continue
            if spec or conv:
                self.err("E402", f"placeholder '{{{f}{'!' + conv if conv else ''}{':' + spec if spec else ''}}}' "
                         "has a conversion or format spec", doc.span,
                         f"write just {{{f}}}: the value is shown as its canonical text")
            fields.append(f)
        for f in fields:
            if f == sig.input_name:
                self.err("E402", f"the input '{f}' cannot be a placeholder", doc.span,
                         "the task shows the input value itself; refer to it by name without braces")
            elif f not in settings:
                close = N.suggest(f, settings)
                self.err("E402", f"unknown placeholder '{{{f}}}' in description", doc.span,
                         f"did you mean '{{{close}}}'?" if close else
                         "placeholders name settings; write {{ and }} for literal braces")
            found.add(f)
        for s in sig.settings:
            if s.name not in found:
                self.err("E401", f"setting '{s.name}' does not appear in the description", doc.span,
                         f"mention it as {{{s.name}}} so the task text states its value")

    def _unused_imports(self, items) -> None:
        for it in items:
            if isinstance(it, A.Import):
                short = it.module.split(".")[-1]
                if short not in self.scope.used and self.symbols.get(short, Symbol("x", "")).kind == "module":
                    self.err("W601", f"module '{it.module}' is imported but not used", it.span,
                             "remove the import", Severity.WARNING)
            elif isinstance(it, A.FromImport):
                for n in it.names:
                    if n.name not in self.scope.used and self.symbols.get(n.name) is not None \
                            and self.symbols[n.name].kind != "error":
                        self.err("W601", f"'{n.name}' is imported but not used", n.span,
                                 "remove it from the import", Severity.WARNING)
