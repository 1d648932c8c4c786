"""Scoring completions against task records (RACES rewards, plus branch and loop).

- sequential: longest correct prefix of the intermediate outputs, K / t;
- parallel: mean correctness over the items;
- both: an answer with more items than asked for, or that is no well-formed list, scores 0
  (`_read_items` says which; a shorter one keeps its credit, the missing items wrong), and
  an item's credit is 1 when it is the recorded value, else what its environment's @verify
  checker gives it (`_item_credit`, the one place that decides): 1 or 0 from a Bool checker,
  value / N from a graded one (racesl.runtime.grades). A parallel answer scores the mean
  credit; a sequential one K / t plus the last step's credit where K = t - 1 (only the last
  step can have a checker: a verified environment ends chains);
- sort: 1 when running all candidates in the answered order from x0 reaches the target;
- select: 1 when running the answered distinct candidates from x0 reaches the target;
  a generator environment (racesl.check.generators) is never re-run: it may only come
  first, and gives the answer it drew, read from the record (its trace's first item);
- branch, loop: 1 when the final value is right;
- individual (one environment): 1 when the value is the recorded one, else the grade its
  @verify checker gives it (1 or 0 from a Bool checker).

A checker of a generator environment that draws a latent value gets it third, read from the
record's `extra["latents"]` (racesl.operators.rederive); a record without it, or with one
outside its type, is a malformed record (status `error`), never a traceback.

Two entry points: `score(record, completion) -> float`, the reward (fast: training calls
it for every completion), and `verdict(record, completion) -> Verdict`, the same score
with a status saying why (see STATUSES). `verdict(...).score == score(...)` for every
input: `score` takes short cuts where the answer is decided (a right answer, a list the
fast walk can judge, one value), and otherwise shares `verdict`'s code. Every status but
`ok` comes with score 0.
"""

from __future__ import annotations

import attrs

from racesl.lower.effects import fresh
from racesl.operators.rederive import latent_text
from racesl.runtime import grades
from racesl.rewards import libraries as _libraries
from racesl.rewards.libraries import library_for
from racesl.rewards.literals import CANONICAL, INVALID, UNKNOWN, read_literal
from racesl.rewards.parse import (_CLOSE, _OPEN, MAX_ANSWER, _parse, _unquote, expected_value, extract_answer,
                                  matches, parse_labels, split_items)
from racesl.runtime.contract import canonical, parse_literal
from racesl.types import types as T

STATUSES = ("ok", "no_answer", "unparsable", "wrong_type", "wrong_length", "library_missing", "error")


@attrs.frozen(slots=True)
class Verdict:
    """A completion's score and why.

    status: `ok` (read and judged; a wrong answer is `ok` with score 0), `no_answer` (no
    `<answer>...</answer>` block, or an empty one, or one over MAX_ANSWER characters),
    `unparsable` (not readable as the operator's kind of answer: for a list, unbalanced
    brackets or quotes, an empty item, or an item that is no value where no Str is due),
    `wrong_type` (readable, but the wrong kind of value: a label that is no candidate, a
    Str for an Int, ...), `wrong_length` (a list answer with more items than asked for),
    `library_missing` (the answer needs the record's library, which cannot be found), or
    `error` (anything unexpected, a malformed record included). detail: one line saying
    which."""

    score: float
    status: str
    detail: str


_SEQUENCE_OPS = frozenset({"sequential", "parallel"})
_VALUE_OPS = frozenset({"branch", "loop", "individual"})
_LABEL_OPS = frozenset({"sort", "select"})
_EXACT_OPS = _SEQUENCE_OPS | _VALUE_OPS  # a text equal to the record's answer is right without more ado


