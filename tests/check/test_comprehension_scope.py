"""A comprehension's variable may reuse a module-level name (issue 35): as in Python, it
shadows the name inside the comprehension only. The checker accepts it (E508 stays for
assignments, `for` loops and builtins' names), and the instrumented run gives exactly what
CPython gives for the same text: every place a comprehension's scope begins and ends."""

from __future__ import annotations

import copy

import pytest

from racesl.check import check_paths
from racesl.library import Library
from racesl.runtime.contract import canonical

HELPERS = '''def sq(x: Int) -> Int:
    return x * x

'''
BODY = '''    a = [sq for sq in xs]
    b = sum(sq * sq for sq in xs)
    c = "".join(str(sq) for sq in xs)
    d = {sq: sq + 1 for sq in xs}
    e = [sq(v) for v in [sq for sq in xs]]
    f = [sq + 1 for sq in [sq(v) for v in xs]]
    g = [t for sq in xs for t in range(sq)]
    h = [sq(y) for y in a]
    i = [p + sq for p, sq in [(v, v + 1) for v in xs]]
    j = [sq for sq in xs if sq > 2]
    k = sorted(xs, key=lambda v: sq(v))
    m = [twice for twice in xs]
    n = max(sq for sq in xs)
    o = len({sq % 3 for sq in xs})
    q = all(sq >= 0 for sq in xs)
    r = [[sq * w for w in xs if w > sq] for sq in xs]
    return a + [b, int(c), len(d)] + e + f + g + h + i + j + k + m + [n, o, int(q), sq(3), twice(4)] + sum(r, [])
'''
RACES = HELPERS + '''env twice(x: Int) -> Int:
    """Double x."""
    return 2 * x

env mix(xs: List[Int where 0 <= it <= 9] where 1 <= len(it) <= 5) -> List[Int]:
    """Mix."""
''' + BODY
PLAIN = HELPERS + '''def twice(x):
    return 2 * x

def mix(xs):
''' + BODY


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    p = tmp_path_factory.mktemp("scope") / "shadow.races"
    p.write_text(RACES, encoding="utf-8")
    checked = check_paths([p])
    assert not list(checked.diagnostics), [f"{d.code}: {d.message}" for d in checked.diagnostics]
    return Library(checked)


@pytest.mark.parametrize("xs", [[3, 1, 4], [0], [9, 2, 6, 5, 3], [7, 7]])
def test_shadowing_comprehensions_give_cpythons_values(lib, xs):
    ns: dict = {"Int": int}
    exec(compile(PLAIN, "<plain>", "exec", dont_inherit=True), ns)
    want = ns["mix"](copy.deepcopy(xs))
    r = lib.run(lib.checked.env("shadow.mix"), xs, ())
    assert r.ok, (r.status, r.detail)
    assert canonical(r.value) == canonical(want)


@pytest.mark.parametrize("line,name,what", [
    ("    sq = 3", "sq", "a module-level name"),
    ("    for sq in xs:\n        pass", "sq", "a module-level name"),
    ("    ys = [len for len in xs]", "len", "a builtin"),
])
def test_other_rebindings_stay_errors(tmp_path, line, name, what):
    p = tmp_path / "m.races"
    p.write_text(HELPERS + "env f(xs: List[Int]) -> Int:\n    \"\"\"Doc.\"\"\"\n" + line + "\n    return 1\n",
                 encoding="utf-8")
    ds = [d for d in check_paths([p]).diagnostics if d.code == "E508"]
    assert [d.message for d in ds] == [f"assignment to '{name}' would shadow {what}"]
