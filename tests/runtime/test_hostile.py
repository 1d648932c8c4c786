"""Hostile modules.

Every hostile `.races` module is either refused at check time with a located diagnostic
(right code, line and column; never a traceback), or — when it type-checks — cut off inside
the limits when run (`fuel`, `timeout`, `size`, `recursion`, `error`), with nothing written
to disk and the process still healthy afterwards. Both the library API and the `racesc`
command line are exercised; the CLI must never print a traceback.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from racesl.check import check_paths
from racesl.diagnostics import CODES, render_plain
from racesl.library import load
from racesl.render import render

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "hostile"
BOMBS = FIXTURES / "bombs.races"
RACESC = str(Path(sys.executable).with_name("racesc"))
CUT = {"fuel", "timeout", "size", "recursion", "error"}
MAX_RSS_KIB = 3 * 1024 * 1024  # a bomb that got built would pass this

H = 'env e(x: Int) -> Int:\n    """Return x."""\n'  # the body starts on line 3
N = 5000


def sampler(body: str) -> str:
    return ("def pick(rng, level) -> Int:\n    " + body + "\n\n@sample(x=pick)\n" + H + "    return x\n")


# ---------------------------------------------------------------- refused at check time

# (id, source text or bytes, code, line, column)
REFUSED = [
    # dunder escapes
    ("dunder_attr", H + "    return x.__class__\n", "E502", 3, 14),
    ("class_bases", H + "    return ().__class__.__bases__\n", "E502", 3, 25),
    ("subclasses", H + "    return [].__class__.__mro__[1].__subclasses__()\n", "E502", 3, 36),
    ("builtins_name", H + "    return __builtins__\n", "E502", 3, 12),
    ("builtins_assign", H + "    __builtins__ = 3\n    return x\n", "E502", 3, 5),
    ("dunder_import", H + "    return __import__('os')\n", "E502", 3, 12),
    ("dunder_name", H + "    return len(__name__)\n", "E502", 3, 16),
    ("method_self", H + '    return "".join.__self__\n', "E502", 3, 20),
    ("builtin_self", H + "    return sorted.__self__\n", "E502", 3, 19),
    ("dunder_param", "def h(__builtins__: Int) -> Int:\n    return 1\n" + H + "    return h(x)\n", "E502", 1, 7),
    ("dunder_helper", "def __import__(n: Int) -> Int:\n    return 1\n" + H + "    return x\n", "E502", 1, 5),
    ("dunder_env", 'env __init__(x: Int) -> Int:\n    """Doc."""\n    return x\n', "E502", 1, 5),
    ("dunder_type", "type __T__ = Int\n" + H + "    return x\n", "E502", 1, 6),
    ("dunder_refinement", 'env e(x: Int where it.__class__ == 1) -> Int:\n    """Doc."""\n    return x\n',
     "E502", 1, 23),
    ("dunder_keyword", H + "    return sorted([x], key=lambda v: v, __class__=1)[0]\n", "E502", 3, 41),
    ("reserved_fuel_box", H + "    return _races_fuel[0]\n", "E508", 3, 12),
    ("reserved_fuel_assign", H + "    _races_fuel = [10 ** 9]\n    return x\n", "E508", 3, 5),
    ("reserved_runtime_helper", H + "    return _races_bi_sum([1], [2])\n", "E508", 3, 12),
    ("reserved_param", "def h(_races_fuel: Int) -> Int:\n    return 1\n" + H + "    return h(x)\n", "E508", 1, 7),
    # format tricks
    ("str_format", H + '    return len("{0.__class__}".format(x))\n', "E503", 3, 32),
    ("fstring_dunder", H + '    return len(f"{x.__class__}")\n', "E502", 3, 21),
    ("fstring_dunder_bare", 'env e(x: Int) -> Str:\n    """Doc."""\n    return f"{x.__class__}"\n', "E502", 3, 17),
    ("fstring_conversion_a", 'env e(x: Int) -> Str:\n    """Doc."""\n    return f"{x!a}"\n', "E111", 3, None),
    # names outside the builtin list
    ("getattr", H + '    return getattr(x, "__class__")\n', "E200", 3, 12),
    ("setattr", H + '    setattr(x, "y", 1)\n    return x\n', "E200", 3, 5),
    ("type", H + "    return type(x)\n", "E200", 3, 12),
    ("globals", H + "    return len(globals())\n", "E200", 3, 16),
    ("vars", H + "    return vars()\n", "E200", 3, 12),
    ("open", H + '    open("pwned", "w").write("x")\n    return x\n', "E200", 3, 5),
    ("eval", H + '    return eval("1")\n', "E200", 3, 12),
    ("exec", H + '    exec("open(\'pwned\', \'w\')")\n    return x\n', "E200", 3, 5),
    ("compile", H + '    return compile("1", "f", "eval")\n', "E200", 3, 12),
    ("print", H + '    print("pwned")\n    return x\n', "E200", 3, 5),
    ("input", H + "    return int(input())\n", "E200", 3, 16),
    ("breakpoint", H + "    breakpoint()\n    return x\n", "E200", 3, 5),
    ("object", H + "    return object()\n", "E200", 3, 12),
    ("next_iter", H + "    return next(iter([x]))\n", "E200", 3, 12),
    ("map", H + "    return sum(map(abs, [x]))\n", "E200", 3, 16),
    ("eval_in_refinement", 'env e(x: Int where eval("it > 0")) -> Int:\n    """Doc."""\n    return x\n', "E200", 1, 20),
    ("eval_in_verifier", "def chk(x: Int, y: Int) -> Bool:\n    return eval(\"True\")\n\n@verify(chk)\n" + H + "    return x\n",
     "E200", 2, 12),
    ("rng_outside_sampler", H + "    return rng.randint(0, 9)\n", "E200", 3, 12),
    # the sampler's rng: only its listed methods
    ("rng_dunder", sampler("return rng.__class__"), "E502", 2, 16),
    ("rng_seed", sampler("rng.seed(1)\n    return 1"), "E503", 2, 9),
    ("rng_private", sampler("return rng._random.random()"), "E501", 2, 16),
    ("rng_getrandbits", sampler("return rng.getrandbits(8)"), "E503", 2, 16),
    # imports: only racesl modules, only at the top
    ("import_os", "import os\n" + H + "    return x\n", "E202", 1, 8),
    ("from_os_import_system", "from os import system\n" + H + "    return x\n", "E202", 1, 6),
    ("import_subprocess", "import subprocess\n" + H + "    return x\n", "E202", 1, 8),
    ("import_in_body", H + "    import os\n    return x\n", "E109", 3, 5),
    ("from_import_in_body", H + "    from os import system\n    return x\n", "E109", 3, 5),
    # frames and code objects through lambdas and generators
    ("lambda_code", H + "    f = (lambda: 0).__code__\n    return x\n", "E502", 3, 21),
    ("lambda_globals", H + "    return (lambda: 0).__globals__\n", "E502", 3, 24),
    ("generator_frame", H + "    g = (i for i in range(3))\n    f = g.gi_frame\n    return x\n", "E501", 4, 11),
    ("generator_frame_back", H + "    return (i for i in range(3)).gi_frame.f_back\n", "E501", 3, 34),
    ("plain_attribute", H + "    return x.real\n", "E501", 3, 14),
    # statements that are not in the subset
    ("try_except", H + "    try:\n        x = 1\n    except:\n        x = 2\n    return x\n", "E109", 3, 5),
    ("class_def", H + "    class C:\n        pass\n    return x\n", "E109", 3, 5),
    ("global", H + "    global q\n    return x\n", "E109", 3, 5),
    # bytes
    ("bad_utf8_comment", (H + "    return x  # caf\xff\n").encode("latin-1"), "E106", 3, 20),
    ("bad_utf8_sequence", H.encode() + b"    return x  # \xc3\x28 \xff\xfe\n", "E106", 3, 17),
    ("utf8_surrogate", H.encode() + b'    return len("\xed\xa0\x80")\n', "E106", 3, 17),
    ("mixed_tabs_spaces", H + "    y = 1\n\t    return x\n", "E104", 4, 1),
    ("tab_indent", 'env e(x: Int) -> Int:\n\t"""Doc."""\n\treturn x\n', "E104", 2, 1),
    ("nul_byte", H + "    return x\x00\n", "E101", 3, 13),
    ("vertical_tab", H + "    return x\v\n", "E101", 3, 13),
    ("three_megabytes", H + "    return x\n" + ("# " + "a" * 98 + "\n") * 31000, "E112", 1, 1),
    ("unterminated_string_at_eof", H + '    return """x\n', "E102", 3, 12),
    # placeholders in a description are settings' names only
    ("placeholder_attribute", 'env e(x: Int, k: Int where 1 <= it <= 3) -> Int:\n    """Add {k.__class__} to x."""\n'
     "    return x + k\n", "E402", 2, 5),
]

