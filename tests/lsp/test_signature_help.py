"""Signature help in-process (no client): the call at the cursor read from the text (nested,
keywords, lambdas, unclosed), every callee kind resolved, the builtin and method tables
read (never copied), decorators, and parameter offsets in each position encoding."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

pytest.importorskip("lsprotocol", reason="lsprotocol is not installed (pip install 'racesl[lsp]')")

from lsprotocol import types as L  # noqa: E402

from racesl.check import names as N  # noqa: E402
from racesl.lsp import index as I  # noqa: E402
from racesl.lsp import signature_help as SH  # noqa: E402
from racesl.lsp.context import View  # noqa: E402
from racesl.types import builtins as B  # noqa: E402
from tests.lsp.conftest import position  # noqa: E402
from tests.lsp.views import make_view, open_workspace, random_edit  # noqa: E402

SRC = '''\
import numbers
from numbers import gcd

def pick(rng, level) -> Int:
    """Draw a small n."""
    return rng.randint(0, level)

def both(x: Int, y: Str where it != "é🙂") -> Bool:
    return x > 0 and y != ""

@sample(n=pick)
@tags("demo")
env label(n: Int where 0 <= it <= 30, k: Int where 1 <= it <= 3) -> Str:
    """Write n and {k} as text."""
    xs = sorted([n, k], key=lambda a: -a, reverse=True)
    s = str(n)
    t = s.find("1", numbers.gcd(n, gcd(k, 2)))
    u = both(y="a", x=n)
    d = {n: k}
    v = d.get(n, max(xs, key=lambda a: a))
    return s + str(t) + "(" + str(u) + str(v)
'''


def view_of(tmp_path: Path, text: str = SRC, name: str = "sig.races", enc: str = "utf-16",
            good: str | None = None) -> View:
    """A View of `text`; `good`: a text analysed first (the last analysis that parsed)."""
    return make_view(tmp_path, text, name, enc, good)


def at(text: str, needle: str, offset: int = 0, nth: int = 0, enc: str = "utf-32") -> L.Position:
    return position(text, needle, nth, offset, enc)


def active(v: View, text: str, needle: str, offset: int = 0, nth: int = 0):
    """(label of the active signature, label of its active parameter or None), or None."""
    h = SH.signature_help(v, at(text, needle, offset, nth, v.enc), offsets=False)
    if h is None:
        return None
    s = h.signatures[h.active_signature]
    k = h.active_parameter
    return s.label, (s.parameters[k].label if k is not None and k < len(s.parameters) else None)


def test_the_call_at_the_cursor(tmp_path):
    v = view_of(tmp_path)
    assert not [d for d in v.a.diagnostics() if d.is_error], v.a.diagnostics()
    # a builtin; the active parameter by position, then by keyword; a lambda's commas are its own
    assert active(v, SRC, "[n, k]", 1) == ("sorted(xs, key=, reverse=) -> List", "xs")
    assert active(v, SRC, "key=lambda", 6) == ("sorted(xs, key=, reverse=) -> List", "key=")
    assert active(v, SRC, "reverse=True", 8) == ("sorted(xs, key=, reverse=) -> List", "reverse=")
    assert active(v, SRC, "key=lambda a: a)", 14) == ("max(xs, key=, default=)", "key=")
    # inside a list inside a call: the call
    assert active(v, SRC, "[n, k]", 4) == ("sorted(xs, key=, reverse=) -> List", "xs")
    # nested calls: the innermost wins; module members and from-imports
    assert active(v, SRC, 'find("1"', 5) == ("Str.find(sub, [start], [end]) -> Int", "sub")
    assert active(v, SRC, '"1", numbers', 4) == ("Str.find(sub, [start], [end]) -> Int", "[start]")
    assert active(v, SRC, "numbers.gcd(n", 12) == ("def gcd(a: Int, b: Int) -> Int", "a: Int")
    assert active(v, SRC, "gcd(k, 2)", 7) == ("def gcd(a: Int, b: Int) -> Int", "b: Int")
    # keywords name the parameter, whatever their order
    assert active(v, SRC, 'y="a"', 2) == ('def both(x: Int, y: Str where it != "é🙂") -> Bool',
                                          'y: Str where it != "é🙂"')
    assert active(v, SRC, "x=n)", 2)[1] == "x: Int"
    # a Dict local's method; the sampler's rng
    assert active(v, SRC, "d.get(n", 6) == ("Dict.get(key, [default])", "key")
    assert active(v, SRC, "randint(0", 10) == ("rng.randint(a, b) -> Int", "b")


def test_call_at_reads_the_text():
    def frame(text):
        return SH.call_at(text, 0, len(text))

    f = frame("x = f(lambda a, b: a + b, ")
    assert f.callee == ("name", "f") and f.argi == 1 and f.kw is None
    f = frame("x = m.g(1, key=[1, (2, 3)], k=")
    assert f.callee == ("attr", ("name", "m"), "g") and f.argi == 2 and f.kw == "k" and f.used == ["key"]
    assert frame('x = "ab".join(').callee == ("attr", ("str",), "join")
    assert frame("x = a.b.c(").callee == ("attr", ("expr",), "c")
    assert frame("x = f(1)(").callee == ("expr",)
    assert frame("x = (1, ") is None and frame("x = [f(1), ") is None
    assert frame("def f(a, ") is None and frame("env f(a: Int, ") is None
    assert frame("x = f(a == 1, b") .argi == 1  # `==` is not a keyword argument
    # the lexer closes a bracket left open before a new statement
    assert frame("    x = f(1,\n    return 2\n    z = ") is None
    assert frame("    x = f(1,\n    if a:\n        z = g(").callee == ("name", "g")


def test_outside_a_call_and_unknown_callees(tmp_path):
    v = view_of(tmp_path)
    assert active(v, SRC, "xs = sorted") is None  # before the call
    assert active(v, SRC, "reverse=True)", 13) is None  # after its closing parenthesis
    assert active(v, SRC, '"(" + str', 2) is None  # a parenthesis inside a string
    assert active(v, SRC, "n: Int where 0", 3) is None  # a definition's parameters are not a call
    assert active(v, SRC, "import numbers") is None
    text = SRC.replace("    return s +", "    w = mystery(1, \n    return s +")
    v2 = view_of(tmp_path, text, "unknown.races")
    assert active(v2, text, "mystery(1, ", 11) is None  # an unknown name
    # a position past the end of the document, and far past the end of a line
    assert SH.signature_help(v, L.Position(500, 0)) is None
    assert SH.signature_help(v, L.Position(3, 999)) is None


def test_unclosed_parenthesis_while_typing(tmp_path):
    typed = SRC.replace("    d = {n: k}\n", "    q = numbers.gcd(n, \n    d = {n: k}\n")
    v = view_of(tmp_path, typed, "typing.races")
    assert any(d.is_error for d in v.a.diagnostics())  # it does not parse
    assert active(v, typed, "numbers.gcd(n, ", 15) == ("def gcd(a: Int, b: Int) -> Int", "b: Int")
    # at the end of the document, the call not closed
    end = SRC + "\nenv last(s: Str) -> Str:\n    \"\"\"Last.\"\"\"\n    return s.replace(\"a\", "
    v = view_of(tmp_path, end, "eof.races")
    assert active(v, end, 'replace("a", ', 13) == ("Str.replace(old, new, [count]) -> Str", "new")


def test_receivers_of_unknown_type_offer_every_method_of_that_name(tmp_path):
    text = SRC.replace("    return s +", "    z = numbers.digit_list(n)[0:2].index(1, \n    return s +")
    v = view_of(tmp_path, text, "recv.races")
    h = SH.signature_help(v, at(text, ".index(1, ", 10), offsets=False)
    labels = [s.label for s in h.signatures]
    assert labels == ["Str.index(sub, [start], [end]) -> Int", "List.index(value, [start], [stop]) -> Int",
                      "Tuple.index(value, [start], [stop]) -> Int"]
    assert h.active_parameter == 1


def test_decorators(tmp_path):
    v = view_of(tmp_path)
    assert active(v, SRC, "@sample(n", 8) == (
        "@sample(n=(rng, level) -> Int, k=(rng, level) -> Int)", "n=(rng, level) -> Int")
    assert active(v, SRC, '@tags("demo', 7) == ("@tags(category: Str)", "category: Str")
    # while typing the next keyword: the first parameter without a sampler yet
    typed = SRC.replace("@sample(n=pick)", "@sample(n=pick, ")
    v2 = view_of(tmp_path, typed, "deco.races", good=SRC)
    assert active(v2, typed, "@sample(n=pick, ", 16) == (
        "@sample(n=(rng, level) -> Int, k=(rng, level) -> Int)", "k=(rng, level) -> Int")
    # with no analysis that parsed, the header's text gives the parameters
    v3 = view_of(tmp_path, typed, "deco2.races")
    assert active(v3, typed, "@sample(n=pick, ", 16)[1] == "k=(rng, level) -> Int"
    h = SH.signature_help(v, at(SRC, "@sample(n", 8))
    assert "helper(rng, level)" in h.signatures[0].documentation.value
    more = SRC.replace('@tags("demo")', '@tags("demo")\n@verify(both)\n@laws(idempotent)')
    v4 = view_of(tmp_path, more, "more.races")
    assert active(v4, more, "@verify(both", 8) == ("@verify(checker=(n: Int, answer: Str) -> Bool)",
                                                   "checker=(n: Int, answer: Str) -> Bool")
    h = SH.signature_help(v4, at(more, "@laws(idem", 6))
    assert h.signatures[0].label == "@laws(law)" and "involution" in h.signatures[0].documentation.value


def test_every_decorator_of_the_checker_has_a_signature():
    for name in N.DECORATORS:
        assert SH.decorator_sigs(name, [("x", "Int")], "Int"), name
    assert SH.decorator_sigs("nope", None) == ()


def test_builtin_signatures_agree_with_the_table():
    for e in B.builtins():
        sigs = SH.builtin_sigs(e.name)
        assert sigs, e.name
        for s in sigs:
            assert not any(p.label.startswith("arg") for p in s.params), f"{e.name}: hover's names disagree"
        kws = {p.name for s in sigs for p in s.params if p.name}
        assert kws == set(e.keywords), e.name
        widest = max(sum(p.positional for p in s.params if p.label != "...") for s in sigs)
        if e.max_args is None:
            assert any(p.variadic for s in sigs for p in s.params), e.name
        else:
            assert widest == e.max_args, e.name


def test_method_signatures_agree_with_the_table():
    for e in B.ENTRIES:
        if e.receiver is None:
            continue
        s = SH.method_sig(e.receiver, e.name)
        assert s is not None and s.label.startswith(f"{e.receiver}.{e.name}("), e.name
        pos = [p for p in s.params if p.positional]
        assert len(pos) == e.max_args, (e.receiver, e.name)
        assert sum(1 for p in pos if not p.label.startswith("[") and not p.label.endswith("=")) == e.min_args
        assert {p.name for p in s.params if p.name} == set(e.keywords), (e.receiver, e.name)
    assert SH.method_sig("Str", "append") is None


def test_docs_of_helpers_and_environments(tmp_path):
    v = view_of(tmp_path)
    text = SRC.replace("    return s +", "    w = label(n, \n    return s +")
    v = view_of(tmp_path, text, "docs.races")
    h = SH.signature_help(v, at(text, "label(n, ", 9))
    s = h.signatures[0]
    assert s.label == "env label(n: Int where 0 <= it <= 30, k: Int where 1 <= it <= 3) -> Str"
    assert "Write n and {k} as text." in s.documentation.value
    assert "setting" in s.parameters[h.active_parameter].documentation.value
    # an environment of an imported module, called as `m.name`
    text2 = SRC.replace("    return s +", "    w = numbers.add_k(n, \n    return s +")
    v2 = view_of(tmp_path, text2, "imported.races")
    h = SH.signature_help(v2, at(text2, "add_k(n, ", 9))
    s = h.signatures[0]
    assert s.label == "env add_k(n: Nat, k: Int where 1 <= it <= 50) -> Int where 1 <= it <= 550"
    assert h.active_parameter == 1 and "Add {k} to n" in s.documentation.value
    assert "0 <= it <= 500" in s.parameters[0].documentation.value  # the resolved input type
    h = SH.signature_help(v, at(SRC, "randint(0", 8))
    assert "random integer" in h.signatures[0].documentation.value  # CPython's own words
    h = SH.signature_help(v, at(SRC, "str(n)", 4))
    assert "text of a value" in h.signatures[0].documentation.value


@pytest.mark.parametrize("enc", ["utf-8", "utf-16", "utf-32"])
def test_parameter_offsets_in_the_client_units(tmp_path, enc):
    v = view_of(tmp_path, enc=enc)
    h = SH.signature_help(v, at(SRC, "x=n)", 2, enc=enc), offsets=True)
    s = h.signatures[0]
    codec = {"utf-8": "utf-8", "utf-16": "utf-16-le", "utf-32": "utf-32-le"}[enc]
    width = {"utf-8": 1, "utf-16": 2, "utf-32": 4}[enc]
    raw = s.label.encode(codec)
    got = []
    for p in s.parameters:
        a, b = p.label
        got.append(raw[a * width:b * width].decode(codec))
    assert got == ["x: Int", 'y: Str where it != "é🙂"']
    assert h.active_parameter == 0


def test_client_options():
    assert SH.client_options(None) == (False, False)
    caps = L.ClientCapabilities(text_document=L.TextDocumentClientCapabilities(
        signature_help=L.SignatureHelpClientCapabilities(signature_information=L.ClientSignatureInformationOptions(
            documentation_format=[L.MarkupKind.Markdown],
            parameter_information=L.ClientSignatureParameterInformationOptions(label_offset_support=True)))))
    assert SH.client_options(caps) == (True, True)


def test_plain_labels_and_text_for_a_client_without_offsets_or_markdown(tmp_path):
    v = view_of(tmp_path)
    h = SH.signature_help(v, at(SRC, "x=n)", 2), offsets=False, markdown=False)
    s = h.signatures[0]
    assert [p.label for p in s.parameters] == ["x: Int", 'y: Str where it != "é🙂"']
    assert all(p.label in s.label for p in s.parameters)
    assert isinstance(s.parameters[0].documentation, str)


SNIPPETS = ["(", ")", "[", "]", ",", ":", "=", "\n", "    ", '"', "'", "#", "@", "@sample(", "lambda ", "é🙂",
            "numbers.", "gcd(", "sorted(", ".find(", "k=", "env ", "def ", "\\", "f'{", "}", "\r\n"]


def test_random_edits_never_raise(tmp_path):
    """Edits mid-typing (unclosed brackets and strings, broken headers, odd line breaks):
    signature help at random positions answers or says nothing, and never raises."""
    rng = random.Random(11)
    ws, uri = open_workspace(tmp_path, SRC, "fuzz.races")  # (an editor's session starts from a file that parsed)
    text = SRC
    answered = 0
    for _ in range(120):
        text = random_edit(rng, text, SNIPPETS)
        ws.open(uri, text)
        for enc in ("utf-8", "utf-16"):
            v = View(ws, ws.analyze(uri), enc, I.Indexer())
            for _ in range(4):
                line = rng.randint(0, text.count("\n") + 1)
                h = SH.signature_help(v, L.Position(line, rng.randint(0, 40)), offsets=rng.random() < 0.5)
                answered += h is not None
                if h is not None:
                    assert 0 <= h.active_signature < len(h.signatures)
    assert answered > 0
