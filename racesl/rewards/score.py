"""Scoring completions against task records (RACES rewards, plus branch and loop).

- sequential: longest correct prefix of the intermediate outputs, K / t;
- parallel: mean correctness over the items;
- sort: 1 when running all candidates in the answered order from x0 reaches the target;
- select: 1 when running the answered distinct candidates from x0 reaches the target;
- branch, loop: 1 when the final value is right.

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
from racesl.rewards import libraries as _libraries
from racesl.rewards.libraries import library_for
from racesl.rewards.literals import CANONICAL, INVALID, UNKNOWN, read_literal
from racesl.rewards.parse import (_CLOSE, _OPEN, BALANCED, GOT_KIND, ITEM_THEN_REST, MAX_ANSWER, WANT_KIND, _parse,
                                  balanced, expected_value, extract_answer, item_end, matches, parse_labels,
                                  split_items)
from racesl.runtime.contract import canonical, parse_literal

STATUSES = ("ok", "no_answer", "unparsable", "wrong_type", "library_missing", "error")


@attrs.frozen(slots=True)
class Verdict:
    """A completion's score and why.

    status: `ok` (read and judged; a wrong answer is `ok` with score 0), `no_answer` (no
    `<answer>...</answer>` block, or an empty one, or one over MAX_ANSWER characters),
    `unparsable` (not readable as the operator's kind of answer), `wrong_type` (readable,
    but the wrong kind of value: a label that is no candidate, a Str for an Int, ...),
    `library_missing` (the answer needs the record's library, which cannot be found), or
    `error` (anything unexpected, a malformed record included). detail: one line saying
    which."""

    score: float
    status: str
    detail: str


_SEQUENCE_OPS = frozenset({"sequential", "parallel"})
_VALUE_OPS = frozenset({"branch", "loop"})
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
            if op in ("sequential", "parallel", "branch", "loop"):
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
        s = _walk(record, given, op)
        if s is None:
            s = _prefix_or_mean(record, given, op)
        if s >= 1.0:
            return _RIGHT
        if s > 0.0:
            n = len(record["trace"])
            return (s, "ok", "%d of %d steps right" if op == "sequential" else "%d of %d items right",
                    (round(s * n), n))
        return _why_not_items(record, given, op)
    if op in _VALUE_OPS:
        if matches(given, record["answer"]):
            return _RIGHT
        return _why_not_value(record, given)
    if op in _LABEL_OPS:
        return _labels(record, given, op)
    return (0.0, "error", "malformed record: unknown operator %r", (op,))


# ---------------------------------------------------------------- why a score is 0

_TYPE_NAMES = {int: "Int", bool: "Bool", str: "Str", list: "List", tuple: "Tuple", dict: "Dict"}
_KIND_NAMES = {"int": "Int", "bool": "Bool", "list": "List", "tuple": "Tuple", "dict": "Dict"}


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
    """Why a sequential or parallel answer scored 0. A literal list (or tuple) is read as
    the items, as is a bracketed or one-per-line list of texts; one value alone is read as
    the first item, unless it cannot be one (its type is not the first item's)."""
    trace = record["trace"]
    n = len(trace)
    first = "step 1 is wrong" if op == "sequential" else "no item is right"
    ok, value = _parse(given)
    if ok:
        if type(value) in (list, tuple):
            return (0.0, "ok", first if value else "the answer has no items", ())
        want = trace[0]
        kind = WANT_KIND.get(want[:1]) if isinstance(want, str) else None
        got = _TYPE_NAMES.get(type(value))
        if kind is not None and got is not None and _KIND_NAMES[kind] != got:
            return (0.0, "wrong_type", "%s where a list of %d items is expected", (_a(got), n))
        return (0.0, "ok", "one value, read as the first item: " + first, ())
    if split_items(given) is not None:
        return (0.0, "ok", first, ())
    return (0.0, "unparsable", "not a list of %d items: %s", (n, _not_a_literal(given)))


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


# ---------------------------------------------------------------- the fast walk
#
# The general path below parses the whole answer (when it is one literal list, its items
# are the canonical texts of its elements) or splits it on top-level commas, then compares
# item by item. `_walk` gets the same number without parsing: it steps through the answer
# comparing text with the record's trace texts (which `canonical` wrote), and only reads the
# items that differ. It returns None wherever it cannot be sure to agree with the general
# path, which then decides. It relies on each trace text being canonical.
#
# Why the two agree where `_walk` answers: every item it steps over is a trace text or a
# text certified canonical by `CANONICAL` (so both paths see that very text), or a text that
# is not a literal at all (so the whole answer is not one either: only the split applies),
# or one decided the same for every way of reading it (an item whose first character shows
# another kind of value than the trace text's cannot match, read either way). The parse of
# the whole answer could still group items differently if a bracket later in the answer
# closed the outer one early (`[1, 2], [3]` is a tuple of two lists); `balanced` rules that
# out for the part `_walk` did not step over. A `(x)` without a comma is x itself, not a
# one-item tuple, so that form is left to the general path too.
_NOT_STR = frozenset("0123456789-[{TF")  # first characters of literals that are never a Str


def _never_str(want: str) -> bool:
    """Is `want` surely not the text of a Str? True for a literal starting with a digit, a
    sign, a bracket, True or False, also inside parentheses (`(19, 0)`); False whenever
    unsure. (A leading F could be an f-string, which is no literal at all.)"""
    return want.lstrip("(")[:1] in _NOT_STR


def _walk(record: dict, given: str, op: str) -> float | None:
    """The reward of a list answer for sequential or parallel, or None: let the general
    path decide. Written for speed: this is most of the cost of scoring wrong answers."""
    expected = record["trace"]
    last = len(given) - 1
    if last < 1 or given[0] not in "[(" or given[last] not in "])":
        return None
    pos = 1
    hits = 0
    for want in expected:  # the textual prefix: items that are the trace texts
        end = pos + len(want)
        if given[end:end + 2] != ", " or not given.startswith(want, pos):
            break
        pos = end + 2
        hits += 1
    n = len(expected)
    if hits < n and op == "sequential":
        want = expected[hits]
        kind = WANT_KIND.get(want[:1])
        if (kind is not None and kind != GOT_KIND.get(given[pos], kind)
                and not (hits == n - 1 and record.get("extra", {}).get("verify")) and _balanced(given, pos, last)):
            # the usual wrong answer: the item is another kind of value than the trace's (its
            # first character says so), and nothing after it closes the list early
            return None if given[0] == "(" and not hits else hits / n  # `(x)` is x, not a tuple
        # else read the item: one canonical item, then a rest that closes no bracket early
        m = _item_then_rest(given, pos)
        if m is not None and m.end() == last:
            canon = m.group(1)
            if canon is not None:
                ok = _canonical_matches(canon, want)
            elif given[pos] != want[0] and want[0] not in "'\"":
                ok = False  # a list or dict, or no literal, where want is neither a Str nor of its kind
            else:
                ok = None
            if ok is False and hits == n - 1 and record.get("extra", {}).get("verify"):
                ok = _verified(record, canon) if canon is not None else None
            if ok is not None:
                if given[0] == "(" and not hits:
                    return None  # maybe `(x)`: x itself, not a tuple
                if not ok:
                    return hits / n
                if hits == n - 1:
                    return 1.0
    return _walk_items(record, given, op, pos, hits)


_item_then_rest = ITEM_THEN_REST.match
_balanced = BALANCED.fullmatch


def _walk_items(record: dict, given: str, op: str, pos: int, hits: int) -> float | None:
    """`_walk` from the item at `pos` on (`hits` trace texts before it), item by item."""
    expected = record["trace"]
    parallel = op == "parallel"
    verify_last = not parallel and bool(record.get("extra", {}).get("verify"))
    last = len(given) - 1
    comma, split_only = hits > 0, False
    for i in range(hits, len(expected)):
        want = expected[i]
        if pos >= last:
            break  # the answer has fewer items
        if given.startswith(want, pos):  # the item is the trace text
            end = pos + len(want)
            if given.startswith(", ", end):
                hits, pos, comma = hits + 1, end + 2, True
                continue
            if end == last:
                hits, pos = hits + 1, end
                break
        end = item_end(given, pos)
        if end > last or (given[end] != "," and end != last):
            return None  # a string or bracket the scanner does not follow, or an early close
        got = given[pos:end].strip()
        if not got:
            if given[end] == ",":
                return None  # `[1, , 2]`
            break  # `[]`, or a trailing comma
        if got == want:
            ok = True
        elif verify_last and i == len(expected) - 1:
            return None
        else:
            decided = _item_matches(got, want)
            if decided is None:
                return None
            ok, not_literal = decided
            split_only = split_only or not_literal
        if given[end] == ",":  # then end < last: the next item starts after the comma and a space
            comma = True
            pos = end + 2 if given[end + 1] == " " else end + 1
            if (ok or parallel) and i + 1 < len(expected):
                rest = ", ".join(expected[i + 1:])
                if pos + len(rest) == last and given.startswith(rest, pos):
                    # the other items are the trace's texts, each of which the loop would step over
                    return (hits + ok + len(expected) - i - 1) / len(expected)
        else:
            pos = end
        if ok:
            hits += 1
        elif not parallel:
            break
    if given[0] == "(" and not comma:
        return None
    if pos < last and not split_only and not balanced(given, pos, last):
        return None
    return hits / len(expected)


def _item_matches(got: str, want: str) -> tuple[bool, bool] | None:
    """(does the item text `got` match the trace text `want`, is `got` not a literal at
    all), as the general path would decide whichever way it read the answer; None when
    those ways could differ."""
    if CANONICAL.fullmatch(got):
        return _canonical_matches(got, want), False
    if "\n" in got or "\r" in got:
        return None  # `-\n5` is no literal alone, but is one inside brackets
    if _never_str(want):
        # `want` is no Str, so only a value with `want` as its canonical text matches, read
        # either way; the first character rules most values out before writing one
        if got[0] in "[{" and got[0] != want[0]:
            return False, False  # a list or dict (or no literal: "False" is the safe guess)
        ok, value = _parse(got)
        if not ok:
            return False, True
        first = _FIRST.get(type(value))
        return (first is not None and want[0] in first and canonical(value) == want), False
    ok, value = _parse(got)
    raw = matches(got, want)  # the general path's answer when it split the text
    if not ok:
        return raw, True  # then the whole answer is no literal either: it was split
    try:
        text = canonical(value)
    except ValueError:
        return None
    if text != got and matches(text, want) != raw:
        return None  # which way the answer was read decides; leave it to the general path
    return raw, False


_FIRST = {int: "-0123456789", bool: "TF", list: "[", tuple: "(", dict: "{"}  # of canonical texts


def _canonical_matches(got: str, want: str) -> bool:
    """matches(got, want) for two canonical texts: two canonical texts of one value are
    equal, so besides equal texts only a Str `want` matches, by its value written without
    quotes (`5` for `'5'`)."""
    return got == want or (want[:1] in "'\"" and got[:1] not in "'\"" and repr(got) == want)


# ---------------------------------------------------------------- the general path

def _items(given: str) -> list[str]:
    """The answer's items as canonical texts where the whole answer is a literal list (the
    common case, one parse), else as raw item texts split tolerantly."""
    ok, value = _parse(given)
    if ok and type(value) in (list, tuple):
        return [canonical(v) for v in value]
    items = split_items(given)
    return items if items is not None else [given]


def _prefix_or_mean(record: dict, given: str, op: str) -> float:
    expected = record["trace"]
    items = _items(given)
    if op == "parallel":
        return sum(1 for got, want in zip(items, expected) if matches(got, want)) / len(expected)
    verify_last = bool(record.get("extra", {}).get("verify"))
    k = 0
    for pos, (got, want) in enumerate(zip(items, expected)):
        last = pos == len(expected) - 1
        if last and verify_last:
            ok = _verified(record, got)
        else:
            ok = matches(got, want)
        if not ok:
            break
        k += 1
    return k / len(expected)


def _verified(record: dict, got: str) -> bool:
    """The last step ends in a @verify environment: any answer its checker accepts is right.
    Raises _LibraryMissing when the checker is needed (the answer is not the recorded
    value) and the library cannot be found: never a silent comparison with the recorded
    value alone."""
    if matches(got, record["trace"][-1]):
        return True
    lib = library_for(record["library"])
    if lib is None:
        raise _LibraryMissing(f"library {record['library']} not found: the @verify checker of "
                              f"{record['chain'][-1]} cannot judge the last step (register the library, "
                              "or name its sidecar in RACESL_LIBRARY_PATH)")
    env = lib.envs.get(record["chain"][-1])
    if env is None or env.verify is None:
        raise _BadRecord(f"the library has no @verify environment {record['chain'][-1]}")
    value = read_literal(got)  # a fresh value (not a cached one): the checker gets it
    if value is UNKNOWN:
        try:
            value = parse_literal(got)
        except ValueError:
            return False
    elif value is INVALID:
        return False
    if lib.conforms(value, env.output) is not None:
        return False
    x = expected_value(record["trace"][-2] if len(record["trace"]) > 1 else record["input"])
    out = lib.program.call(env.verify, (fresh(x), value))  # x is cached: the checker gets a copy
    return out.status == "ok" and out.value is True


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
    for lab in labels:
        c = cands[ord(lab) - 65]
        env = lib.envs.get(c["env"])
        if env is None:
            raise _BadRecord(f"candidate {lab}: the library has no environment {c['env']}")
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