# Nesting 5,000 deep: refused (E105) on the right line, without a RecursionError.
# The column is where the nesting passes the limit (an implementation constant), so only
# its range is checked. Shapes that only the parse-tree depth limit catches are parsed in
# full first (about 0.3 ms a token), so they nest 1,000 deep. (id, text, line)
M = 1000
NESTED = [
    ("parens", H + "    return " + "(" * N + "x" + ")" * N + "\n", 3),
    ("unary_minus", H + "    return " + "-" * N + "x\n", 3),
    ("not_chain", 'env e(x: Int) -> Bool:\n    """Doc."""\n    return ' + "not " * N + "x\n", 3),
    ("nested_lists", H + "    y = " + "[" * N + "]" * N + "\n    return x\n", 3),
    ("power_chain", H + "    return " + "**".join(["x"] * M) + "\n", 3),
    ("nested_calls", H + "    return " + "abs(" * N + "x" + ")" * N + "\n", 3),
    ("subscripts", H + "    y = [1]\n    return y" + "[0]" * M + "\n", 4),
    ("method_chain", 'env e(x: Str) -> Str:\n    """Doc."""\n    return x' + ".upper()" * M + "\n", 3),
    ("lambdas", H + "    return (" + "lambda: " * M + "x)()\n", 3),
    ("conditional_chain", H + "    return " + "x if x else " * M + "x\n", 3),
    ("type_arguments", "env e(x: " + "List[" * N + "Int" + "]" * N + ') -> Int:\n    """Doc."""\n    return 1\n', 1),
    ("fstring_fields", H + "    return len(" + 'f"{' * 200 + "x" + '}"' * 200 + ")\n", 3),
]

