"""Scoring completions against task records (RACES rewards, plus branch and loop).

- sequential: longest correct prefix of the intermediate outputs, K / t;
- parallel: mean correctness over the items;
- sort: 1 when running all candidates in the answered order from x0 reaches the target;
- select: 1 when running the answered distinct candidates from x0 reaches the target;
- branch, loop: 1 when the final value is right.
"""

from __future__ import annotations

from racesl.lower.effects import fresh
from racesl.rewards.libraries import library_for
from racesl.rewards.literals import CANONICAL, INVALID, UNKNOWN, read_literal
from racesl.rewards.parse import (_CLOSE, _OPEN, BALANCED, GOT_KIND, ITEM_THEN_REST, MAX_ANSWER, WANT_KIND, _parse,
                                  balanced, expected_value, extract_answer, item_end, matches, parse_labels,
                                  split_items)
from racesl.runtime.contract import canonical, parse_literal


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
            if given is None:
                return 0.0
        if given == record["answer"]:
            return 1.0
        op = record["operator"]
        if op in ("sequential", "parallel"):
            fast = _walk(record, given, op)
            return fast if fast is not None else _prefix_or_mean(record, given, op)
        if op in ("branch", "loop"):
            return 1.0 if matches(given, record["answer"]) else 0.0
        if op in ("sort", "select"):
            return _reexecute(record, given, op)
        return 0.0
    except Exception:  # a reward must never take training down
        return 0.0


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
    """The last step ends in a @verify environment: any answer its checker accepts is right."""
    if matches(got, record["trace"][-1]):
        return True
    lib = library_for(record["library"])
    if lib is None:
        return False
    env = lib.envs.get(record["chain"][-1])
    if env is None or env.verify is None:
        return False
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


def _reexecute(record: dict, given: str, op: str) -> float:
    labels = parse_labels(given)
    if not labels:
        return 0.0
    extra = record["extra"]
    cands = extra["candidates"]
    letters = _LETTERS[min(len(cands), 26)]
    if len(set(labels)) != len(labels) or not letters.issuperset(labels):
        return 0.0
    if op == "sort" and len(labels) != len(cands):
        return 0.0
    if ", ".join(labels) == record["answer"]:
        return 1.0
    lib = library_for(record["library"])
    if lib is None:
        return 0.0
    value = expected_value(record["input"])
    fuel = 400
    for lab in labels:
        c = cands[ord(lab) - 65]
        env = lib.envs.get(c["env"])
        if env is None:
            return 0.0
        settings = tuple(expected_value(c["settings"][s.name]) for s in env.settings)
        # bodies run on values of their declared types only (the lowering relies on it): a
        # record edited by hand must not feed them anything else
        if lib.conforms(value, env.input) is not None or any(
                lib.conforms(v, s.type) is not None for v, s in zip(settings, env.settings)):
            return 0.0
        r = lib.run(env, value, settings, fuel=fuel)
        if not r.ok:
            return 0.0
        value = r.value
    return 1.0 if canonical(value) == extra["target"] else 0.0
