"""Generator environments in compiled tasks (racesl.search.engine `source_step`,
racesl.operators, racesl.rewards): the example's `unscramble` compiles with the stdlib into
tasks that start with it and never hold it mid-chain; gold answers score 1.0 and wrong ones
less, through `score` and `racesc score`; the drawn answer never appears in a prompt; the
same seed gives byte-identical output."""

from __future__ import annotations

import copy
import json
from collections import Counter
from pathlib import Path

import pytest

from racesl import resources
from racesl.admit.contract import perturbations
from racesl.check import check_paths
from racesl.compile import Generator
from racesl.library import Library
from racesl.records import to_record
from racesl.rewards import register, score, verdict
from racesl.sample.seeding import item_rng
from racesl.search.config import CompileConfig
from tests.support.tasks import run_racesc

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "generators" / "unscramble.races"
GEN = "unscramble.unscramble"
OPS = ("sequential", "parallel", "sort", "select", "branch", "loop")


@pytest.fixture(scope="module")
def records():
    """Records of every operator over the stdlib and the example, the generator's usage weight
    tilted up (as the admission's contract gate does): {operator: [record, ...]}."""
    checked = check_paths([resources.stdlib_dir(), EXAMPLE])
    assert checked.ok
    lib = Library(checked)
    register(lib)
    cfg = CompileConfig(n=100, seed=0, operators=tuple((op, 2, 3) for op in OPS))
    gen = Generator(lib, cfg)
    quota = {q: 1e6 if q == GEN else 1.0 for q in gen.search.names + gen.search.conditions}
    out: dict[str, list] = {op: [] for op in OPS}
    for i in range(240):
        op = OPS[i % len(OPS)]
        rng = item_rng(0, "generator-test", i)
        task = getattr(gen.builder, op)(rng, rng.choice((2, 3)), quota, Counter())
        if task is not None:
            out[op].append(to_record(task, i, 0, lib.hash))
    return out


def _drawn(record: dict) -> list[str]:
    """The answers the generator drew in a record (its steps' outputs)."""
    return [t for q, t in zip(record["chain"], record["trace"]) if q == GEN]


def test_generator_starts_chains_and_stands_alone(records):
    mine = [r for r in records["sequential"] if GEN in r["chain"]]
    assert mine
    for r in mine:
        assert r["chain"][0] == GEN and GEN not in r["chain"][1:], r["chain"]
    # sort and select draw chains whose every environment can follow every other (so that no
    # order is given away by the types, issue 45): a source, which only starts chains, is none
    for op in ("sort", "select"):
        assert records[op] and not any(GEN in r["chain"] or GEN in [c["env"] for c in r["extra"]["candidates"]]
                                       for r in records[op]), op
    assert any(GEN in r["chain"] for r in records["parallel"])
    for op in ("branch", "loop"):
        assert records[op] and not any(GEN in r["chain"] for r in records[op]), op


def test_the_drawn_answer_is_never_in_the_prompt(records):
    seen = 0
    for op in OPS:
        for r in records[op]:
            for answer in _drawn(r):
                seen += 1
                assert answer not in r["prompt"], (op, answer)
                assert answer.strip("'") not in r["prompt"].split(), (op, answer)
    assert seen >= 10


def test_gold_scores_one_and_wrong_answers_less(records):
    judged = Counter()
    for op in OPS:
        for r in records[op]:
            if GEN not in r["chain"]:
                continue
            assert score(r, f"<answer>{r['answer']}</answer>") == 1.0, r
            judged[op] += 1
            if op == "select":  # any choice that reaches the target is right (a letter-order-blind
                continue        # next step, vowel counts say, reaches it from x0 too): the next test
            wrong = [score(r, f"<answer>{w}</answer>") for w in perturbations(r["answer"], op)]
            # (a sort accepts every order that reaches the target: one near miss must fail there)
            assert wrong and (all if op in ("sequential", "parallel") else any)(s < 1.0 for s in wrong), r
    assert judged["sequential"] and judged["parallel"]


