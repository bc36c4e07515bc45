"""Heavy reads in worker processes: the builds that fold a whole match (a replay, a record
download, a seat's options) run in a small fixed pool of processes of their own, so that the
server's event loop never stops for them: it sends a short request over a socket and waits for
the answer greenly (docs/architecture.md § Read workers, docs/benchmarks.md for the figures).

A worker loads the match itself from the store (its own connection: the server sends the store
URL, the match id and the version, never the events) and answers the encoded bytes and their
ETag. Built in the server process instead, in 3 ms slices, the loop turned at a fifth of its
idle rate and the server's core did the whole build (in a thread the GIL stopped the loop for
30-90 ms; `crapette bench replay`).

- The pool starts its processes lazily, on the first heavy read, with fork+exec of
  `python -m server.readmodels.builds FD` (a fresh interpreter: nothing of eventlet's hub or
  the server's locks is inherited); FD is its end of a Unix socket pair. After each answered
  job it starts one more, idle, while it has fewer than its size (`_start_ahead`).
- Workers run at `nice` NICENESS; a pool of long jobs (the analyses) also in SCHED_IDLE.
- A worker ends by itself when the server does: its socket reads end-of-file (the kernel closes
  the server's end whatever way the server ended), and a watchdog sees it re-parented.
- A worker that dies or stalls mid-build is killed and replaced, and the build tried once more
  on the new one; a second failure is a structured 503 (`ReadFailedError`).
- At most `max_waiting` builds wait for a free worker; one more is a structured 503
  (`ReadsBusyError`), answered at once.
- Fair shares (`FairShares`): an address has at most one job of a kind queued or running; one
  more is a 429 (`FairShareError`) with a Retry-After. The address is the request's
  (`set_requester`, from the HTTP layer); a job asked for outside a request has none.
- Memory: a worker whose resident size goes over `max_rss_mb` while it builds is killed, its job
  failed with a structured 422 (`TooCostlyError`) and the worker replaced on the next job; one
  found over it after a job is replaced too. Never the server.

Frames on the socket: a 4-byte big-endian length, then that many bytes. A request is one JSON
frame (`{"id", "kind", "store", "match_id", "version", ...}`); an answer is a JSON header frame
(`{"id", "ok": true, "etag", "live", "pid"}` or `{"id", "ok": false, "status", "error"}`) naming
the request it answers, then, if ok, one frame with the body. A request with `"payload": true`
is followed by one more frame, the bytes it works on (an uploaded record). A long build (an
analysis, server/readmodels/analysis_build.py) may send progress frames before its answer:
`{"id", "progress": [done, total]}`; the pool hands each to the caller's `progress` callback."""

from __future__ import annotations

import json
import logging
import os
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from eventstore import EventStore, open_store
from server.errors import (
    FairShareError,
    ReadFailedError,
    ReadRefusedError,
    ReadsBusyError,
    TooCostlyError,
)

log = logging.getLogger(__name__)

_LENGTH = struct.Struct(">I")
# A build longer than this is taken for a stalled worker (a 3,000-event replay: ~0.5-1 s).
TIMEOUT_S = 60.0

# How much lower a worker's CPU priority is than the server's (os.nice).
NICENESS = 10
# A pool whose jobs run for seconds on end (the analyses) may ask for Linux's SCHED_IDLE class
# besides: a niced worker still keeps its core for its time slice when the server wakes up
# (EEVDF lets the running task reach its slice's end, ~3 ms), so the table's move waits behind
# it; a SCHED_IDLE task is preempted at once by any other, and the core it runs on counts as
# free when the kernel places the waking server (docs/benchmarks.md § crapette bench abuse).
# The pool tells its worker through this variable of the environment.
SCHED_ENV = "CRAPETTE_WORKER_SCHED"

# A worker's resident size (RSS) bound: one over it is replaced (a 3,000-event replay takes ~40 MB,
# its one-file HTML ~80 MB).
MAX_RSS_MB = 512
# How often the server looks at a building worker's resident size.
MEMORY_POLL_S = 0.1

Job = dict[str, Any]
Progress = Callable[[int, int], None]

