"""Every reader of the sidecar beside a task file (issue 44): `racesc score`, `audit`, `eval`
and `serve` refuse a hostile sidecar in one line `racesc: error: FILE: …` (never a
traceback, never a hang on a FIFO); and a reward computed from 8 threads through `score`
and through each adapter, for a user library registered only through the sidecar beside
the data file (no RACESL_LIBRARY_PATH), equals `racesc score`'s."""

from __future__ import annotations

import itertools
import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from racesl.cli.main import main
from racesl.records import write_verl
from racesl.rewards import libraries
from tests.rewards.test_sidecars import HOSTILE, _in_thread, make_kind, write_hostile
from tests.support.tasks import TOY, run_racesc, wrap

ENV = {k: v for k, v in os.environ.items() if k != "RACESL_LIBRARY_PATH"}


@pytest.fixture(scope="module")
def user(tmp_path_factory):
    """A user library compiled by `racesc compile` into data/tasks.jsonl (+ its sidecar),
    the same records as verl's Parquet and as a `--format hf`-shaped folder, each with the
    sidecar beside it, and completions: for each record the gold answer, every order of its
    labels (other orders reach the target too: re-executed), a wrong value and no answer."""
    d = tmp_path_factory.mktemp("readers")
    (d / "shop.races").write_text(TOY, encoding="utf-8")
    data = d / "data"
    data.mkdir()
    run_racesc("compile", d / "shop.races", "-n", 40, "-o", data / "tasks.jsonl", "-q", "--operators",
               "sequential=2-3,sort=2-3,select=2-3", "--filter", "sort_orders=1", "--allow-shortcuts")
    records = [json.loads(line) for line in (data / "tasks.jsonl").read_text(encoding="utf-8").splitlines()]
    side = data / "tasks.jsonl.library.json"
    write_verl(records, data / "tasks.parquet")
    shutil.copy(side, data / "tasks.parquet.library.json")
    pytest.importorskip("datasets")
    from datasets import Dataset

    from racesl.integrations import hf

    Dataset.from_list([hf.to_row(r) for r in records], features=hf.features()).save_to_disk(str(d / "tasks.hf"))
    shutil.copy(side, d / "tasks.hf" / "library.json")
    comps = []
    for r in records:
        texts = [wrap(r["answer"]), "no answer", wrap("7")]
        if r["operator"] in ("sort", "select"):
            texts += [wrap(", ".join(p)) for p in itertools.permutations(r["answer"].split(", "))]
        comps += [{"id": r["id"], "completion": t} for t in dict.fromkeys(texts)]
    (d / "completions.jsonl").write_text("".join(json.dumps(c) + "\n" for c in comps), encoding="utf-8")
    run_racesc("score", data / "tasks.jsonl", d / "completions.jsonl", "-o", d / "scores.jsonl", env=ENV)
    want = [json.loads(line)["score"] for line in (d / "scores.jsonl").read_text(encoding="utf-8").splitlines()]
    by_id = {r["id"]: r for r in records}
    gold_sorts = [s for c, s in zip(comps, want)
                  if by_id[c["id"]]["operator"] in ("sort", "select") and c["completion"] == wrap(by_id[c["id"]]["answer"])]
    assert gold_sorts and all(s == 1.0 for s in gold_sorts)  # racesc score found the library beside the file
    return d, records, comps, want


# ------------------------------------------------------------ the CLI readers

CLI_HOSTILE = ("deep", "modules-list", "library-int", "module-null", "nan", "1e400", "duplicate-key", "edited",
               "fifo", "folder")


@pytest.fixture
def fresh(monkeypatch):
    for name in ("_LIBS", "_SCANNED", "_WARNED", "_BOUND"):
        monkeypatch.setattr(libraries, name, type(getattr(libraries, name))())
    libraries._SCANNED.add("stdlib")
    monkeypatch.delenv("RACESL_LIBRARY_PATH", raising=False)


