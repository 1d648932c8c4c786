"""[text_limits]: an environment's or module's own text limit in place of `[filters]
max_text` (issue 48: grid ports whose values pass 100 characters were never used), and the
"never used" reason that names the real cause: the text limit, a guessable answer, a type,
as the search counted them, instead of the types when some sampled runs pass."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from racesl.compile import Generator, compile_tasks
from racesl.library import load
from racesl.search.config import MAX_TEXT_LIMIT, CompileConfig, ConfigError, from_toml, parse_operators
from racesl.search.subsets import env_filters, text_limits
from racesl.search.unused import why_unused
from tests.support.tasks import run_racesc

WIDE = '''module wide

env banner(n: Int where 100 <= it <= 499) -> Str:
    """Write n followed by a dash 37 times over, then the letters ab: a text of 150 characters."""
    return (str(n) + "-") * 37 + "ab"

env lead(t: Str) -> Int:
    """Read the number that t starts with (its first three characters)."""
    return int(t[:3]) if t[:3].isdigit() else 2

env step(n: Int where 100 <= it <= 499) -> Int:
    """Add 7 to n, wrapping from 499 back to 100."""
    return (n - 100 + 7) % 400 + 100

env flip(n: Int where 100 <= it <= 499) -> Int:
    """Reflect n in the range: return 599 - n."""
    return 599 - n
'''

BANNER_LINE = ('  wide.banner: no usable output in 24 sampled runs (long_text 24): its values\' text is over 100 '
               'characters: give it a limit of its own in races.toml ([text_limits] "wide.banner" = N) or raise '
               '`--filter max_text=N` for every environment')


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    d = tmp_path_factory.mktemp("wide")
    (d / "wide.races").write_text(WIDE, encoding="utf-8")
    return d


@pytest.fixture(scope="module")
def lib(folder):
    return load([folder / "wide.races"])


def _compile(lib, workers: int = 1, **kw):
    cfg = CompileConfig(n=40, seed=2, operators=parse_operators("sequential=2-3,parallel=2,individual"), **kw)
    return compile_tasks(lib, cfg, workers=workers)


def test_150_characters_are_never_used_and_the_reason_names_the_text_limit(lib):
    _, summary = _compile(lib)
    assert summary.usage["wide.banner"] == 0
    why = summary.unused["wide.banner"]
    assert why.startswith("no usable output in 24 sampled runs (long_text 24)"), why
    assert "over 100 characters" in why and '[text_limits] "wide.banner" = N' in why, why
    assert "output type" not in why


def test_with_its_own_limit_it_is_used(lib):
    tasks, summary = _compile(lib, text_limits={"wide.banner": 200})
    assert summary.usage["wide.banner"] > 0 and "wide.banner" not in summary.unused
    assert any(len(t) == 150 + 2 for task in tasks for t in task.trace)  # '…ab' with its quotes
    # a module's limit does it too; an environment's own entry wins over its module's
    _, by_module = _compile(lib, text_limits={"wide": 200})
    assert by_module.usage["wide.banner"] > 0
    _, narrowed = _compile(lib, text_limits={"wide": 200, "wide.banner": 120})
    assert narrowed.usage["wide.banner"] == 0 and "over 120 characters" in narrowed.unused["wide.banner"]


def test_other_environments_keep_the_global_limit(lib):
    cfg = CompileConfig(text_limits={"wide.banner": 400})
    own = env_filters(lib.envs, cfg)
    assert set(own) == {"wide.banner"} and own["wide.banner"].max_text == 400
    assert own["wide.banner"].max_int == cfg.filters.max_int  # only the text limit is its own
    assert text_limits(lib.envs, CompileConfig()) == {}


def test_without_the_section_nothing_changes(lib):
    a, sa = _compile(lib)
    b, sb = _compile(lib, text_limits={})
    assert a == b and sa.unused == sb.unused


def test_the_reason_does_not_depend_on_workers(lib):
    one_tasks, one = _compile(lib, text_limits={"wide": 200})
    two_tasks, two = _compile(lib, workers=2, text_limits={"wide": 200})
    assert one_tasks == two_tasks and one.unused == two.unused and one.refused == two.refused


def test_passing_samples_with_search_refusals_name_the_refusals_not_the_types(lib):
    """The issue's case: some sampled runs pass, the environment composes with nothing, and
    the search dropped its runs for the text limit: the reason was the types."""
    env = lib.envs["wide.step"]
    why = why_unused(lib, CompileConfig(), env, refused=Counter({"long_text": 50, "guessable": 7}))
    assert why == ("24 of 24 sampled runs pass the filters, but the search dropped its runs 57 times "
                   "(long_text 50: over the text limit; guessable 7): its values' text is over 100 characters: "
                   'give it a limit of its own in races.toml ([text_limits] "wide.step" = N) or raise '
                   "`--filter max_text=N` for every environment")
    guess = why_unused(lib, CompileConfig(), env, refused=Counter({"guessable": 3}))
    assert "(guessable 3: its answer given away by the environment alone)" in guess and "item_share" in guess


def test_the_summary_line(folder):
    """Golden: the compile summary's line for the environment the text limit keeps out."""
    p = run_racesc("compile", "wide.races", "-n", 20, "-o", "t.jsonl", "--no-audit", cwd=folder, check=False)
    assert p.returncode in (0, 1), p.stderr
    assert BANNER_LINE in p.stdout.splitlines(), p.stdout
    (folder / "races.toml").write_text('[compile]\nsources = ["wide.races"]\n\n[text_limits]\nwide.banner = 200\n',
                                       encoding="utf-8")
    try:
        p = run_racesc("compile", "-n", 20, "-o", "t.jsonl", "--no-audit", "--json", cwd=folder, check=False)
        assert p.returncode in (0, 1), p.stderr
        assert "wide.banner" not in json.loads(p.stdout)["never_used"]
    finally:
        (folder / "races.toml").unlink()


