"""Write an example sentence into each description that lacks one (`racesc doc --add-examples`).

An authoring aid: the example is drawn from the environment's own samplers at level 0,
run, and written into the docstring, so it holds by construction; the author reads it
and replaces it by a better one where a sampled input teaches little. Among a few dozen
draws it keeps the shortest one that is not degenerate (no empty value, an output that
differs from the input; dull ones such as 0 or `[[], []]` only when nothing else runs)
whose input text is nearest TARGET characters, so the sentence stays readable.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from racesl.atomic import atomic_write
from racesl.catalogue.examples import parse
from racesl.check.model import EnvSig
from racesl.format import format_source
from racesl.format.docstrings import wrap_docstring
from racesl.format.wrap import INDENT
from racesl.runtime.contract import canonical
from racesl.sample.default import NoSample
from racesl.sample.seeding import item_rng

DRAWS = 60  # a third each at levels 0, 1 and 2 (a rare output may need a wider input)
SURVEY = 90  # draws over levels 0-2 that estimate how common each output is
SHORT, TARGET = 12, 18  # input text lengths: below SHORT says little; about TARGET reads well


def _empty(value) -> bool:
    return isinstance(value, (str, list, tuple, dict)) and len(value) == 0


def atoms(value) -> list:
    """The scalars inside a value, depth first (dict keys and values alike)."""
    if isinstance(value, dict):
        return [a for kv in value.items() for v in kv for a in atoms(v)]
    if isinstance(value, (list, tuple)):
        return [a for v in value for a in atoms(v)]
    return [value]


def _dull(value) -> bool:
    """0 or 1, or a container whose entries are all one value (`[[], []]`, `[0, 0]`)."""
    if type(value) is int:
        return value in (0, 1)
    inside = atoms(value)
    return isinstance(value, (list, tuple, dict)) and len(set(map(repr, inside))) <= 1


def _double(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


def output_counts(lib, env: EnvSig) -> Counter:
    """{output text: runs} over SURVEY seeded draws at levels 0-2: how common each answer is."""
    counts: Counter = Counter()
    for i in range(SURVEY):
        rng = item_rng(0, env.qualname, "survey", i)
        try:
            settings = lib.sample_settings(env, rng, i % 3)
            r = lib.run(env, lib.sample_input(env, rng, i % 3), settings)
        except NoSample:
            continue
        if r.ok:
            counts[canonical(r.value)] += 1
    return counts


def propose(lib, env: EnvSig) -> str | None:
    """The example sentence for `env` (braces doubled, ready for a docstring), or None when
    no draw gives a usable run. The rarest output wins first: an example whose output is
    the environment's usual answer would hand a learner that answer for free (copying the
    example is one of the audit's strategies); only a dull one ranks below it."""
    common = output_counts(lib, env)
    found = []
    for i in range(DRAWS):
        rng = item_rng(0, env.qualname, "example", i)
        try:
            level = 3 * i // DRAWS
            settings = lib.sample_settings(env, rng, level)
            x = lib.sample_input(env, rng, level)
        except NoSample:
            continue
        r = lib.run(env, x, settings)
        if not r.ok or _empty(x) or _empty(r.value) or r.value == x:
            continue
        xt, yt = canonical(x), canonical(r.value)
        rank = (_dull(x) or _dull(r.value), common[yt], level, len(xt) < SHORT,
                abs(len(xt) - TARGET) + len(yt) // 2, i)
        found.append((rank, xt, yt, settings))
    if not found:
        return None
    _, xt, yt, settings = min(found)
    given = ", ".join(f"{s.name} = {canonical(v)}" for s, v in zip(env.settings, settings))
    head = f"Example, with {given}" if given else "Example"
    return _double(f"{head}: {xt} -> {yt}.")


def add_examples(lib, envs: list[EnvSig], *, write: bool = True) -> tuple[dict[str, int], list[str], dict]:
    """Insert a proposed sentence into every description of `envs` that has none. Returns
    (sentences written per file, environments skipped with the reason, {file: (old text, new
    text)}). `write=False` changes no file (what `racesc doc --add-examples --diff` shows)."""
    by_file: dict[str, list[tuple[EnvSig, str]]] = {}
    skipped = []
    for env in envs:
        try:
            parse(env.description)
            continue  # it has one
        except ValueError:
            pass
        sentence = propose(lib, env)
        if sentence is None:
            skipped.append(f"{env.qualname}: no sampled input gives a run to show")
            continue
        by_file.setdefault(env.path, []).append((env, sentence))
    written, changes = {}, {}
    for path, items in by_file.items():
        text = old = Path(path).read_text(encoding="utf-8")
        formatted = _formatted(text, path)
        edits = []
        for env, sentence in items:
            doc = env.node.docstring
            literal = text[doc.span.start:doc.span.end] if doc is not None else ""
            if not (literal.startswith('"""') and literal.endswith('"""')) or "\\" in literal:
                skipped.append(f"{env.qualname}: its docstring is not one plain \"\"\"...\"\"\" literal")
                continue
            body = env.description.rstrip()
            sep = "" if body.endswith((".", "!", "?")) else "."
            edits.append((doc.span.start, doc.span.end, _laid_out(f'"""{body}{sep} {sentence}"""', doc.span.col)))
        for start, end, new in sorted(edits, reverse=True):
            text = text[:start] + new + text[end:]
        if formatted:  # keep a file in the canonical layout in it (racesc fmt)
            text = format_source(text, path).text
        if write:
            atomic_write(path, lambda tmp, text=text: Path(tmp).write_text(text, encoding="utf-8"))
        written[path] = len(edits)
        changes[path] = (old, text)
    return written, skipped, changes


def _laid_out(docstring: str, col: int) -> str:
    """The new docstring wrapped as `racesc fmt` wraps it, so the lines written here pass
    `fmt --check` even in a file that is not formatted as a whole (which is left as it is)."""
    lines = wrap_docstring(docstring, (col - 1) // len(INDENT))
    return "\n".join(lines).lstrip(" ") if lines else docstring


def _formatted(text: str, path: str) -> bool:
    result = format_source(text, path)
    return result.ok and result.text == text
