"""The fast walk over list answers (sequential, parallel) gives exactly the rewards of the
general algorithm it short-cuts: a differential test against a verbatim copy of that
algorithm built on `parse_literal` alone, on stdlib records and on records of random
values, with completions of many shapes (the benchmark's one-wrong-item answers,
whitespace and quote variants, unquoted strings, other brackets, early closes, junk)."""

from __future__ import annotations

import random

import pytest

from racesl.rewards import score, verdict
from racesl.rewards.libraries import library_for
from racesl.rewards.parse import matches, split_items
from racesl.runtime.contract import canonical, parse_literal
from tests.support.tasks import stdlib, stdlib_records, wrap

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::SyntaxWarning")


# ------------------------------------------------------------ the reference: the general path, uncached


def _ref_parse(text):
    try:
        return True, parse_literal(text)
    except ValueError:
        return False, None


def _ref_matches(given, expected_text):
    if given == expected_text:
        return True
    ok, value = _ref_parse(given)
    if ok and type(value) is not str and canonical(value) == expected_text:
        return True
    try:
        exp = parse_literal(expected_text)
    except ValueError:
        return False
    if type(exp) is str:
        if ok and type(value) is str:
            return value == exp
        s = given.strip()
        return (s[1:-1] if len(s) >= 2 and s[0] == s[-1] and s[0] in "'\"" else s) == exp
    return False


def _ref_verified(record, env_name, x_text, got):
    lib = library_for(record["library"])
    env = lib.envs.get(env_name) if lib is not None else None
    if env is None or env.verify is None:
        return False
    ok, value = _ref_parse(got)
    if not ok or lib.conforms(value, env.output) is not None:
        return False
    out = lib.program.call(env.verify, (parse_literal(x_text), value))
    return out.status == "ok" and out.value is True


def _ref_right(record, k, got):
    trace = record["trace"]
    if _ref_matches(got, trace[k]):
        return True
    if not record.get("extra", {}).get("verify"):
        return False
    if record["operator"] == "sequential" and k == len(trace) - 1:
        return _ref_verified(record, record["chain"][k], trace[k - 1] if k else record["input"], got)
    if record["operator"] == "parallel":
        return _ref_verified(record, record["chain"][k], record["extra"]["inputs"][k], got)
    return False


def ref_items(record, given):
    """The items of a list answer by the rule (docs/rewards.md), or None: no well-formed list
    of at most the asked-for items."""
    trace = record["trace"]
    ok, value = _ref_parse(given)
    if ok:
        items = [canonical(v) for v in value] if type(value) in (list, tuple) else [given]
    else:
        items = split_items(given)
        if items is None:
            if given[:1] in "[(" and given[-1:] in "])":
                return None
            items = [given]
        for k, item in enumerate(items):
            if not item or not _ref_parse(item)[0] and not (k < len(trace) and trace[k][:1] in "'\""):
                return None
    return items if len(items) <= len(trace) else None


def reference(record, given):
    if given == record["answer"]:
        return 1.0
    expected = record["trace"]
    items = ref_items(record, given)
    if items is None:
        return 0.0
    if record["operator"] == "parallel":
        return sum(1 for k, got in enumerate(items) if _ref_right(record, k, got)) / len(expected)
    k = 0
    while k < len(items) and _ref_right(record, k, items[k]):
        k += 1
    return k / len(expected)


def _check(record, text):
    got = score(record, wrap(text))
    assert got == reference(record, text.strip()), (record["trace"], text)
    assert verdict(record, wrap(text)).score == got, (record["trace"], text)


# ------------------------------------------------------------ answers of many shapes

TRICKY_STRS = ["a]b", "a, b", "it's", 'say "hi"', "#", "x'''y", "back\\slash", "é", "", " ", "5", "[1, 2]", "(",
               "a\nb"]


def _value(rng, depth=0):
    kind = rng.choice(["int", "int", "str", "list", "tuple", "bool", "dict"] if depth < 3 else ["int", "str", "bool"])
    if kind == "int":
        return rng.choice([0, 1, 2, 5, -3, 12, 105, 10 ** 20])
    if kind == "str":
        return rng.choice(TRICKY_STRS) if rng.random() < 0.3 else "".join(rng.choice("abcxyz") for _ in range(3))
    if kind == "bool":
        return rng.random() < 0.5
    items = [_value(rng, depth + 1) for _ in range(rng.randrange(0, 4))]
    if kind == "list":
        return items
    if kind == "tuple":
        return tuple(items)
    return {rng.choice(["a", "b", 1, 2]): v for v in items}


