"""The one reader of user files (racesl/userfiles.py): every file kind, every hostile JSON
shape gives one UserFileError line naming the file, or the value."""

from __future__ import annotations

import json
import os
import socket
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from racesl.userfiles import UserFileError, expect, load_json, loads_json, read_text, regular


def _one_line(e: Exception, name: str) -> None:
    text = str(e)
    assert "\n" not in text and name in text


def test_regular_file_is_read(tmp_path):
    f = tmp_path / "a.json"
    f.write_text('{"a": [1, 2]}')
    assert load_json(f) == {"a": [1, 2]}


@pytest.mark.parametrize("make", ["folder", "fifo", "socket", "device", "dangling", "loop", "missing"])
def test_non_regular_files_refused_without_opening(tmp_path, make):
    p = tmp_path / "x.json"
    if make == "folder":
        p.mkdir()
    elif make == "fifo":
        os.mkfifo(p)
    elif make == "socket":
        s = socket.socket(socket.AF_UNIX)
        s.bind(str(p))
    elif make == "device":
        p = type(p)("/dev/null")
    elif make == "dangling":
        p.symlink_to(tmp_path / "nowhere")
    elif make == "loop":
        p.symlink_to(p)
    done = threading.Event()
    result = {}

    def run():
        try:
            load_json(p, what="sidecar")
        except UserFileError as e:
            result["e"] = e
        done.set()

    threading.Thread(target=run, daemon=True).start()
    assert done.wait(5), "the reader blocked (a FIFO was opened?)"
    _one_line(result["e"], str(p))


def test_symlink_to_file_is_followed(tmp_path):
    (tmp_path / "real.json").write_text("[1]")
    (tmp_path / "link.json").symlink_to(tmp_path / "real.json")
    assert regular(tmp_path / "link.json") == (tmp_path / "real.json").resolve()
    assert load_json(tmp_path / "link.json") == [1]


def test_size_bound(tmp_path):
    f = tmp_path / "big.json"
    f.write_text("[" + "1," * 100 + "1]")
    with pytest.raises(UserFileError, match="more than"):
        load_json(f, max_bytes=50)


@pytest.mark.parametrize("text, why", [
    ("[" * 100_000 + "]" * 100_000, "deep"),
    ("NaN", "NaN"),
    ("1e400", "out of range"),
    ("1" * 5000, "digits"),
    ('{"a": 1, "a": 2}', "twice"),
    ("{", "not JSON"),
    (b"\xff\xfe", "UTF-8"),
])
def test_hostile_json(tmp_path, text, why):
    f = tmp_path / "h.json"
    f.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(UserFileError, match=why) as e:
        load_json(f) if isinstance(text, str) else read_text(f)
    _one_line(e.value, str(f))


def test_depth_bound_is_exact():
    assert loads_json("[" * 10 + "]" * 10, where="w", max_depth=10) is not None
    with pytest.raises(UserFileError, match="nested more than 10"):
        loads_json("[" * 11 + "]" * 11, where="w", max_depth=10)


def test_expect_names_field_and_kind():
    assert expect({}, dict, where="F", field="modules") == {}
    with pytest.raises(UserFileError, match='F: "modules" must be an object, not a list'):
        expect(["x"], dict, where="F", field="modules")
    with pytest.raises(UserFileError, match="not true or false"):
        expect(True, int, where="F", field="seed")


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=5), kids, max_size=4),
    max_leaves=30)


@settings(max_examples=200, deadline=None)
@given(value=_json)
def test_any_json_value_round_trips(value):
    assert loads_json(json.dumps(value), where="w") == value


@settings(max_examples=300, deadline=None)
@given(raw=st.binary(max_size=200))
def test_any_bytes_give_a_value_or_one_line(raw):
    try:
        loads_json(raw, where="FILE")
    except UserFileError as e:
        _one_line(e, "FILE")
