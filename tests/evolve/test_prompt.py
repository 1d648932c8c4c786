"""The generator prompt: deterministic, seeded from rare shapes, with a checked excerpt."""

from racesl.check import check_paths
from racesl.evolve.excerpt import EXCERPT
from racesl.evolve.extract import blocks
from racesl.evolve.prompt import RARE, SKIP_SHAPES, build_prompt, env_source, generator_prompt, inventory


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


def test_seed_envs_come_from_rare_shapes(stdlib_checked):
    ranked = [s for s in inventory(stdlib_checked.envs()) if s.name not in SKIP_SHAPES]
    rare = {s.name: s for s in ranked[:RARE]}
    common = ranked[-1]  # the most frequent shape (Int) is never asked for
    for i in range(12):
        p = build_prompt(stdlib_checked, 0, 0, i)
        assert p.shape in rare and p.shape != common.name
        near = set(rare[p.shape].producers) | set(rare[p.shape].consumers)
        assert 2 <= len(p.seeds) <= 3 and set(p.seeds) <= near
        assert f"module {p.module}" in p.text and p.shape in p.text and "```races" in p.text
        for q in p.seeds:  # each example's own text is shown
            env = stdlib_checked.env(q)
            assert f"env {env.name}(" in p.text


def test_env_source_slices_the_definition(stdlib_checked):
    env = stdlib_checked.env("numbers.factor_pair")
    src = env_source(stdlib_checked, env)
    assert src.rstrip().endswith('assert False, "n is prime"')
    assert "@verify(factor_pair_ok)" in src and "def factor_pair_ok(" in src  # the helper it names


def test_excerpt_is_short_and_its_example_checks(tmp_path):
    assert len(EXCERPT) < 2500
    (lang, body), = blocks(EXCERPT)
    assert lang == "races"
    (tmp_path / "mymod.races").write_text(body, encoding="utf-8")
    checked = check_paths([tmp_path / "mymod.races"])
    assert checked.ok, [d.headline() for d in checked.diagnostics]
    assert [e.name for e in checked.envs(only_roots=True)] == ["rotate_by"]


def test_generator_prompt_hook_over_a_pool(stdlib_checked):
    from racesl.pool import Pool

    class Gen:
        seed = 7

    text = generator_prompt(Pool.open("stdlib"), Gen(), 3, 1)
    assert text == build_prompt(stdlib_checked, 7, 3, 1).text
