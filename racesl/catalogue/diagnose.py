"""Worked examples as diagnostics: an example sentence the body disagrees with is an error
(E604), one that cannot be read is a warning (W603; W604 for example-like prose, `For
example, ...`), located at the sentence inside the docstring. A generator environment
without a body has its examples judged by its `@verify` checker; one with neither cannot
have them judged, and says so (W603).

Tasks show descriptions in their prompts, examples included, so a wrong example teaches a
wrong answer. `racesc check` reports these in its sampling phase (racesl.probe), and what
builds tasks from a library refuses one with an E604: `racesc compile`, the training
stream and the admission check gate (`refusals`).
"""

from __future__ import annotations

import re

from racesl.catalogue.examples import Checked, Example, run, sentences
from racesl.check.model import EnvSig
from racesl.diagnostics import Diagnostic, Severity, Span
from racesl.runtime.contract import canonical
from racesl.syntax.lexer import lines_for

_OPENING = re.compile(r"[A-Za-z]*(\"\"\"|'''|\"|')")


def example_diagnostics(lib, envs, runner=None) -> list[Diagnostic]:
    """E604 for each example sentence of `envs`' descriptions that the body disagrees with,
    W603 for each that cannot be read; `runner(env, x, settings)` runs the bodies (default
    `lib.run`; the sandbox's under `--untrusted`). Descriptions without one give nothing."""
    out: list[Diagnostic] = []
    for env in envs:
        found = sentences(env.description)
        judge = not (env.generate is not None and not env.node.body
                     and (env.verify is None or env.latent is not None))  # (a latent checker needs a draw)
        for s in found:
            span = _locate(lib, env, s.start, s.end)
            if s.example is None and s.prose:
                out.append(Diagnostic(
                    "W604", f"cannot read the example of '{env.name}' that this sentence gives: {s.error}", span,
                    env.path, Severity.WARNING,
                    "write it as `Example: INPUT -> OUTPUT.` with value literals on both sides, so that it is "
                    "checked against the body (task prompts show it), or reword the sentence"))
                continue
            if s.example is None:
                out.append(Diagnostic(
                    "W603", f"cannot read the worked example of '{env.name}': {s.error}", span, env.path,
                    Severity.WARNING,
                    "write `Example: INPUT -> OUTPUT.` with value literals on both sides (a literal brace "
                    "doubled: {{'a': 1}}), or reword the sentence so it does not begin with `Example:`"))
                continue
            if not judge:
                out.append(Diagnostic(
                    "W603", f"cannot check the worked example {_call(env, s.example)}: the generator environment "
                    f"'{env.name}' has no body and " + ("no @verify checker to judge its output" if env.verify is None
                                                        else "its @verify checker needs a drawn latent value"), span,
                    env.path, Severity.WARNING,
                    "add a @verify checker (it judges the example's output), or remove the sentence: a drawn "
                    "answer is never computed, so nothing holds the example to it"))
                continue
            r = run(lib, env, s.example, runner)
            if r.problem is not None:
                out.append(Diagnostic("E604", f"the worked example {_call(env, s.example)} does not hold: {r.problem}",
                                      span, env.path, Severity.ERROR, _hint(env, r)))
    return out


def refusals(lib, envs=None, runner=None) -> list[Diagnostic]:
    """The E604s of `envs` (default: every environment of `lib`, imported ones included:
    all of them reach prompts) — what a task-building command refuses a library for."""
    envs = list(lib.envs.values()) if envs is None else envs
    return [d for d in example_diagnostics(lib, envs, runner) if d.is_error]


def _call(env: EnvSig, ex: Example) -> str:
    given = "".join(f", {k}={canonical(v)}" for k, v in ex.settings.items())
    return f"{env.name}({canonical(ex.input)}{given})"


def _sentence(ex: Example, output: str) -> str:
    given = ", ".join(f"{k} = {canonical(v)}" for k, v in ex.settings.items())
    text = f"Example{', with ' + given if given else ''}: {canonical(ex.input)} -> {output}."
    return text.replace("{", "{{").replace("}", "}}")  # as a description writes it


def _hint(env: EnvSig, r: Checked) -> str:
    if r.got is not None and env.verify is None:
        return (f"if the body is right, write `{_sentence(r.example, r.got)}`; else fix the body "
                "(task prompts show this sentence)")
    if r.got is not None:
        return f"give an output the verifier accepts, such as `{_sentence(r.example, r.got)}`"
    if r.problem.startswith("the checker rejects"):
        return ("give an output the @verify checker accepts for this input, or fix the checker "
                "(task prompts show this sentence)")
    if r.problem.startswith("the example gives settings"):
        names = ", ".join(f"{s.name} = ..." for s in env.settings)
        return (f"name every setting: `Example, with {names}: INPUT -> OUTPUT.`" if names
                else "this environment has no settings: write `Example: INPUT -> OUTPUT.`")
    return "give an input (and settings) of the declared types that the body runs on, or remove the sentence"


def _locate(lib, env: EnvSig, start: int, end: int) -> Span:
    """The span in the source of the description's characters [start, end): descriptions
    are the docstring's lines stripped and joined, so the n-th non-blank character of one
    is the n-th of the other. The docstring's whole span when they do not line up (an
    escape sequence in it) or the source is not at hand."""
    doc = env.node.docstring
    if doc is None:
        return env.span
    cm = getattr(getattr(lib, "checked", None), "modules", {}).get(env.module)
    if cm is None:
        return doc.span
    text = cm.text
    m = _OPENING.match(text, doc.span.start)
    if m is None:
        return doc.span
    quote = m.group(1)
    lo, hi = m.end(), doc.span.end - len(quote)
    content = text[lo:hi]
    desc = env.description
    if "".join(content.split()) != "".join(desc.split()):
        return doc.span
    solid = [lo + i for i, c in enumerate(content) if not c.isspace()]
    first = sum(1 for c in desc[:start] if not c.isspace())
    last = sum(1 for c in desc[:end] if not c.isspace())
    if not solid or last <= first:
        return doc.span
    return lines_for(text).span(solid[first], solid[last - 1] + 1)
