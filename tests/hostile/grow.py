"""A grammar fuzzer for the sandbox (issue 17): grow random programs from the productions of
grammar/races.lark (statements, expressions, calls, f-strings, comprehensions), biased
towards what grows or spins (`*`, `**`, `<<`, `pow`, case-changing str methods, wide
f-string fields, lists and tuples that share themselves, loops, recursion, and untyped
relays that hand a helper an argument of the wrong type).

Each program is emitted twice from one tree: as a `.races` module (an `env e(x: Int ...)`
plus helpers) and as plain Python (the same bodies under `def`), so the CPython oracle does
not go through racesl's lowering. Programs are a function of their seed alone.

`python -m tests.hostile.grow SEED...` is the driver the tests start in a child process (a
single C call can hang a process, so the test process never runs programs itself): for each
seed it checks the module, runs it in-process with `Library.run` when it checks, asks a
CPython worker (2 GB, 1 s, killed and restarted when it overruns) for the plain answer,
and prints one JSON line; with `--untrusted K`, every K-th program that checks runs once
more through `SandboxRunner`. The test applies the verdict (`judge`).
"""

from __future__ import annotations

import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import attrs

INT_LITS = ["0", "1", "2", "3", "7", "9", "10", "64", "1000", "10 ** 5", "2 ** 62", "10 ** 40"]
BIG_INTS = ["10 ** 9", "2 ** 8000", "(1 << 4000 << 4000)", "10 ** 4400", "(1 << 15000)"]
STR_LITS = ['"ab"', '""', '"x y"', '"\u0390"', '"\u00df"', '"\u0149"', '"\u0130"', '"aA"', '"9"', '"-"']  # no escapes:
# f-string fields may not hold a backslash (CPython 3.11)
WIDTHS = ["3", "8", "40", "5000", "60000", "99999", "100001"]

HELPERS = [
    # (racesl text, plain text)
    ("def h_rec(n: Int) -> Int:\n    if n <= 0:\n        return 1\n    return h_rec(n - 1) + h_rec(n - 2)\n",
     "def h_rec(n):\n    if n <= 0:\n        return 1\n    return h_rec(n - 1) + h_rec(n - 2)\n"),
    ("def h_deep(n: Int) -> Int:\n    return h_deep(n + 1) + 1\n",
     "def h_deep(n):\n    return h_deep(n + 1) + 1\n"),
    ("def h_rep(n: Int) -> Str:\n    return \"ab\" * n\n", "def h_rep(n):\n    return \"ab\" * n\n"),
    ("def h_small(n: Int where 0 <= it <= 3) -> Int:\n    return len(\"xy\" * (n * 20000))\n",
     "def h_small(n):\n    return len(\"xy\" * (n * 20000))\n"),
    ("def h_grow(n: Int) -> Int:\n    return len(n * 10 ** 9)\n", "def h_grow(n):\n    return len(n * 10 ** 9)\n"),
    ("def relay(v):\n    return h_grow(v)\n", "def relay(v):\n    return h_grow(v)\n"),
    ("def h_mark(xs: List[Int where 0 <= it <= 9]) -> Int:\n    xs[0] = \"abc\"\n    return len(xs[0] * 10 ** 9)\n",
     "def h_mark(xs):\n    xs[0] = \"abc\"\n    return len(xs[0] * 10 ** 9)\n"),
]

# Statements that must be refused or cut off, never answered wrongly: a type error, an
# unlisted method, a dunder, literals past CPython's int-to-str limit, heap addresses.
HOSTILE = ["a = len(5)", "s = s.casefold()", "a = x.__class__", "a = 1" + "0" * 4400,
           "a = a + 0x" + "f" * 5000, "t = str(lambda: 0)", "t = str(reversed(xs))", 't = f"{zip(xs, xs)}"',
           "s = str([lambda: a])", "a = len(str(1 << 15000))"]

RET = {"int": "Int", "str": "Str", "list": "List[Int]"}


@attrs.frozen
class Program:
    seed: int
    races: str  # module text; its environment is `e`
    python: str  # the same bodies as plain Python; the entry is `e`
    arg: int  # the input
    ret: str  # "int", "str" or "list"


