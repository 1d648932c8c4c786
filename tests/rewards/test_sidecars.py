"""Library sidecars (issue 44): one reader (racesl.rewards.libraries.read_sidecar, through
racesl.userfiles) that gives one line naming the file or the right library, whatever the
file holds or is; a scan of RACESL_LIBRARY_PATH that skips a bad neighbour with one warning
and still reads the good sidecar; a missing library said once with its hash; links resolved
when looking for the sidecar beside a task file."""

from __future__ import annotations

import json
import logging
import os
import shutil
import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from racesl.records import RecordError, read_task_records, write_verl
from racesl.rewards import libraries, load_beside, load_sidecar, score, verdict
from racesl.userfiles import UserFileError
from tests.support.tasks import TOY, run_racesc, wrap

FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                        HealthCheck.too_slow])


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    """A user library (not the stdlib) compiled by `racesc compile`: (folder, sort/select
    records, the sidecar's content)."""
    d = tmp_path_factory.mktemp("sidecars")
    (d / "shop.races").write_text(TOY, encoding="utf-8")
    run_racesc("compile", d / "shop.races", "-n", 40, "-o", d / "tasks.jsonl", "-q", "--operators",
               "sort=2-3,select=2-3", "--filter", "sort_orders=1", "--allow-shortcuts")
    records = [json.loads(line) for line in (d / "tasks.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(records) >= 30 and "sort" in {r["operator"] for r in records} <= {"sort", "select"}
    return d, records, json.loads((d / "tasks.jsonl.library.json").read_text(encoding="utf-8"))


def _reset() -> None:
    libraries._LIBS.clear()
    libraries._SCANNED.clear()
    libraries._SCANNED.add("stdlib")  # (the stdlib is not built: only what a sidecar provides is found)
    libraries._WARNED.clear()
    libraries._BOUND.clear()


@pytest.fixture
def fresh(monkeypatch):
    """An empty registry for this test (the process's own is put back after)."""
    for name in ("_LIBS", "_SCANNED", "_WARNED", "_BOUND"):
        monkeypatch.setattr(libraries, name, type(getattr(libraries, name))())
    _reset()
    monkeypatch.delenv("RACESL_LIBRARY_PATH", raising=False)


def _one_line(e: Exception, path) -> None:
    text = str(e)
    assert "\n" not in text and text.startswith(os.fspath(path)), text


def _gold(records) -> list[float]:
    return [score(r, wrap(r["answer"])) for r in records]


def _in_thread(fn, timeout: float = 20.0):
    """fn() in a thread; its result or exception, failing when it has not returned in time."""
    out: dict = {}

    def run():
        try:
            out["value"] = fn()
        except BaseException as e:  # noqa: BLE001 (handed to the test)
            out["error"] = e

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(timeout)
    assert not t.is_alive(), f"{fn} did not return in {timeout} s (a FIFO opened?)"
    return out


# ------------------------------------------------------------ hostile contents

def _good_text(side: dict) -> str:
    return json.dumps(side)


HOSTILE = {  # name → (file content from the good sidecar's dict, what the line says)
    "deep": (lambda s: "[" * 100_000 + "]" * 100_000, "nested too deeply"),
    "deep-in-modules": (lambda s: json.dumps(dict(s, modules={"m": "x"}))[:-2] + "," + '"n": ' + "[" * 100_000
                        + "]" * 100_000 + "}}", "nested"),
    "modules-list": (lambda s: json.dumps(dict(s, modules=["x"])), '"modules" must be an object'),
    "library-int": (lambda s: json.dumps(dict(s, library=7)), '"library" must be a hash'),
    "library-400-digits": (lambda s: json.dumps(dict(s))[:-1] + ', "x": ' + "9" * 5000 + "}", "too many digits"),
    "module-null": (lambda s: json.dumps(dict(s, modules={"m": None})), "not null"),
    "module-bad-name": (lambda s: json.dumps(dict(s, modules={"../m": "x"})), "no module name"),
    "no-modules": (lambda s: json.dumps(dict(s, modules={})), "empty"),
    "nan": (lambda s: json.dumps(dict(s))[:-1] + ', "seed": NaN}', "NaN"),
    "1e400": (lambda s: json.dumps(dict(s))[:-1] + ', "seed": 1e400}', "out of range"),
    "duplicate-key": (lambda s: '{"library": "x", ' + json.dumps(s)[1:], "appears twice"),
    "not-an-object": (lambda s: "[1, 2]", "must be an object"),
    "other-format": (lambda s: json.dumps(dict(s, format="other/1")), "not a racesl library"),
    "edited": (lambda s: json.dumps(dict(s, modules={k: v + "\n# edited\n" for k, v in s["modules"].items()})),
               "do not match its library"),
    "other-version": (lambda s: json.dumps(dict(s, racesl="0.0.1")), "written by racesl 0.0.1"),
    "surrogate": (lambda s: json.dumps(dict(s, modules={"shop": "module shop\n\ud800"})), ""),
    "not-utf8": (lambda s: b'{"format": "\xc3"}', "not UTF-8"),
    "does-not-compile": (lambda s: json.dumps(dict(s, modules={"shop": "env (\n"})), "does not compile"),
}


def write_hostile(path, name: str, side: dict) -> None:
    content = HOSTILE[name][0](side)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8", errors="surrogatepass")


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_sidecar_is_one_line_naming_the_file(toy, tmp_path, fresh, name):
    _, _, side = toy
    f = tmp_path / "t.jsonl.library.json"
    write_hostile(f, name, side)
    with pytest.raises(UserFileError) as e:
        load_sidecar(f)
    _one_line(e.value, f)
    assert HOSTILE[name][1] in str(e.value)
    assert not libraries._LIBS


def test_an_edited_sidecar_says_it_does_not_match_its_library(toy, tmp_path, fresh):
    """Its code edited, its hash kept: refused as not matching, not as another version's;
    refused too when the right library is registered already."""
    _, _, side = toy
    f = tmp_path / "e.library.json"
    write_hostile(f, "edited", side)
    with pytest.raises(UserFileError) as e:
        load_sidecar(f)
    assert "do not match its library" in str(e.value) and "edited after compile" in str(e.value)
    assert "another racesl version" not in str(e.value) and "racesl other than" not in str(e.value)
    good = tmp_path / "g.library.json"
    good.write_text(json.dumps(side), encoding="utf-8")
    assert load_sidecar(good).hash == side["library"]
    with pytest.raises(UserFileError, match="do not match its library"):
        load_sidecar(f)
    # a sidecar of before the version was recorded may be either
    old = tmp_path / "old.library.json"
    edited = json.loads(f.read_text(encoding="utf-8"))
    del edited["racesl"]
    old.write_text(json.dumps(edited), encoding="utf-8")
    _reset()
    with pytest.raises(UserFileError, match="edited after compile, or it was written by a racesl other than"):
        load_sidecar(old)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20)
FIELDS = ("format", "library", "modules", "racesl", "split", "environments")


@FAST
@given(value=JSON)
def test_property_any_json_is_one_line_or_the_library(toy, tmp_path, fresh, value):
    _, _, side = toy
    _reset()
    f = tmp_path / "any.library.json"
    f.write_text(json.dumps(value), encoding="utf-8")
    try:
        lib = load_sidecar(f)
    except UserFileError as e:
        _one_line(e, f)
    else:
        assert lib.hash == value["library"] == side["library"]


@FAST
@given(field=st.sampled_from(FIELDS), value=JSON | st.just(...), module_value=JSON)
def test_property_one_field_changed_is_one_line_or_the_right_library(toy, tmp_path, fresh, field, value,
                                                                      module_value):
    """The good sidecar with one field replaced (`...`: deleted), or one module's text
    replaced by any JSON: refused in one line, or the right library, never more."""
    _, _, side = toy
    _reset()
    data = dict(side)
    if value is ...:
        data.pop(field, None)
    else:
        data[field] = value
    if field == "environments":  # (a key no reader needs: the modules are changed instead)
        data["modules"] = {"shop": module_value}
    f = tmp_path / "one.library.json"
    f.write_text(json.dumps(data), encoding="utf-8")
    try:
        lib = load_sidecar(f)
    except UserFileError as e:
        _one_line(e, f)
    else:
        assert lib.hash == side["library"] and lib.sources() == side["modules"] == data["modules"]


# ------------------------------------------------------------ file kinds

KINDS = ("regular", "fifo", "folder", "link-to-file", "link-to-folder", "dangling", "loop", "dev-null", "missing")


def make_kind(path, kind: str, side: dict) -> None:
    """`path` made into a file of `kind` (a good sidecar where it is a file)."""
    target = path.with_name(path.name + ".target")
    if kind == "regular":
        path.write_text(json.dumps(side), encoding="utf-8")
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    elif kind == "link-to-file":
        target.write_text(json.dumps(side), encoding="utf-8")
        path.symlink_to(target)
    elif kind == "link-to-folder":
        target.mkdir()
        path.symlink_to(target)
    elif kind == "dangling":
        path.symlink_to(target)
    elif kind == "loop":
        path.symlink_to(path)
    elif kind == "dev-null":
        path.symlink_to("/dev/null")


@pytest.mark.parametrize("kind", KINDS)
def test_load_sidecar_of_any_file_kind(toy, tmp_path, fresh, kind):
    _, _, side = toy
    f = tmp_path / "k.library.json"
    make_kind(f, kind, side)
    got = _in_thread(lambda: load_sidecar(f))
    if kind in ("regular", "link-to-file"):
        assert got["value"].hash == side["library"]
    else:
        assert isinstance(got.get("error"), UserFileError), got
        _one_line(got["error"], f)


@FAST
@given(kinds=st.lists(st.sampled_from(KINDS) | st.sampled_from(sorted(HOSTILE)), min_size=1, max_size=4),
       good_first=st.booleans())
def test_property_scan_reads_the_good_sidecar_whatever_its_neighbours(toy, tmp_path_factory, fresh, caplog,
                                                                      kinds, good_first):
    """A folder on RACESL_LIBRARY_PATH: the good sidecar among neighbours of any kind and
    content is found, each bad neighbour is said once (at most), and nothing blocks."""
    _, _, side = toy
    _reset()
    d = tmp_path_factory.mktemp("scan")
    names = []
    for k, kind in enumerate(kinds):
        f = d / f"{'z' if good_first else 'a'}{k}.library.json"
        if kind in HOSTILE:
            write_hostile(f, kind, side)
        else:
            make_kind(f, kind, side)
        names.append(f.name)
    (d / "m.library.json").write_text(json.dumps(side), encoding="utf-8")
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="racesl"):
        for _ in range(3):  # a second scan says nothing again
            got = _in_thread(lambda: libraries.scan(d))
            assert "error" not in got, got
    assert side["library"] in libraries._LIBS
    lines = [r.getMessage() for r in caplog.records]
    assert all("\n" not in line for line in lines)
    for name in names:
        assert sum(name in line for line in lines) <= 1, lines


