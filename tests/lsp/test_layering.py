"""The language server uses only the public surface of the compiler's checker, syntax
and types packages: no `_`-prefixed name of theirs is imported, read, or overridden
from racesl/lsp (the checker's extension points are public and documented)."""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from pathlib import Path

import racesl

ROOT = Path(racesl.__file__).parent
PACKAGES = ("racesl.check", "racesl.syntax", "racesl.types")


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _in_packages(modname: str) -> bool:
    return any(modname == p or modname.startswith(p + ".") for p in PACKAGES)


def _package_private_names() -> set[str]:
    """Every `_`-prefixed name defined in the packages: module globals, functions, classes,
    methods, class attributes and instance attributes (`self._x = ...`)."""
    out: set[str] = set()
    for pkg in PACKAGES:
        for f in (ROOT / pkg.split(".")[1]).rglob("*.py"):
            for n in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    out.add(n.name)
                elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                    out.add(n.id)
                elif isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store):
                    out.add(n.attr)
    return {n for n in out if _private(n)}


def _base_private_names(cls: type) -> set[str]:
    """The private names a subclass of `cls` would share with it: its attributes and
    methods, and the instance attributes its classes (in the packages) assign."""
    names = {n for n in dir(cls) if _private(n)}
    for k in cls.__mro__:
        if _in_packages(k.__module__):
            try:
                src = inspect.getsource(k)
            except (OSError, TypeError):
                continue
            names.update(n for n in re.findall(r"\bself\.(_\w+)", src) if _private(n))
    return names


def _dotted(e: ast.expr) -> str | None:
    if isinstance(e, ast.Name):
        return e.id
    if isinstance(e, ast.Attribute):
        head = _dotted(e.value)
        return None if head is None else f"{head}.{e.attr}"
    return None


def violations(source: str, filename: str, private_names: set[str]) -> list[str]:
    """Where `source` (a module of racesl/lsp) reaches a private name of the packages."""
    tree = ast.parse(source, filename)
    bound: dict[str, object] = {}  # local name → the module or object of the packages it names
    out: list[str] = []

    def where(n: ast.AST) -> str:
        return f"{filename}:{getattr(n, 'lineno', '?')}"

    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            for a in n.names:
                if _in_packages(a.name):
                    if any(_private(part) for part in a.name.split(".")):
                        out.append(f"{where(n)}: import {a.name}")
                    if a.asname:
                        bound[a.asname] = importlib.import_module(a.name)
                    else:
                        bound["racesl"] = racesl
        elif isinstance(n, ast.ImportFrom) and n.module and n.level == 0:
            if n.module == "racesl":
                for a in n.names:
                    if f"racesl.{a.name}" in PACKAGES:
                        bound[a.asname or a.name] = importlib.import_module(f"racesl.{a.name}")
                continue
            if not _in_packages(n.module):
                continue
            if any(_private(part) for part in n.module.split(".")):
                out.append(f"{where(n)}: from {n.module} import ...")
            mod = importlib.import_module(n.module)
            for a in n.names:
                if _private(a.name):
                    out.append(f"{where(n)}: from {n.module} import {a.name}")
                obj = getattr(mod, a.name, None)
                if obj is None:
                    try:
                        obj = importlib.import_module(f"{n.module}.{a.name}")
                    except ImportError:
                        continue
                bound[a.asname or a.name] = obj

    def resolve(e: ast.expr):
        d = _dotted(e)
        if d is None:
            return None
        head, *rest = d.split(".")
        obj = bound.get(head)
        for part in rest:
            if obj is None:
                return None
            obj = getattr(obj, part, None)
        if obj is racesl:
            return None
        return obj

    subclass_private: dict[int, set[str]] = {}  # id(ClassDef) → private names of its bases
    for n in ast.walk(tree):
        if isinstance(n, ast.ClassDef):
            names: set[str] = set()
            for b in n.bases:
                base = resolve(b)
                if inspect.isclass(base) and _in_packages(base.__module__):
                    names |= _base_private_names(base)
            if names:
                subclass_private[id(n)] = names
                for item in n.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name in names:
                        out.append(f"{where(item)}: overrides {item.name}")

    def visit(node: ast.AST, inherited: set[str]) -> None:
        for child in ast.iter_child_nodes(node):
            scope = subclass_private.get(id(child), inherited) if isinstance(child, ast.ClassDef) else inherited
            if isinstance(child, ast.Attribute) and _private(child.attr):
                recv = child.value
                if isinstance(recv, ast.Name) and recv.id in ("self", "cls") or \
                        isinstance(recv, ast.Call) and isinstance(recv.func, ast.Name) and recv.func.id == "super":
                    if child.attr in scope:
                        out.append(f"{where(child)}: {_dotted(recv) or 'super()'}.{child.attr} (inherited)")
                elif resolve(recv) is not None or child.attr in private_names:
                    out.append(f"{where(child)}: .{child.attr}")
            visit(child, scope if isinstance(child, ast.ClassDef) else inherited)

    visit(tree, set())
    return out


def test_the_language_server_uses_only_public_names_of_the_checker():
    private_names = _package_private_names()
    found = []
    for f in sorted((ROOT / "lsp").glob("*.py")):
        found += violations(f.read_text(encoding="utf-8"), str(f.relative_to(ROOT.parent)), private_names)
    assert not found, "racesl/lsp reaches private names of racesl.check/syntax/types:\n" + "\n".join(found)


def test_the_scan_finds_private_uses():
    src = '''
from racesl.check.checker import ModuleChecker
from racesl.syntax.parser import ECHO_OF, _lark
from racesl.syntax import parser as P
import racesl.check.names as N


class C(ModuleChecker):
    def check_body(self, fn):
        self._own = 1
        return self._resolving

    def _declare(self, items):
        super()._type_decl(items)


def f(checker, module):
    P._lark()
    N.name_problem("x")
    return checker._exports(module)
'''
    found = violations(src, "x.py", _package_private_names())
    assert {s.split(": ", 1)[1] for s in found} == {
        "from racesl.syntax.parser import _lark", "overrides _declare", "self._resolving (inherited)",
        "super()._type_decl (inherited)", "._lark", "._exports"}