class Grower:
    """One program: expressions and statements over a fixed set of typed variables."""

    def __init__(self, seed: int):
        self.r = random.Random(seed)
        self.loop_vars: list[str] = []
        self.depth = 0
        self.in_field = False

    def pick(self, *options):
        return self.r.choice(options)

    def chance(self, p: float) -> bool:
        return self.r.random() < p

    # ------------------------------------------------------------ expressions

    def int_expr(self, d: int = 3) -> str:
        r = self.r
        if d <= 0 or self.chance(0.25):
            return self.pick(*(["x", "a", "b"] + self.loop_vars + INT_LITS[:6] + ["len(s)", "len(xs)"]))
        k = r.randrange(24)
        e = lambda: self.int_expr(d - 1)
        if k < 5:
            return f"({e()} {self.pick('+', '-', '*', '*', '//', '%', '&', '|', '^')} {e()})"
        if k == 5:
            return f"({e()} ** {self.pick('2', '3', 'a', e())})"
        if k == 6:
            return f"({e()} << {self.pick('3', '64', '4000', 'b', e())})"
        if k == 7:
            return f"({e()} >> {e()})"
        if k == 8:
            return f"pow({e()}, {e()}, {self.pick('7', '1000003', e(), '(1 << 4000 << 4000) + 1')})"
        if k == 9:
            return self.pick(*BIG_INTS) if self.chance(0.5) else self.pick(*INT_LITS)
        if k == 10:
            return f"len({self.str_expr(d - 1)})"
        if k == 11:
            return f"len({self.list_expr(d - 1)})"
        if k == 12:
            return f"sum({self.list_expr(d - 1)})"
        if k == 13:
            return f"{self.pick('max', 'min')}({self.list_expr(d - 1)})"
        if k == 14:
            return f"{self.list_expr(d - 1)}.count({e()})"
        if k == 15:
            return f"{self.str_expr(d - 1)}.{self.pick('count', 'find')}({self.str_expr(d - 1)})"
        if k == 16:
            return f"({e()} if {self.cond(d - 1)} else {e()})"
        if k == 17:
            return f"h_rec({self.pick('a', 'x', '25', e())})"
        if k == 18:
            return self.pick("h_deep(x)", f"h_small({e()})", "relay(s)", "relay(x)", "h_mark(xs)")
        if k == 19:
            return self.pick("len(str(ys))", "len(f\"{ys}\")", "int(ys == zs)", "[ys, ys].count(zs)",
                             "len(set([tt, tt]))", "{tt: 1}.get(tt, 0)", "int(zs in [ys])",
                             "len(sorted([ys, zs]))", "(tt, tt).count(tt)")
        if k == 20:
            return f"int(str({e()}))"
        if k == 21:
            return f"abs(-{e()})"
        if k == 22:
            return f"sum({e()} for {self.fresh()} in range({self.pick('3', '10', 'a', e())}))"
        return f"ord({self.str_expr(d - 1)}[0])"

    def field(self, grow, d: int) -> str:
        """An f-string field: no nested f-string, and single quotes (CPython 3.11 rules)."""
        self.in_field = True
        try:
            return grow(d).replace('"', "'")
        finally:
            self.in_field = False

    def fresh(self) -> str:
        return self.pick("j", "k")

    def str_expr(self, d: int = 3) -> str:
        r = self.r
        if d <= 0 or self.chance(0.25):
            return self.pick("s", "t", *STR_LITS)
        k = r.randrange(16)
        e = lambda: self.str_expr(d - 1)
        if k < 2:
            return f"({e()} + {e()})"
        if k == 2:
            return f"({e()} * {self.int_expr(d - 1)})"
        if k == 3:
            return f"str({self.int_expr(d - 1)})"
        if k == 4:
            return f"str({self.list_expr(d - 1)})"
        if k == 5 and not self.in_field:
            w = self.pick(*WIDTHS)
            return (f'f"{{{self.field(self.int_expr, d - 1)}:{self.pick(">", "<", "^", "0")}{w}}}'
                    f'{{{self.field(self.str_expr, d - 1)}!r}}{{{self.pick("s", "t")}:>{self.pick(*WIDTHS)}}}"')
        if k == 6:
            return f"{e()}.{self.pick('upper', 'lower', 'title', 'swapcase', 'upper', 'strip')}()"
        if k == 7:
            return f"{e()}.replace({e()}, {e()})"
        if k == 8:
            return f"{e()}.zfill({self.int_expr(d - 1)})"
        if k == 9:
            return f"{e()}.join([{e()}, {e()}, {e()}])"
        if k == 10:
            return f"{e()}[{self.int_expr(d - 1)}:{self.int_expr(d - 1)}]"
        if k == 11:
            return f"{self.pick('hex', 'bin')}({self.int_expr(d - 1)})"
        if k == 12:
            return f"h_rep({self.int_expr(d - 1)})"
        if k == 13 and not self.in_field:
            return f'f"{{{self.field(self.int_expr, d - 1)}}}{{{self.field(self.str_expr, d - 1)}}}"'
        if k == 14:
            return f"({e()} if {self.cond(d - 1)} else {e()})"
        return f'"".join(sorted({e()}))'

    def list_expr(self, d: int = 3) -> str:
        r = self.r
        if d <= 0 or self.chance(0.3):
            return self.pick("xs", "[x, a, b]", "[]", "[1, 2, 3]")
        k = r.randrange(10)
        e = lambda: self.list_expr(d - 1)
        i = lambda: self.int_expr(d - 1)
        if k == 0:
            return f"[{i()}, {i()}]"
        if k == 1:
            return f"([{i()}] * {i()})"
        if k == 2:
            return f"({e()} + {e()})"
        if k == 3:
            return f"sorted({e()})"
        if k == 4:
            return f"list(range({i()}))"
        if k == 5:
            v = self.fresh()
            return f"[{v} * {i()} for {v} in {e()}]"
        if k == 6:
            return f"{e()}[::-1]"
        if k == 7:
            return f"{e()}[{i()}:{i()}]"
        if k == 8:
            return f"[len(w) for w in {self.str_expr(d - 1)}.split({self.pick('', chr(34) + ' ' + chr(34))})]"
        return f"sorted({e()}, reverse=True)"

    def cond(self, d: int = 2) -> str:
        k = self.r.randrange(7)
        if k < 3:
            return f"{self.int_expr(d)} {self.pick('<', '<=', '==', '!=', '>')} {self.int_expr(d)}"
        if k == 3:
            return f"{self.str_expr(d)} in {self.str_expr(d)}"
        if k == 4:
            return f"{self.int_expr(d)} in {self.list_expr(d)}"
        if k == 5:
            return f"not {self.cond(d - 1)}" if d > 0 else "x > 2"
        return f"({self.cond(d - 1)} and {self.cond(d - 1)})" if d > 0 else "a != b"

    # ------------------------------------------------------------ statements

    def stmts(self, indent: int, n: int) -> list[str]:
        return [line for _ in range(n) for line in self.stmt(indent)]

    def stmt(self, ind: int) -> list[str]:
        p = " " * ind
        k = self.r.randrange(20)
        deep = self.depth >= 2
        if k < 3:
            return [f"{p}{self.pick('a', 'b')} = {self.int_expr()}"]
        if k < 5:
            return [f"{p}{self.pick('s', 't')} = {self.str_expr()}"]
        if k == 5:
            return [f"{p}xs = {self.list_expr()}"]
        if k == 6:
            return [p + self.pick("a += b", "a *= a", "a <<= b", "b **= 2", "s += s", "s *= a", "t += s.upper()",
                                  "xs += xs", "xs.append(a)", "xs.extend(xs)", "a //= (b | 1)", "b -= 1")]
        if k == 7:
            return [f"{p}xs[{self.int_expr(1)}] = {self.int_expr(1)}"]
        if k == 8 and not deep:
            n = self.pick("3", "10", "30", "41", "x", "a")
            return [f"{p}for _ in range({n}):", f"{p}    ys = [ys, ys]", f"{p}    zs = [zs, zs]",
                    f"{p}    tt = (tt, tt)"]
        if k in (9, 10) and not deep:
            v = "i" if "i" not in self.loop_vars else "i2"
            head = f"{p}for {v} in range({self.pick('3', '8', '50', self.int_expr(1))}):"
            self.loop_vars.append(v)
            self.depth += 1
            body = self.stmts(ind + 4, self.r.randint(1, 3))
            self.depth -= 1
            self.loop_vars.pop()
            return [head, *body]
        if k == 11 and not deep:
            self.depth += 1
            body = self.stmts(ind + 8, self.r.randint(1, 2))
            self.depth -= 1
            return [f"{p}n = 0", f"{p}while n < {self.pick('5', '100', '10 ** 6', 'a')}:", f"{p}    n += 1",
                    f"{p}    if {self.cond(1)}:", *body]
        if k in (12, 13) and not deep:
            self.depth += 1
            then, other = self.stmts(ind + 4, self.r.randint(1, 2)), self.stmts(ind + 4, 1)
            self.depth -= 1
            return [f"{p}if {self.cond()}:", *then, f"{p}else:", *other]
        if k == 14:
            return [f"{p}assert {self.cond(1)}"]
        if k == 15:
            return [f"{p}s = s + {self.pick('s', 't', 's.upper()')}"]
        if k == 16:
            return [f"{p}if {self.cond(1)}:", f"{p}    return {self.ret_expr()}"]
        if k == 17 and self.chance(0.4):
            return [p + self.pick(*HOSTILE)]
        return [f"{p}a = {self.int_expr(2)}"]

    def ret_expr(self) -> str:
        return {"int": self.int_expr, "str": self.str_expr, "list": self.list_expr}[self.ret]()

    def program(self, seed: int) -> Program:
        self.ret = self.pick("int", "int", "str", "list")
        lines = ["a = x + 1", "b = 2", 's = "ab"', 't = "\u0390"', "xs = [x, 1, 2]", "ys = [x]", "zs = [x]",
                 "tt = (x,)"]
        body = ["    " + ln for ln in lines] + self.stmts(4, self.r.randint(2, 7)) + [f"    return {self.ret_expr()}"]
        arg = self.r.randint(0, 9)
        helpers = HELPERS
        races = "".join(h[0] + "\n" for h in helpers) + (
            f"env e(x: Int where 0 <= it <= 9) -> {RET[self.ret]}:\n"
            '    """Return a value computed from x."""\n' + "\n".join(body) + "\n")
        python = "".join(h[1] + "\n" for h in helpers) + "def e(x):\n" + "\n".join(body) + "\n"
        return Program(seed, races, python, arg, self.ret)