@FAST
@given(kinds=st.lists(st.sampled_from(KINDS) | st.sampled_from(sorted(HOSTILE)), min_size=1, max_size=4),
       at=st.integers(0, 4))
def test_property_library_path_entries_of_any_kind(toy, tmp_path_factory, fresh, monkeypatch, kinds, at):
    """RACESL_LIBRARY_PATH entries that are themselves files of any kind (or task files
    with such a sidecar beside them), the good sidecar at any place among them:
    `library_for` finds the library, and returns."""
    _, _, side = toy
    _reset()
    d = tmp_path_factory.mktemp("entries")
    entries = []
    for k, kind in enumerate(kinds):
        f = d / f"e{k}.json"
        if kind in HOSTILE:
            write_hostile(f, kind, side)
        else:
            make_kind(f, kind, side)
        if k % 2:  # a task file whose sidecar is that file
            (d / f"t{k}.jsonl").write_text("")
            if os.path.lexists(f):
                f.rename(d / f"t{k}.jsonl.library.json")
            f = d / f"t{k}.jsonl"
        entries.append(str(f))
    (d / "good.json").write_text(json.dumps(side), encoding="utf-8")
    entries.insert(min(at, len(entries)), str(d / "good.json"))
    monkeypatch.setenv("RACESL_LIBRARY_PATH", os.pathsep.join(entries))
    got = _in_thread(lambda: libraries.library_for(side["library"]))
    assert got.get("value") is not None and got["value"].hash == side["library"], got