def score(record: dict, completion) -> float:
    """The reward of a completion for a task record, in [0, 1]. Never raises."""
    try:
        if type(completion) is str:  # extract_answer inline: most of the cost of a right answer
            head, close, _ = completion.rpartition(_CLOSE)
            if not close:
                return 0.0
            _, opened, given = head.rpartition(_OPEN)
            if not opened or len(given) > MAX_ANSWER:
                return 0.0
            given = given.strip()
        else:
            given = extract_answer(completion)
            if not given:
                return 0.0
        # (an empty block is no answer: it scores 0 below whatever the record says, as in `verdict`)
        if given == record["answer"]:
            op = record["operator"]
            if op in ("sequential", "parallel", "branch", "loop", "individual"):
                return 1.0 if given else 0.0
            if op in ("sort", "select") and given:  # right, once the library is there (as in `_labels`)
                h = record["library"]
                return 1.0 if h in _libraries._LIBS or library_for(h) is not None else 0.0
            return 0.0
        op = record["operator"]
        if op in ("sequential", "parallel"):  # (tuples: faster than sets for a few interned names)
            fast = _walk(record, given, op)  # an empty text is no list: 0 on either path
            return fast if fast is not None else _prefix_or_mean(record, given, op)
        if op in ("branch", "loop"):
            return 1.0 if given and matches(given, record["answer"]) else 0.0
        if op == "individual":
            if not given:
                return 0.0
            return 1.0 if matches(given, record["answer"]) else _single_grade(record, given)
        if op in ("sort", "select"):
            labels = parse_labels(given)  # none (or an empty text): 0, as `_labels` says
            return _labels(record, given, op, labels)[0] if labels else 0.0
        return 0.0
    except Exception:  # a reward must never take training down
        return 0.0


def verdict(record: dict, completion) -> Verdict:
    """The score of a completion for a task record, with its status and a detail. Never
    raises; its score is always `score(record, completion)`."""
    try:
        if not isinstance(completion, str):
            return Verdict(0.0, "error", f"TypeError: the completion is {type(completion).__name__}, not str")
        head, close, _ = completion.rpartition(_CLOSE)
        if not close:
            return _NO_BLOCK
        _, opened, given = head.rpartition(_OPEN)
        if not opened:
            return _NO_OPEN
        if len(given) > MAX_ANSWER:
            return Verdict(0.0, "no_answer", f"the answer is {len(given)} characters long, over the limit of "
                                             f"{MAX_ANSWER}")
        given = given.strip()
        if not given:
            return _EMPTY
        out = _judge(record, given)
        if out is _RIGHT:
            return _RIGHT_VERDICT
        s, status, detail, args = out
        return Verdict(s, status, _line(detail % args) if args else detail)
    except _LibraryMissing as e:
        return Verdict(0.0, "library_missing", _line(str(e)))
    except _BadRecord as e:
        return Verdict(0.0, "error", _line(f"malformed record: {e}"))
    except Exception as e:  # noqa: BLE001 - a verdict never raises either
        return Verdict(0.0, "error", _describe(e))


