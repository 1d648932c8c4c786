"""The worked examples of environments' descriptions, read and run.

A description ends with one sentence in a fixed form, so that a person has a solved case
and a test (and `racesc doc`) can check it against the body:

    Example: INPUT -> OUTPUT.
    Example, with k = 2, c = 'a': INPUT -> OUTPUT.

INPUT and OUTPUT are value literals; the settings, when the environment has any, are
`name = literal` pairs. Descriptions go through `str.format`, but a dict or set in an
example sentence is a value and is written as it is (`Example: 5 -> {'n': 5}.`); a brace
written doubled (`{{'n': 5}}`, as elsewhere in a description) reads the same
(racesl.syntax.braces).

Two readers, one reading and one run: `parse` is the sentence that ends a description
(the catalogue page and the prompts rework it); `sentences` is every example sentence,
wherever it stands (what `racesc check` holds to the body: any of them reaches a prompt).
`run` compares one with the body, for both.

`sentences` reads every spelling a person or a model may use, so that a false example can
never slip past the check by its form (docs/language.md, "Worked examples"): no space,
several, a tab or a non-breaking space around the colon (or a full-width colon, or a dash);
`Example` after any punctuation (`(Example: 5 -> 17.)`, `'Example: ...'`, `.--Example: ...`),
spelt with full-width or Greek/Cyrillic look-alike letters, or plural; `->` with any
spacing, or `→`. A sentence that begins `Example` without a separator counts where it
begins a sentence. Prose that begins a sentence with `For example`, `For instance` or
`E.g.` is read the same way (`For example, 'banana' gives 2.`: IN gives, becomes,
returns, is ... OUT). What cannot be read is returned with its error, never skipped.
"""

from __future__ import annotations

import ast
import re

import attrs

from racesl.check.model import EnvSig
from racesl.runtime import grades as V
from racesl.runtime.contract import canonical, parse_literal
from racesl.syntax.braces import shown

# one sentence on one line, ending it: a description's last line, or a line of a prompt
_SENTENCE = re.compile(r"(?:^|(?<=\s))Example(?:, with (?P<settings>[^:\n]+))?: (?P<body>[^\n]+?)\.?[ \t]*$", re.M)
_UNREAD = "it is not INPUT -> OUTPUT with value literals on both sides"
_WS = r"[^\S\n]"  # spacing inside a paragraph: spaces, tabs, non-breaking spaces
# the word Example, also in full-width or Greek/Cyrillic look-alike letters
_WORD = "[EΕЕＥ][xхＸｘ][aаＡａ][mМＭｍ][pрＰｐ][lＬｌ][eеＥｅ]"
# where an example sentence starts, wherever it stands: the word, its settings, a separator
_START = re.compile(
    rf"(?<!\w){_WORD}s?(?!\w)"
    rf"(?:{_WS}*,{_WS}*with{_WS}+(?P<settings>[^:：\n]+?){_WS}*(?P<ssep>[:：])"
    rf"|{_WS}*(?P<sep>[:：]|[-–—]+(?={_WS})|)){_WS}*")
# example-like prose at the start of a sentence: "For example, 'banana' gives 2."
_PROSE = re.compile(rf"(?<!\w)(?:[Ff]or{_WS}+(?:example|instance)|[Ee]\.{_WS}?g\.)(?!\w){_WS}*[,:：]?{_WS}*")
_ARROW = re.compile(rf"{_WS}*(?:->|→){_WS}*")
_SAYS = re.compile(rf"{_WS}*(?:->|→){_WS}*|{_WS}+(?:gives|becomes|returns|yields|produces|is|maps{_WS}+to|"
                   rf"turns{_WS}+into|goes{_WS}+to){_WS}+")
_OPENERS = "([{'\"‘“«-–—*_`"  # what may stand between a sentence's end and its first word
_CLOSERS = ".)]}'\"’”»"  # what may follow the value that ends a sentence
# bounds on the work of reading one description (a hostile one may be megabytes long):
_LONGEST = 1000  # characters an example sentence may run to after its opening (the stdlib's: 129)
_TRIES = 24  # full stops at which a sentence is tried as ending
_ARROWS = 8  # arrows at which a sentence is tried as split
_MOST = 100  # example sentences read in one description; past them, one that says so
_STOP = re.compile(r"\.(?=\s|$)")  # a full stop that ends a sentence
_PROSE_UNREAD = "it is not INPUT gives OUTPUT (or INPUT -> OUTPUT) with value literals on both sides"


@attrs.frozen
class Example:
    """A parsed example: the input, the settings by name, the claimed output."""

    input: object
    settings: dict
    output: object
    text: str  # the sentence as written (braces undoubled)


