"""The generator prompt: deterministic, every shape a target in turn (rare ones more often),
complete example modules that check on their own, and an excerpt that states the rules the
checker and the gates apply, read from their own tables."""

import re

from racesl import resources
from racesl.check import check_paths
from racesl.evolve.excerpt import EXCERPT, EXCERPT_CHARS, excerpt
from racesl.evolve.extract import blocks
from racesl.evolve.prompt import RARE, SKIP_SHAPES, build_prompt, env_source, generator_prompt, inventory, schedule
from racesl.types import builtins as table

EXCERPT_MODULES = {"mymod", "stepping", "hidden"}  # the excerpt's own examples


def test_same_inputs_same_text(stdlib_checked):
    a = build_prompt(stdlib_checked, 7, 3, 1)
    b = build_prompt(stdlib_checked, 7, 3, 1)
    assert a == b
    others = {build_prompt(stdlib_checked, 7, 3, i).text for i in range(6)}
    assert len(others) > 1  # the index changes the draw


def test_inventory_counts_producers_and_consumers(stdlib_checked):
    inv = {s.name: s for s in inventory(stdlib_checked.envs())}
    assert "numbers.fibonacci" in inv["Int"].producers and "numbers.fibonacci" in inv["Int"].consumers
    assert "numbers.is_prime" in inv["Bool"].producers
    ranked = inventory(stdlib_checked.envs())
    assert [s.rarity for s in ranked] == sorted(s.rarity for s in ranked)


def test_every_shape_is_a_target_in_turn_and_the_examples_sit_near_it(stdlib_checked):
    ranked = [s for s in inventory(stdlib_checked.envs()) if s.name not in SKIP_SHAPES]
    by_name = {s.name: s for s in ranked}
    turns = schedule(ranked, 0)
    assert sorted(set(turns)) == sorted(by_name) and len(turns) == len(ranked) + RARE
    assert all(turns.count(s.name) == 2 for s in ranked[:RARE])  # the rarest come up twice a round
    assert turns == schedule(ranked, 0) and turns != schedule(ranked, 1)  # seeded, deterministic
    per = 4
    prompts = [build_prompt(stdlib_checked, 0, step, i, per_step=per) for step in range(8) for i in range(per)]
    assert {p.shape for p in prompts[:len(turns)]} == set(by_name)  # any round covers every shape
    assert "grids.Grid" in {p.shape for p in prompts} and "Bool" not in {p.shape for p in prompts}
    for p in prompts[:12]:
        near = set(by_name[p.shape].producers) | set(by_name[p.shape].consumers)
        assert 2 <= len(p.seeds) <= 3 and set(p.seeds) <= near
        assert f"module {p.module}" in p.text and p.shape in p.text and "```races" in p.text
        for q in p.seeds:  # each example's own text is shown
            env = stdlib_checked.env(q)
            assert f"env {env.name}(" in p.text


def _shown_modules(text):
    return [b for lang, b in blocks(text) if lang == "races" and b.startswith("module ")
            and b.split()[1] not in EXCERPT_MODULES]


def test_every_example_module_checks_on_its_own(stdlib_checked, tmp_path):
    """What the prompt calls a complete module is one: each, renamed, type-checks beside the
    stdlib (racesc check's API) — no `Node`, `cross`, `hull` or `gcd` left undefined."""
    shown = 0
    for k, p in enumerate(build_prompt(stdlib_checked, 3, 0, i, per_step=30) for i in range(30)):
        for j, body in enumerate(_shown_modules(p.text)):
            name = f"shown_{k}_{j}"
            first = body.split("\n", 1)[0]
            path = tmp_path / f"{name}.races"
            path.write_text(body.replace(first, f"module {name}", 1), encoding="utf-8")
            checked = check_paths([path], [resources.stdlib_dir()])
            errors = [d.headline() for d in checked.diagnostics if d.is_error]
            assert checked.ok, (first, errors)
            shown += 1
    assert shown >= 60  # 2–3 a prompt


def test_env_source_slices_the_definition(stdlib_checked):
    env = stdlib_checked.env("numbers.factor_pair")
    src = env_source(stdlib_checked, env)
    assert src.rstrip().endswith('assert False, "n is prime"')
    assert "@verify(factor_pair_ok)" in src and "def factor_pair_ok(" in src  # the helper it names