# `if`s indented one space more each: the indentation limit. (5,000 levels cannot be written
# under the 2 MB file limit: the indentation alone would take 12.5 million characters.)
DEEP_IFS = H + "".join(" " * (i + 4) + "if x:\n" for i in range(300)) + " " * 304 + "pass\n    return x\n"


def write(tmp_path: Path, text, name: str = "hostile.races") -> Path:
    p = tmp_path / name
    p.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return p


def assert_well_formed(checked) -> None:
    """Every diagnostic has a known code and a span inside the file, and renders."""
    texts = {cm.path: cm.text for cm in checked.modules.values()}
    for d in checked.diagnostics:
        assert d.code in CODES, d
        assert d.span.line >= 1 and d.span.col >= 1, d
        assert (d.span.end_line, d.span.end_col) >= (d.span.line, d.span.col), d
        render(d, texts.get(d.path))


def refused(path: Path, code: str, line: int, col: int | None):
    checked = check_paths([path])
    assert not checked.ok, f"{path.name} was accepted"
    assert_well_formed(checked)
    hits = [d for d in checked.diagnostics if d.code == code and d.span.line == line
            and (col is None or d.span.col == col)]
    assert hits, f"no {code} at {line}:{col}; got:\n{render_plain(checked.diagnostics)}"
    with pytest.raises(ValueError, match="does not compile"):
        load([path])
    return checked


@pytest.mark.parametrize("case", REFUSED, ids=[c[0] for c in REFUSED])
def test_refused_at_check_time(case, tmp_path):
    _, text, code, line, col = case
    refused(write(tmp_path, text), code, line, col)


