"""`racesc serve TASKS... [--port P] [--host H] [--workers W]`: an HTTP reward server.

Loads the task records (and their library sidecars), forks W scoring workers and answers
`POST /score`, `/openrlhf` (`/get_reward`) and `/slime` until SIGINT or SIGTERM; see
docs/serve.md for the shapes and the trainer flags. One line on stderr once it listens:
`racesc serve: listening on http://HOST:PORT ...` (with `--port 0`, the port the system chose).
"""

from __future__ import annotations

import argparse
import os

from racesl.cli.common import count


def _seconds(text: str) -> float:
    try:
        s = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 < s <= 3600:
        raise argparse.ArgumentTypeError(f"must be more than 0 and at most 3600 seconds, not {text}")
    return s


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("tasks", nargs="+", metavar="TASKS", help="compiled task records (.jsonl or .parquet)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=count(0, 65535), default=8000, help="port (default 8000; 0: any free port)")
    p.add_argument("--workers", type=count(1, 256), default=max(1, os.cpu_count() or 1),
                   help="scoring processes (default: one a core)")
    p.add_argument("--timeout", type=_seconds, default=10.0, metavar="SECONDS",
                   help="time one completion may take; past it its worker is replaced and that "
                        "completion alone gets status timeout (default 10)")
    p.add_argument("--max-request-mb", type=count(1, 1024), default=8, metavar="MB",
                   help="largest request body; a larger one is refused with 413 too_large (default 8)")
    p.add_argument("--memory-mb", type=count(64, 1 << 20), default=2048, metavar="MB",
                   help="address space a worker may add to what it starts with (default 2048)")


def execute(args) -> int:
    import sys

    from racesl.cli.common import fail, need

    missing = need("racesc serve", "serve")
    if missing:
        return fail(missing)
    from racesl.serve import TaskIndex, serve
    from racesl.text import plural

    try:
        index = TaskIndex.load(args.tasks)
    except (OSError, ValueError, KeyError) as e:
        return fail(str(e), 1)

    def announce(addresses, pool) -> None:
        where = ", ".join(f"http://{a[0]}:{a[1]}" if ":" not in a[0] else f"http://[{a[0]}]:{a[1]}"
                          for a in addresses)
        print(f"racesc serve: listening on {where} ({plural(len(index), 'task')}, "
              f"{plural(pool.size, 'worker')}; POST /score, /openrlhf, /slime; GET /health)",
              file=sys.stderr, flush=True)

    try:
        serve(index, host=args.host, port=args.port, workers=args.workers, timeout=args.timeout,
              max_bytes=args.max_request_mb << 20, memory_mb=args.memory_mb, announce=announce)
    except OSError as e:
        return fail(f"cannot listen on {args.host}:{args.port}: {e.strerror or e}", 1)
    print("racesc serve: stopped", file=sys.stderr, flush=True)
    return 0