def _argv(command: str, tasks, d) -> list[str]:
    return {"score": ["score", str(tasks), str(d / "completions.jsonl")],
            "audit": ["audit", str(tasks)],
            "eval": ["eval", str(d / "no-such-model"), "--tasks", str(tasks), "-o", str(d / "eval-out")],
            "serve": ["serve", str(tasks), "--port", "0"]}[command]


@pytest.mark.parametrize("command", ["score", "audit", "eval", "serve"])
def test_every_reader_refuses_a_hostile_sidecar_in_one_line(user, tmp_path, fresh, capsys, command):
    """Regression: 16 of 20 runs of score, audit, eval and serve crashed (RecursionError,
    AttributeError, TypeError) on such sidecars."""
    if command == "eval":
        pytest.importorskip("torch")
        pytest.importorskip("transformers")
    d, _, _, _ = user
    side = json.loads((d / "data" / "tasks.jsonl.library.json").read_text(encoding="utf-8"))
    for k, name in enumerate(CLI_HOSTILE):
        folder = tmp_path / str(k)
        folder.mkdir()
        tasks = folder / "t.jsonl"
        shutil.copy(d / "data" / "tasks.jsonl", tasks)
        sidecar = folder / "t.jsonl.library.json"
        if name in HOSTILE:
            write_hostile(sidecar, name, side)
        else:
            make_kind(sidecar, name, side)
        got = _in_thread(lambda tasks=tasks: main(_argv(command, tasks, d)), timeout=60)
        _, err = capsys.readouterr()
        assert "error" not in got, (name, got)
        assert got["value"] == (1 if command == "serve" else 2), (name, err[-800:])  # (serve: 1 for its files)
        assert err.startswith(f"racesc: error: {sidecar}") and err.count("\n") == 1, (name, err[-800:])
        assert "Traceback" not in err


def test_readers_follow_a_link_to_the_sidecar_of_the_real_file(user, tmp_path, fresh):
    """Regression: compile through a link wrote the tasks through it; readers looked for the
    sidecar beside the link and scored every right sort answer 0 (`library_missing`)."""
    d, _, _, want = user
    (tmp_path / "link.jsonl").symlink_to(d / "data" / "tasks.jsonl")
    run_racesc("score", tmp_path / "link.jsonl", d / "completions.jsonl", "-o", tmp_path / "s.jsonl", env=ENV)
    got = [json.loads(line)["score"] for line in (tmp_path / "s.jsonl").read_text(encoding="utf-8").splitlines()]
    assert got == want


# ------------------------------------------------------------ threads, score and every adapter

SCRIPT = textwrap.dedent('''
    import json, sys, threading
    mode, data, comps_path = sys.argv[1:4]
    comps = [json.loads(line) for line in open(comps_path, encoding="utf-8")]

    if mode == "score":
        from racesl.rewards import load_beside, score
        from racesl.records import read_records
        load_beside(data)
        recs = {r["id"]: r for r in read_records(data)}
        one = lambda r, c: score(r, c)
    elif mode == "trl":
        from racesl.rewards.adapters import races_reward_for
        from racesl.records import read_records
        f = races_reward_for(data)
        recs = {r["id"]: r for r in read_records(data)}
        one = lambda r, c: f(prompts=[r["prompt"]], completions=[[{"role": "assistant", "content": c}]],
                             record=[json.dumps(r)])[0]
    elif mode == "verl":
        import pyarrow.parquet as pq
        from racesl.rewards.adapters import compute_score
        rows = pq.read_table(data).to_pylist()
        recs = {r["extra_info"]["id"]: r for r in rows}
        one = lambda row, c: compute_score(row["data_source"], c, row["reward_model"]["ground_truth"],
                                           row["extra_info"], data=data)["score"]
    elif mode == "openrlhf":
        from racesl.rewards.adapters import reward_func_for
        from racesl.records import read_records
        f = reward_func_for(data)
        recs = {r["id"]: r for r in read_records(data)}
        one = lambda r, c: float(f([r["prompt"] + c], [r["prompt"]], [json.dumps(r)])["rewards"][0])
    elif mode == "hf":
        from racesl.integrations import hf
        from racesl.rewards import score
        ds = hf.load_saved(data)
        recs = {row["id"]: hf.to_record(row) for row in ds}
        one = lambda r, c: score(r, c)
    elif mode == "nemo":
        from racesl.integrations.nemo_gym import verify_payload
        from racesl.records import read_records
        recs = {r["id"]: r for r in read_records(data)}
        folder = data.rsplit("/", 1)[0]
        one = lambda r, c: verify_payload({"record": r, "response": {"output": [{"type": "message",
                          "content": [{"type": "output_text", "text": c}]}]}}, libraries=[folder])["reward"]

    out = [None] * len(comps)
    start = threading.Barrier(8)

    def work(k):
        start.wait()  # every thread's first call at once: nothing is registered but what binding did
        for i in range(k, len(comps), 8):
            out[i] = one(recs[comps[i]["id"]], comps[i]["completion"])

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(json.dumps(out))
''')