def test_a_malformed_neighbour_does_not_hide_the_good_sidecar(toy, tmp_path, fresh, monkeypatch, caplog):
    """Regression: `"modules": ["x"]` (or `"library": 7`, or a FIFO) beside a good sidecar in a
    RACESL_LIBRARY_PATH folder stopped the scan before the good file: 0 of the right
    sort/select answers scored 1."""
    _, records, side = toy
    lp = tmp_path / "lp"
    lp.mkdir()
    write_hostile(lp / "a.library.json", "modules-list", side)
    write_hostile(lp / "b.library.json", "library-int", side)
    os.mkfifo(lp / "c.library.json")
    (lp / "d.library.json").write_text(json.dumps(side), encoding="utf-8")
    monkeypatch.setenv("RACESL_LIBRARY_PATH", f"{tmp_path / 'missing'}{os.pathsep}{lp}")
    with caplog.at_level(logging.WARNING, logger="racesl"):
        got = _in_thread(lambda: _gold(records))
    assert got["value"] == [1.0] * len(records)
    assert [verdict(r, wrap(r["answer"])).status for r in records] == ["ok"] * len(records)
    lines = [r.getMessage() for r in caplog.records]
    for name in ("a.library.json", "b.library.json", "c.library.json"):
        assert sum(name in line for line in lines) == 1, lines
    assert not any("d.library.json" in line or "not registered" in line for line in lines), lines