def grow(seed: int) -> Program:
    return Grower(seed).program(seed)


# ---------------------------------------------------------------- the CPython oracle

ORACLE = r"""
import json, resource, signal, sys
from racesl.runtime.contract import canonical
sys.setrecursionlimit(3000)
def alarm(*_):
    raise TimeoutError
signal.signal(signal.SIGALRM, alarm)
for line in sys.stdin:
    src, arg = json.loads(line)
    ns = {}
    signal.setitimer(signal.ITIMER_REAL, 0.5)
    try:
        exec(compile(src, "plain", "exec"), ns)
        out = canonical(ns["e"](arg))
    except AssertionError:
        out = "!assert"
    except RecursionError:
        out = "!recursion"
    except (MemoryError, TimeoutError):
        out = "LIMIT"
    except ValueError as exc:
        out = "LIMIT" if "limit" in str(exc) and "digits" in str(exc) else "!error"
    except Exception:
        out = "!error"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    if len(out) > 2_000_000:
        out = "LIMIT"
    print(json.dumps(out), flush=True)
"""


class Oracle:
    """A CPython worker under 2 GB; a program that overruns (one C call ignores the alarm)
    is killed, answers LIMIT, and a fresh worker takes over."""

    def __init__(self):
        self.proc = None

    def _start(self):
        from tests.hostile.limits import limited

        self.proc = subprocess.Popen(limited([sys.executable, "-c", ORACLE]), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, env=dict(os.environ, PYTHONHASHSEED="0"))

    def ask(self, src: str, arg) -> str:
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        self.proc.stdin.write(json.dumps([src, arg]) + "\n")
        self.proc.stdin.flush()
        import selectors

        sel = selectors.DefaultSelector()
        sel.register(self.proc.stdout, selectors.EVENT_READ)
        ready = sel.select(timeout=1.0)
        sel.close()
        line = self.proc.stdout.readline() if ready else ""
        if not line:
            self.close()
            return "LIMIT"
        return json.loads(line)

    def close(self):
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None