def _variants(rng, text):
    """Other ways to write one canonical item: most denote the same value, some do not."""
    out = [text, text.replace(", ", ","), " " + text + " ", text.replace("'", '"'), "(" + text + ")", text + "0",
           "+" + text, text.replace("[", "(").replace("]", ")"), text + " " + text, text[:-1]]
    if text[:1] in "'\"":
        out += [text[1:-1], text[1:-1].upper()]
    else:
        out += ["'" + text + "'"]
    if text == "0":
        out.append("-0")
    return out


def _answers(rng, record, pool):
    trace = list(record["trace"])
    n = len(trace)
    join = ", ".join
    out = [record["answer"], "[" + join(trace[:rng.randrange(n + 1)]) + "]", "[" + join(trace) + ", 5]",
           "[" + join(trace) + ",]", "(" + join(trace) + ")", "[" + ",".join(trace) + "]",
           "[ " + " ,  ".join(trace) + " ]", "[" + ",\n".join(trace) + "]", "\n".join(trace),
           "[" + join(trace[:1]) + "], [" + join(trace[1:]) + "]", "(" + trace[0] + ")",
           "[" + join(trace[:1]) + "]" + ", " + join(trace[1:]), "[]", "[ ]", "[,]", trace[0],
           # whole-answer rules: extra items, the list twice, trailing junk, lines
           "[" + join(trace) + ", ...]", "[" + join(trace) + ", ]]]", "[" + join(trace + trace) + "]",
           "[" + join(trace) + ", oops not a value]", "\n".join(trace + ["0"]), "[" + join(trace) + ", , ]",
           "[" + join(trace[:-1]) + ", oops]", "[" + join(trace) + "]\n[" + join(trace) + "]"]
    for _ in range(12):  # the benchmark's shape: one item replaced by another record's value
        k = rng.randrange(n)
        wrong = rng.choice(pool)
        t = list(trace)
        t[k] = wrong if wrong != t[k] else t[k] + "0"
        out.append("[" + join(t) + "]")
    for _ in range(6):  # one item written another way
        k = rng.randrange(n)
        t = list(trace)
        t[k] = rng.choice(_variants(rng, t[k]))
        out.append("[" + join(t) + "]")
        out.append("[" + join(t[:k + 1]) + "]")
    for _ in range(6):  # an error that propagates: every item from k on is another value
        k = rng.randrange(n)
        out.append("[" + join(trace[:k] + rng.sample(pool, min(len(pool), n - k))) + "]")
    for _ in range(6):  # an item wrong or written another way, then the list closed early: `[..], [..]`
        k = rng.randrange(n)
        t = list(trace)
        t[k] = rng.choice(pool + _variants(rng, t[k]))
        cut = rng.randrange(k + 1, n + 1)
        out.append("[" + join(t[:cut]) + "], [" + join(t[cut:]) + "]")
        out.append("(" + join(t[:cut]) + "), " + join(t[cut:]) + "")
    for _ in range(6):  # random damage to the right answer
        text = record["answer"]
        for _ in range(rng.randrange(1, 3)):
            i = rng.randrange(len(text) + 1)
            text = text[:i] + rng.choice("[](){},:'\" -0#\\\nx") + text[i + 1:]
        out.append(text)
    return out


@pytest.fixture(scope="module")
def stdlib_list_records():
    stdlib()
    recs = [r for r in stdlib_records(600, 0) if r["operator"] in ("sequential", "parallel")]
    lib = stdlib()
    recs.append({"id": "v", "operator": "sequential", "size": 2, "chain": ["numbers.add_k", "numbers.factor_pair"],
                 "settings": [{"k": "5"}, {}], "input": "95", "trace": ["100", "(2, 50)"],
                 "answer": "[100, (2, 50)]", "library": lib.hash, "extra": {"verify": True}})
    return recs


def test_stdlib_records_agree(stdlib_list_records):
    rng = random.Random(0)
    pool = [t for r in stdlib_list_records for t in r["trace"]]
    verify = stdlib_list_records[-1]
    for text in ["[100, (5, 19)]", "[100, (19, 5)]", "[100, (1, 100)]", "[100, (2, 51)]", "[100, [2, 50]]",
                 "[100, 'x']", "[100, (2, 50), 7]", "[100, (4, 25)]", "[100, (2,50)]", "[100, (3, 35)]"]:
        _check(verify, text)
    for record in stdlib_list_records:
        for text in _answers(rng, record, pool):
            _check(record, text)


