"""A module without some of its environments: what is judged again when the gates refused
only part of a module (racesl.admit.run).

The pool holds modules as files, so admitting part of a module means writing the module
without the refused environments: each one's definition (decorators to the end of its
body) is cut out of the text, and nothing else is touched. The result goes through every
gate again from parse, so what is kept is exactly what was checked. Where the rest of the
module still names a refused environment (another environment's description or a helper
mentions it) the cut is not made and the module is judged whole.
"""

from __future__ import annotations

import re


def without_envs(text: str, names) -> str | None:
    """`text` without the environments `names`, or None when one is not there, none would be
    left, or the rest still names one of them."""
    from racesl.syntax import ast as A
    from racesl.syntax.parser import parse_module

    text = text.removeprefix("\ufeff")
    tree, diags = parse_module(text)
    if any(d.is_error for d in diags):
        return None
    envs = {it.name: it for it in tree.items if isinstance(it, A.FuncDef) and it.is_env}
    names = set(names)
    if not names or not names <= set(envs) or names == set(envs):
        return None
    cuts = sorted((envs[n].span.start, envs[n].span.end) for n in names)
    parts, at = [], 0
    for start, end in cuts:
        parts.append(text[at:start])
        at = end
    parts.append(text[at:])
    out = re.sub(r"\n{3,}", "\n\n", "".join(parts)).rstrip() + "\n"
    if any(re.search(rf"(?<![\w.]){re.escape(n)}(?!\w)", out) for n in names):
        return None
    return out
