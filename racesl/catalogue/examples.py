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
"""

from __future__ import annotations

import ast
import re

import attrs

from racesl.check.model import EnvSig
from racesl.runtime.contract import canonical, parse_literal
from racesl.syntax.braces import shown

# one sentence on one line, ending it: a description's last line, or a line of a prompt
_SENTENCE = re.compile(r"(?:^|(?<=\s))Example(?:, with (?P<settings>[^:\n]+))?: (?P<body>[^\n]+?)\.?[ \t]*$", re.M)
# where an example sentence starts, wherever it stands
_START = re.compile(r"(?:^|(?<=\s))Example(?:, with (?P<settings>[^:\n]+))?: ", re.M)
_UNREAD = "it is not INPUT -> OUTPUT with value literals on both sides"


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


def _split(body: str) -> tuple[object, object]:
    """INPUT -> OUTPUT, split at the one arrow where both sides are literals."""
    found = []
    for m in re.finditer(r" -> ", body):
        try:
            found.append((parse_literal(body[:m.start()]), parse_literal(body[m.end():])))
        except ValueError:
            continue
    if len(found) != 1:
        raise ValueError(_UNREAD)
    return found[0]


def _read(settings: str | None, body: str, text: str) -> Example:
    """One sentence's parts (braces undoubled) as an Example, or ValueError."""
    try:
        given = _settings(settings) if settings else {}
    except SyntaxError as e:
        raise ValueError(f"cannot read the example's settings: {e.msg}") from None
    inp, out = _split(body)
    return Example(inp, given, out, text.strip())


def parse(description: str) -> Example:
    """The example sentence ending `description` (as written, braces doubled), or ValueError."""
    text = _undouble(description.strip())
    m = next((m for m in _SENTENCE.finditer(text) if m.end() == len(text)), None)
    if m is None:
        raise ValueError("the description does not end with `Example: INPUT -> OUTPUT.`")
    try:
        return _read(m["settings"], m["body"], m.group(0))
    except ValueError as e:
        if str(e) != _UNREAD:
            raise
        raise ValueError("end the description with `Example: INPUT -> OUTPUT.`, both sides value literals") from None


def sentences(description: str) -> list[Sentence]:
    """Every example sentence of `description` (as written, braces doubled). A sentence runs
    from `Example` to the first `.` (before a space or the line's end) where its body reads
    as INPUT -> OUTPUT, else to the line's end; one that never reads carries its error."""
    out: list[Sentence] = []
    pos = 0
    for m in _START.finditer(description):
        if m.start() < pos:  # (inside the sentence before: a string literal of its own)
            continue
        line_end = description.find("\n", m.end())
        line_end = len(description) if line_end < 0 else line_end
        ends = [i + 1 for i in range(m.end(), line_end) if description[i] == "."
                and (i + 1 == line_end or description[i + 1].isspace())]
        tail = description[:line_end].rstrip()
        if not ends or ends[-1] != len(tail):
            ends.append(len(tail))
        found = None
        for end in ends:
            body = description[m.end():end].rstrip().removesuffix(".").rstrip()
            try:
                ex = _read(_undouble(m["settings"] or ""), _undouble(body), _undouble(description[m.start():end]))
            except ValueError:
                continue
            found = Sentence(m.start(), end, ex)
            break
        if found is None:
            try:
                _read(_undouble(m["settings"] or ""), _undouble(tail[m.end():].removesuffix(".")), "")
            except ValueError as e:
                found = Sentence(m.start(), len(tail), None, str(e))
        out.append(found)
        pos = found.end
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
    r = (runner or lib.run)(env, ex.input, settings)
    if not r.ok:
        return Checked(env.qualname, ex, None, f"the run on the example's input stopped: {r.status}")
    got = canonical(r.value)
    if env.verify is not None:  # several answers are right: the verifier judges the example's
        status, value, _ = lib.aux_call(env.verify, (ex.input, ex.output))
        if not (status == "ok" and value is True):
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
