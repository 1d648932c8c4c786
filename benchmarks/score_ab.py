"""Scoring A/B: the same completions scored by the racesl of one source tree, timed.

    python benchmarks/score_ab.py TREE TASKS.jsonl PASSES

TREE is a checkout (`git worktree add /tmp/old REF` for the commit before); run it for
both trees, alternating, in one session, and compare the medians (the machine drifts, so
only back-to-back runs compare). The completions are bench_compile.py's scoring shape for
sequential and parallel records: the reference answer, and the trace with one item replaced
by another record's value, each after ~200 characters of reasoning. Prints the CPU seconds
of one cold-cache pass (median) and the total reward, which must agree across trees.
"""

import json
import sys
import time

sys.path.insert(0, sys.argv[1])

from bench_compile import races_completions as completions  # noqa: E402  (its scoring shape)

from racesl.rewards import parse, score  # noqa: E402
from racesl.rewards.libraries import library_for  # noqa: E402

def main() -> None:
    records = [json.loads(line) for line in open(sys.argv[2], encoding="utf-8")]
    pairs = completions([r for r in records if r["operator"] in ("sequential", "parallel")], 0)
    library_for(records[0]["library"])  # built once, outside the timing (@verify items need it)
    times, total = [], 0.0
    for _ in range(int(sys.argv[3])):
        parse.expected_value.cache_clear()
        parse._parse.cache_clear()
        t0 = time.process_time()
        total = sum(score(r, c) for r, c in pairs)
        times.append(time.process_time() - t0)
    times.sort()
    print(json.dumps({"calls": len(pairs), "median_cpu_s": times[len(times) // 2], "total": total}))


if __name__ == "__main__":
    main()
