"""The scoring processes behind `racesc serve`.

Each worker is a process forked from the server (it shares the task index), with an
address-space limit, that scores batches of `(task id, completion)` pairs sent over a
socket pair and sends each verdict back as soon as it has it; the server talks to it
without threads, from its event loop. Every completion has its own time limit, counted
from the answer before it (or from the batch's sending): a worker that passes it is killed
and replaced, that one completion gets status `timeout`, the answers already in stand, and
the rest of the batch goes on on the replacement. So one slow completion costs its
neighbours one time limit of waiting at most, never their scores (HOSTILE.md: budgets,
neighbours). A worker that dies while scoring (a signal, the memory limit) is replaced and
the completion it was on runs once more on its successor, then reports `error`. Workers
die with the server (die_with_parent).

A worker holds no descriptor but standard input/output/error and its own socket: the
first thing it does is close every other one it inherited. A replacement forks while
requests are open, and a client's socket held by a worker would keep that connection
from ever closing (the kernel sends FIN only when the last copy goes); the same goes for
the listening socket, the event loop's selector and the other workers' sockets. Closing
in the child is a rule that holds whatever the server has open, where a spawn or
forkserver start would re-send the whole task index to every replacement.

Every fork happens on the event loop's thread, the one that lives as long as the server:
the kernel's parent-death signal follows the thread that forked (runtime.children).
"""

from __future__ import annotations

import asyncio
import os
import pickle
import signal
import socket
import struct
import time

from racesl.rewards.score import verdict
from racesl.runtime.children import die_with_parent, limit_memory

CHUNK = 64  # the most completions one worker is handed at a time: a long list is spread over the workers
_HEADER = struct.Struct("!Q")  # the byte length of the pickle that follows


def judge(index, task_id, completion) -> tuple[float, str, str]:
    """(score, status, detail) of one completion: `verdict`, or `unknown_id`."""
    record = index.get(task_id)
    if record is None:
        return 0.0, "unknown_id", f"no task with id {task_id!r}"[:300]
    v = verdict(record, completion)
    return v.score, v.status, v.detail


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    buf = bytearray(n)
    view, got = memoryview(buf), 0
    while got < n:
        k = sock.recv_into(view[got:])
        if not k:
            raise EOFError
        got += k
    return bytes(buf)


def _work(sock: socket.socket, index, ppid: int, memory_mb: int) -> None:
    """A worker's life: read a batch, score it, send the answers; exit when the server goes."""
    die_with_parent(ppid)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the server's to handle: it stops them
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.set_wakeup_fd(-1)  # the server's event-loop wakeup socket is closed here
    limit_memory(memory_mb)
    try:
        while True:
            (n,) = _HEADER.unpack(_recv_exact(sock, _HEADER.size))
            batch = pickle.loads(_recv_exact(sock, n))
            for tid, c in batch:  # one frame a verdict: the server times each completion apart
                out = pickle.dumps(judge(index, tid, c), protocol=pickle.HIGHEST_PROTOCOL)
                sock.sendall(_HEADER.pack(len(out)) + out)
    except (EOFError, OSError):
        pass
    finally:
        os._exit(0)


def close_inherited(keep: int) -> None:
    """Close every descriptor above standard error except `keep` (in a fresh fork)."""
    try:
        top = os.sysconf("SC_OPEN_MAX")
    except (OSError, ValueError):
        top = 1 << 16
    os.closerange(3, keep)
    os.closerange(keep + 1, max(top, keep + 2))