# The fair-share kind of each job kind: the kinds of one budget share one (an upload's check
# and its import are one kind of work).
SHARE_KIND = {"import": "upload", "verify": "upload"}


@dataclass(frozen=True)
class Answer:
    """A worker's build: the body, its strong ETag, whether the match was in play, and which
    process built it."""

    body: bytes
    etag: str
    live: bool
    pid: int


# What a worker runs for a request: server.readmodels.builds.run_job.
Build = Callable[[EventStore, Job, "Progress | None"], Answer]


# -- the worker process ------------------------------------------------------------------------


def _send(sock: socket.socket, *frames: bytes) -> None:
    for frame in frames:
        sock.sendall(_LENGTH.pack(len(frame)))
        sock.sendall(frame)


def _receive(sock: socket.socket) -> bytes | None:
    """One frame, or None at end-of-file before its first byte."""
    head = _exactly(sock, _LENGTH.size)
    if head is None:
        return None
    (length,) = _LENGTH.unpack(head)
    data = _exactly(sock, length)
    if data is None:
        raise ConnectionError("the other end closed mid-frame")
    return data


def _exactly(sock: socket.socket, length: int) -> bytes | None:
    buffer = bytearray(length)
    view = memoryview(buffer)
    done = 0
    while done < length:
        n = sock.recv_into(view[done:], min(length - done, 1 << 20))
        if n == 0:
            if done == 0:
                return None
            raise ConnectionError("the other end closed mid-frame")
        done += n
    return bytes(buffer)


def _open(stores: dict[str, EventStore], url: str) -> EventStore:
    store = stores.get(url)
    if store is None:
        options = {"pool_size": 1} if url.startswith(("postgresql:", "postgres:")) else {}
        store = stores[url] = open_store(url, **options)
    return store


def _watch_parent(parent: int) -> None:
    """End this process once the server that started it is gone (re-parented)."""
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)