def test_excerpt_is_short_and_its_examples_check(tmp_path):
    assert len(EXCERPT) < EXCERPT_CHARS
    found = blocks(EXCERPT)
    assert [lang for lang, _ in found] == ["races"] * 3
    envs = []
    for _, body in found:
        name = body.split()[1]
        assert name in EXCERPT_MODULES
        (tmp_path / f"{name}.races").write_text(body, encoding="utf-8")
        checked = check_paths([tmp_path / f"{name}.races"], [resources.stdlib_dir()])
        assert checked.ok, [d.headline() for d in checked.diagnostics]
        envs += [e.name for e in checked.envs(only_roots=True)]
    assert envs == ["rotate_by", "collatz_steps", "unscramble"]
    assert "@fuel(" in EXCERPT and "@generate(" in EXCERPT and "Example" in EXCERPT


def _listed(line_start: str) -> set[str]:
    line = next(x for x in EXCERPT.splitlines() if x.startswith(line_start))
    return set(re.findall(r"[a-z_]+", line.split(":", 1)[1]))


def test_the_excerpt_promises_exactly_the_checkers_table():
    """The builtins and methods a model is told about are the checker's (racesl.check.names
    reads the same table): nothing refused is promised (`rfind`), nothing allowed is missing."""
    from racesl.check import names as N

    assert _listed("- Builtins, and no others:") - {"and", "no", "others"} == set(N.BUILTINS)
    methods_line = EXCERPT[EXCERPT.index("- Methods, and no others"):EXCERPT.index("- Not allowed")]
    for receiver, allowed in (("Str", N.STR_METHODS), ("List", N.LIST_METHODS), ("Dict", N.DICT_METHODS),
                              ("Tuple", N.TUPLE_METHODS)):
        listed = re.search(rf"{receiver}: ([a-z_ ]+)", methods_line).group(1).split()
        assert set(listed) == set(allowed), receiver
    # the Python methods the language leaves out (the checker's hints name them) are never promised
    refused = {e.name for e in table.INSTEAD if e.receiver in ("Str", "List", "Dict", "Set", "*")}
    assert "rfind" in refused and not refused & set(re.findall(r"[a-z_]+", methods_line))
    assert "rfind" not in EXCERPT and "common str" not in EXCERPT


def test_the_gate_numbers_are_read_from_their_settings():
    from racesl.admit.context import AdmitConfig
    from racesl.search.config import Filters

    text = EXCERPT
    assert "integers above 500" in text and "text over 100 characters" in text and "0, 1" in text
    assert "at least 3 distinct values" in text and "75%" in text and "E604" in text
    assert "independently of the input" in text and "whole pool" in text and "f(g(x))" in text
    other = excerpt(AdmitConfig(min_distinct=5, max_dropped=0.5), Filters(max_int=77, max_text=12,
                                                                         drop_values=(0,)))
    assert "integers above 77" in other and "text over 12 characters" in other and "the values 0," in other
    assert "at least 5 distinct values" in other and "50%" in other


def test_generator_prompt_hook_over_a_pool(stdlib_checked):
    from racesl.pool import Pool

    class Gen:
        seed = 7

    text = generator_prompt(Pool.open("stdlib"), Gen(), 3, 1)
    assert text == build_prompt(stdlib_checked, 7, 3, 1).text


def test_the_module_rule_follows_admission(monkeypatch):
    """The prompt says how a module with a refused environment is judged, as racesl.admit does
    it: refused environments left out where racesl.admit.partial is there, else the module whole."""
    import sys

    from racesl.evolve.excerpt import module_rule

    assert "left out" in module_rule() and "left out" in EXCERPT
    monkeypatch.setitem(sys.modules, "racesl.admit.partial", None)
    assert "judged whole" in module_rule() and "left out" not in excerpt()


def test_any_seed_and_any_round_cover_every_shape(stdlib_checked):
    """Hypothesis over seeds and starting points: the schedule is a round of every shape (the
    rarest twice), so any len(schedule) consecutive candidates, from any step, see them all."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    ranked = [s for s in inventory(stdlib_checked.envs()) if s.name not in SKIP_SHAPES]

    @settings(max_examples=50, deadline=None)
    @given(st.integers(0, 2**63 - 1), st.integers(0, 10_000), st.integers(1, 64))
    def run(seed, start, per_step):
        turns = schedule(ranked, seed)
        assert turns == schedule(ranked, seed)
        window = [turns[(start + j) % len(turns)] for j in range(len(turns))]
        assert set(window) == {s.name for s in ranked}
        step, i = divmod(start, per_step)
        assert turns[(step * per_step + i) % len(turns)] == window[0]

    run()