def test_random_records_agree():
    rng = random.Random(1)
    for _ in range(400):
        trace = [canonical(_value(rng)) for _ in range(rng.randrange(1, 6))]
        pool = trace + [canonical(_value(rng)) for _ in range(8)]
        record = {"operator": rng.choice(["sequential", "parallel"]), "trace": trace,
                  "answer": "[" + ", ".join(trace) + "]", "extra": {}, "library": "sha256:none"}
        for text in _answers(rng, record, pool):
            _check(record, text)


@pytest.mark.parametrize("trace, text, want", [
    (["5", "'ab'"], "[5, 'xy']", 0.5),
    (["5", "'ab'"], "[6, 'ab']", 0.0),
    (["[1, 2]", "3"], "[[1, 2], 3], [4]", 0.0),  # a tuple of two lists: the first item is no [1, 2]
    (["[1, 2]", "3"], "[1, 2], [3]", 0.5),
    (["'5'", "1"], "[5, 2]", 0.5),  # an Int's text is the Str's value
    (["0", "1"], "[-0, 7]", 0.5),
    (["[5]", "1"], "([5])", 0.0),  # (x) is x: its items are 5
    (["'+5'", "1"], "[+5, 1]", 0.0),  # a literal list: the item is read as 5, which is no '+5'
    (["'+5'", "1"], "[+5, x]", 0.0),  # no literal: split, and x is no value where an Int is due
    (["'+5'", "'x'"], "[+5, x]", 1.0),  # split: +5 is the text of the Str '+5', x of 'x'
    (["-5", "1"], "[-\n5, 1]", 1.0),  # `-\n5` is no literal alone, but the list is one
    (["-5", "1", "2"], "[-\n5, 1, 7]", 2 / 3),
])
def test_hand_written(trace, text, want):
    record = {"operator": "sequential", "trace": trace, "answer": "[" + ", ".join(trace) + "]", "extra": {}}
    assert score(record, wrap(text)) == want == reference(record, text)


# ------------------------------------------------------------ single values (branch, loop, verify)


def _single_answers(rng, want, pool):
    """Answers to a one-value task: the value written other ways, other values (of every
    kind: the fast test reads only their first character), lists of them, junk."""
    out = _variants(rng, want) + rng.sample(pool, min(len(pool), 12))
    out += ["[" + ", ".join(rng.sample(pool, 3)) + "]", want + ", " + want, "1, 2", "F'x'", "Tx", "-", "", " 5",
            "(" + want + ",)", want.strip("'\""), "'" + want + "'"]
    return out


def test_matches_agrees_with_reference():
    rng = random.Random(2)
    wants = [canonical(_value(rng)) for _ in range(300)] + ["'5'", "'[1, 2]'", "'True'", "''", "' '", "5", "-5",
                                                            "()", "(1,)", "{}", "True", "False"]
    pool = wants + [t for r in stdlib_records(200, 1) for t in r["trace"]]
    for want in wants:
        for given in _single_answers(rng, want, pool):
            assert matches(given, want) == _ref_matches(given, want), (given, want)
    for want, given in [("'abc'", "abc"), ("'abc'", " abc "), ("'[1, 2]'", "[1, 2]"), ("'5'", "5"), ("'5'", "05"),
                        ("'5'", "5 "), ("'True'", "True"), ("5", "'5'"), ("[1]", "(1)"), ("(1, 2)", "1, 2"),
                        ("1", "True")]:
        assert matches(given, want) == _ref_matches(given, want), (given, want)


def test_single_value_records_agree():
    rng = random.Random(3)
    records = [r for r in stdlib_records(600, 0) if r["operator"] in ("branch", "loop")]
    assert len(records) > 50
    pool = [r["answer"] for r in records] + [t for r in records for t in r["trace"]]
    for record in records:
        for given in _single_answers(rng, record["answer"], pool) + ["[" + ", ".join(record["trace"]) + "]"]:
            want = 1.0 if given.strip() == record["answer"] or _ref_matches(given.strip(), record["answer"]) else 0.0
            if not given.strip():
                want = 0.0  # an empty block is no answer, even where the empty Str is the value
            assert score(record, wrap(given)) == want == verdict(record, wrap(given)).score, (record["answer"], given)
