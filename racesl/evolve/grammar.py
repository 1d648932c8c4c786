"""The generation grammar: `grammar/races.lark` rewritten, at import time, into a character-level
grammar in llguidance's Lark dialect (what `vllm serve`'s `guidance` backend and the in-process
constrained decoder take), so a candidate decoded under it always parses.

One source of truth: the rules come from lark's own reading of races.lark (its BNF, with `[]`,
`*`, `+` already expanded); this module only states, as data, what the generation subset leaves
out and how the lexer's layout becomes characters:

- **Subset** (docs/language.md §4): no floats, bytes, f-strings or string prefixes, no `/`, `@`
  or `is`, attributes only as method calls (`xs.append(x)`), plain ASCII names that are no
  keyword, `_` alone or names starting with a letter, integers without leading zeros, string
  escapes `\\ \\" \\' \\n \\t` only; type names are the built-in ones, capitalised names (the
  module's own declarations; a CFG cannot tie a use to its declaration, the checker does) and
  `module.Type`.
- **Layout**: INDENT/DEDENT are unrolled to MAX_DEPTH block levels of 4 spaces: every line rule
  gets a copy per depth, and each line starts with `NL<d>` (line end, blank and comment lines,
  then exactly 4·d spaces). Inside brackets, line breaks may come between tokens; before `if`,
  `else` or `for` such a break must indent deeper than the enclosing block, or the lexer would
  read a new statement there (racesl.syntax.lexer's `_StatementFollows`).
- **Token glue**: where two tokens would fuse (a word after a word, a string after a string) a
  space is required; elsewhere it is optional. An integer never directly precedes a `.`.

`generation_grammar(module=...)` pins the module line; the result is cached per argument.
"""

from __future__ import annotations

import functools
import itertools
import re

MAX_DEPTH = 6  # block levels below an item: the stdlib's deepest body is 6 (tests/evolve/test_grammar.py)
INDENT = 4

# ------------------------------------------------------------------ the subset, as data

DROP_TERMINALS = frozenset({"FLOAT", "BYTES", "IS", "FORBIDDEN"})  # alternatives using them go
DROP_OPERATORS = {"MUL_OP": {"/", "@"}, "AUGOP": {"/="}}  # operator spellings left out
BASE_TYPE_NAMES = ("Int", "Str", "Bool", "List", "Tuple", "Dict")  # racesl.types BASE_TYPES + constructors
# Words our lexer never reads as a NAME (racesl.syntax.lexer KEYWORDS, TOP_KEYWORDS, FORBIDDEN_WORDS)
# plus Python keywords; a NAME spelt like one is refused.
RESERVED = ("def return pass break continue assert if elif else while for in not and or is lambda import from "
            "where env module type newtype class try except finally with raise global nonlocal del yield async "
            "await as None").split()

# character-level terminals for the lexer's declared tokens
NAME_RE = "/[a-zA-Z][a-zA-Z0-9_]*|_/ & ~/(" + "|".join(RESERVED) + ")/"
INT_RE = "/0|[1-9](_?[0-9])*/"
_ESC = r"\\[\\\"'nt]"
# characters a string or comment may hold: no control character (\r and others are line breaks
# to our lexer or to Python's splitlines), no DEL; a triple-quoted string may hold \n
_CTRL = r"\x00-\x08\x0a-\x1f\x7f\x85\u2028\u2029"
_CTRL_NL = r"\x00-\x08\x0b-\x1f\x7f\x85\u2028\u2029"


def _triple(q: str) -> str:
    c = f"[^{q}\\\\{_CTRL_NL}]"
    return f"{q * 3}(?:{c}|{_ESC}|{q}{c}|{q * 2}{c})*{q * 3}"


STRING_RE = ("/" + "|".join([
    r'"(?:[^"\\' + _CTRL + r']|' + _ESC + r')*"',
    r"'(?:[^'\\" + _CTRL + r"]|" + _ESC + r")*'",
    _triple('"'),
    _triple("'"),
]) + "/")
TYPE_ID_RE = "/[A-Z][A-Za-z0-9_]*/"
_BLANK = r"(?:[ ]*(?:#[^" + _CTRL + r"]*)?\n)"  # a line's end: trailing spaces, a comment, the break
SP_RE = "/[ ]+/"
LEAD_RE = "/" + _BLANK + "+/"  # blank and comment lines before the module line