def test_the_solver_prunes_by_the_environments_own_limit(tmp_path):
    (tmp_path / "long.races").write_text('''module long

env pad(n: Int where 100 <= it <= 499) -> Str where len(it) >= 140:
    """Write n, then dots up to 140 characters."""
    return str(n) + "." * 137

env size(t: Str) -> Int:
    """Return the length of t, less 100."""
    return len(t) - 100
''', encoding="utf-8")
    lib = load([tmp_path / "long.races"])
    assert Generator(lib, CompileConfig(n=10)).pruned.get("long.pad") == "long_text"
    assert "long.pad" not in Generator(lib, CompileConfig(n=10, text_limits={"long.pad": 300})).pruned


@pytest.mark.parametrize("value, shown", [
    (-1, "-1"), (True, "true"), (2.5, "2.5"), ("400", '"400"'), ([400], "[400]"),
    (MAX_TEXT_LIMIT + 1, str(MAX_TEXT_LIMIT + 1)), (int("1" + "7" * 400), "a number of 401 digits"),
])
def test_bad_limits_are_refused(tmp_path, value, shown):
    with pytest.raises(ConfigError) as e:
        from_toml({"text_limits": {"wide": value}}, tmp_path)
    assert e.value.message.startswith('[text_limits] "wide" must be a whole number of characters from 0 to')
    assert e.value.message.endswith(f"not {shown}") and (e.value.section, e.value.key) == ("text_limits", "wide")


def test_dotted_keys_and_the_section_itself(tmp_path):
    import tomllib

    data = tomllib.loads('[text_limits]\n"alpha" = 300\nwide.banner = 400\n')
    assert from_toml(data, tmp_path)["text_limits"] == {"alpha": 300, "wide.banner": 400}
    with pytest.raises(ConfigError, match=r"\[text_limits\] must be a table"):
        from_toml({"text_limits": 5}, tmp_path)


def test_unknown_names_are_refused_with_a_hint(lib):
    with pytest.raises(ConfigError, match=r"\[text_limits\] \"wide.baner\": no environment or module 'wide.baner' "
                                          r"\(did you mean 'wide.banner'"):
        Generator(lib, CompileConfig(n=10, text_limits={"wide.baner": 200}))


def test_the_cli_refuses_in_one_line(tmp_path):
    (tmp_path / "wide.races").write_text(WIDE, encoding="utf-8")
    for table in ('"wide" = -3', '"wide.baner" = 200', '"wide" = "many"'):
        (tmp_path / "races.toml").write_text(f"[text_limits]\n{table}\n", encoding="utf-8")
        p = run_racesc("compile", "wide.races", "-n", 10, "-o", "t.jsonl", cwd=tmp_path, check=False)
        assert p.returncode == 2 and p.stderr.strip().count("\n") == 0 and "Traceback" not in p.stderr, p.stderr
        assert p.stderr.strip().startswith("racesc: error: races.toml:2: [text_limits]"), p.stderr
        assert not (tmp_path / "t.jsonl").exists()