def serve_socket(fd: int, run_job: Build) -> None:
    """A worker's life: answer requests on the socket `fd` with `run_job` (the builds of
    server/readmodels/builds.py) until it reads end-of-file."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the server; its end stops us
    # On a busy machine the server's own loop (moves) comes first, a heavy read after it.
    os.nice(NICENESS)
    if os.environ.get(SCHED_ENV) == "idle":
        idle_priority()
    threading.Thread(target=_watch_parent, args=(os.getppid(),), daemon=True).start()
    sock = socket.socket(fileno=fd)
    sock.setblocking(True)
    stores: dict[str, EventStore] = {}
    while True:
        try:
            request = _receive(sock)
        except ConnectionError:
            return
        if request is None:
            return
        job = json.loads(request)
        if job.get("payload"):
            try:
                job["payload"] = _receive(sock)
            except ConnectionError:
                return

        def progress(done: int, total: int, job_id: object = job.get("id")) -> None:
            _send(sock, json.dumps({"id": job_id, "progress": [done, total]}).encode())

        try:
            answer = run_job(_open(stores, job["store"]), job, progress)
            header = {"ok": True, "etag": answer.etag, "live": answer.live, "pid": answer.pid}
            header["id"] = job.get("id")
            frames: tuple[bytes, ...] = (json.dumps(header).encode(), answer.body)
        except ReadRefusedError as exc:
            refusal = {"ok": False, "status": exc.http_status, "error": exc.to_json()}
            refusal["id"] = job.get("id")
            frames = (json.dumps(refusal).encode(),)
        except Exception:  # a bug: the client gets a 500, this worker goes on
            traceback.print_exc()
            error = {"code": "internal", "message": "The server failed to build this read."}
            failure = {"ok": False, "status": 500, "error": error, "id": job.get("id")}
            frames = (json.dumps(failure).encode(),)
        try:
            _send(sock, *frames)
        except OSError:
            return


def idle_priority() -> bool:
    """Put this process in the SCHED_IDLE class (Linux); False where it cannot be (another
    system, or refused): it stays niced then."""
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError):
        return False
    return True


# -- the pool, in the server process -----------------------------------------------------------

# The address of the request this (green)thread serves (`set_requester`): each request runs in
# a greenthread of its own under eventlet, a thread of its own under threading.
_requester = threading.local()


def set_requester(address: str | None) -> None:
    """The address the jobs asked for from this (green)thread count against (None: none)."""
    _requester.address = address


def requester() -> str | None:
    """The address set by `set_requester` in this (green)thread, None if none."""
    address: str | None = getattr(_requester, "address", None)
    return address


class FairShares:
    """At most one job per (address, kind) at a time: one more is refused with a 429
    (`FairShareError`), after a pause of `pause_s` unless `max_paused` refusals wait already (a
    client looping on refusals then costs an idle greenthread per second, not a busy loop).

    These shares are this process's: several processes of one server (a cluster) count each
    its own, unless they share them in Redis (server/adapters/cluster.py `RedisShares`, which
    overrides `_claim` and `_give_back`)."""

    def __init__(self, pause_s: float = 1.0, max_paused: int = 64, retry_after_s: int = 2) -> None:
        self.pause_s = pause_s
        self.max_paused = max_paused
        self.retry_after_s = retry_after_s
        self._held: set[tuple[str, str]] = set()
        self._paused = 0
        self._lock = threading.Lock()
        self.refused = 0  # refusals so far (tests, benchmarks)

    def take(self, owner: str | None, kind: str) -> Callable[[], None]:
        """Hold `owner`'s share of `kind`; returns what gives it back. FairShareError if it is
        held already. An owner None (no request) is not counted."""
        if owner is None:
            return _nothing
        key = (owner, SHARE_KIND.get(kind, kind))
        if self._claim(key):
            return lambda: self._give_back(key)
        with self._lock:
            self.refused += 1
            pause = self.pause_s if self._paused < self.max_paused else 0.0
            self._paused += 1
        try:
            time.sleep(pause)  # green under eventlet: only this request waits
        finally:
            with self._lock:
                self._paused -= 1
        raise FairShareError(
            f"Your address has a job of this kind ({key[1]}) under way already: one at a "
            "time; try again once it is done.",
            kind=key[1],
            retry_after_s=self.retry_after_s,
        )

    @contextmanager
    def held(self, owner: str | None, kind: str) -> Iterator[None]:
        give_back = self.take(owner, kind)
        try:
            yield
        finally:
            give_back()

    def _claim(self, key: tuple[str, str]) -> bool:
        """Take the share `key` (owner, kind) if nobody holds it; False if held already."""
        with self._lock:
            if key in self._held:
                return False
            self._held.add(key)
            return True

    def _give_back(self, key: tuple[str, str]) -> None:
        with self._lock:
            self._held.discard(key)


def _nothing() -> None:
    pass


_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def rss_bytes(pid: int) -> int:
    """The resident size of process `pid` (0 if it cannot be read: gone, or not Linux)."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as statm:
            return int(statm.read().split()[1]) * _PAGE
    except (OSError, IndexError, ValueError):
        return 0