# word-like tokens: two in a row need a space between them
WORD_TERMINALS = frozenset({"NAME", "INT", "TYPE_ID", "TYPE_BUILTIN", "MODULE_NAME"})
QUOTE_TERMINALS = frozenset({"STRING"})
OPEN, CLOSE = frozenset({"LPAR", "LSQB", "LBRACE"}), frozenset({"RPAR", "RSQB", "RBRACE"})
# a line inside brackets starting with one of these must indent deeper than the enclosing block
STATEMENT_WORDS = frozenset({"IF", "ELSE", "FOR"})


def _nl(d: int) -> str:
    return "/" + _BLANK + "+" + (f"[ ]{{{INDENT * d}}}" if d else "") + "/"


def _wrap(d: int, deep: bool) -> str:
    """Whitespace between tokens inside brackets on a line of block depth d."""
    after = f"[ ]{{{INDENT * d + 1},}}" if deep else "[ ]*"
    return f"/[ ]+|{_BLANK}+{after}/"


# ------------------------------------------------------------------ reading races.lark


@functools.lru_cache(maxsize=1)
def _lark_bnf() -> tuple[dict[str, list[tuple[str, ...]]], dict[str, tuple[str, ...]]]:
    """(rules: name → alternatives, literals: terminal → its spellings) from races.lark."""
    from lark import Lark

    from racesl import resources

    lk = Lark(resources.grammar_text(), parser="lalr", lexer="basic", start=["item"], maybe_placeholders=False)
    rules: dict[str, list[tuple[str, ...]]] = {}
    for r in lk.rules:
        rules.setdefault(r.origin.name, []).append(tuple(s.name for s in r.expansion))
    literals: dict[str, tuple[str, ...]] = {}
    for t in lk.terminals:
        p = t.pattern
        if p.type == "str":
            literals[t.name] = (p.value,)
        else:  # an alternation of escaped literals, e.g. AUGOP, MUL_OP
            body = p.value[3:-1] if p.value.startswith("(?:") else p.value
            literals[t.name] = tuple(re.sub(r"\\(.)", r"\1", a) for a in body.split("|"))
    return rules, literals


def _subset(rules, literals):
    """The generation subset of the BNF (see the module docstring)."""
    rules = {k: [alt for alt in alts if not DROP_TERMINALS & set(alt)] for k, alts in rules.items()}
    rules["item"] = [alt for alt in rules["item"] if alt != ("_NEWLINE",)]
    # attributes only as method calls
    ae = []
    for alt in rules["atom_expr"]:
        if alt == ("atom_expr", "DOT", "NAME"):
            ae += [alt + ("LPAR", "arguments", "RPAR"), alt + ("LPAR", "comprehension", "RPAR"), alt + ("LPAR", "RPAR")]
        else:
            ae.append(alt)
    rules["atom_expr"] = ae
    rules["type_name"] = [("TYPE_BUILTIN",), ("TYPE_ID",), ("NAME", "DOT", "TYPE_ID")]
    for decl in ("type_decl", "newtype_decl"):
        rules[decl] = [tuple("TYPE_ID" if s == "NAME" else s for s in alt) for alt in rules[decl]]
    literals = {k: tuple(v for v in vs if v not in DROP_OPERATORS.get(k, ())) for k, vs in literals.items()}
    return rules, literals


def _drop_empty(rules):
    """Epsilon elimination: no alternative is empty, so the spacing between two symbols is decided
    by the two symbols themselves."""
    nullable: set[str] = set()
    changed = True
    while changed:
        changed = False
        for k, alts in rules.items():
            if k not in nullable and any(all(s in nullable for s in alt) for alt in alts):
                nullable.add(k)
                changed = True
    out = {}
    for k, alts in rules.items():
        new: list[tuple[str, ...]] = []
        for alt in alts:
            spots = [i for i, s in enumerate(alt) if s in nullable]
            for keep in itertools.product((True, False), repeat=len(spots)):
                drop = {i for i, kp in zip(spots, keep) if not kp}
                v = tuple(s for i, s in enumerate(alt) if i not in drop)
                if v and v not in new:
                    new.append(v)
        out[k] = new
    return out