def test_a_sort_answer_takes_a_generator_first_only(records):
    """The reward's rule for a record that lists a generator among its candidates (compiled by
    an older racesl, or written by hand): its label anywhere but first scores 0."""
    r = copy.deepcopy(next(r for r in records["sort"] if r["answer"].count(",") >= 2))
    r["extra"]["candidates"][0]["env"] = GEN
    others = [lab for lab in r["answer"].split(", ") if lab != "A"]
    orders = [", ".join(others[:k] + ["A"] + others[k:]) for k in range(1, len(others) + 1)]
    moved = next(o for o in orders if o != r["answer"])  # the generator's label anywhere but first
    v = verdict(r, f"<answer>{moved}</answer>")
    assert v.score == 0.0 and "can only come first" in v.detail, v


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    d = tmp_path_factory.mktemp("gen")
    for name, workers in (("a", "1"), ("b", "1"), ("c", "2")):
        run_racesc("compile", str(EXAMPLE), "-n", "400", "--seed", "3", "--workers", workers,
                   "-o", str(d / f"{name}.jsonl"))
    return d


def test_same_seed_byte_identical(compiled):
    a, b, c = ((compiled / f"{n}.jsonl").read_bytes() for n in "abc")
    assert a == b == c and GEN.encode() in a  # (c: two worker processes)


def test_racesc_score_gold_and_wrong(compiled):
    recs = [json.loads(line) for line in (compiled / "a.jsonl").read_text().splitlines()]
    mine = [r for r in recs if GEN in r["chain"]]
    assert {r["operator"] for r in mine} >= {"sequential", "parallel"}
    for r in mine:
        if r["operator"] != "parallel":
            assert r["chain"][0] == GEN and GEN not in r["chain"][1:]
    mine = [r for r in mine if r["operator"] in ("sequential", "parallel")]  # (one right value per item)
    rows = [{"id": r["id"], "completion": f"<answer>{r['answer']}</answer>"} for r in mine]
    rows += [{"id": r["id"], "completion": f"<answer>{perturbations(r['answer'], r['operator'])[0]}</answer>"}
             for r in mine]
    gold, wrong = compiled / "gold.jsonl", compiled / "wrong.jsonl"
    gold.write_text("".join(json.dumps(x) + "\n" for x in rows[:len(mine)]))
    wrong.write_text("".join(json.dumps(x) + "\n" for x in rows[len(mine):]))
    for path, want in ((gold, 1.0), (wrong, None)):
        out = compiled / (path.stem + ".scores.jsonl")
        run_racesc("score", str(compiled / "a.jsonl"), str(path), "-o", str(out))
        scores = [json.loads(line)["score"] for line in out.read_text().splitlines()]
        assert len(scores) == len(mine)
        assert all(s == 1.0 for s in scores) if want else all(s < 1.0 for s in scores)


FACTORS = '''\
def draw(rng, level) -> Tuple[Int, Int]:
    a = rng.randint(10, 99)
    b = rng.randint(10, 30 + 30 * level)
    return (a * b, a)

def divides(n, d) -> Bool:
    return 10 <= d <= 99 and n % d == 0

@generate(draw)
@verify(divides)
env factor(n: Int where 100 <= it <= 9801) -> Int where 10 <= it <= 99:
    """Name a divisor of n that has two digits."""
'''


def test_a_verified_generator_makes_parallel_items_its_checker_scores(tmp_path):
    """With @verify a generator environment is also terminal: it stands alone in parallel
    items, and its checker accepts every right answer, not just the drawn one."""
    from racesl.compile import compile_tasks

    src = tmp_path / "factors.races"
    src.write_text(FACTORS)
    checked = check_paths([src])
    assert checked.ok and not checked.diagnostics  # (no W301: it is meant for parallel items)
    lib = Library(checked)
    register(lib)
    cfg = CompileConfig(n=20, seed=0, operators=(("parallel", 2, 4), ("sequential", 2, 3)))
    tasks, _ = compile_tasks(lib, cfg)
    recs = [to_record(t, i, 0, lib.hash) for i, t in enumerate(tasks)]
    assert recs and {r["operator"] for r in recs} == {"parallel"} and all(r["extra"]["verify"] for r in recs)
    other = 0
    for r in recs:
        assert score(r, f"<answer>{r['answer']}</answer>") == 1.0
        alt = []
        for n_text, d_text in zip(r["extra"]["inputs"], r["trace"]):
            n = int(n_text)
            alt.append(next((d for d in range(10, 100) if n % d == 0 and str(d) != d_text), int(d_text)))
        other += any(str(a) != t for a, t in zip(alt, r["trace"]))
        assert score(r, f"<answer>{alt}</answer>") == 1.0  # another divisor: the checker accepts it
        wrong = [int(t) + 1 if int(n_text) % (int(t) + 1) else int(t) - 1 for n_text, t in
                 zip(r["extra"]["inputs"], r["trace"])]
        assert score(r, f"<answer>{wrong}</answer>") < 1.0
    assert other