def test_a_fifo_on_the_library_path_does_not_hang_score(toy, tmp_path, fresh, monkeypatch):
    """Regression: a FIFO entry in RACESL_LIBRARY_PATH hung `score()` holding the scan lock."""
    _, records, side = toy
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "good.json").write_text(json.dumps(side), encoding="utf-8")
    monkeypatch.setenv("RACESL_LIBRARY_PATH", f"{tmp_path / 'pipe'}{os.pathsep}{tmp_path / 'good.json'}")
    got = _in_thread(lambda: _gold(records[:5]))
    assert got["value"] == [1.0] * 5


def test_a_missing_library_is_said_once_with_its_hash(toy, fresh, caplog):
    """Regression: a record whose library is not registered scored 0 without a word."""
    _, records, side = toy
    with caplog.at_level(logging.WARNING, logger="racesl"):
        assert _gold(records) == [0.0] * len(records)
        assert all(verdict(r, wrap(r["answer"])).status == "library_missing" for r in records)
    lines = [r.getMessage() for r in caplog.records if r.name.startswith("racesl")]
    assert len(lines) == 1, lines
    assert side["library"] in lines[0] and "RACESL_LIBRARY_PATH" in lines[0] and "register" in lines[0]
    assert "beside the data file" in lines[0]


def test_many_missing_libraries_are_said_at_most_a_bounded_number_of_times(toy, fresh, caplog):
    _, records, _ = toy
    with caplog.at_level(logging.WARNING, logger="racesl"):
        for k in range(libraries.MAX_WARNED + 30):
            score(dict(records[0], library=f"sha256:{k:064x}"), wrap(records[0]["answer"]))
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == libraries.MAX_WARNED + 1 and "no more of these warnings" in lines[-1]


def test_a_missing_library_warning_reaches_stderr_in_a_fresh_process(toy, tmp_path):
    """With no logging configured (a training script), the warning is on stderr, once."""
    import subprocess
    import sys

    d, _, side = toy
    code = ("import json, sys; from racesl.rewards import score, libraries; libraries._SCANNED.add('stdlib'); "
            "rs = [json.loads(l) for l in open(sys.argv[1])]; "
            "print(sum(score(r, '<answer>' + r['answer'] + '</answer>') for r in rs))")
    env = {k: v for k, v in os.environ.items() if k != "RACESL_LIBRARY_PATH"}
    p = subprocess.run([sys.executable, "-c", code, str(d / "tasks.jsonl")], capture_output=True, text=True,
                       timeout=120, env=env, check=False)
    assert p.returncode == 0 and p.stdout.strip() == "0.0", p.stderr
    assert p.stderr.count(side["library"]) == 1 and p.stderr.count("\n") == 1, p.stderr


# ------------------------------------------------------------ beside a data file

def _data_folder(tmp_path, toy):
    d, _, _ = toy
    data = tmp_path / "data"
    data.mkdir()
    shutil.copy(d / "tasks.jsonl", data / "real.jsonl")
    shutil.copy(d / "tasks.jsonl.library.json", data / "real.jsonl.library.json")
    return data


def test_readers_resolve_links_to_find_the_sidecar(toy, tmp_path, fresh):
    """Regression: a task file reached through a link has its sidecar beside the file the
    link names (where compile writes it); beside the link is looked at after."""
    _, records, _ = toy
    data = _data_folder(tmp_path, toy)
    (tmp_path / "link.jsonl").symlink_to(data / "real.jsonl")
    assert libraries.sidecar_beside(tmp_path / "link.jsonl") == data / "real.jsonl.library.json"
    assert libraries.read_tasks(tmp_path / "link.jsonl") == records
    assert _gold(records) == [1.0] * len(records)
    _reset()  # a sidecar beside the link only (the old writer's place) is found too
    (data / "real.jsonl.library.json").rename(tmp_path / "link.jsonl.library.json")
    assert libraries.sidecar_beside(tmp_path / "link.jsonl") == tmp_path / "link.jsonl.library.json"
    assert libraries.sidecars_at(tmp_path / "link.jsonl") == [tmp_path / "link.jsonl.library.json"]
    libraries.read_tasks(tmp_path / "link.jsonl")
    assert _gold(records) == [1.0] * len(records)


