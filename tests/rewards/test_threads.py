"""Scoring from many threads at once in a fresh process gives what one thread gives: the
library lookup finishes under one lock before anyone reads it (verl, OpenRLHF and SkyRL
score in executor threads; a lookup marked done before its load finished scored right
sort/select answers 0 with `library_missing`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from racesl.rewards import libraries, write_sidecar
from tests.support.tasks import TOY, run_racesc, stdlib

SCRIPT = textwrap.dedent('''
    import json, sys, threading
    from racesl.rewards import verdict

    rows = [json.loads(line) for path in sys.argv[1:] for line in open(path, encoding="utf-8")]
    rows = [r for r in rows if r["operator"] in ("sort", "select")]
    start = threading.Barrier(16)
    out = [None] * len(rows)

    def work(k):
        start.wait()  # every thread's first call at once: the libraries are cold
        for i in range(k, len(rows), 16):
            v = verdict(rows[i], "<answer>" + rows[i]["answer"] + "</answer>")
            out[i] = [v.score, v.status]

    threads = [threading.Thread(target=work, args=(k,)) for k in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(json.dumps(out))
''')


@pytest.fixture(scope="module")
def task_files(tmp_path_factory):
    d = tmp_path_factory.mktemp("threads")
    (d / "shop.races").write_text(TOY, encoding="utf-8")
    ops = ("--operators", "sort=2-3,select=2-3", "--filter", "sort_orders=1")
    run_racesc("compile", d / "shop.races", "-n", 40, "-o", d / "user.jsonl", "-q", *ops, "--allow-shortcuts")
    run_racesc("compile", "stdlib", "-n", 40, "-o", d / "std.jsonl", "-q", *ops, "--allow-shortcuts")
    return d


def test_sixteen_threads_in_a_fresh_process_find_every_library(task_files):
    env = dict(os.environ, RACESL_LIBRARY_PATH=str(task_files / "user.jsonl"))  # a task file names its sidecar
    files = [task_files / "user.jsonl", task_files / "std.jsonl"]
    p = subprocess.run([sys.executable, "-c", SCRIPT, *map(str, files)], capture_output=True, text=True,
                       timeout=300, env=env)
    assert p.returncode == 0, p.stderr
    got = json.loads(p.stdout)
    assert len(got) >= 60
    assert all(v == [1.0, "ok"] for v in got), [v for v in got if v != [1.0, "ok"]][:5]


def test_the_library_path_takes_sidecars_task_files_and_hf_folders(tmp_path):
    lib = stdlib()
    (tmp_path / "hf" / "data").mkdir(parents=True)
    write_sidecar(lib, tmp_path / "hf" / "data" / "library.json")
    write_sidecar(lib, tmp_path / "t.jsonl.library.json")
    (tmp_path / "t.jsonl").write_text("")
    write_sidecar(lib, tmp_path / "any-name.json")
    assert libraries.sidecars_at(tmp_path / "hf") == [tmp_path / "hf" / "data" / "library.json"]
    assert libraries.sidecars_at(tmp_path / "t.jsonl") == [tmp_path / "t.jsonl.library.json"]
    assert libraries.sidecars_at(tmp_path / "any-name.json") == [tmp_path / "any-name.json"]
    assert libraries.sidecars_at(tmp_path) == [tmp_path / "t.jsonl.library.json"]
    assert libraries.sidecars_at(tmp_path / "missing.jsonl") == [tmp_path / "missing.jsonl"]  # looked for later


def test_an_hf_folder_on_the_library_path_is_found_in_a_fresh_process(tmp_path):
    lib = stdlib()
    (tmp_path / "hf" / "data").mkdir(parents=True)
    write_sidecar(lib, tmp_path / "hf" / "data" / "library.json")
    code = ("from racesl.rewards import libraries; libraries._SCANNED.add('stdlib'); "  # the stdlib is not built
            f"print(libraries.library_for({lib.hash!r}) is not None)")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, RACESL_LIBRARY_PATH=str(tmp_path / "hf")))
    assert p.stdout.strip() == "True", p.stderr