@attrs.frozen
class Sentence:
    """An example sentence found in a description: where it stands there (offsets into the
    description as written, braces doubled) and what it says, or why it cannot be read."""

    start: int
    end: int
    example: Example | None
    error: str | None = None
    prose: bool = False  # `For example, ...`, not an `Example` sentence


@attrs.frozen
class Checked:
    """An example compared with a run of the environment: `problem` is None when it holds."""

    env: str
    example: Example | None
    got: str | None
    problem: str | None


def _undouble(text: str) -> str:
    """The text as a task shows it: doubled braces undoubled, a value's braces kept."""
    return shown(text)


def _settings(text: str) -> dict:
    call = ast.parse(f"f({text})", mode="eval").body
    if not isinstance(call, ast.Call) or call.args or any(k.arg is None for k in call.keywords):
        raise ValueError("settings are written `name = literal, ...`")
    return {k.arg: parse_literal(ast.unparse(k.value)) for k in call.keywords}


def _split(body: str, arrows: re.Pattern = _ARROW, unread: str = _UNREAD) -> tuple[object, object]:
    """INPUT -> OUTPUT, split at the one arrow where both sides are literals."""
    found = []
    for k, m in enumerate(arrows.finditer(body)):
        if k == _ARROWS:
            raise ValueError(unread)
        try:
            found.append((parse_literal(body[:m.start()]), parse_literal(body[m.end():])))
        except ValueError:
            continue
    if len(found) != 1:
        raise ValueError(unread)
    return found[0]


def _read(settings: str | None, body: str, text: str, prose: bool = False) -> Example:
    """One sentence's parts (braces undoubled) as an Example, or ValueError."""
    try:
        given = _settings(settings) if settings else {}
    except SyntaxError as e:
        raise ValueError(f"cannot read the example's settings: {e.msg}") from None
    inp, out = _split(body, _SAYS, _PROSE_UNREAD) if prose else _split(body)
    return Example(inp, given, out, text.strip())


def parse(description: str) -> Example:
    """The example sentence ending `description` (as written, braces doubled; in any spelling
    `sentences` reads, its closing punctuation after it), or ValueError."""
    text = description.strip()
    found = [s for s in sentences(text) if not s.prose]
    if not found:
        raise ValueError("the description does not end with `Example: INPUT -> OUTPUT.`")
    last = found[-1]
    if last.example is not None and not text[last.end:].strip(_CLOSERS + " \t\n\u00a0"):
        return last.example
    if last.example is None and last.error != _UNREAD:
        raise ValueError(last.error)
    raise ValueError("end the description with `Example: INPUT -> OUTPUT.`, both sides value literals")


def _begins(text: str, i: int) -> bool:
    """Does a sentence begin at `text[i]` (after any opening quotes, brackets or dashes)?"""
    j = i
    while j > 0 and (text[j - 1].isspace() or text[j - 1] in _OPENERS):
        j -= 1
    return j == 0 or text[j - 1] in ".!?:;…。"


def _bodies(body: str):
    """`body`, then less and less of its end: the closing punctuation of a sentence
    (`5 -> 17.)` → `5 -> 17.` → `5 -> 17`), tried until one reads."""
    b = body.rstrip()
    while b:
        yield b
        if b[-1] not in _CLOSERS:
            return
        b = b[:-1].rstrip()


def _starts(description: str):
    """(start, end of the opening, settings text, prose) of each place a sentence may hold
    an example, in order: `Example` with a separator anywhere, without one where it begins a
    sentence; `For example` where it begins one."""
    found = []
    for m in _START.finditer(description):
        if m["ssep"] or m["sep"] or _begins(description, m.start()):
            found.append((m.start(), m.end(), m["settings"], False))
    for m in _PROSE.finditer(description):
        if _begins(description, m.start()):
            found.append((m.start(), m.end(), None, True))
    return sorted(found)


