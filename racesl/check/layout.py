"""`@layout(FORM)`: how an environment's values are shown in prompts and on catalogue pages,
read from its decorator (the forms and the rendering: racesl.types.layout).

Checked here (codes in racesl.diagnostics.CODES):

- E430: the argument is not one form name (a string, a keyword, several names, no name, or a
  name that is not a form);
- E431: neither the input's type nor the output's type fits the form: a `rows` layout on an
  environment that takes and returns an Int would never change what a prompt shows.
"""

from __future__ import annotations

from racesl.check.body import has_unknown
from racesl.syntax import ast as A
from racesl.syntax.decorators import not_one_argument
from racesl.types import layout as L
from racesl.types import types as T

_HINT = "write @layout(rows): a List[List[Int]], List[List[Str]] or List[Str] value shown one row per line"


def form(ck, fn: A.FuncDef, sig, d: A.Decorator) -> str | None:
    """The form `@layout(...)` on environment `fn` (signature `sig`) declares, or None after
    reporting why it is not one (`ck`: the ModuleChecker, for `err`)."""
    got = not_one_argument(d)
    if got is not None:
        ck.err("E430", f"@layout takes one form, not {got}", d.span, _HINT)
        return None
    a = d.args[0]
    name = a.id if isinstance(a, A.Name) else a.value if isinstance(a, A.Const) and isinstance(a.value, str) else None
    if name is None:
        ck.err("E430", "@layout takes a form's name, not an expression", a.span, _HINT)
        return None
    if name not in L.FORMS:
        ck.err("E430", f"unknown layout '{name}'", a.span, f"layouts: {', '.join(L.FORMS)}; {_HINT}")
        return None
    if isinstance(a, A.Const):
        ck.err("E430", f"@layout takes the form's name, not a string: write @layout({name})", a.span, _HINT)
        return None
    if has_unknown(sig.input) or has_unknown(sig.output):  # (an unknown type has its own E300)
        return name
    if not (L.fits(name, sig.input) or L.fits(name, sig.output)):
        ck.err("E431", f"@layout({name}) does not fit '{fn.name}': it takes {T.erase(sig.input)} and returns "
               f"{T.erase(sig.output)}, and neither is a grid or a list of rows", d.span,
               "a rows layout shows List[List[Int]], List[List[Bool]], List[List[Str]] or List[Str] "
               "one row per line; remove @layout")
        return None
    return name
