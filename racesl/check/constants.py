"""Module constants (`WORDS: List[Str] = "apple pear".split()`): what makes one sound.

A constant is evaluated once, when a library is loaded (racesl.runtime.constants), and every
body then reads that one value: a draw costs the same whatever the constant's size. Sharing
is only safe when no body can change the value, so the checker guarantees it:

- a constant's type may be mutable only at the top (`List[Str]`, `Dict[Str, Int]`, `Set[Int]`):
  its elements are Ints, Bools, Strs or Tuples of them, which nothing can change in place
  (`constant_type_problem`);
- a body never rebinds a constant (E441, in `BodyChecker._target`), and never hands a
  mutable one on as a value that could be changed later: every use of it must read it
  (`use_problem`): subscripts and slices, `in`, iteration, the builtins (`len`, `sorted`,
  `list`, ...), the reading methods (`.index()`, `.count()`, `.get()`, `"".join(...)`), the
  rng's draws (`choice`, `sample`, `choices`), operators that build a new value (`+`, `*`,
  `|`). Anything that would hold the value itself (`xs = WORDS`, `return WORDS`, a helper's
  argument, `[WORDS]`, `WORDS or xs`) is refused (E442) with the copy to write instead;
  anything that changes it (`WORDS.append(w)`, `WORDS[0] = w`, `rng.shuffle(WORDS)`) is E441.

Order: a constant may use the constants above it and any helper; a constant that reaches
itself or a later constant (directly or through the helpers it calls) is E440
(`order_problems`), since it would be read before it has a value.
"""

from __future__ import annotations

from typing import Callable

from racesl.syntax import ast as A
from racesl.syntax.emit import expr_text
from racesl.text import article
from racesl.types import builtins as B
from racesl.types import types as T
from racesl.types.builtins import ELEM_BUILTINS, MUTATING_METHODS

_MUTABLE = (T.ListT, T.DictT, T.SetT)
# methods whose arguments are read, never kept (a constant may be passed to them)
READING_ARG_METHODS = frozenset({"join", "extend", "count", "index", "startswith", "endswith"})
# the rng's draws that read a sequence without changing it (choice, sample, choices)
RNG_READS = frozenset(e.name for e in B.ENTRIES if e.receiver == "rng" and e.result in ("elem", "list"))
# statements and expressions that only look at a value
_READING_PARENTS = (A.Compare, A.BinOp, A.FormattedValue, A.If, A.While, A.Assert)


def _parts(t: T.Type):
    stack = [t]
    while stack:
        s = T.shape(T.unwrap(stack.pop()))
        yield s
        if isinstance(s, (T.ListT, T.SetT)):
            stack.append(s.elem)
        elif isinstance(s, T.DictT):
            stack.extend([s.key, s.value])
        elif isinstance(s, T.TupleT):
            stack.extend(s.elems)


def is_mutable(t: T.Type | None) -> bool:
    """Whether a value of this type can be changed in place (a List, Dict or Set at the top)."""
    return t is not None and isinstance(T.shape(T.unwrap(t)), _MUTABLE)


def constant_type_problem(t: T.Type) -> str | None:
    """Why a constant may not have this type (a mutable value inside it), else None."""
    top = T.shape(T.unwrap(t))
    inner = list(_parts(t))[1:]
    if any(isinstance(s, _MUTABLE) for s in inner):
        what = "its elements" if isinstance(top, _MUTABLE) else "its parts"
        return f"{what} would be Lists, Dicts or Sets, which a body could change in place"
    return None


def _store_context(node: A.Node, parents: dict[int, A.Node]) -> bool:
    """Whether `node` (a subscript) is written to: an assignment's, augmented assignment's or
    loop's target, possibly inside a tuple of targets."""
    cur = node
    up = parents.get(id(cur))
    while isinstance(up, (A.TupleExpr, A.ListExpr)):
        cur, up = up, parents.get(id(up))
    if isinstance(up, A.Assign):
        return any(t is cur for t in up.targets)
    if isinstance(up, A.AugAssign):
        return up.target is cur
    if isinstance(up, (A.For, A.CompFor)):
        return up.target is cur
    return False