def _line(text: str, limit: int = 300) -> str:
    """A detail: one line, at most `limit` characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _describe(e: BaseException) -> str:
    """An unexpected exception as a detail: its type, then its message."""
    try:
        msg = str(e)
    except Exception:  # noqa: BLE001
        msg = ""
    return _line(f"{type(e).__name__}: {msg}" if msg else type(e).__name__)


class _LibraryMissing(Exception):
    """The answer needs the record's library (to re-execute, or to run a @verify checker)
    and it cannot be found. `score` reads it as 0 like any exception; `verdict` reports it."""


class _BadRecord(Exception):
    """The record contradicts its own library (an environment it names is not there, a
    setting of the wrong type): it was edited, or made by another library."""


_NO_BLOCK = Verdict(0.0, "no_answer", "no <answer>...</answer> block")
_NO_OPEN = Verdict(0.0, "no_answer", "an </answer> without an <answer> before it")
_EMPTY = Verdict(0.0, "no_answer", "the <answer> block is empty")
_RIGHT = (1.0, "ok", "right", ())
_RIGHT_VERDICT = Verdict(1.0, "ok", "right")


def _judge(record: dict, given: str) -> tuple:
    """(score, status, detail template, its arguments) for a non-empty answer text. Takes
    the same decisions as `score`, which calls it where it has no short cut; where the
    score is 0 it goes on to say why."""
    op = record["operator"]
    if given == record["answer"] and op in _EXACT_OPS:
        return _RIGHT
    if op in _SEQUENCE_OPS:
        if not record["trace"]:
            raise _BadRecord("an empty trace")
        s = _walk(record, given, op)
        if s is None:
            s = _prefix_or_mean(record, given, op)
        if s >= 1.0:
            return _RIGHT
        if s > 0.0:
            n = len(record["trace"])
            what = "steps" if op == "sequential" else "items"
            if op == "sequential":  # (only its last step has a checker: K + a part of 1)
                part = int(abs(s * n - round(s * n)) > 1e-9)
            else:
                part = _partly_right(record, given) if record.get("extra", {}).get("verify") else 0
            if part:  # a graded checker's partial credit
                return (s, "ok", "credit %s of %d %s (%d partly right: partial credit from a graded checker)",
                        (f"{s * n:.4g}", n, what, part))
            return (s, "ok", "%d of %d " + what + " right", (round(s * n), n))
        return _why_not_items(record, given, op)
    if op in _VALUE_OPS:
        if matches(given, record["answer"]):
            return _RIGHT
        if op == "individual":
            g = _single_grade(record, given)
            if g >= 1.0:
                return _RIGHT
            if g > 0.0:
                return (g, "ok", "partly right: graded %s by the checker", (f"{g:.4g}",))
        return _why_not_value(record, given)
    if op in _LABEL_OPS:
        return _labels(record, given, op)
    return (0.0, "error", "malformed record: unknown operator %r", (op,))


# ---------------------------------------------------------------- why a score is 0

_TYPE_NAMES = {int: "Int", bool: "Bool", str: "Str", list: "List", tuple: "Tuple", dict: "Dict"}


def _a(name: str) -> str:
    return ("an " if name[:1] in "AEIOU" else "a ") + name


def _type_name(value) -> str:
    return _a(_TYPE_NAMES.get(type(value), type(value).__name__))


def _not_a_literal(text: str) -> str:
    """Why parse_literal refuses a text (one line)."""
    try:
        parse_literal(text)
    except ValueError as e:
        msg = str(e).splitlines()[0] if str(e) else ""
        msg = msg.removeprefix("not a literal: ") or "not a literal"
        return msg if len(msg) <= 200 else msg[:197] + "..."
    return "not a literal"


def _why_not_items(record: dict, given: str, op: str) -> tuple:
    """Why a sequential or parallel answer scored 0: `_read_items`'s refusal, or what was
    seen. Only the status and detail are decided here, never the score (0 already):

    - one value alone is read as the first item; a value of another kind than the first
      item's (a Dict, or an Int where a Str is due) is `wrong_type`;
    - a text that is no literal and no list, read as a Str written without quotes for the
      first item (and wrong as that), is `unparsable`: a bracket it opens never closes
      (`['yqe', 'tlz', 'asg'`), or it is plain text where a list is due;
    - items of another kind than the trace's (`[1, 2, 3]` where words are due) are
      `wrong_type`: a sequential answer's first item (the one that decided the 0), or every
      item of a parallel one;
    - anything else is `ok`: read, and wrong."""
    items = _read_items(record, given)
    if type(items) is tuple:
        return items
    trace = record["trace"]
    n = len(trace)
    first = "step 1 is wrong" if op == "sequential" else "no item is right"
    ok, value = _parse(given)
    if ok and type(value) not in (list, tuple):
        clash = _kind_clash(trace[0], given)
        if clash is not None:
            return (0.0, "wrong_type", "%s where a list of %d items is expected", (clash[0], n))
        return (0.0, "ok", "one value, read as the first item: " + first, ())
    if not ok and split_items(given) is None:  # read as one Str written without quotes: item 1, wrong
        if given[:1] in "[(":
            return (0.0, "unparsable", "not a list: its brackets or quotes do not balance", ())
        return (0.0, "unparsable", ("not a list of %d items: one text, which as item 1 (a Str written without "
                                    "quotes) is wrong"), (n,))
    if not items:
        return (0.0, "ok", "the answer has no items", ())
    judged = items[:1] if op == "sequential" else items
    clashes = [_kind_clash(trace[k], item) for k, item in enumerate(judged)]
    if all(c is not None for c in clashes):
        got, want = clashes[0]
        what = "step 1" if op == "sequential" else ("the item" if len(clashes) == 1 else
                                                     f"each of the {len(clashes)} items is of a wrong kind; item 1")
        return (0.0, "wrong_type", "%s is %s where %s is expected", (what, got, want))
    return (0.0, "ok", first, ())


def _kind_clash(want_text: str, item: str) -> tuple[str, str] | None:
    """(what the item is, what is due) when the item text is a literal of another kind than
    the value written `want_text` (an Int where a Str is due, a List for a Tuple), else None
    (same kind, or a text that is no literal: where a Str is due, a Str without quotes)."""
    ok, got = _parse(item)
    if not ok:
        return None
    try:
        want = expected_value(want_text)
    except ValueError:
        return None
    if type(got) is type(want):
        return None
    return _type_name(got), _type_name(want)


def _why_not_value(record: dict, given: str) -> tuple:
    """Why a branch or loop answer scored 0."""
    want = expected_value(record["answer"])
    ok, value = _parse(given)
    if not ok:
        if type(want) is str:
            return (0.0, "ok", "wrong (read as a Str written without quotes)", ())
        return (0.0, "unparsable", "not a literal: %s", (_not_a_literal(given),))
    if type(want) is str or type(value) is type(want):
        return (0.0, "ok", "wrong value", ())
    return (0.0, "wrong_type", "%s where %s is expected", (_type_name(value), _type_name(want)))


# ---------------------------------------------------------------- reading list answers
#
# `_read_items` is the rule (docs/rewards.md): the answer is one literal list or tuple (its
# items are its elements' canonical texts), or one value (the first item), or a bracketed or
# one-per-line list split on top-level commas, whose brackets and quotes balance and whose
# items are each a value, or a text where a Str is due (a Str written without quotes). More
# items than the trace has: `wrong_length`. Anything else: `unparsable`. A shorter list
# keeps its credit. `_walk` answers the common shape without parsing; where it answers, it
# agrees with the rule (tests/rewards/test_walk.py checks both against a plain copy).


def _read_items(record: dict, given: str) -> list[str] | tuple:
    """The items of a sequential or parallel answer, or a refusal (score, status, detail
    template, arguments) when it is no well-formed list of at most the asked-for items."""
    trace = record["trace"]
    n = len(trace)
    ok, value = _parse(given)
    if ok:
        items = [canonical(v) for v in value] if type(value) in (list, tuple) else [given]
    else:
        items = split_items(given)
        if items is None:
            if given[:1] in "[(" and given[-1:] in "])":
                return (0.0, "unparsable", "not a list: its brackets or quotes do not balance", ())
            if not trace[0][:1] in "'\"":  # one text, the first item: a Str written without quotes, or no value
                return (0.0, "unparsable", "not a list of %d items: %s", (n, _not_a_literal(given)))
            items = [given]
        for k, item in enumerate(items):
            if not item:
                return (0.0, "unparsable", "item %d is empty", (k + 1,))
            if not _parse(item)[0] and not (k < n and trace[k][:1] in "'\""):
                return (0.0, "unparsable", "item %d is no value (%s): %s",
                        (k + 1, _shorten(item), _not_a_literal(item)))
    if len(items) > n:
        return (0.0, "wrong_length", "%d items where %d %s asked for", (len(items), n, "is" if n == 1 else "are"))
    return items


def _shorten(text: str, limit: int = 40) -> str:
    text = " ".join(text.split())
    return repr(text if len(text) <= limit else text[:limit - 3] + "...")


def _item_credit(record: dict, k: int, got: str) -> float:
    """The credit of item k of a list answer, in [0, 1]: 1 for the recorded value, else,
    where item k comes from an environment with a @verify checker (a sequential chain's last
    step, a parallel item), the grade that checker gives it; else 0. Every operator that
    reads items asks here."""
    trace = record["trace"]
    if matches(got, trace[k]):
        return 1.0
    if not record.get("extra", {}).get("verify"):
        return 0.0
    op = record["operator"]
    if op == "sequential" and k == len(trace) - 1:
        return _graded(record, k, trace[k - 1] if k else record["input"], got, True)
    if op == "parallel":
        return _graded(record, k, record["extra"]["inputs"][k], got, False)
    return 0.0


def _single_grade(record: dict, given: str) -> float:
    """An individual task of a @verify environment: the grade its checker gives `given` (0
    for an environment without one)."""
    if not record.get("extra", {}).get("verify"):
        return 0.0
    return _graded(record, 0, record["input"], given, True)


def _prefix_or_mean(record: dict, given: str, op: str) -> float:
    """The general path: sequential K/t (K the right items from the start, the last one
    counted by its credit), parallel the mean credit over the items asked for (missing ones
    wrong)."""
    items = _read_items(record, given)
    if type(items) is tuple:
        return 0.0
    n = len(record["trace"])
    if op == "parallel":
        return sum(_item_credit(record, k, got) for k, got in enumerate(items)) / n
    k = 0
    part = 0.0
    while k < len(items):
        c = _item_credit(record, k, items[k])
        if c < 1.0:
            part = c  # (only the last step has a checker: an earlier one is 1 or 0)
            break
        k += 1
    return (k + part) / n


def _partly_right(record: dict, given: str) -> int:
    """How many items of a parallel answer a graded checker gave a credit strictly between 0
    and 1 (for `verdict`'s detail; the score is `_prefix_or_mean`'s)."""
    items = _read_items(record, given)
    if type(items) is tuple:
        return 0
    return sum(0.0 < _item_credit(record, k, got) < 1.0 for k, got in enumerate(items))


def _checker_value(got: str, due) -> object:
    """The value a checker judges for the answer text `got` (a fresh one, not a cached one: the
    checker may keep it), or INVALID. Where a Str is due, a text that is no Str literal is the
    Str written without quotes (as `matches` reads it against a recorded answer: `abc`, `12`)."""
    value = read_literal(got)
    if value is UNKNOWN:
        try:
            value = parse_literal(got)
        except ValueError:
            value = INVALID
    if type(value) is not str and isinstance(T.shape(T.unwrap(due)), T.StrT):
        return _unquote(got)
    return value


def _graded(record: dict, k: int, x_text: str, got: str, required: bool) -> float:
    """The grade the @verify checker of chain element k gives `got` for the input written
    `x_text` (racesl.runtime.grades: 1 or 0 from a Bool checker), given the recorded latent
    value where its generator draws one. Raises _LibraryMissing when the library cannot be
    found (never a silent comparison with the recorded value alone), _BadRecord when the
    record lacks the latent its checker needs. `required`: the record says this environment
    has a checker, so a library without one contradicts it; else (a parallel item) no
    checker is a 0."""
    env_name = record["chain"][k]
    lib = library_for(record["library"])
    if lib is None:
        raise _LibraryMissing(f"library {record['library']} not found: the @verify checker of {env_name} "
                              "cannot judge the answer (register the library, or name its sidecar in "
                              "RACESL_LIBRARY_PATH)")
    env = lib.envs.get(env_name)
    if env is None or env.verify is None:
        if required or env is None:
            raise _BadRecord(f"the library has no @verify environment {env_name}")
        return 0.0
    latent = None
    if env.latent is not None:
        try:
            latent = parse_literal(latent_text(record["extra"], k))
        except ValueError as e:
            raise _BadRecord(f"{env_name}: {e}") from None
        if lib.conforms(latent, env.latent) is not None:
            raise _BadRecord(f"{env_name}: the recorded latent value is outside {env.latent}")
    value = _checker_value(got, env.output)
    if value is INVALID or lib.conforms(value, env.output) is not None:
        return 0.0
    x = expected_value(x_text)
    out = lib.program.call(env.verify, grades.args(env, fresh(x), value, latent))  # x is cached: a copy
    g = grades.grade(env, out.status, out.value)
    return 0.0 if g is None else float(g)


# ---------------------------------------------------------------- the fast walk
#
# Most answers are `[a, b, c]` with canonical items (the trace's own texts, or other
# values written as `repr` writes them). `_walk` scores exactly that shape by stepping
# through the text, reading an item as a trace text or a `CANONICAL` match, each followed by
# `, ` or the closing bracket; on anything else it returns None and `_prefix_or_mean`
# decides. Where it answers the whole answer is a literal list whose elements' canonical
# texts are the items it read, so the general path reads the same items. An item its
# @verify checker might accept is left to the general path too.

_canonical_at = CANONICAL.match
_canonical_whole = CANONICAL.fullmatch


def _walk(record: dict, given: str, op: str) -> float | None:
    """The reward of a list answer of canonical items, or None: let the general path decide.
    Written for speed: this is most of the cost of scoring wrong answers."""
    trace = record["trace"]
    n = len(trace)
    last = len(given) - 1
    if last < 1 or given[0] != "[" or given[last] != "]":
        return None
    parallel = op == "parallel"
    pos = 1
    hits = 0
    prefix = True  # (sequential) every item so far was right
    k = 0
    while pos < last:
        if k == n:  # text past the asked-for items: a trailing comma's blank, or more (the
            if given[pos:last].strip():  # first bracket need not enclose it all: lines)
                return None
            break
        want = trace[k]
        end = pos + len(want)
        if given.startswith(want, pos) and (end == last or given.startswith(", ", end)):
            right = True
        else:
            # the usual wrong answer: one item differs and the rest is the trace's own texts,
            # so the item is what lies between (one certifying match, no walk over the rest)
            rest = ", ".join(trace[k + 1:])
            stop = last - len(rest) - 2 if rest else last
            if stop > pos and (not rest or given.startswith(", ", stop) and given.startswith(rest, stop + 2)):
                right = _element_is(given, pos, stop, want)
                if right is not None:
                    if not right and _checker_decides(record, k, prefix, parallel):
                        return None
                    if parallel:
                        return (hits + right + n - k - 1) / n
                    return 1.0 if prefix and right else hits / n
            m = _canonical_at(given, pos)
            if m is None:
                return None
            end = m.end()
            if end != last and not given.startswith(", ", end):
                return None
            right = _canonical_matches(m.group(), want)
            if not right and _checker_decides(record, k, prefix, parallel):
                return None
        if right and (parallel or prefix):
            hits += 1
        elif not parallel:
            prefix = False
        k += 1
        pos = end if end == last else end + 2
    return hits / n


def _element_is(given: str, pos: int, stop: int, want: str) -> bool | None:
    """Is given[pos:stop], one element of a list, the value written `want`? None when the
    text is not certified to be one element: a canonical text, or a dict (which has no
    canonical pattern but is self-delimited, so read alone it is the element)."""
    item = _canonical_whole(given, pos, stop)
    if item is not None:
        return _canonical_matches(item.group(), want)
    if given[pos] == "{" and given[stop - 1] == "}":
        ok, value = _parse(given[pos:stop])
        if ok and type(value) is dict:
            return canonical(value) == want
    return None


def _checker_decides(record: dict, k: int, prefix: bool, parallel: bool) -> bool:
    """Might a @verify checker accept wrong-looking item k (a sequential chain's last step
    after a right prefix, or a parallel item from a verified environment)? Then the general
    path decides."""
    if not record.get("extra", {}).get("verify"):
        return False
    return (prefix and k == len(record["trace"]) - 1) if not parallel else _has_checker(record, k)


def _has_checker(record: dict, k: int) -> bool:
    """May item k of a parallel record be judged by a @verify checker? True unless its
    library is at hand and says its environment has none (then the general path decides)."""
    lib = _libraries._LIBS.get(record["library"])
    if lib is None:
        return True
    env = lib.envs.get(record["chain"][k])
    return env is None or env.verify is not None


def _canonical_matches(got: str, want: str) -> bool:
    """matches(got, want) for two canonical texts: two canonical texts of one value are
    equal, so besides equal texts only a Str `want` matches, by its value written without
    quotes (`5` for `'5'`)."""
    return got == want or (want[:1] in "'\"" and got[:1] not in "'\"" and repr(got) == want)


_LETTERS = [frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ"[:k]) for k in range(27)]  # the labels of k candidates


def _labels(record: dict, given: str, op: str, labels: list[str] | None = None) -> tuple:
    """(score, status, detail template, arguments) of a sort or select answer (`labels`:
    parse_labels(given), where the caller has it). The library is looked for first: without
    it no answer can be judged, the recorded one included, so the status does not depend on
    the answer."""
    lib = _libraries._LIBS.get(record["library"])
    if lib is None:
        lib = library_for(record["library"])
    if lib is None:
        return (0.0, "library_missing", "library %s not found: %s answers are judged by re-executing its "
                "environments (register the library, or name its sidecar in RACESL_LIBRARY_PATH)",
                (record["library"], op))
    if given == record["answer"]:
        return _RIGHT
    if labels is None:
        labels = parse_labels(given)
    if not labels:
        return (0.0, "unparsable", "no candidate labels (letters such as A, B, C)", ())
    extra = record["extra"]
    cands = extra["candidates"]
    letters = _LETTERS[min(len(cands), 26)]
    if not letters.issuperset(labels):
        bad = next(lab for lab in labels if lab not in letters)
        return (0.0, "wrong_type", "label %s is not a candidate (there are %d)", (bad, len(cands)))
    if len(set(labels)) != len(labels):
        dup = next(lab for k, lab in enumerate(labels) if lab in labels[:k])
        return (0.0, "wrong_type", "label %s is repeated", (dup,))
    if op == "sort" and len(labels) != len(cands):
        return (0.0, "wrong_type", "%d label%s for %d candidates: a sort orders all of them",
                (len(labels), "" if len(labels) == 1 else "s", len(cands)))
    if ", ".join(labels) == record["answer"]:
        return _RIGHT
    value = expected_value(record["input"])
    fuel = 400
    for pos, lab in enumerate(labels):
        c = cands[ord(lab) - 65]
        env = lib.envs.get(c["env"])
        if env is None:
            raise _BadRecord(f"candidate {lab}: the library has no environment {c['env']}")
        if env.generate is not None:  # a generator environment: never run; first, the answer it drew
            if pos or c["env"] != record["chain"][0]:
                return (0.0, "ok", "wrong: candidate %s draws its instance, so it can only come first", (lab,))
            value = expected_value(record["trace"][0])  # (the record's drawn answer: not in the prompt)
            continue
        settings = tuple(expected_value(c["settings"][s.name]) for s in env.settings)
        # bodies run on values of their declared types only (the lowering relies on it): a
        # record edited by hand must not feed them anything else
        if any(lib.conforms(v, s.type) is not None for v, s in zip(settings, env.settings)):
            raise _BadRecord(f"candidate {lab}: settings outside their declared types")
        if lib.conforms(value, env.input) is not None:
            return (0.0, "ok", "wrong: candidate %s is given a value outside its input type", (lab,))
        r = lib.run(env, value, settings, fuel=fuel)
        if not r.ok:
            return (0.0, "ok", "wrong: candidate %s fails (%s)", (lab, r.status))
        value = r.value
    if canonical(value) == extra["target"]:
        return _RIGHT
    return (0.0, "ok", "wrong: the candidates reach another value than the target", ())