class _Worker:
    def __init__(
        self, argv: list[str], timeout_s: float, max_rss: int | None = None, sched: str = ""
    ) -> None:
        parent_end, child_end = socket.socketpair()
        env = {**os.environ, SCHED_ENV: sched} if sched else None
        try:
            fd = child_end.fileno()
            self.proc = subprocess.Popen(
                [*argv, str(fd)],
                pass_fds=(fd,),
                stdin=subprocess.DEVNULL,
                close_fds=True,
                env=env,
            )
        finally:
            child_end.close()
        self.sock = parent_end
        self.sock.settimeout(timeout_s)
        self.calls = 0
        self.max_rss = max_rss
        self.over_memory = 0  # the resident size it was killed at (0: never)

    def _watch_memory(self, done: threading.Event) -> None:
        """Kill the worker once its resident size passes `max_rss` (its socket then reads
        end-of-file, and the call fails with `over_memory` set)."""
        assert self.max_rss is not None
        while not done.wait(MEMORY_POLL_S):
            rss = rss_bytes(self.proc.pid)
            if rss > self.max_rss:
                self.over_memory = rss
                self.proc.kill()
                return

    def call(
        self, job: Job, progress: Progress | None = None, payload: bytes | None = None
    ) -> Answer:
        """The worker's answer to `job`; ConnectionError (or OSError) if it died, ValueError if
        it answered something else (the answer to another request: never reuse it then).
        Progress frames before the answer go to `progress`; `payload`, the bytes the job works
        on, follows the request."""
        done = threading.Event()
        if self.max_rss is not None:
            threading.Thread(target=self._watch_memory, args=(done,), daemon=True).start()
        try:
            return self._call(job, progress, payload)
        finally:
            done.set()

    def _call(self, job: Job, progress: Progress | None, payload: bytes | None) -> Answer:
        self.calls += 1
        request = {**job, "id": self.calls}
        if payload is None:
            _send(self.sock, json.dumps(request).encode())
        else:
            _send(self.sock, json.dumps({**request, "payload": True}).encode(), payload)
        while True:
            raw = _receive(self.sock)
            if raw is None:
                raise ConnectionError("the worker closed its socket")
            header = json.loads(raw)
            if "progress" not in header or header.get("id") != self.calls:
                break
            if progress is not None:
                progress(*header["progress"])
        if header.get("id") != self.calls:
            raise ValueError(f"answer {header.get('id')} to request {self.calls}")
        if not header["ok"]:
            raise ReadRefusedError(header["status"], header["error"])
        body = _receive(self.sock)
        if body is None:
            raise ConnectionError("the worker closed its socket")
        return Answer(body, header["etag"], header["live"], header["pid"])

    def stop(self) -> None:
        self.sock.close()
        if self.proc.poll() is None:
            self.proc.kill()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            log.warning("read worker %d did not end", self.proc.pid)