def sentences(description: str) -> list[Sentence]:
    """Every example sentence of `description` (as written, braces doubled). A sentence runs
    from `Example` to the first `.` where its body reads as INPUT -> OUTPUT (the sentence's
    closing punctuation set aside), else to its paragraph's end; one that never reads carries
    its error and ends at its first `. `, and the text after its opening is read for more."""
    out: list[Sentence] = []
    pos = 0
    for start, opened, settings, prose in _starts(description):
        if start < pos:  # (inside the sentence before: a string literal of its own)
            continue
        if len(out) == _MOST:
            out.append(Sentence(start, len(description.rstrip()), None,
                                f"more than {_MOST} example sentences in one description: the rest are not read",
                                prose))
            break
        line_end = description.find("\n", opened)
        line_end = len(description) if line_end < 0 else line_end
        reach = min(line_end, opened + _LONGEST)  # (a longer sentence is not read: bounded work)
        ends = [i + 1 for i in range(opened, reach) if description[i] == "."
                and (i + 1 == line_end or description[i + 1].isspace() or description[i + 1] in _CLOSERS)]
        ends = ends[:_TRIES] + ([line_end] if line_end - opened <= _LONGEST else [])
        given = _undouble(settings or "")
        found = None
        for end in ends:
            for body in _bodies(description[opened:end]):
                stop = opened + len(body)
                stop += description.startswith(".", stop)  # (its full stop is part of it)
                try:
                    ex = _read(given, _undouble(body), _undouble(description[start:stop]), prose)
                except ValueError:
                    continue
                found = Sentence(start, stop, ex, prose=prose)
                break
            if found is not None:
                break
        if found is not None:
            out.append(found)
            pos = found.end
            continue
        # it ends at its first full stop, or its paragraph's end (or where reading stopped)
        dot = _STOP.search(description, opened, reach)
        stop = dot.end() if dot is not None else reach
        long = dot is None and line_end - opened > _LONGEST
        error = f"it runs on past {_LONGEST} characters" if long else _UNREAD
        for body in _bodies("" if long else description[opened:stop]):
            try:
                _read(given, _undouble(body), "", prose)
            except ValueError as e:
                error = str(e)
            break
        out.append(Sentence(start, max(stop, opened), None, error, prose))
        pos = opened  # (an Example after an unreadable one is still read)
    return out


def run(lib, env: EnvSig, ex: Example, runner=None) -> Checked:
    """Run `env` on the example `ex` (with `runner(env, x, settings)`, default `lib.run`);
    a problem in words when it does not hold."""
    names = [s.name for s in env.settings]
    if sorted(ex.settings) != sorted(names):
        want = ", ".join(names) or "none"
        return Checked(env.qualname, ex, None, f"the example gives settings {sorted(ex.settings) or 'none'}; "
                                               f"the environment has {want}")
    why = lib.conforms(ex.input, env.input)
    if why is not None:
        return Checked(env.qualname, ex, None, f"the example's input is not a valid input: {why}")
    settings = tuple(ex.settings[n] for n in names)
    for s, v in zip(env.settings, settings):
        why = lib.conforms(v, s.type)
        if why is not None:
            return Checked(env.qualname, ex, None, f"setting {s.name} = {canonical(v)} is not valid: {why}")
    if env.generate is not None and not env.node.body and env.verify is not None and env.latent is None:
        # a generator environment without a body: its checker is the only judge of an answer
        status, value, _ = lib.aux_call(env.verify, (ex.input, ex.output))
        if not V.full(env, status, value):  # (a graded checker: its full grade)
            return Checked(env.qualname, ex, None, "the checker rejects the example's output")
        return Checked(env.qualname, ex, None, None)
    r = (runner or lib.run)(env, ex.input, settings)
    if not r.ok:
        return Checked(env.qualname, ex, None, f"the run on the example's input stopped: {r.status}")
    got = canonical(r.value)
    if env.verify is not None and env.latent is None:  # several answers are right: the verifier judges
        status, value, _ = lib.aux_call(env.verify, (ex.input, ex.output))  # the example's (at full grade)
        if not V.full(env, status, value):
            why = f"the verifier rejects the example's output (one right answer: {got})"
            return Checked(env.qualname, ex, got, why)
        return Checked(env.qualname, ex, got, None)
    if got != canonical(ex.output):
        return Checked(env.qualname, ex, got, f"the example says {canonical(ex.output)}, the body returns {got}")
    return Checked(env.qualname, ex, got, None)


def check(lib, env: EnvSig, runner=None) -> Checked:
    """Run `env` on the example ending its description; a problem in words when it does
    not hold, or when there is none (the catalogue page shows one per environment). A
    generator environment without a body needs none: its answer is drawn, and an example's
    answer could be the hidden answer of another of its tasks."""
    if env.generate is not None and not env.node.body:
        return Checked(env.qualname, None, None, None)
    try:
        ex = parse(env.description)
    except ValueError as e:
        return Checked(env.qualname, None, None, str(e))
    return run(lib, env, ex, runner)


def outputs_shown(prompt: str) -> list[str]:
    """The output texts of the example sentences in a rendered prompt, in order (what a
    learner that copies examples instead of working would answer)."""
    out = []
    for m in _SENTENCE.finditer(prompt):
        try:
            out.append(canonical(_split(m["body"])[1]))
        except ValueError:
            continue
    return out
