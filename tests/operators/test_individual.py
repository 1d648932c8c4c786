"""The `individual` operator (the paper's RL_individual baseline): one environment a task,
through the same records, rewards, CLI and audit as the composed operators, mixable with
them; a @verify environment's task is judged by its checker."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from racesl.audit import audit_records
from racesl.catalogue.examples import outputs_shown
from racesl.compile import compile_tasks
from racesl.records import to_record
from racesl.rewards import score, verdict
from racesl.runtime.contract import parse_literal
from racesl.search.config import CompileConfig, ConfigError, from_toml, parse_operators
from racesl import templates
from tests.support.tasks import perturb, replay_chain, run_racesc, stdlib, wrap

N = 500


@pytest.fixture(scope="module")
def mixed():
    """A stdlib compile of individual and sequential tasks, as records."""
    lib = stdlib()
    cfg = CompileConfig(n=N, seed=4, operators=parse_operators("individual,sequential=2-4"))
    tasks, summary = compile_tasks(lib, cfg)
    return lib, [to_record(t, k, 4, lib.hash) for k, t in enumerate(tasks)], summary


def test_mixed_with_sequential_in_one_run(mixed):
    _, records, summary = mixed
    by_op = Counter(r["operator"] for r in records)
    assert len(records) == N and set(by_op) == {"individual", "sequential"}
    assert by_op["individual"] >= N // 3 and by_op["sequential"] >= N // 3, by_op
    assert {r["size"] for r in records if r["operator"] == "individual"} == {1}
    # the two draw on one pool of environments: individual tasks cover many of them
    assert len({r["chain"][0] for r in records if r["operator"] == "individual"}) >= 60


def test_records_replay_and_prompts_hold_no_answer(mixed):
    lib, records, _ = mixed
    for r in (r for r in records if r["operator"] == "individual"):
        assert len(r["chain"]) == len(r["trace"]) == len(r["settings"]) == 1
        assert r["trace"] == [r["answer"]] and r["answer"] != r["input"]
        assert replay_chain(lib, r["input"], r["chain"], r["settings"]) == r["trace"]  # independent re-execution
        env = lib.envs[r["chain"][0]]
        assert f"Input {env.input_name} = {r['input']}" in r["prompt"]
        assert r["answer"] not in outputs_shown(r["prompt"])  # no example shows it
        assert "<answer>" in r["prompt"] and r["prompt"].count("<answer>") == 1  # the format, no example answer
        assert r["extra"] == ({"verify": True} if env.terminal else {})


def test_gold_scores_one_and_wrong_scores_zero(mixed):
    _, records, _ = mixed
    ind = [r for r in records if r["operator"] == "individual"]
    for r in ind:
        assert score(r, wrap(r["answer"])) == 1.0
        assert verdict(r, wrap(r["answer"])).status == "ok"
        wrong = perturb(r["answer"])
        assert score(r, wrap(wrong)) == 0.0, (r["chain"], r["answer"], wrong)
        v = verdict(r, wrap(wrong))
        assert v.score == 0.0 and v.status in ("ok", "wrong_type"), v
        assert score(r, "no answer block") == 0.0
    strs = [r for r in ind if r["answer"].startswith("'")]
    assert strs, "some individual answers are Str"
    for r in strs:  # a Str written without quotes is read as that Str, as for loop and branch answers
        assert score(r, wrap(parse_literal(r["answer"]))) == 1.0


def test_audit_passes_on_individual_tasks():
    """Individual answers are one value each: the constant guess (the other half's most common
    answer), the environment's mode, echoing the input and the examples' outputs must all stay
    at chance, which the answer-share cap and the output thinning hold them to."""
    lib = stdlib()
    tasks, _ = compile_tasks(lib, CompileConfig(n=800, seed=1, operators=parse_operators("individual")))
    records = [to_record(t, k, 1, lib.hash) for k, t in enumerate(tasks)]
    report = audit_records(records)
    (cell,) = report.cells
    assert (cell.operator, cell.size, cell.n) == ("individual", 1, 800)
    assert {"constant", "env_mode", "echo_input", "example_output"} <= set(cell.results)
    assert report.ok, report.verdict()
    assert max(Counter(r["answer"] for r in records).values()) <= max(2, 0.03 * len(records))


@pytest.fixture(scope="module")
def factor_pairs(tmp_path_factory):
    """Individual tasks of numbers.factor_pair (a @verify environment: any factor pair is
    right) and one more environment, chosen by a file of names."""
    d = tmp_path_factory.mktemp("verify")
    (d / "envs.txt").write_text("numbers.factor_pair\nnumbers.digit_sum  # a second one\n", encoding="utf-8")
    lib = stdlib()
    cfg = CompileConfig(n=40, seed=2, operators=parse_operators("individual"), envs=str(d / "envs.txt"))
    tasks, summary = compile_tasks(lib, cfg)
    assert summary.environments["chosen"] == ["numbers.digit_sum", "numbers.factor_pair"]
    return [to_record(t, 1000 + k, 2, lib.hash) for k, t in enumerate(tasks)]


def _other_pair(r: dict):
    n = parse_literal(r["input"])
    a, _ = parse_literal(r["answer"])
    return next(((d, n // d) for d in range(a + 1, int(n ** 0.5) + 1) if n % d == 0), None)


def test_a_verify_environment_is_judged_by_its_checker(factor_pairs):
    fp = [r for r in factor_pairs if r["chain"] == ["numbers.factor_pair"]]
    assert fp and all(r["extra"] == {"verify": True} for r in fp)
    others = 0
    for r in fp:
        n = parse_literal(r["input"])
        assert score(r, wrap(r["answer"])) == 1.0
        other = _other_pair(r)
        if other is not None:  # not the recorded pair, yet right
            others += 1
            assert score(r, wrap(repr(other))) == 1.0 and verdict(r, wrap(repr(other))).status == "ok"
        assert score(r, wrap(repr((1, n)))) == 0.0  # a pair the checker refuses
        assert score(r, wrap(repr((2, n)))) == 0.0
    assert others, "some task has a second factor pair"


def test_racesc_score_over_a_mixed_file(mixed, factor_pairs, tmp_path):
    """`racesc score` (the library from the sidecar) gives gold answers 1, wrong ones 0, and a
    second factor pair 1, in an individual × 1 cell beside the sequential ones."""
    from racesl.records import write_jsonl
    from racesl.rewards import write_sidecar

    lib, records, _ = mixed
    records = records[:80] + factor_pairs
    out = tmp_path / "t.jsonl"
    write_jsonl(records, out)
    write_sidecar(lib, str(out) + ".library.json")
    rows, want = [], []
    for r in records:
        rows.append({"id": r["id"], "completion": wrap(r["answer"])})
        want.append(1.0)
        if r["operator"] == "individual":
            rows.append({"id": r["id"], "completion": wrap(perturb(r["answer"]))})
            want.append(0.0)
            other = _other_pair(r) if r["chain"] == ["numbers.factor_pair"] else None
            if other is not None:
                rows.append({"id": r["id"], "completion": wrap(repr(other))})
                want.append(1.0)
    comp = tmp_path / "c.jsonl"
    comp.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    scored = tmp_path / "scores.jsonl"
    s = json.loads(run_racesc("score", out, comp, "-o", scored, "--json", cwd=tmp_path).stdout)
    got = [json.loads(line)["score"] for line in scored.read_text(encoding="utf-8").splitlines()]
    assert got == want
    cells = {(c["operator"], c["size"]): c for c in s["cells"]}
    assert cells["individual", 1]["n"] == sum(1 for r in rows if records_by_id(records)[r["id"]]["operator"]
                                              == "individual")
    assert all(c["mean"] == 1.0 for (op, _), c in cells.items() if op == "sequential")


def records_by_id(records: list[dict]) -> dict:
    return {r["id"]: r for r in records}


# ---------------------------------------------------------------- configuration


def test_size_is_one():
    assert parse_operators("individual") == (("individual", 1, 1),)
    assert parse_operators("individual=1,sequential=2-12") == (("individual", 1, 1), ("sequential", 2, 12))
    with pytest.raises(ConfigError, match="its size is 1"):
        parse_operators("individual=2")
    with pytest.raises(ConfigError, match="its size is 1"):
        parse_operators("individual=1-3")
    assert "individual" not in {op for op, _, _ in CompileConfig().operators}  # asked for by name only


@pytest.mark.parametrize("value", ['"1"', "1", "true", "[1, 1]"])
def test_races_toml_spellings(tmp_path, value):
    import tomllib

    data = tomllib.loads(f"[operators]\nindividual = {value}\nsequential = \"2-3\"\n")
    assert from_toml(data, tmp_path)["operators"] == (("individual", 1, 1), ("sequential", 2, 3))


def test_template_is_replaceable_and_checked(tmp_path):
    assert templates.problem("individual", templates.INDIVIDUAL) is None
    assert "lacks {description}" in templates.problem("individual", "{x0} only")
    assert "did you mean {x0}" in templates.problem("individual", "{x} {description}")
    lib = stdlib()
    cfg = CompileConfig(n=20, seed=0, operators=parse_operators("individual"),
                        templates={"individual": "DO: {description} ON {input_name}={x0}"})
    tasks, _ = compile_tasks(lib, cfg)
    assert tasks and all(t.prompt.startswith("DO: ") and f"={t.input}" in t.prompt for t in tasks)


def test_a_generator_environment_makes_individual_tasks():
    """A @generate environment (examples/generators) draws its input with its answer: its
    individual tasks show the drawn input, never the answer, and score like any other."""
    from racesl.check import check_paths
    from racesl.library import Library
    from racesl.rewards import register

    from tests.support.tasks import REPO

    checked = check_paths([REPO / "examples" / "generators" / "unscramble.races"])
    assert checked.ok
    lib = Library(checked)
    register(lib)
    gen = "unscramble.unscramble"
    tasks, _ = compile_tasks(lib, CompileConfig(n=20, seed=0, operators=parse_operators("individual"),
                                                weights={gen: 50}))
    mine = [to_record(t, k, 0, lib.hash) for k, t in enumerate(tasks) if t.chain == (gen,)]
    assert len(mine) >= 5
    for r in mine:
        assert sorted(parse_literal(r["input"])) == sorted(parse_literal(r["answer"]))  # an anagram of it
        assert parse_literal(r["answer"]) not in r["prompt"]
        assert score(r, wrap(r["answer"])) == 1.0 and score(r, wrap(r["input"])) == 0.0
