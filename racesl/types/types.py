"""Types: shapes (Int, Bool, Str, List, Tuple, Dict, nominal newtypes) plus refinements.

A refined type keeps its predicates as syntax (`Pred`) because three consumers read them
differently: the runtime evaluates them, the sampler reads bounds out of them, and the
solver encodes the ones in its fragment. Equality of predicates is by normalized text.
"""

from __future__ import annotations

from typing import Union

import attrs

from racesl.diagnostics import Span
from racesl.syntax import ast as A


@attrs.frozen(slots=True)
class Pred:
    """One conjunct of a refinement: a Bool expression over `it`.

    `text` is the normalized Python text (the emitter's unparse): the predicate's identity,
    what the runtime, the sampler and the solver key on. `source` is the predicate as the
    user wrote it, what messages and hovers show (`shown`); `module` is where the predicate
    was written, for helper names it may call.
    """

    expr: A.Expr = attrs.field(eq=False, hash=False, repr=False)
    text: str
    module: str
    span: Span = attrs.field(eq=False, hash=False, repr=False)
    path: str = attrs.field(default="", eq=False, hash=False, repr=False)
    source: str = attrs.field(default="", eq=False, hash=False, repr=False)

    @property
    def shown(self) -> str:
        """The predicate as written in the source (the normalized text when that is unknown)."""
        return self.source or self.text


@attrs.frozen(slots=True)
class IntT:
    def __str__(self) -> str:
        return "Int"


@attrs.frozen(slots=True)
class BoolT:
    def __str__(self) -> str:
        return "Bool"


@attrs.frozen(slots=True)
class StrT:
    def __str__(self) -> str:
        return "Str"


@attrs.frozen(slots=True)
class ListT:
    elem: "Type"

    def __str__(self) -> str:
        return f"List[{self.elem}]"


@attrs.frozen(slots=True)
class SetT:
    """Sets exist as body values only; they have no canonical order, so no signature uses them."""

    elem: "Type"

    def __str__(self) -> str:
        return f"Set[{self.elem}]"


@attrs.frozen(slots=True)
class TupleT:
    elems: tuple["Type", ...]

    def __str__(self) -> str:
        return f"Tuple[{', '.join(map(str, self.elems))}]"


@attrs.frozen(slots=True)
class DictT:
    key: "Type"
    value: "Type"

    def __str__(self) -> str:
        return f"Dict[{self.key}, {self.value}]"


@attrs.frozen(slots=True)
class NewT:
    """A nominal type: equal only to itself (by qualified name)."""

    name: str  # "graphs.Graph"
    underlying: "Type" = attrs.field(eq=False, hash=False)

    def __str__(self) -> str:
        return self.name


@attrs.frozen(slots=True)
class Refined:
    """`base where p1 and p2 ...`; base is never itself Refined."""

    base: "Shape"
    preds: tuple[Pred, ...]

    def __str__(self) -> str:
        return f"{self.base} where " + " and ".join(_paren(p.shown) for p in self.preds)


@attrs.frozen(slots=True)
class AnyT:
    """Unknown during inference: compatible with everything, never reported."""

    def __str__(self) -> str:
        return "?"


Shape = Union[IntT, BoolT, StrT, ListT, SetT, TupleT, DictT, NewT, AnyT]
Type = Union[Shape, Refined]

INT, BOOL, STR, ANY = IntT(), BoolT(), StrT(), AnyT()
BASE_TYPES = {"Int": INT, "Bool": BOOL, "Str": STR}
CONSTRUCTORS = {"List": 1, "Tuple": None, "Dict": 2}


def _paren(text: str) -> str:
    return f"({text})" if " or " in text else text


def refine(t: Type, preds: tuple[Pred, ...]) -> Type:
    if not preds:
        return t
    if isinstance(t, Refined):
        merged = t.preds + tuple(p for p in preds if p not in t.preds)
        return Refined(t.base, merged)
    return Refined(t, preds)


def shape(t: Type) -> Shape:
    """The type with the outermost refinement removed (inner ones stay)."""
    return t.base if isinstance(t, Refined) else t


def preds(t: Type) -> tuple[Pred, ...]:
    return t.preds if isinstance(t, Refined) else ()


def erase(t: Type) -> Shape:
    """The type with every refinement removed, at every depth: what composition matches on."""
    t = shape(t)
    if isinstance(t, ListT):
        return ListT(erase(t.elem))
    if isinstance(t, SetT):
        return SetT(erase(t.elem))
    if isinstance(t, TupleT):
        return TupleT(tuple(erase(e) for e in t.elems))
    if isinstance(t, DictT):
        return DictT(erase(t.key), erase(t.value))
    return t


def shape_name(t: Type) -> str:
    """A type's shape as people read it: refinements erased, newtype names kept
    (`List[Int]`, `graphs.Graph`); the name the graph, the catalogue and summaries count by."""
    return str(erase(t))


def unwrap(t: Type) -> Type:
    """A newtype's representation (used inside the defining module and by the runtime)."""
    s = shape(t)
    if isinstance(s, NewT):
        return s.underlying
    return t


def same_shape(a: Type, b: Type) -> bool:
    return erase(a) == erase(b)


def compatible(a: Type, b: Type) -> bool:
    """For inference: shapes agree where both are known."""
    a, b = erase(a), erase(b)
    if isinstance(a, AnyT) or isinstance(b, AnyT):
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, (ListT, SetT)):
        return compatible(a.elem, b.elem)
    if isinstance(a, TupleT):
        return len(a.elems) == len(b.elems) and all(compatible(x, y) for x, y in zip(a.elems, b.elems))
    if isinstance(a, DictT):
        return compatible(a.key, b.key) and compatible(a.value, b.value)
    return a == b