@pytest.mark.parametrize("case", NESTED, ids=[c[0] for c in NESTED])
def test_deep_nesting_is_refused_without_recursion_error(case, tmp_path):
    _, text, line = case
    path = write(tmp_path, text)
    checked = refused(path, "E105", line, None)
    width = len(path.read_text(encoding="utf-8").splitlines()[line - 1])
    assert all(1 <= d.span.col <= width + 1 for d in checked.diagnostics if d.code == "E105")


def test_deeply_indented_ifs_hit_the_indentation_limit(tmp_path):
    checked = refused(write(tmp_path, DEEP_IFS), "E105", 67, 1)  # line 67: the 65th level
    assert any("indentation nested more than 64" in d.message for d in checked.diagnostics)


def test_deeply_indented_ifs_under_the_limit_are_fine(tmp_path):
    """The lexer allows 64 indentation levels; a body 60 `if`s deep stays under that.
    (BUG: the parse-tree depth limit, 100 levels, counts two levels per `if` and refuses
    this with "expression nested more than 100 levels deep" from 49 `if`s on.)"""
    n = 60
    text = H + "".join("    " * (i + 1) + "if x:\n" for i in range(n)) + "    " * (n + 1) + "pass\n    return x\n"
    checked = check_paths([write(tmp_path, text)])
    assert checked.ok, render_plain(checked.diagnostics)


@pytest.mark.parametrize("op", ["+"])
def test_long_flat_operator_chain(op, tmp_path):
    """`x + x + ... + x` (5,000 terms) is flat for the parser but a 5,000-deep BinOp tree
    afterwards. It must be refused (E105) or compile and run — never a RecursionError.
    (BUG: RecursionError in racesl/check/body.py `BodyChecker.infer` at 5,000 terms, and in
    racesl/syntax/emit.py `Emitter.e_BinOp` / the instrumenter's deepcopy at 1,000–2,000.)"""
    text = H + "    return " + f" {op} ".join(["x"] * N) + "\n"
    path = write(tmp_path, text)
    checked = check_paths([path])
    assert_well_formed(checked)
    if checked.ok:
        lib = load([path])
        r = lib.run(lib.envs["hostile.e"], 1)
        assert r.status in CUT | {"ok"}
    else:
        assert any(d.code == "E105" for d in checked.diagnostics), render_plain(checked.diagnostics)


def test_long_elif_chain(tmp_path):
    """An `if/elif` chain of 400 branches is an ordinary (if long) body. `racesc check` checks
    under CPython's default recursion limit (1,000), as here.
    (BUG: RecursionError in racesl/check/body.py `always_exits` -> `_exits` -> `always_exits`,
    three frames per `elif`: `racesc check` crashes with a traceback from about 300 branches
    on; under the 3,600 limit a `Program` sets, from about 1,200.)"""
    text = (H + "    if x == 0:\n        return 0\n"
            + "".join(f"    elif x == {i}:\n        return {i}\n" for i in range(1, 400)) + "    return -1\n")
    path = write(tmp_path, text)
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    try:
        checked = check_paths([path])
    finally:
        sys.setrecursionlimit(old)
    assert_well_formed(checked)
    if checked.ok:
        lib = load([path])
        assert lib.run(lib.envs["hostile.e"], 7).value == 7


def test_placeholder_with_huge_format_spec_is_refused(tmp_path):
    """`{k:>999999999}` in a description names the setting k, but `describe` (operators/build.py)
    formats the description with `str.format`, which would then build a gigabyte of padding in
    the compiler. (BUG: racesl/check/checker.py `_placeholders` looks only at field names and
    ignores conversions and format specs, so this passes `racesc check`.)"""
    text = ('env e(x: Int, k: Int where 1 <= it <= 3) -> Int:\n    """Add {k:>999999999} to x."""\n'
            "    return x + k\n")
    checked = check_paths([write(tmp_path, text)])
    assert any(d.code == "E402" and d.span.line == 2 for d in checked.diagnostics), \
        render_plain(checked.diagnostics) or "accepted"