class _Worker:
    """One scoring process (forked here, reaped here) and the server's end of its socket."""

    def __init__(self, index, memory_mb: int):
        here, there = socket.socketpair()
        ppid = os.getpid()
        pid = os.fork()
        if pid == 0:  # the worker: never returns into the server's code
            try:
                close_inherited(there.fileno())
                _work(there, index, ppid, memory_mb)
            finally:
                os._exit(0)
        there.close()
        here.setblocking(False)
        self.pid, self.sock, self._exit = pid, here, None
        self._buf = bytearray()  # bytes received from the worker and not yet read as a verdict

    def is_alive(self) -> bool:
        if self._exit is None:
            try:
                done, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:
                done, status = self.pid, 0
            if done:
                self._exit = status
        return self._exit is None

    async def send(self, batch: list) -> None:
        """Hand the worker a batch; its verdicts then come one by one through `answers`."""
        data = pickle.dumps(batch, protocol=pickle.HIGHEST_PROTOCOL)
        await asyncio.get_running_loop().sock_sendall(self.sock, _HEADER.pack(len(data)) + data)

    async def answers(self, most: int) -> list:
        """The verdicts the worker has sent since the last call: at least one, at most
        `most` (EOFError when it closed its socket: it died). A batch's verdicts often
        arrive together, and one receive then serves many of them."""
        loop = asyncio.get_running_loop()
        while True:
            out = self._frames(most)
            if out:
                return out
            data = await loop.sock_recv(self.sock, 1 << 16)
            if not data:
                raise EOFError("the worker closed its socket")
            self._buf += data

    def _frames(self, most: int) -> list:
        """The complete verdicts at the head of the receive buffer (taken out of it)."""
        buf, pos, out = self._buf, 0, []
        while len(out) < most and len(buf) - pos >= _HEADER.size:
            (n,) = _HEADER.unpack_from(buf, pos)
            end = pos + _HEADER.size + n
            if len(buf) < end:
                break
            out.append(pickle.loads(memoryview(buf)[pos + _HEADER.size:end]))
            pos = end
        if pos:
            del buf[:pos]
        return out

    def kill(self) -> None:
        """SIGKILL, and reap it (a stopped or busy process dies at once on SIGKILL)."""
        self.sock.close()
        if self.is_alive():
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            for _ in range(500):
                if not self.is_alive():
                    break
                time.sleep(0.01)


class Pool:
    """`size` workers scoring against `index`; `timeout` seconds a completion."""

    def __init__(self, index, size: int, timeout: float = 10.0, memory_mb: int = 2048):
        self.index, self.timeout, self.memory_mb = index, timeout, memory_mb
        self.size = size
        self.replaced = 0  # workers killed or found dead, and started anew
        self._all: list[_Worker] = []
        self._idle: asyncio.Queue | None = None

    def start(self) -> None:
        """Fork the workers (on the event loop's thread: call from inside the loop)."""
        self._idle = asyncio.Queue()
        for _ in range(self.size):
            w = _Worker(self.index, self.memory_mb)
            self._all.append(w)
            self._idle.put_nowait(w)

    @property
    def pids(self) -> list[int]:
        return [w.pid for w in self._all]

    def alive(self) -> int:
        return sum(w.is_alive() for w in self._all)

    def reap(self) -> int:
        """Replace the idle workers that have died (a health check calls this, so that a
        worker killed between requests is back before the next one); how many."""
        idle = [self._idle.get_nowait() for _ in range(self._idle.qsize())]
        dead = 0
        for w in idle:
            if not w.is_alive():
                w, dead = self._replace(w), dead + 1
            self._idle.put_nowait(w)
        return dead

    async def score(self, items: list) -> list[tuple[float, str, str]]:
        """(score, status, detail) of each `(task id, completion)` pair, in order. A list is
        spread over all the workers (in parts of at most CHUNK), so a request's completions
        are scored side by side."""
        size = min(CHUNK, -(-len(items) // self.size)) if items else 1
        if len(items) <= size:
            return await self._batch(items)
        parts = await asyncio.gather(*(self._batch(items[i:i + size]) for i in range(0, len(items), size)))
        return [v for part in parts for v in part]

    async def _batch(self, batch: list) -> list:
        w = await self._idle.get()
        if not w.is_alive():  # died while idle
            w = self._replace(w)
        out: list = []
        died = False  # the worker died on batch[len(out)] once already
        try:
            while len(out) < len(batch):
                rest = batch[len(out):]
                try:
                    async with asyncio.timeout(self.timeout):
                        await w.send(rest)
                    while len(out) < len(batch):
                        async with asyncio.timeout(self.timeout):  # (renewed with each verdict that comes)
                            out += await w.answers(len(batch) - len(out))
                        died = False
                except TimeoutError:  # this completion alone: the answers in stand
                    w = self._replace(w)
                    out.append((0.0, "timeout", f"no answer within {self.timeout:g} s: the worker was stopped"))
                    died = False
                except (EOFError, OSError):  # the worker died on this completion: once more, then error
                    w = self._replace(w)
                    if died:
                        out.append((0.0, "error", "the scoring worker died twice on this completion"))
                    died = not died
            return out
        except asyncio.CancelledError:  # the request went away: the worker may still be busy
            w = self._replace(w)
            raise
        finally:
            self._idle.put_nowait(w)

    def _replace(self, w: _Worker) -> _Worker:
        w.kill()
        new = _Worker(self.index, self.memory_mb)
        self._all[self._all.index(w)] = new
        self.replaced += 1
        return new

    def close(self) -> None:
        for w in self._all:
            w.kill()
        self._all.clear()