MODES = {"score": "data/tasks.jsonl", "trl": "data/tasks.jsonl", "verl": "data/tasks.parquet",
         "openrlhf": "data/tasks.jsonl", "hf": "tasks.hf", "nemo": "data/tasks.jsonl"}


@pytest.mark.parametrize("mode", sorted(MODES))
def test_eight_threads_through_each_adapter_equal_racesc_score(user, mode):
    """A fresh process (nothing registered, no RACESL_LIBRARY_PATH, the stdlib never built):
    the adapter given its data file finds the sidecar beside it, and every completion's
    reward equals `racesc score`'s, with no missing-library warning."""
    if mode == "openrlhf":
        pytest.importorskip("torch")
    d, _, comps, want = user
    code = "from racesl.rewards import libraries; libraries._SCANNED.add('stdlib'); " + \
        f"exec(compile({SCRIPT!r}, 'script', 'exec'))"
    p = subprocess.run([sys.executable, "-c", code, mode, str(d / MODES[mode]), str(d / "completions.jsonl")],
                       capture_output=True, text=True, timeout=600, env=ENV, check=False)
    assert p.returncode == 0, p.stderr[-2000:]
    got = json.loads(p.stdout.strip().splitlines()[-1])
    assert got == want, [(c, g, w) for c, g, w in zip(comps, got, want) if g != w][:5]
    assert "not registered" not in p.stderr and "skipping" not in p.stderr, p.stderr[-2000:]


def test_without_its_sidecar_an_adapter_says_the_library_is_missing(user, tmp_path):
    """The control: the same data without the sidecar beside it scores the sort and select
    answers 0 and says so once, with the hash."""
    d, records, comps, want = user
    shutil.copy(d / "data" / "tasks.jsonl", tmp_path / "tasks.jsonl")
    code = "from racesl.rewards import libraries; libraries._SCANNED.add('stdlib'); " + \
        f"exec(compile({SCRIPT!r}, 'script', 'exec'))"
    p = subprocess.run([sys.executable, "-c", code, "trl", str(tmp_path / "tasks.jsonl"), str(d / "completions.jsonl")],
                       capture_output=True, text=True, timeout=600, env=ENV, check=False)
    assert p.returncode == 0, p.stderr[-2000:]
    got = json.loads(p.stdout.strip().splitlines()[-1])
    by_id = {r["id"]: r for r in records}
    needs = [by_id[c["id"]]["operator"] in ("sort", "select") for c in comps]
    assert any(w == 1.0 for w, n in zip(want, needs) if n)
    assert all(g == 0.0 for g, n in zip(got, needs) if n)
    assert [g for g, n in zip(got, needs) if not n] == [w for w, n in zip(want, needs) if not n]
    assert p.stderr.count(records[0]["library"]) == 1 and "not registered" in p.stderr