@pytest.mark.parametrize("text", [
    H + "    return x\n# a last comment without a newline",
    H + "    return x  # a NUL \x00 in a comment\n",
    H.replace("\n", "\r\n") + "    return x\r\n",
    H.replace("\n", "\r") + "    return x\r",
    H + "\f    return x\n",
], ids=["comment_at_eof", "nul_in_comment", "crlf", "cr_only", "form_feed"])
def test_odd_but_valid_files(text, tmp_path):
    path = write(tmp_path, text)
    checked = check_paths([path])
    assert checked.ok, render_plain(checked.diagnostics)
    lib = load([path])
    assert lib.run(lib.envs["hostile.e"], 5).value == 5


def test_empty_and_garbage_files(tmp_path):
    for text in (b"", b"\n\n", b"\x00" * 100, bytes(range(256)), b"\xef\xbb\xbf", b"env", b"env e(" * 1000):
        checked = check_paths([write(tmp_path, text)])
        assert_well_formed(checked)


# ---------------------------------------------------------------- cut off when run

MEMORY_BOMBS = [
    "str_mul", "list_mul", "int_pow", "int_shift", "square_loop", "concat_loop", "extend_loop",
    "iadd_loop", "slice_loop", "tuple_loop", "fstring_width", "fstring_width_var", "percent_width",
    "percent_star", "zfill_bomb", "replace_bomb", "dag_text", "dag_percent", "big_result",
]
EXPECTED = {
    **{name: {"size"} for name in MEMORY_BOMBS},
    "join_bomb": {"fuel", "size"},   # joining 100,000 parts costs 100,000 steps
    "sum_lists": {"fuel", "size"},
    "range_sum": {"size", "fuel"},
    "spin": {"fuel"},
    "range_gen_sum": {"fuel"},
    "runaway": {"recursion"},
    "mutual": {"recursion"},
    "lambda_rec": {"recursion", "fuel"},
}


@pytest.fixture(scope="module")
def bombs():
    return load([BOMBS])


def _disk_snapshot(*dirs: Path) -> dict:
    out = {}
    for d in dirs:
        for p in d.rglob("*"):
            out[str(p)] = p.stat().st_size if p.is_file() else -1
    return out


def _no_pwned():
    for d in (ROOT, Path.home(), Path("/tmp"), Path.cwd()):
        assert not (d / "pwned").exists(), f"{d}/pwned was written"


@pytest.fixture
def sealed(tmp_path, monkeypatch):
    """Run inside an empty cwd; afterwards: nothing written, the process healthy."""
    work = tmp_path / "cwd"
    work.mkdir()
    monkeypatch.chdir(work)
    handler = signal.getsignal(signal.SIGALRM)
    threads = threading.active_count()
    limit = sys.getrecursionlimit()
    before = _disk_snapshot(tmp_path, FIXTURES)
    yield work
    assert _disk_snapshot(tmp_path, FIXTURES) == before
    assert os.listdir(work) == []
    _no_pwned()
    assert signal.getsignal(signal.SIGALRM) == handler
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert threading.active_count() == threads
    assert sys.getrecursionlimit() >= limit
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss < MAX_RSS_KIB


def healthy(lib) -> None:
    r = lib.run(lib.envs["bombs.fine"], 41)
    assert (r.status, r.value) == ("ok", 42)


def test_every_bomb_is_listed(bombs):
    assert set(EXPECTED) == {e.name for e in bombs.root_envs} - {"fine"}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_bomb_is_cut_off(name, bombs, sealed):
    env = bombs.envs[f"bombs.{name}"]
    t0 = time.monotonic()
    r = bombs.run(env, 3)
    assert r.status in EXPECTED[name], r
    assert time.monotonic() - t0 < 2.5
    assert r.value is None and r.detail
    healthy(bombs)


@pytest.mark.parametrize("name", sorted(set(EXPECTED) - {"spin", "range_gen_sum"}))
def test_bomb_is_cut_off_with_unlimited_fuel(name, bombs, sealed):
    """With fuel out of the way the size and depth bounds still hold, at once."""
    r = bombs.run(bombs.envs[f"bombs.{name}"], 3, fuel=10 ** 9, wall=1.0)
    assert r.status in {"size", "recursion"}, r
    healthy(bombs)


