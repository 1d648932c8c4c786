"""Default prompt templates, one per operator (`str.format` fields). A project overrides
any of them in races.toml:

    [templates]
    sequential = "prompts/sequential.txt"

`problem` checks a template when the config is read, so a typo in a field name is a
config error and not a KeyError in the middle of a compile.
"""

import difflib
import string

SEQUENTIAL = """\
You are given an input value and a list of operations. Apply the operations in order: each one takes the result of the previous one as its input.

Input: {x0}

Operations:
{steps}

Give the result of every operation, in order, as a Python list inside <answer></answer>, for example <answer>[result_1, result_2, ...]</answer>."""

PARALLEL = """\
Solve each of the following independent problems.

{problems}

Give the {count} answers in order as a Python list inside <answer></answer>, for example <answer>[answer_1, answer_2, ...]</answer>."""

SORT = """\
Start from the input {x0}. The operations below, applied one after another in some order (each to the result of the previous one), turn it into {target}. They are listed in shuffled order.

{candidates}

Find an order of all {count} operations that turns {x0} into {target}. Answer with the letters in that order, separated by commas, inside <answer></answer>: the format is <answer>{example}</answer>, with your letters in place of those."""

SELECT = """\
Start from the input {x0}. Choose some of the operations below and apply them one after another, each to the result of the previous one, to turn the input into {target}. Use each chosen operation at most once; not every operation is needed.

{candidates}

Answer with the letters of the operations you apply, in order, separated by commas, inside <answer></answer>: the format is <answer>{example}</answer>, with your letters in place of those."""

BRANCH = """\
Let x = {x0}.

Condition (its input is called {cond_input}): {condition}

If the condition is true for x, apply these operations to x in order, each to the result of the previous one:
{then_steps}

Otherwise apply these operations to x in order:
{else_steps}

Give the final result inside <answer></answer>."""

LOOP = """\
Start from {x0}. Apply the operation below {times} times, each time to the result of the previous application.

Operation (its input is called {input_name}): {description}

Give the final result inside <answer></answer>."""

INDIVIDUAL = """\
Solve the following problem.

{description}

Input {input_name} = {x0}

Give the answer inside <answer></answer>."""

DEFAULTS = {"sequential": SEQUENTIAL, "parallel": PARALLEL, "sort": SORT, "select": SELECT,
            "branch": BRANCH, "loop": LOOP, "individual": INDIVIDUAL}

# The fields each operator fills in (racesl.operators.build), and the ones a prompt cannot
# do without: the task is unsolvable unless the model sees them.
FIELDS = {"sequential": ("x0", "steps", "count"), "parallel": ("problems", "count"),
          "sort": ("x0", "target", "candidates", "count", "example"),
          "select": ("x0", "target", "candidates", "count", "example"),
          "branch": ("x0", "cond_input", "condition", "then_steps", "else_steps"),
          "loop": ("x0", "times", "input_name", "description"),
          "individual": ("x0", "input_name", "description")}
REQUIRED = {"sequential": ("x0", "steps"), "parallel": ("problems",), "sort": ("x0", "target", "candidates"),
            "select": ("x0", "target", "candidates"), "branch": ("x0", "condition", "then_steps", "else_steps"),
            "loop": ("x0", "times", "description"), "individual": ("x0", "description")}
_INT_FIELDS = ("count", "times")  # filled in with numbers; every other field with text


def fields(text: str) -> set[str]:
    """The field names a format string uses (`{x0.real}` uses x0; `{}` and `{0}` are the
    empty and the positional name). Raises ValueError for a malformed string."""
    out: set[str] = set()
    for _, name, spec, _ in string.Formatter().parse(text):
        if name is not None:
            out.add(name.split(".", 1)[0].split("[", 1)[0])
        if spec:
            out |= fields(spec)  # a spec may hold fields of its own: {x0:>{count}}
    return out


def problem(op: str, text: str, require: bool = True) -> str | None:
    """What is wrong with `text` as the template of operator `op`, or None."""
    if not isinstance(text, str):
        return f"must be text or a file name, not {text!r}"
    allowed = FIELDS[op]
    try:
        used = fields(text)
    except ValueError as e:
        return f"is not a valid format string ({e}); write a literal brace as {{{{ or }}}}"
    for name in sorted(used - set(allowed)):
        if not name or name.isdigit():
            return "uses a positional field {" + name + "}: name the field, e.g. {" + allowed[0] + "}"
        close = difflib.get_close_matches(name, allowed, n=1)
        hint = f"did you mean {{{close[0]}}}? " if close else ""
        return f"uses an unknown field {{{name}}} ({hint}{op} templates may use {_braced(allowed)})"
    missing = [f for f in REQUIRED[op] if f not in used] if require else []
    if missing:
        return f"lacks {_braced(missing)}: a {op} prompt needs {_braced(REQUIRED[op])}"
    try:
        text.format(**{f: 2 if f in _INT_FIELDS else "x" for f in allowed})
    except (ValueError, TypeError, AttributeError, IndexError, KeyError) as e:
        return f"cannot be filled in: {type(e).__name__}: {e}"
    return None


def _braced(names) -> str:
    return " ".join("{" + n + "}" for n in names)


class Block(str):
    """A field's text that is a fenced block (a value laid out by `@layout`: racesl.types.layout),
    which `fill` places on lines of its own."""


def fill(text: str, **values) -> str:
    """`text.format(**values)`, with each `Block` value on lines of its own: the spaces before
    it end their line, and after it the spaces and one mark of punctuation that ended the
    value's sentence (`{x0}. The operations ...` → the block, then `The operations ...`) give
    way to a line break. Without a Block it is exactly `str.format`, so prompts that lay
    nothing out stay byte-identical."""
    if not any(type(v) is Block for v in values.values()):
        return text.format(**values)
    fmt = string.Formatter()
    out: list[str] = []
    after = False  # the previous piece was a block
    for literal, name, spec, conv in fmt.parse(text):
        if after:
            rest = literal.lstrip(" \t")
            if rest[:1] in (".", ",", ";", ":"):
                rest = rest[1:].lstrip(" \t")
            literal = rest if rest[:1] == "\n" or (not rest and name is None) else "\n" + rest
            after = False
        out.append(literal)
        if name is None:
            continue
        value = values.get(name) if name in values else None
        if type(value) is Block and not spec and not conv:
            head = "".join(out).rstrip(" \t")
            out = [head + ("\n" if head and not head.endswith("\n") else ""), value]
            after = True
            continue
        out.append(fmt.vformat("{" + name + ("!" + conv if conv else "") + (":" + spec if spec else "") + "}",
                               (), values))
    return "".join(out)