@pytest.mark.parametrize("form", ["jsonl", "verl-parquet", "hf-folder", "link"])
def test_load_beside_finds_the_sidecar_of_every_data_form(toy, tmp_path, fresh, form):
    _, records, side = toy
    data = _data_folder(tmp_path, toy)
    if form == "jsonl":
        target = data / "real.jsonl"
    elif form == "verl-parquet":
        target = data / "races.parquet"
        write_verl(records, target)
        shutil.copy(data / "real.jsonl.library.json", data / "races.parquet.library.json")
        (data / "real.jsonl.library.json").unlink()
    elif form == "hf-folder":
        target = tmp_path / "hf"
        (target / "data").mkdir(parents=True)
        shutil.copy(data / "real.jsonl.library.json", target / "library.json")
    else:
        target = tmp_path / "link.jsonl"
        target.symlink_to(data / "real.jsonl")
    assert _gold(records[:3]) == [0.0] * 3
    assert [lib.hash for lib in load_beside(target)] == [side["library"]]
    assert _gold(records) == [1.0] * len(records)


def test_load_beside_refuses_in_one_line(tmp_path, fresh):
    with pytest.raises(UserFileError) as e:
        load_beside(tmp_path / "missing.jsonl")
    _one_line(e.value, tmp_path / "missing.jsonl")
    (tmp_path / "t.jsonl").write_text("")
    os.mkfifo(tmp_path / "t.jsonl.library.json")
    got = _in_thread(lambda: load_beside(tmp_path / "t.jsonl"))
    _one_line(got["error"], tmp_path / "t.jsonl.library.json")
    (tmp_path / "empty").mkdir()
    assert load_beside(tmp_path / "empty") == []  # (a folder without sidecars: nothing to register)


# ------------------------------------------------------------ task records read as user files

@pytest.mark.parametrize("line, why", [
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ('{"id": NaN}', "NaN"),
    ('{"id": 1e400}', "out of range"),
    ('{"id": "a", "id": "b"}', "appears twice"),
    ("[" * 300 + "]" * 300, "nested more than"),
])
def test_task_records_refuse_hostile_json_lines(toy, tmp_path, line, why):
    _, records, _ = toy
    f = tmp_path / "t.jsonl"
    f.write_text(json.dumps(records[0]) + "\n" + line + "\n", encoding="utf-8")
    with pytest.raises(RecordError) as e:
        read_task_records(f)
    assert str(e.value).startswith(f"{f}:2: ") and why in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("kind", ["fifo", "folder", "dev-null"])
def test_a_task_file_that_is_no_regular_file_is_refused_without_opening(toy, tmp_path, kind):
    f = tmp_path / "t.jsonl"
    make_kind(f, kind, {})
    got = _in_thread(lambda: read_task_records(f))
    assert isinstance(got.get("error"), RecordError), got
    _one_line(got["error"], f)
    got = _in_thread(lambda: libraries.read_tasks(f))
    assert isinstance(got.get("error"), ValueError), got


# ------------------------------------------------------------ adapters given their data

def test_adapters_given_a_bad_data_path_or_sidecar_refuse_in_one_line(toy, tmp_path, fresh):
    from racesl.rewards import adapters

    _, records, side = toy
    with pytest.raises(UserFileError) as e:
        adapters.races_reward_for(tmp_path / "missing.jsonl")
    _one_line(e.value, tmp_path / "missing.jsonl")
    (tmp_path / "t.jsonl").write_text("")
    write_hostile(tmp_path / "t.jsonl.library.json", "modules-list", side)
    for call in (lambda: adapters.compute_score_for(tmp_path / "t.jsonl"),
                 lambda: adapters.reward_func_for(tmp_path / "t.jsonl"),
                 lambda: adapters.compute_score("racesl", wrap("A"), "A", {"record": json.dumps(records[0])},
                                                data=str(tmp_path / "t.jsonl"))):
        with pytest.raises(UserFileError) as e:
            call()
        _one_line(e.value, tmp_path / "t.jsonl.library.json")
    with pytest.raises(UserFileError, match="must be a path or a list of paths"):
        adapters.compute_score("racesl", wrap("A"), "A", {}, data=7)


def test_compute_score_reads_the_sidecar_of_its_data_once(toy, tmp_path, fresh, monkeypatch):
    """verl passes `reward_kwargs` on every call: the sidecar is read the first time only."""
    from racesl.rewards import adapters

    _, records, _ = toy
    data = _data_folder(tmp_path, toy)
    reads = []
    real = libraries.load_sidecar
    monkeypatch.setattr(libraries, "load_sidecar", lambda p: reads.append(p) or real(p))
    got = [adapters.compute_score("racesl", wrap(r["answer"]), r["answer"], {"record": json.dumps(r)},
                                  data=[str(data / "real.jsonl")])["score"] for r in records]
    assert got == [1.0] * len(records) and len(reads) == 1