@pytest.mark.parametrize("name,wall", [("spin", 2.0), ("range_gen_sum", 1.0)])
def test_time_bomb_stops_at_the_wall_limit(name, wall, bombs, sealed):
    t0 = time.monotonic()
    r = bombs.run(bombs.envs[f"bombs.{name}"], 3, fuel=10 ** 12, wall=wall)
    elapsed = time.monotonic() - t0
    assert r.status == "timeout", r
    assert wall - 0.1 <= elapsed < wall + 0.5, elapsed
    healthy(bombs)


def test_bombs_in_a_loop_leave_the_process_healthy(bombs, sealed):
    """The same library keeps working across a burst of cut-off runs (no leaked fuel boxes,
    watchdog sessions or recursion depth)."""
    for _ in range(3):
        for name in sorted(EXPECTED):
            if name not in ("spin", "range_gen_sum"):
                assert bombs.run(bombs.envs[f"bombs.{name}"], 1).status in CUT
        healthy(bombs)


def test_probe_of_bombs_reports_instead_of_raising(bombs, sealed):
    """`racesc check` samples and runs every environment: bombs show up as drops and W600."""
    from racesl.probe import probe_env

    for name in sorted(EXPECTED):
        counts, diags, _ = probe_env(bombs, bombs.envs[f"bombs.{name}"], 4, 0)
        assert counts["ok"] == 0 and sum(counts.values()) == 4, (name, counts)
        assert [d.code for d in diags] == ["W600"], (name, diags)
    healthy(bombs)


# ---------------------------------------------------------------- the command line

def racesc(*args, cwd, timeout=60, stdin=None):
    env = dict(os.environ, PYTHONHASHSEED="0", NO_COLOR="1")
    t0 = time.monotonic()
    p = subprocess.run([RACESC, *map(str, args)], cwd=cwd, capture_output=True, text=True,
                       timeout=timeout, env=env, input=stdin)
    assert "Traceback" not in p.stderr, p.stderr
    assert "Traceback" not in p.stdout, p.stdout
    return p, time.monotonic() - t0


def test_cli_check_refuses_hostile_files(tmp_path):
    escape = write(tmp_path, H + "    return ().__class__.__bases__\n", "escape.races")
    deep = write(tmp_path, NESTED[0][1], "deep.races")
    bad = write(tmp_path, (H + "    return x  # caf\xff\n").encode("latin-1"), "bad.races")
    before = _disk_snapshot(tmp_path)
    p, _ = racesc("check", escape, deep, bad, cwd=tmp_path)
    assert p.returncode == 1
    assert f"{escape}:3:25: error[E502]: attribute '__bases__' is not allowed" in p.stderr
    assert f"{deep}:3:" in p.stderr and "error[E105]" in p.stderr
    assert f"{bad}:3:20: error[E106]" in p.stderr
    assert "nothing was run" in p.stderr
    assert _disk_snapshot(tmp_path) == before
    _no_pwned()


