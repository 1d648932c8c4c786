"""Work the language server hands to a fresh Python process (formatting a large document,
sampling on save): killed when superseded or too slow, so the server never waits on it."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys

log = logging.getLogger("racesl.lsp")


def kill(proc) -> None:
    if proc.returncode is None:
        try:
            proc.kill()
        except ProcessLookupError:
            pass


async def ask_child(module: str, request: dict, timeout: float, procs: set, what: str) -> dict | None:
    """Run `module.child_main()` in a fresh interpreter (this one's sys.path, hash seed 0)
    with `request` as JSON on its standard input; its JSON reply, or None when it failed
    (logged with `what`). Past `timeout` the child is killed and TimeoutError raised; a
    cancelled caller kills it too. `procs` holds the running children (for shutdown)."""
    script = f"import sys\nsys.path[:] = {sys.path!r}\nfrom {module} import child_main\nchild_main()\n"
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", script, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, env=dict(os.environ, PYTHONHASHSEED="0"))
    procs.add(proc)
    try:
        out, err = await asyncio.wait_for(proc.communicate(json.dumps(request).encode()), timeout)
    except asyncio.TimeoutError:
        kill(proc)
        await proc.wait()
        raise
    except asyncio.CancelledError:  # a newer request or an edit: the child's answer is of no use
        kill(proc)
        raise
    finally:
        procs.discard(proc)
    if proc.returncode != 0:
        tail = err.decode("utf-8", "replace").strip().splitlines()[-1:] or [f"exit code {proc.returncode}"]
        log.warning("racesl lsp: %s failed: %s", what, tail[0])
        return None
    return json.loads(out)
