"""The one table of builtins and methods (racesl/types/builtins.py, issue 16) and the stages
that read it: (a) no other file lists these names, (b) what the checker allows is what the
lowering charges and guards and the runtime binds, (c) completion and the docs show the
table."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from racesl.check import check_paths
from racesl.check import names as N
from racesl.lower import effects
from racesl.lower.instrument import charges, scope, syntax
from racesl.runtime import abi
from racesl.runtime import builtins as RB
from racesl.runtime.limits import MAX_LEN, SizeExceeded
from racesl.types import builtins as B

ROOT = Path(__file__).resolve().parents[2]
TABLE = "racesl/types/builtins.py"
NAMES = frozenset(e.name for e in B.ENTRIES)
# builtin names that are also Python's type names: a list of only these is about types
TYPE_NAMES = frozenset({"bool", "dict", "int", "list", "set", "str", "tuple"})

# (file, the names listed) -> why the list is not the table's
ALLOWED: dict[tuple[str, frozenset[str]], str] = {
    ("racesl/check/body.py", frozenset(["len", "sorted", "min", "max", "sum", "any", "all", "set", "bool"])):
        "ORDER_FREE: the order rule E601 (which builtins ignore their argument's order); a "
        "checker rule over table names, checked below to be table builtins",
    ("racesl/check/body.py", frozenset(["list", "tuple", "enumerate", "zip", "reversed", "dict"])):
        "ORDERING_BUILTINS: the order rule E601 (which builtins keep their argument's order)",
    ("racesl/check/body.py", frozenset(["keys", "values", "items"])):
        "the checker's element types of dict views (code, one case a view)",
    ("racesl/check/body.py", frozenset(["len", "str", "int", "bool", "ord", "chr", "bin", "hex", "all", "any", "sum"])):
        "the checker's result types of builtin calls (could read `result`: follow-up)",
    ("racesl/check/body.py", frozenset(["upper", "lower", "strip", "replace", "zfill", "title", "swapcase", "join"])):
        "the checker's result types of Str methods (could read `result`: follow-up)",
    ("racesl/check/body.py", frozenset(["find", "count", "index"])):
        "the checker's result types of Int-valued methods",
    ("racesl/check/body.py", frozenset(["get", "setdefault", "pop"])):
        "the checker's result types of Dict methods returning a value",
    ("racesl/check/body.py", frozenset(["sorted", "min", "max"])):
        "the order rule for `key=` (the builtins with a key)",
    ("racesl/lower/instrument/charges.py", frozenset(["sorted", "list", "tuple", "set"])):
        "the inline charge's result check (`_charged_inline`): code naming the builtins it rewrites",
    ("racesl/lower/instrument/scope.py", frozenset(["sorted", "list", "tuple", "set"])):
        "`_len_bound`: the builtins whose result is no longer than their argument",
    ("racesl/lower/instrument/scope.py", frozenset(["sorted", "list", "tuple", "reversed"])):
        "`_rows_of`: the builtins whose result holds the very row objects of their argument (code)",
    ("racesl/check/constants.py", frozenset(["join", "extend", "count", "index", "startswith", "endswith"])):
        "READING_ARG_METHODS: the methods a module constant may be passed to (they read their "
        "arguments, never keep them): a checker rule over table names, checked below to be table methods",
    ("racesl/solver/chars.py", frozenset(["isdigit", "isalpha", "islower", "isupper"])):
        "METHODS: the Str methods the solver encodes, read from the table and checked below to be in it",
    ("racesl/solver/chars.py", frozenset(["isdigit", "isalpha", "islower", "isupper", "breaks_lower",
                                          "breaks_upper"])):
        "_FACTS: the columns of a character profile (four methods and two casing facts), not a list of builtins",
    ("racesl/lsp/hover.py", frozenset(e.name for e in B.builtins())):
        "BUILTIN_DOCS: hover text per builtin, checked below to have exactly the table's keys",
    ("racesl/runtime/abi.py", frozenset(abi.PLAIN)):
        "PLAIN: the ABI's names for CPython's own callables (map, iter, type are no body builtins)",
    ("racesl/runtime/builtins.py", frozenset(B.CHARGING_BUILTINS)):
        "_CHARGED: the binding of each charging builtin to its function (asserted equal to the table)",
    ("racesl/runtime/builtins.py", frozenset(B.FREE_BUILTINS)):
        "SAFE_BUILTINS: the binding of each free builtin to its object (asserted equal to the table)",
    ("racesl/solver/encode.py", frozenset(["all", "any", "bool"])):
        "`_bool_valued`: the solver's Bool-valued calls (code)",
}


def _string_lists(tree):
    """(line, names) of every set, tuple, list or dict-keys literal of string constants, and of
    every `"a b c".split()`."""
    for n in ast.walk(tree):
        if isinstance(n, (ast.Set, ast.Tuple, ast.List)):
            elts = n.elts
        elif isinstance(n, ast.Dict):
            elts = [k for k in n.keys if k is not None]
        elif (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "split"
              and isinstance(n.func.value, ast.Constant) and isinstance(n.func.value.value, str) and not n.args):
            elts = [ast.Constant(w) for w in n.func.value.value.split()]
        else:
            continue
        strs = [e.value for e in elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        yield n.lineno, frozenset(strs), len(strs)


def _name_lists():
    """Lists of ≥ 3 strings, most of them table names, not all of them type names."""
    for p in sorted((ROOT / "racesl").rglob("*.py")):
        rel = p.relative_to(ROOT).as_posix()
        if rel == TABLE:
            continue
        for line, names, n in _string_lists(ast.parse(p.read_text(encoding="utf-8"))):
            hits = names & NAMES
            if n >= 3 and len(hits) >= 3 and 2 * len(hits) > len(names) and hits - TYPE_NAMES:
                yield rel, line, names


def test_no_other_file_lists_builtin_or_method_names():
    found = {(rel, names): line for rel, line, names in _name_lists()}
    unexplained = [f"{rel}:{line} {sorted(names)}" for (rel, names), line in found.items()
                   if (rel, names) not in ALLOWED]
    assert not unexplained, "read racesl/types/builtins.py instead:\n" + "\n".join(unexplained)
    stale = [k for k in ALLOWED if k not in found]
    assert not stale, f"allow-list entries that no longer match a list: {stale}"


def test_the_allowed_lists_name_table_entries():
    from racesl.check import body
    from racesl.lsp import hover

    builtins = {e.name for e in B.builtins()}
    assert body.ORDER_FREE <= builtins and body.ORDERING_BUILTINS <= builtins
    assert set(hover.BUILTIN_DOCS) == builtins
    from racesl.solver import chars

    assert len(chars.METHODS) == 4 and chars.METHODS <= {e.name for e in B.methods("Str")}
    from racesl.check import constants

    methods = {e.name for e in B.ENTRIES if e.receiver not in (None, "rng")}
    assert constants.READING_ARG_METHODS <= methods  # (extend changes its receiver, never its argument)
    assert constants.RNG_READS == {"choice", "sample", "choices"}


def test_entries_are_unique_and_well_formed():
    keys = [(e.receiver, e.name) for e in B.ENTRIES]
    assert len(keys) == len(set(keys))
    for e in B.ENTRIES:
        assert e.max_args is None or e.min_args <= e.max_args, e
        if e.cost == "receiver" or e.guard in ("result_len", "width", "count", "join_len"):
            assert e.is_method, e


# ---------------------------------------------------------------- (b) checker = lowering = runtime

# the methods the instrumenter listed (scope.py's inference) while the checker refused them:
# all ten left the instrumenter (center/ljust/rjust would need a width guard like zfill's;
# the others would need the checker's result types and docs: a language change of its own)
LEFT_THE_INSTRUMENTER = frozenset(
    ["rfind", "rindex", "isspace", "isalnum", "lstrip", "rstrip", "capitalize", "center", "ljust", "rjust"])


def test_the_checker_reads_the_table():
    assert N.BUILTINS == {e.name: (e.min_args, e.max_args, e.keywords) for e in B.builtins()}
    for table, r in ((N.STR_METHODS, "Str"), (N.LIST_METHODS, "List"), (N.DICT_METHODS, "Dict"),
                     (N.TUPLE_METHODS, "Tuple"), (N.RNG_METHODS, "rng")):
        assert table == {e.name: (e.min_args, e.max_args, e.keywords) for e in B.methods(r)}
    assert set(N.ALL_METHODS) == {e.name for e in B.ENTRIES if e.receiver not in (None, "rng")}


def test_every_method_the_lowering_names_is_one_the_checker_accepts():
    accepted = {e.name for e in B.ENTRIES if e.is_method}
    lowering = (scope._NUM_METHODS | scope._STR_METHODS | scope._SIZED_METHODS
                | syntax._FRESH_METHODS | charges._GUARDED_METHODS)
    assert lowering <= accepted
    assert not lowering & LEFT_THE_INSTRUMENTER
    assert not LEFT_THE_INSTRUMENTER & accepted


def test_every_builtin_is_bound_charged_and_named_by_the_lowering():
    builtins = {e.name for e in B.builtins()}
    assert set(RB.SAFE_BUILTINS) == builtins == syntax._BUILTINS == set(RB.BUILTIN_NAMES)
    for e in B.builtins():
        if e.cost == "free":
            assert e.name in syntax._PLAIN_CALLS and e.name not in RB.CHARGING_BUILTINS
            continue
        assert e.name in RB.CHARGING_BUILTINS and abi.builtin(e.name) in RB.RUNTIME, e.name
        if e.cost in ("arg", "arg_inline"):
            assert abi.builtin1(e.name) in RB.RUNTIME and e.name in charges._ONE_ARG
        assert (e.name in syntax._INLINE_CHARGED) == (e.cost == "arg_inline")


def test_every_method_is_guarded_charged_and_bound():
    receivers = {"Str": str, "List": list, "Dict": dict, "Tuple": tuple}
    for e in B.ENTRIES:
        if not e.is_method:
            continue
        if e.receiver == "rng":
            assert callable(getattr(RB.SafeRng, e.name))
        else:
            assert hasattr(receivers[e.receiver], e.name), e
        wrapped = e.wrapped
        # a name is routed to its wrapper when every receiver of that name needs it
        if wrapped:
            assert e.name in charges._GUARDED_METHODS and abi.method(e.name) in RB.RUNTIME, e
        if e.cost != "free":
            assert abi.method(e.name) in RB.RUNTIME, e  # join, sort (charges.py routes them)
    routed = {k[len(abi.method("")):] for k in RB.RUNTIME if k.startswith(abi.method(""))}
    by_table = {e.name for e in B.ENTRIES if e.is_method and (e.cost != "free" or e.wrapped)}
    by_table |= {e.name for e in B.ENTRIES if e.walks == "scan"}  # (measuring wrappers: count, index)
    assert routed == by_table  # (a key= lambda ticks its own calls: no keyed forms)
    public = {n for n in dir(RB.SafeRng) if not n.startswith("_")}
    assert public == {e.name for e in B.methods("rng")}


def test_the_wrappers_guard_what_the_table_says():
    with pytest.raises(SizeExceeded):
        RB.RUNTIME[abi.method("zfill")]("7", MAX_LEN + 1)
    with pytest.raises(SizeExceeded):
        RB.RUNTIME[abi.method("replace")]("a" * 1000, "a", "b" * 1000)
    with pytest.raises(SizeExceeded):
        RB.RUNTIME[abi.method("extend")]([0] * MAX_LEN, [1])
    with pytest.raises(SizeExceeded):
        RB.RUNTIME[abi.method("insert")]([0] * MAX_LEN, 0, 1)
    with pytest.raises(SizeExceeded):
        RB.SafeRng(0).sample(range(10), MAX_LEN + 1)


def test_mutating_methods_are_known_to_the_effects_analysis():
    assert B.MUTATING_METHODS <= effects.MUTATING_METHODS
    resizing = {e.name for e in B.ENTRIES if e.mutates and e.name not in ("sort", "reverse")}
    assert resizing <= effects.RESIZING_METHODS


@pytest.mark.parametrize("method", sorted(LEFT_THE_INSTRUMENTER))
def test_the_checker_refuses_the_methods_that_left_the_instrumenter(tmp_path, method):
    p = tmp_path / "m.races"
    p.write_text(f'env f(s: Str where len(it) <= 5) -> Str:\n    """Call {method}."""\n'
                 f'    return str(s.{method}(" "))\n', encoding="utf-8")
    codes = {d.code for d in check_paths([p]).diagnostics}
    assert "E503" in codes


# ---------------------------------------------------------------- (c) completion and docs


def test_completion_shows_the_table_arity():
    pytest.importorskip("lsprotocol", reason="lsprotocol is not installed")
    from racesl.lsp import completion as CO

    for r in B.RECEIVERS:
        items = {i.label: i for i in CO._methods(CO._arities(r), r)}
        assert set(items) == {e.name for e in B.methods(r)}
        for e in B.methods(r):
            arity = B.arity_text(e.min_args, e.max_args)
            assert f"{r}.{e.name}() · {arity} " in items[e.name].detail, (e, items[e.name].detail)


def test_completion_after_a_list_receiver_shows_the_table_arity(tmp_path):
    pytest.importorskip("lsprotocol", reason="lsprotocol is not installed")
    from lsprotocol import types as L

    from racesl.lsp import completion as CO
    from tests.lsp.test_features import SRC, view_of

    line = "def h(xs: List[Int]) -> Int:\n    return xs."
    full = SRC + line
    v = view_of(tmp_path, full)
    got = {i.label: i.detail for i in CO.complete(v, L.Position(full.count("\n"), len(line.split("\n")[-1]))).items}
    for e in B.methods("List"):
        assert got[e.name] == f"List.{e.name}() · {B.arity_text(e.min_args, e.max_args)} " + (
            "argument" if B.arity_text(e.min_args, e.max_args) == "1" else "arguments")


def test_the_language_reference_lists_the_table():
    text = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    assert f"```\n{B.docs_builtins()}\n```" in text
    assert B.docs_methods() in text