def test_cli_run_memory_bomb(tmp_path):
    p, _ = racesc("run", BOMBS, "str_mul", "--input", "1", "--input", "2", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["!size", "!size"]
    assert "input 1: a value grew past the size bound" in p.stderr
    assert os.listdir(tmp_path) == []


def test_cli_run_time_bomb_stops_at_the_wall_limit(tmp_path):
    p, elapsed = racesc("run", BOMBS, "spin", "--input", "1", "--input", "2", "--fuel", "1000000000",
                        "--wall", "1", cwd=tmp_path)
    assert p.stdout.split() == ["!timeout", "!timeout"]
    assert "input 2: ran past the wall-clock limit of 1 s; raise --wall" in p.stderr
    assert 2.0 <= elapsed < 2.0 + 1.0 + 8.0  # two limits, their ticks, the interpreter's start


def test_cli_check_runs_every_bomb(tmp_path):
    p, _ = racesc("check", BOMBS, "--samples", "4", "-q", cwd=tmp_path)
    assert p.returncode == 0, p.stderr  # warnings only
    assert p.stderr.count("warning[W600]") == len(EXPECTED)
    assert os.listdir(tmp_path) == []


DAG = '''env dag_eq(x: Int) -> Int:
    """Compare two lists that share themselves x levels deep."""
    a = [x]
    b = [x]
    for i in range(x):
        a = [a, a]
        b = [b, b]
    return int(a == b)

env dag_hash(x: Int) -> Int:
    """Hash a tuple that shares itself x levels deep."""
    t = (x,)
    for i in range(x):
        t = (t, t)
    return len({t})

env dag_max(x: Int) -> Int:
    """Let max compare two lists that share themselves x levels deep."""
    a = [x]
    b = [x]
    for i in range(x):
        a = [a, a]
        b = [b, b]
    return len(max([a, b])) + 1
'''


def test_single_c_call_time_bombs_stop(tmp_path):
    """`a == b` on two lists sharing themselves 40 levels deep is one C call of 2**40
    comparisons; hashing such a tuple likewise. No signal interrupts a C call, so the
    operands of comparisons and the elements of set/dict displays are measured first
    (as `repr` would count them) and refused: `!size`, at once."""
    path = write(tmp_path, DAG, "dag.races")
    env = dict(os.environ, PYTHONHASHSEED="0")
    procs = {name: subprocess.Popen([RACESC, "run", str(path), name, "--input", "40"], cwd=tmp_path, env=env,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for name in ("dag_eq", "dag_hash")}
    hung, results = [], {}
    deadline = time.monotonic() + 7.0
    try:
        for name, proc in procs.items():
            try:
                results[name] = proc.communicate(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                hung.append(name)
    finally:
        for proc in procs.values():  # never leave a spinning process behind
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    for name, (out, err) in results.items():
        assert "Traceback" not in err
        assert out.split() == ["!size"], (name, out, err)
    assert not hung, f"still running after 7 s (wall limit 2 s): {hung}"


# ---------------------------------------------------------------- --untrusted (worker processes)

@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    from racesl.sandbox_runner import SandboxRunner

    d = tmp_path_factory.mktemp("dag")
    lib = load([write(d, DAG, "dag.races"), BOMBS])
    with SandboxRunner(lib) as sb:
        yield lib, sb


def test_untrusted_cuts_off_bombs(sandbox):
    lib, sb = sandbox
    for name in ("str_mul", "int_pow", "concat_loop", "spin", "runaway"):
        r = sb.run(lib.envs[f"bombs.{name}"], 3)
        assert r.status in EXPECTED[name], (name, r)
    r = sb.run(lib.envs["bombs.fine"], 41)
    assert (r.status, r.value) == ("ok", 42)


def test_untrusted_kills_a_single_c_call(sandbox):
    lib, sb = sandbox
    t0 = time.monotonic()
    r = sb.run(lib.envs["dag.dag_max"], 40)  # max() compares inside C: measured first
    assert r.status in ("size", "timeout"), r  # (size since test_sharing.py: refused before max runs)
    assert time.monotonic() - t0 < 5.0
    r = sb.run(lib.envs["bombs.fine"], 1)  # a fresh worker took over
    assert (r.status, r.value) == ("ok", 2)


def test_untrusted_honours_the_wall_argument(sandbox):
    """`racesc run --untrusted --wall 0.5` passes wall=0.5 to `SandboxRunner.run`.
    (BUG: racesl/sandbox_runner.py `SandboxRunner.run` ignores its `wall` argument: the pool's
    wall (2 s, fixed at construction) applies, and the worker is killed after ~3 s.)"""
    lib, sb = sandbox
    t0 = time.monotonic()
    r = sb.run(lib.envs["dag.dag_max"], 40, (), wall=0.5)
    elapsed = time.monotonic() - t0
    assert r.status in ("size", "timeout"), r  # (see test_untrusted_kills_a_single_c_call)
    assert elapsed < 1.8, elapsed


def test_cli_run_untrusted(tmp_path):
    p, _ = racesc("run", BOMBS, "str_mul", "--input", "1", "--untrusted", cwd=tmp_path)
    assert p.stdout.split() == ["!size"]
    assert os.listdir(tmp_path) == []