class ReadWorkers:
    """A fixed pool of `size` worker processes reading `store_url`; `run(job)` waits (greenly
    under eventlet) for one to build it."""

    def __init__(
        self,
        store_url: str,
        size: int = 1,
        max_waiting: int = 16,
        timeout_s: float = TIMEOUT_S,
        argv: list[str] | None = None,
        max_rss_mb: int | None = MAX_RSS_MB,
        shares: FairShares | None = None,
        idle_class: bool = False,
    ) -> None:
        """`idle_class`: the workers run in the SCHED_IDLE class besides their nice (`SCHED_ENV`):
        for a pool of long jobs nobody waits on with a table's urgency (the analyses)."""
        if size < 1:
            raise ValueError("a pool of read workers has at least one")
        self.store_url = store_url
        self.max_rss = None if max_rss_mb is None else max_rss_mb * 1024 * 1024
        self.shares = shares if shares is not None else FairShares()
        self.size = size
        self.max_waiting = max_waiting
        self.timeout_s = timeout_s
        self.argv = argv or [sys.executable, "-m", "server.readmodels.builds"]
        self._idle: list[_Worker] = []
        self._all: list[_Worker] = []
        self.sched = "idle" if idle_class else ""
        self._free = size
        self._starting = 0  # workers being started ahead (`_start_ahead`)
        self._waiting = 0
        self._closed = False
        self._cond = threading.Condition()
        self.restarts = 0  # workers replaced after they died (tests)

    def pids(self) -> list[int]:
        """The worker processes running now."""
        with self._cond:
            return [w.proc.pid for w in self._all if w.proc.poll() is None]

    def run(
        self,
        job: Job,
        progress: Progress | None = None,
        payload: bytes | None = None,
        shared: bool = True,
    ) -> Answer:
        """A worker's answer to `job`, waited for greenly. `shared`: counted against the
        requester's fair share of its kind (False: the caller holds that share itself)."""
        owner = requester() if shared else None
        with self.shares.held(owner, job["kind"]):
            return self._run(job, progress, payload)

    def _run(self, job: Job, progress: Progress | None, payload: bytes | None) -> Answer:
        worker = self._acquire()
        try:
            for attempt in (1, 2):
                if worker is None:
                    worker = self._start()
                try:
                    return worker.call({**job, "store": self.store_url}, progress, payload)
                except ReadRefusedError:  # an answer: the worker is fine
                    raise
                except (OSError, ConnectionError, ValueError) as exc:  # died, stalled, garbled
                    if worker.over_memory:
                        used = worker.over_memory // (1024 * 1024)
                        log.warning(
                            "read worker %d went over its memory bound on %s (%d MB): replaced",
                            worker.proc.pid, job["kind"], used,
                        )  # fmt: skip
                        self._forget(worker)
                        worker = None
                        bound = (self.max_rss or 0) // (1024 * 1024)
                        raise TooCostlyError(
                            f"Building this needed more than the {bound} MB a worker may use.",
                            limit_mb=bound,
                        ) from None
                    code = worker.proc.poll()
                    log.warning(
                        "read worker %d failed on %s (%s, exit %s)%s",
                        worker.proc.pid, job["kind"], exc, code,
                        "; trying a new one" if attempt == 1 else "",
                    )  # fmt: skip
                    self._forget(worker)
                    worker = None
                except BaseException:  # this greenthread was killed mid-call: the worker's
                    self._forget(worker)  # answer would wait in its socket for the next call
                    worker = None
                    raise
            raise ReadFailedError(
                "The server could not build this read (its worker failed twice); try again.",
                retry_after_s=1,
            )
        finally:
            answered = worker is not None  # (a failed one is None: no spare started for it)
            self._release(worker)
            if answered:
                self._start_ahead()

    def _acquire(self) -> _Worker | None:
        deadline = time.monotonic() + self.timeout_s
        with self._cond:
            if self._closed:
                raise ReadsBusyError("The server is stopping.", retry_after_s=1)
            if self._free == 0 and self._waiting >= self.max_waiting:
                raise ReadsBusyError(
                    f"The server is building {self.size + self._waiting} reads already; try "
                    "again in a moment.",
                    retry_after_s=1,
                )
            self._waiting += 1
            try:
                while self._free == 0:
                    left = deadline - time.monotonic()
                    if left <= 0 or self._closed:
                        raise ReadsBusyError(
                            "The server's read workers stayed busy; try again.", retry_after_s=1
                        )
                    self._cond.wait(left)
            finally:
                self._waiting -= 1
            self._free -= 1
            return self._idle.pop() if self._idle else None

    def _start(self) -> _Worker:
        worker = _Worker(self.argv, self.timeout_s, self.max_rss, self.sched)
        with self._cond:
            self._all.append(worker)
        return worker

    def _start_ahead(self) -> None:
        """After a job, while the pool has fewer than `size` processes, start one more, idle: its
        interpreter's start (~1 s of imports, several on a loaded machine) is then over before
        two jobs at once need it, instead of being the second one's wait (a small replay
        waited 2.6 s beside a reader's build, docs/benchmarks.md § crapette bench abuse). After
        the job, not with it: two interpreters starting at once would slow that job's start.
        Popen returns at once; the new process loads while it waits for its first request."""
        with self._cond:
            if self._closed or len(self._all) + self._starting >= self.size:
                return
            self._starting += 1
        try:
            worker = _Worker(self.argv, self.timeout_s, self.max_rss, self.sched)
        except OSError:
            log.warning("could not start a read worker ahead", exc_info=True)
            return
        finally:
            with self._cond:
                self._starting -= 1
        with self._cond:
            self._all.append(worker)
            if self._closed:
                self._all.remove(worker)
            else:
                self._idle.append(worker)
                self._cond.notify()
                return
        worker.stop()

    def _forget(self, worker: _Worker) -> None:
        worker.stop()
        with self._cond:
            self._all.remove(worker)
            self.restarts += 1

    def _release(self, worker: _Worker | None) -> None:
        bound = self.max_rss
        if worker is not None and bound is not None and rss_bytes(worker.proc.pid) > bound:
            self._forget(worker)  # grown past its bound after its job: a fresh one next time
            worker = None
        with self._cond:
            if worker is not None:
                if self._closed:
                    worker.stop()
                else:
                    self._idle.append(worker)
            self._free += 1
            self._cond.notify()

    def close(self) -> None:
        """Stop every worker (each also ends by itself when the server process ends)."""
        with self._cond:
            self._closed = True
            idle, self._idle = self._idle, []
            self._cond.notify_all()
        for worker in idle:
            worker.stop()
