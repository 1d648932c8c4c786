"""The worked example every environment's description ends with, read and run.

A description ends with one sentence in a fixed form, so that a person has a solved case
and a test (and `racesc doc`) can check it against the body:

    Example: INPUT -> OUTPUT.
    Example, with k = 2, c = 'a': INPUT -> OUTPUT.

INPUT and OUTPUT are value literals; the settings, when the environment has any, are
`name = literal` pairs. Descriptions go through `str.format`, so a literal brace is
written doubled in the source (`{{'a': 1}}`); `parse` reads the text as written there.
"""

from __future__ import annotations

import ast
import re

import attrs

from racesl.check.model import EnvSig
from racesl.runtime.contract import canonical, parse_literal

# one sentence on one line, ending it: a description's last line, or a line of a prompt
_SENTENCE = re.compile(r"(?:^|(?<=\s))Example(?:, with (?P<settings>[^:\n]+))?: (?P<body>[^\n]+?)\.?[ \t]*$", re.M)


@attrs.frozen
class Example:
    """A parsed example: the input, the settings by name, the claimed output."""

    input: object
    settings: dict
    output: object
    text: str  # the sentence as written (braces undoubled)


@attrs.frozen
class Checked:
    """An example compared with a run of the environment: `problem` is None when it holds."""

    env: str
    example: Example | None
    got: str | None
    problem: str | None


def _undouble(text: str) -> str:
    return text.replace("{{", "{").replace("}}", "}")


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
        raise ValueError("end the description with `Example: INPUT -> OUTPUT.`, both sides value literals")
    return found[0]


def parse(description: str) -> Example:
    """The example sentence ending `description` (as written, braces doubled), or ValueError."""
    text = _undouble(description.strip())
    m = next((m for m in _SENTENCE.finditer(text) if m.end() == len(text)), None)
    if m is None:
        raise ValueError("the description does not end with `Example: INPUT -> OUTPUT.`")
    try:
        settings = _settings(m["settings"]) if m["settings"] else {}
    except SyntaxError as e:
        raise ValueError(f"cannot read the example's settings: {e.msg}") from None
    inp, out = _split(m["body"])
    return Example(inp, settings, out, m.group(0).strip())


def check(lib, env: EnvSig) -> Checked:
    """Run `env` on its description's example; a problem in words when it does not hold."""
    try:
        ex = parse(env.description)
    except ValueError as e:
        return Checked(env.qualname, None, None, str(e))
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
    r = lib.run(env, ex.input, settings)
    if not r.ok:
        return Checked(env.qualname, ex, None, f"the run on the example's input stopped: {r.status}")
    got = canonical(r.value)
    if env.verify is not None:  # several answers are right: the verifier judges the example's
        ok = lib.program.call(env.verify, (ex.input, ex.output))
        if not (ok.ok and ok.value is True):
            why = f"the verifier rejects the example's output (one right answer: {got})"
            return Checked(env.qualname, ex, got, why)
        return Checked(env.qualname, ex, got, None)
    if got != canonical(ex.output):
        return Checked(env.qualname, ex, got, f"the example says {canonical(ex.output)}, the body returns {got}")
    return Checked(env.qualname, ex, got, None)


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