def use_problem(ref: A.Expr, parents: dict[int, A.Node], is_builtin: Callable[[str], bool],
                is_rng: Callable[[A.Expr], bool]) -> tuple[str, str] | None:
    """("change", what) when this use of a mutable constant would change it, ("share", what)
    when it would hand the value itself on, None when it only reads it."""
    p = parents.get(id(ref))
    if p is None:
        return None
    if isinstance(p, A.Subscript):
        if p.value is ref and _store_context(p, parents):
            return "change", "assigning to one of its elements"
        return None
    if isinstance(p, _READING_PARENTS):
        return None
    if isinstance(p, A.UnaryOp) and p.op == "not":
        return None
    if isinstance(p, (A.For, A.CompFor)):
        return None if p.iter is ref else ("change", "a loop assigning to it")
    if isinstance(p, A.AugAssign):
        return None if p.value is ref else ("change", "an augmented assignment to it")
    if isinstance(p, A.Keyword):
        call = parents.get(id(p))
        if isinstance(call, A.Call) and isinstance(call.func, A.Name) and is_builtin(call.func.id):
            return _builtin_use(call.func.id, call, ref)
        if isinstance(call, A.Call) and isinstance(call.func, A.Attribute) and is_rng(call.func.value) \
                and call.func.attr in RNG_READS:
            return None
        return "share", "passing it as a keyword argument"
    if isinstance(p, A.Attribute) and p.value is ref:  # a method call on it
        call = parents.get(id(p))
        if not (isinstance(call, A.Call) and call.func is p):
            return None  # attribute access: refused by the body checker on its own (E501)
        if p.attr in MUTATING_METHODS:
            return "change", f"calling '.{p.attr}()' on it"
        return None
    if isinstance(p, A.Call):
        f = p.func
        if f is ref:
            return None  # "not callable" is the body checker's to say
        if isinstance(f, A.Name) and is_builtin(f.id):
            return _builtin_use(f.id, p, ref)
        if isinstance(f, A.Attribute):
            if is_rng(f.value):
                if f.attr in RNG_READS:
                    return None
                if f.attr == "shuffle":
                    return "change", "shuffling it with 'rng.shuffle'"
                return "share", f"passing it to 'rng.{f.attr}'"
            if f.attr in READING_ARG_METHODS:
                return None
            return "share", f"passing it to '{_short(f)}'"
        return "share", "passing it to a helper or environment"
    if isinstance(p, A.Return):
        return "share", "returning it"
    if isinstance(p, A.Assign):
        return "share", "assigning it to a name"
    if isinstance(p, (A.ListExpr, A.TupleExpr, A.SetExpr, A.DictExpr)):
        return "share", "putting it in a new container"
    if isinstance(p, A.IfExp) and p.test is ref:
        return None
    if isinstance(p, (A.BoolOp, A.IfExp)):
        return "share", f"using it as an operand of '{getattr(p, 'op', 'if')}' (whose value may be it)"
    if isinstance(p, A.Lambda):
        return "share", "returning it from a lambda"
    if isinstance(p, A.Comprehension):
        return "share", "making it a comprehension's element"
    return "share", "using it here"


def parent_map(root: A.Node) -> dict[int, A.Node]:
    """id(node) -> its parent, for every node under `root`."""
    parents: dict[int, A.Node] = {}
    for n in A.walk(root):
        for c in A.children(n):
            parents[id(c)] = n
    return parents


def use_diagnostic(ref: A.Expr, shown: str, t: T.Type | None, parents: dict[int, A.Node],
                   is_builtin: Callable[[str], bool], is_rng: Callable[[A.Expr], bool]) -> tuple[str, str, str] | None:
    """(code, message, hint) of E441 (the use would change the constant) or E442 (it would
    share it), else None (`use_problem`)."""
    problem = use_problem(ref, parents, is_builtin, is_rng)
    if problem is None:
        return None
    kind, what = problem
    copy = copy_call(t, shown)
    if kind == "change":
        return ("E441", f"'{shown}' is a module constant; {what} would change it",
                f"constants are fixed when the library loads; change a copy: xs = {copy}")
    return ("E442", f"'{shown}' is a module constant ({article(str(t))}); {what} would share it, and a "
            "change made through the share would change the constant",
            f"use a copy ({copy}), or read it where it is needed: a helper can name {shown} itself")


def copy_call(t: T.Type | None, shown: str) -> str:
    """The copy of a mutable constant to write where a body needs its own: `list(WORDS)`."""
    s = None if t is None else T.shape(T.unwrap(t))
    fn = "dict" if isinstance(s, T.DictT) else "set" if isinstance(s, T.SetT) else "list"
    return f"{fn}({shown})"


def _short(e: A.Expr) -> str:
    """`COUNTS.get`, `words.keep`: what is called, as written (long receivers cut short)."""
    text = expr_text(e)
    return text if len(text) <= 40 else "..." + text[-37:]


def _builtin_use(name: str, call: A.Call, ref: A.Expr) -> tuple[str, str] | None:
    """A constant passed to a builtin: read, unless the builtin may return it as it is
    (`max(WORDS, xs)` returns one of its arguments; `sum(xs, WORDS)` returns its start when
    xs is empty)."""
    if name in ELEM_BUILTINS and len(call.args) > 1:
        return "share", f"passing it to '{name}' with other values (it may return it)"
    if name == "sum" and not (call.args and call.args[0] is ref):
        return "share", "passing it as the start of 'sum' (returned when nothing is added)"
    return None


def referenced_names(e: A.Node) -> set[str]:
    """Every plain name read in a tree (over-approximate: locals included)."""
    return {n.id for n in A.walk(e) if isinstance(n, A.Name)}


def order_problems(consts: list[A.ConstDef], helpers: dict[str, A.FuncDef]) -> dict[str, tuple[str, str]]:
    """{constant: (the constant it reads too early, through what)} for each constant whose
    value reads itself or a constant defined after it, directly or through the functions
    (`helpers`: helpers and environments) of this module it calls, transitively; each
    function's parameter names excluded."""
    position = {c.name: k for k, c in enumerate(consts)}
    reach: dict[str, set[str]] = {}  # helper -> names its body (and its callees') read

    def helper_names(name: str) -> set[str]:
        if name in reach:
            return reach[name]
        reach[name] = set()
        todo, seen, out = [name], {name}, set()
        while todo:
            fn = helpers[todo.pop()]
            params = {p.name for p in fn.params}
            names = set()
            for s in fn.body:
                names |= referenced_names(s)
            names -= params
            out |= names
            for n in names:
                if n in helpers and n not in seen:
                    seen.add(n)
                    todo.append(n)
        reach[name] = out
        return out

    problems: dict[str, tuple[str, str]] = {}
    for k, c in enumerate(consts):
        direct = referenced_names(c.value)
        for n in sorted(direct):
            if n in position and position[n] >= k:
                problems[c.name] = (n, "")
                break
        else:
            for h in sorted(n for n in direct if n in helpers):
                late = sorted(n for n in helper_names(h) if n in position and position[n] >= k)
                if late:
                    problems[c.name] = (late[0], h)
                    break
    return problems