def _edges(rules, first: bool) -> dict[str, frozenset[str]]:
    """FIRST (or LAST) terminals of every rule (no rule is nullable any more)."""
    sets = {k: set() for k in rules}
    changed = True
    while changed:
        changed = False
        for k, alts in rules.items():
            for alt in alts:
                s = alt[0] if first else alt[-1]
                add = sets[s] if s in rules else {s}
                if not add <= sets[k]:
                    sets[k] |= add
                    changed = True
    return {k: frozenset(v) for k, v in sets.items()}


def _without_last(rules, name: str, banned: frozenset[str], made: dict) -> str:
    """A copy of rule `name` none of whose strings ends in a `banned` terminal."""
    key = (name, banned)
    if key in made:
        return made[key]
    new = f"{name}__no_{'_'.join(sorted(banned))}"
    made[key] = new
    last = _edges(rules, first=False)
    alts = []
    for alt in rules[name]:
        s = alt[-1]
        if s in banned:
            continue
        if s in rules and last[s] & banned:
            s = _without_last(rules, s, banned, made)
        alts.append(alt[:-1] + (s,))
    rules[new] = alts
    return new


@functools.lru_cache(maxsize=1)
def base_rules():
    """(rules, literals) of the generation subset, before layout: lark's BNF, subset, no empty
    alternatives, no integer right before a `.`."""
    rules, literals = _subset(*_lark_bnf())
    rules = _drop_empty(rules)
    made: dict = {}
    last = _edges(rules, first=False)
    for k in list(rules):
        fixed = []
        for alt in rules[k]:
            alt = list(alt)
            for i in range(len(alt) - 1):
                if alt[i + 1] == "DOT" and alt[i] in rules and "INT" in last[alt[i]]:
                    alt[i] = _without_last(rules, alt[i], frozenset({"INT"}), made)
            fixed.append(tuple(alt))
        rules[k] = fixed
    return rules, literals


def _line_rules(rules) -> frozenset[str]:
    """Rules whose strings span line ends (they derive _NEWLINE / _INDENT / _DEDENT)."""
    layout = {"_NEWLINE", "_INDENT", "_DEDENT"}
    out: set[str] = set()
    changed = True
    while changed:
        changed = False
        for k, alts in rules.items():
            if k not in out and any(s in layout or s in out for alt in alts for s in alt):
                out.add(k)
                changed = True
    return frozenset(out)


# ------------------------------------------------------------------ writing the grammar