# ---------------------------------------------------------------- the driver and the verdict

FUEL = 20_000
WALL = 2.0


def _diagnostics_ok(checked) -> bool:
    from racesl.diagnostics import CODES

    texts = {cm.path: cm.text for cm in checked.modules.values()}
    from racesl.render import render

    for d in checked.diagnostics:
        if d.code not in CODES or d.span.line < 1 or d.span.col < 1:
            return False
        render(d, texts.get(d.path))
    return True


def drive(seeds: list[int], untrusted_every: int = 0) -> None:
    """Print one JSON line per seed (see the module docstring)."""
    from racesl.check import check_paths
    from racesl.library import Library
    from racesl.runtime.contract import canonical

    oracle = Oracle()
    tmp = Path(tempfile.mkdtemp(prefix="races_fuzz_"))
    ok_count = 0
    try:
        for seed in seeds:
            prog = grow(seed)
            path = tmp / f"p{seed}.races"
            path.write_text(prog.races, encoding="utf-8")
            rec: dict = {"seed": seed}
            t0 = time.monotonic()
            try:
                checked = check_paths([path])
                rec["checked"] = checked.ok
                rec["diag_ok"] = _diagnostics_ok(checked)
                if checked.ok:
                    lib = Library(checked)
                    env = lib.envs[f"p{seed}.e"]
                    t1 = time.monotonic()
                    r = lib.run(env, prog.arg, fuel=FUEL, wall=WALL)
                    rec["run_s"] = time.monotonic() - t1
                    rec["status"], rec["detail"] = r.status, r.detail
                    rec["value"] = canonical(r.value) if r.status == "ok" else None
                    rec["cpython"] = oracle.ask(prog.python, prog.arg)
                    ok_count += 1
                    if untrusted_every and ok_count % untrusted_every == 0:
                        from racesl.sandbox_runner import SandboxRunner

                        with SandboxRunner(lib, memory_mb=1024) as sb:
                            u = sb.run(env, prog.arg, fuel=FUEL, wall=WALL)
                        rec["u_status"] = u.status
                        rec["u_value"] = canonical(u.value) if u.status == "ok" else None
            except BaseException as exc:  # noqa: BLE001 - whatever escapes is the verdict: a failure
                import traceback

                rec["crash"] = "".join(traceback.format_exception(exc))[-3000:]
            rec["elapsed"] = time.monotonic() - t0
            rec["maxrss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
            print(json.dumps(rec), flush=True)
    finally:
        oracle.close()


CUT = {"fuel", "timeout", "size", "recursion"}


def judge(rec: dict) -> str | None:
    """Why one program's record fails (None: it passes): refusal with well-formed
    diagnostics, or a cut-off status, or CPython's answer; in time; no traceback."""
    if "crash" in rec:
        return "an exception escaped:\n" + rec["crash"]
    if not rec["diag_ok"]:
        return "a malformed diagnostic"
    if not rec["checked"]:
        return None
    if rec["elapsed"] > WALL + 3.0:
        return f"took {rec['elapsed']:.1f} s (wall {WALL} s)"
    if rec["maxrss_mb"] > 2048:
        return f"peak memory {rec['maxrss_mb']} MB"
    st, want = rec["status"], rec["cpython"]
    detail = rec.get("detail") or ""
    if "MemoryError" in detail or "RecursionError" in detail:
        return f"{st} from {detail[:200]} (a guard should have cut it off first)"
    if "u_status" in rec:
        pair = {st, rec["u_status"]}
        if not pair <= {"timeout", "fuel"} and (st, rec["value"]) != (rec["u_status"], rec["u_value"]):
            return f"in-process {st} {str(rec['value'])[:200]} but --untrusted {rec['u_status']} {str(rec['u_value'])[:200]}"
    if rec.get("value") and " at 0x" in rec["value"]:
        return f"a heap address in the answer: {rec['value'][:200]!r}"
    if st in CUT:
        return None
    if want == "LIMIT":
        return None if st in {"ok", "error"} else f"{st} where CPython ran past its limits"
    if st == "ok":
        return None if rec["value"] == want else f"answered {rec['value'][:200]!r}, CPython {want[:200]!r}"
    if st == "assert":
        return None if want == "!assert" else f"!assert, CPython {want[:200]!r}"
    if st == "error":
        return None if want in ("!error", "!recursion") else f"!error ({detail[:200]}), CPython {want[:200]!r}"
    return f"{st} ({detail[:200]}), CPython {want[:200]!r}"


if __name__ == "__main__":
    args = sys.argv[1:]
    every = 0
    if args[:1] == ["--untrusted"]:
        every, args = int(args[1]), args[2:]
    drive([int(a) for a in args], every)
