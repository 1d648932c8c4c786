"""The wheel ships what racesc needs outside the checkout: the grammar and every stdlib
module (the same files as stdlib/), the hub templates and the verifiers taskset.
argv[1]: the wheel. Exit 1 with what is missing."""

import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
names = set(zipfile.ZipFile(sys.argv[1]).namelist())
want = {"racesl/_data/grammar/races.lark", "racesl_tasks/__init__.py",
        "racesl/integrations/templates/openenv/server/app.py", "racesl/integrations/templates/nemo_gym/app.py"}
want |= {f"racesl/_data/stdlib/{p.relative_to(ROOT / 'stdlib').as_posix()}" for p in (ROOT / "stdlib").rglob("*.races")}
missing = sorted(want - names)
if missing:
    sys.exit(f"the wheel lacks {len(missing)} file(s): {', '.join(missing[:10])}")
print(f"wheel: {len(names)} files, grammar and {sum(n.startswith('racesl/_data/stdlib/') for n in names)} stdlib files")