class _Writer:
    def __init__(self, module: str | None):
        self.rules, self.literals = base_rules()
        self.lines = _line_rules(self.rules)
        self.first = _edges(self.rules, first=True)
        self.last = _edges(self.rules, first=False)
        self.module = module
        self.out: dict[str, list[list[str]]] = {}
        self.todo: list[tuple[str, str, int]] = []
        self.terminals: dict[str, str] = {}

    # symbol sets, for spacing
    def _firsts(self, s: str) -> frozenset[str]:
        return self.first[s] if s in self.rules else frozenset({s})

    def _lasts(self, s: str) -> frozenset[str]:
        return self.last[s] if s in self.rules else frozenset({s})

    def _is_word(self, t: str) -> bool:
        return t in WORD_TERMINALS or any(v.isalpha() for v in self.literals.get(t, ()))

    def _sep(self, a: str, b: str, ctx: str, d: int) -> str | None:
        la, fb = self._lasts(a), self._firsts(b)
        need = (any(self._is_word(t) for t in la) and any(self._is_word(t) or t in QUOTE_TERMINALS for t in fb)) \
            or (la & QUOTE_TERMINALS and fb & QUOTE_TERMINALS)
        if ctx == "flat":
            return "SP" if need else "SP?"
        deep = bool(fb & STATEMENT_WORDS)
        name = f"WRAPDEEP{d}" if deep else "WRAP"
        self.terminals[name] = _wrap(d, deep)
        return name if need else name + "?"

    def ref(self, s: str, ctx: str, d: int) -> str:
        if s not in self.rules:
            return self.terminal(s)
        if s in self.lines:
            ctx = "line"
        name = f"{s.strip('_')}__{ctx}{d}".lower()
        if name not in self.out:
            self.out[name] = []
            self.todo.append((s, ctx, d))
        return name

    def terminal(self, t: str) -> str:
        if t == "MODULE_NAME":
            return t
        if t not in self.literals:
            return t
        name = t.lstrip("_")  # lark's anonymous terminals (__ANON_0) get a plain name
        self.terminals.setdefault(name, " | ".join(_quote(v) for v in self.literals[t]))
        return name

    def expand(self, s: str, ctx: str, d: int) -> list[list[str]]:
        out = []
        for alt in self.rules[s]:
            if ctx == "line" and s == "module_decl" and self.module:
                alt = tuple("MODULE_NAME" if x == "dotted_name" else x for x in alt)
            got = self._alt(alt, ctx, d)
            if got is not None and got not in out:
                out.append(got)
        return out

    def _alt(self, alt: tuple[str, ...], ctx: str, d: int) -> list[str] | None:
        """One alternative with layout and spacing; None when it would nest past MAX_DEPTH."""
        syms: list[tuple[str, str | None]] = []  # (rendered, base symbol for spacing; None: a line break)
        depth = 0  # brackets opened in this alternative
        i = 0
        while i < len(alt):
            s = alt[i]
            if s == "_NEWLINE" and i + 1 < len(alt) and alt[i + 1] == "_INDENT":
                if d + 1 > MAX_DEPTH:
                    return None
                assert alt[i + 3] == "_DEDENT", alt
                syms.append((self._nl_terminal(d + 1), None))
                syms.append((self.ref(alt[i + 2], "line", d + 1), alt[i + 2]))
                i += 4
                continue
            if s == "_NEWLINE":
                assert i == len(alt) - 1, alt  # a line's end: the next line brings its own NL
                i += 1
                continue
            if syms and syms[-1][1] is not None and syms[-1][1] in self.lines:
                syms.append((self._nl_terminal(d), None))  # the line rule before ended its line
            if s in CLOSE:
                depth -= 1
            here = "b" if depth > 0 or ctx == "b" else "flat"
            syms.append((self.ref(s, here, d), s))
            if s in OPEN:
                depth += 1
            i += 1
        # spacing between neighbours on one line
        out: list[str] = []
        depth = 0
        for k, (r, base) in enumerate(syms):
            if k and base is not None and syms[k - 1][1] is not None:
                prev = syms[k - 1][1]
                inside = depth > 0 or ctx == "b"
                out.append(self._sep(prev, base, "b" if inside else "flat", d))
            if base in OPEN:
                depth += 1
            elif base in CLOSE:
                depth -= 1
            out.append(r)
        return out

    def _nl_terminal(self, d: int) -> str:
        name = f"NL{d}"
        self.terminals[name] = _nl(d)
        return name

    def write(self) -> str:
        top = self.ref("item", "line", 0)
        # pinned, the module line comes first (no comment before it), so every sample has a
        # complete item from its first tokens on
        head = self.ref("module_decl", "line", 0) if self.module else f"LEAD? {top}"
        while self.todo:
            s, ctx, d = self.todo.pop()
            self.out[f"{s.strip('_')}__{ctx}{d}".lower()] = self.expand(s, ctx, d)
        self._nl_terminal(0)
        lines = ["// generated by racesl.evolve.grammar from grammar/races.lark: do not edit",
                 f"start: {head} (NL0 {top})* NL0?"]
        for name in sorted(self.out):
            alts = [" ".join(a) for a in self.out[name]]
            lines.append(f"{name}: " + "\n    | ".join(alts))
        builtins = " | ".join(_quote(t) for t in BASE_TYPE_NAMES)
        terms = {"NAME": NAME_RE, "INT": INT_RE, "STRING": STRING_RE, "SP": SP_RE, "LEAD": LEAD_RE,
                 "TYPE_ID": TYPE_ID_RE + " & ~/(" + "|".join(BASE_TYPE_NAMES) + ")/", "TYPE_BUILTIN": builtins,
                 **self.terminals}
        if self.module:
            terms["MODULE_NAME"] = _quote(self.module)
        lines += [f"{k}: {v}" for k, v in sorted(terms.items())]
        return "\n".join(lines) + "\n"


def _quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


@functools.lru_cache(maxsize=64)
def generation_grammar(module: str | None = None) -> str:
    """The generation grammar in llguidance's Lark dialect; `module` pins the `module` line."""
    if module is not None and not re.fullmatch(r"[a-z][a-z0-9_]*", module):
        raise ValueError(f"a module name is lower-case letters, digits and '_': {module!r}")
    return _Writer(module).write()
