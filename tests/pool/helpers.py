"""Small modules and a fake seed folder for the pool tests."""

from __future__ import annotations

from pathlib import Path

TINY = '''module {name}

type Nat = Int where 0 <= it <= 500

@tags("numbers", "arithmetic")
env {env}(n: Nat, k: Int where 1 <= it <= 9) -> Int where 1 <= it <= 1509:
    """Multiply n by 3, add {{k}}, and return the result."""
    return 3 * n + k
'''


def tiny(name: str = "tinypool", env: str = "triple_plus") -> str:
    return TINY.format(name=name, env=env)


def seed_folder(tmp: Path, envs: int = 2) -> Path:
    """A seed folder with one module of `envs` environments (the pool only counts them)."""
    d = tmp / "seeds"
    d.mkdir()
    body = "\n".join(f"env s{i}(n: Int) -> Int:\n    return n + {i}\n" for i in range(envs))
    (d / "fakeseed.races").write_text(f"module fakeseed\n\n# env commented_out(n: Int) -> Int\n{body}",
                                      encoding="utf-8")
    return d
