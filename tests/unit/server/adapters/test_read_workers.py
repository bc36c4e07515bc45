"""Read workers (server/adapters/workers.py): real worker processes on a real SQLite store build
replays, records and options; a dead worker is replaced, one that keeps dying is a structured 503, a
full queue is a structured 503 at once, and closing the pool ends the processes."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.history import finished_matches, long_live_match
from eventstore import open_store
from eventstore.postgres import PostgresStore
from server.adapters.matches import MatchRepository
from server.adapters.workers import NICENESS, FairShares, ReadWorkers, set_requester
from server.app import create_app
from server.config import ServerConfig
from server.errors import (
    FairShareError,
    ReadFailedError,
    ReadRefusedError,
    ReadsBusyError,
    TooCostlyError,
)
from server.readmodels.replays import build
from tests.http_kit import json_of

WAIT_S = 15.0  # an upper bound of a wait, never an assertion about speed
CRASHING = [sys.executable, "-c", "import sys; sys.exit(3)"]  # a worker that dies at once


@pytest.fixture(scope="module")
def store_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    url = f"sqlite:///{tmp_path_factory.mktemp('workers') / 'store.sqlite3'}"
    store = open_store(url)
    try:
        long_live_match(store, 400)
        finished_matches(store, 1, 150)
    finally:
        store.close()
    return url


@pytest.fixture
def pool(store_url: str) -> Iterator[ReadWorkers]:
    workers = ReadWorkers(store_url, size=1)
    yield workers
    workers.close()


def _replay_job(store_url: str, match_id: str) -> dict[str, object]:
    """A replay of the match as it stands: the worker needs only its id and version."""
    store = open_store(store_url)
    try:
        version = store.stream_version(f"match-{match_id}")
    finally:
        store.close()
    return {"kind": "replay", "match_id": match_id, "version": version}


def _gone(pid: int) -> bool:
    """Whether the process `pid` ended (a zombie not yet reaped counts as ended)."""
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
        except FileNotFoundError:
            return True
        if state in ("Z", "X"):
            return True
        time.sleep(0.05)
    return False


def test_a_worker_process_builds_the_same_replay_as_the_server_would(
    store_url: str, pool: ReadWorkers
) -> None:
    job = _replay_job(store_url, "m-benchlong0")
    answer = pool.run(job)
    assert answer.pid != os.getpid() and pool.pids() == [answer.pid]
    # The same bytes (and ETag) as a build in this process from the match held in memory.
    store = open_store(store_url)
    try:
        entry = MatchRepository(store, lambda _m, _a: None).get("m-benchlong0")
        assert entry is not None
        here = build(entry, entry.version, entry.state, True, ["Ann", "Bob"], entry.table.ruleset)
    finally:
        store.close()
    assert answer.body == here.body and answer.etag == here.etag and answer.live
    # One worker serves build after build.
    assert pool.run({**job, "kind": "options", "seat": 0}).pid == answer.pid


def test_a_refusal_made_in_the_worker_reaches_the_client_as_made(
    store_url: str, pool: ReadWorkers
) -> None:
    job = {**_replay_job(store_url, "m-benchlong0"), "version": 10**6}
    with pytest.raises(ReadRefusedError) as refused:
        pool.run(job)
    assert refused.value.http_status == 404 and refused.value.to_json()["code"] == "not_found"
    # A bug in a build (here: a job without its format) is a 500, and the worker goes on.
    with pytest.raises(ReadRefusedError) as failed:
        pool.run({"kind": "record", "match_id": "m-old000000", "version": 3})
    assert failed.value.http_status == 500 and failed.value.to_json()["code"] == "internal"
    assert pool.restarts == 0 and len(pool.pids()) == 1  # answers, not failures


def test_a_match_the_server_does_not_hold_is_read_without_loading_it(store_url: str) -> None:
    app, _socketio = create_app(ServerConfig(async_mode="threading", store_url=store_url))
    service = app.extensions["crapette"]
    client = app.test_client()
    try:
        service.repo.evict("m-old000000")  # (the start-up may have loaded it)
        for path in ("replay", "options?seat=0", "record.txt"):
            assert client.get(f"/api/matches/m-old000000/{path}").status_code == 200, path
        assert not service.repo.loaded("m-old000000")  # neither folded here nor kept
        assert client.get("/api/matches/m-nothing/replay").status_code == 404
        assert client.get("/api/matches/m-nothing/options?seat=0").status_code == 404
        assert client.get("/api/matches/m-old000000/view").status_code == 200
        assert service.repo.loaded("m-old000000")  # a view loads it (then O(K) per version)
    finally:
        service.reads.workers.close()


def test_a_dead_worker_is_replaced_and_the_read_tried_again(
    store_url: str, pool: ReadWorkers
) -> None:
    job = _replay_job(store_url, "m-old000000")
    first = pool.run(job)
    os.kill(first.pid, signal.SIGKILL)
    assert _gone(first.pid)
    again = pool.run(job)
    assert again.pid != first.pid and again.body == first.body
    assert pool.restarts == 1 and pool.pids() == [again.pid]


def test_a_worker_that_keeps_dying_is_a_structured_503_and_the_next_request_works(
    store_url: str,
) -> None:
    app, _socketio = create_app(ServerConfig(async_mode="threading", store_url=store_url))
    workers = app.extensions["crapette"].reads.workers
    assert workers is not None
    client = app.test_client()
    try:
        workers.argv = CRASHING
        failed = client.get("/api/matches/m-old000000/replay")
        assert failed.status_code == 503 and json_of(failed)["code"] == "unavailable"
        assert failed.headers["Retry-After"] == "1" and workers.restarts == 2
        workers.argv = [sys.executable, "-m", "server.readmodels.builds"]
        replay = client.get("/api/matches/m-old000000/replay")
        assert replay.status_code == 200 and json_of(replay)["version"] > 100
        # Built once for its version, then answered from the cache, 304 for its ETag.
        etag = replay.headers["ETag"]
        assert client.get("/api/matches/m-old000000/replay").headers["ETag"] == etag
        same = client.get("/api/matches/m-old000000/replay", headers={"If-None-Match": etag})
        assert same.status_code == 304
        assert app.extensions["crapette"].reads.cache.builds == 1
    finally:
        workers.close()


def test_a_stalled_worker_is_killed_and_never_answers_a_later_request(store_url: str) -> None:
    pool = ReadWorkers(store_url, size=1, timeout_s=0.001)  # no worker answers that fast
    job = _replay_job(store_url, "m-old000000")
    try:
        with pytest.raises(ReadFailedError):
            pool.run(job)
        assert pool.restarts == 2 and pool.pids() == []  # both stalled ones were killed
        pool.timeout_s = 60.0
        answer = pool.run(job)
        assert b'"match_id":"m-old000000"' in answer.body
        assert pool.run({**job, "kind": "options", "seat": 1}).body.startswith(b'{"seat":1')
    finally:
        pool.close()


def test_a_full_queue_is_a_structured_503_at_once(store_url: str) -> None:
    pool = ReadWorkers(store_url, size=1, max_waiting=0)
    job = _replay_job(store_url, "m-benchlong0")
    done: list[object] = []
    first = threading.Thread(target=lambda: done.append(pool.run(job)))
    first.start()
    try:
        deadline = time.monotonic() + WAIT_S
        while pool._free and time.monotonic() < deadline:  # the first build holds the worker
            time.sleep(0.005)
        with pytest.raises(ReadsBusyError) as busy:
            pool.run(job)
        assert busy.value.http_status == 503 and busy.value.to_json()["code"] == "busy"
        assert busy.value.to_json()["retry_after_s"] == 1
    finally:
        first.join(WAIT_S)
        pool.close()
    assert len(done) == 1


def test_closing_the_pool_ends_its_processes(store_url: str) -> None:
    pool = ReadWorkers(store_url, size=2)
    job = _replay_job(store_url, "m-old000000")
    threads = [threading.Thread(target=pool.run, args=(job,)) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT_S)
    pids = pool.pids()
    assert len(pids) == 2 and os.getpid() not in pids
    pool.close()
    assert all(_gone(pid) for pid in pids)
    with pytest.raises(ReadsBusyError):
        pool.run(job)


def test_no_worker_when_the_store_is_in_memory_or_handed_in(tmp_path: Path) -> None:
    app, _ = create_app(ServerConfig(async_mode="threading"))
    assert app.extensions["crapette"].reads.workers is None
    url = f"sqlite:///{tmp_path / 's.db'}"
    app, _ = create_app(ServerConfig(async_mode="threading", store_url=url), open_store(url))
    assert app.extensions["crapette"].reads.workers is None
    off = ServerConfig(async_mode="threading", store_url=url, read_workers=0)
    assert create_app(off)[0].extensions["crapette"].reads.workers is None


def test_a_worker_reads_a_postgresql_store_with_its_own_connection(postgres_url: str) -> None:
    schema = f"es_workers_{uuid.uuid4().hex[:10]}"
    url = f"{postgres_url}{'&' if '?' in postgres_url else '?'}schema={schema}"
    admin = PostgresStore(url, pool_size=1)
    pool = ReadWorkers(url, size=1)
    try:
        finished_matches(admin, 1, 150)
        job = _replay_job(url, "m-old000000")
        answer = pool.run(job)
        assert answer.pid != os.getpid() and not answer.live
        record = {"kind": "record", "match_id": "m-old000000", "version": job["version"]}
        text = pool.run({**record, "format": "text"})
        assert text.body.startswith(b'[Format "crapette-record/1"]') and text.pid == answer.pid
    finally:
        pool.close()
        admin.drop()
        admin.close()


# -- fair shares and the memory bound (issue 38) ------------------------------------------------


def test_an_address_has_one_job_of_a_kind_at_a_time() -> None:
    shares = FairShares(pause_s=0.0)
    give_back = shares.take("10.0.0.1", "gif")
    with pytest.raises(FairShareError) as refused:
        shares.take("10.0.0.1", "gif")
    assert refused.value.http_status == 429 and refused.value.extra["retry_after_s"] == 2
    assert refused.value.to_json()["code"] == "rate_limited"
    # Another kind, another address, and no address at all are not refused.
    for owner, kind in (("10.0.0.1", "html"), ("10.0.0.2", "gif"), (None, "gif"), (None, "gif")):
        shares.take(owner, kind)
    # An upload's check and its import are one kind of work.
    shares.take("10.0.0.1", "import")
    with pytest.raises(FairShareError):
        shares.take("10.0.0.1", "verify")
    give_back()
    shares.take("10.0.0.1", "gif")()
    assert shares.refused == 2


def test_the_pool_counts_each_job_against_the_requesters_share(store_url: str) -> None:
    """While the address holds its share of a kind (a job of it under way), the pool refuses it
    another; `shared=False` (the caller holds the share itself) and another address run."""
    pool = ReadWorkers(store_url, size=1, shares=FairShares(pause_s=0.0))
    try:
        under_way = pool.shares.take("10.0.0.9", "replay")
        set_requester("10.0.0.9")
        try:
            with pytest.raises(FairShareError):
                pool.run(_replay_job(store_url, "m-old000000"))
            assert pool.run(_replay_job(store_url, "m-old000000"), shared=False).body
            set_requester("10.0.0.10")
            assert pool.run(_replay_job(store_url, "m-old000000")).body
            set_requester("10.0.0.9")
            under_way()
            assert pool.run(_replay_job(store_url, "m-old000000")).body
            pool.shares.take("10.0.0.9", "replay")()  # given back after the job
        finally:
            set_requester(None)
    finally:
        pool.close()


def test_a_worker_over_its_memory_bound_is_replaced_and_its_job_refused(store_url: str) -> None:
    pool = ReadWorkers(store_url, size=1, max_rss_mb=1)  # under any interpreter's own size
    try:
        with pytest.raises(TooCostlyError) as refused:
            pool.run(_replay_job(store_url, "m-old000000"))
        assert refused.value.http_status == 422 and refused.value.extra["limit_mb"] == 1
        assert pool.restarts == 1 and pool.pids() == []
        pool.max_rss = None  # the bound lifted: the next job gets a fresh worker
        assert pool.run(_replay_job(store_url, "m-old000000")).body
        assert len(pool.pids()) == 1
    finally:
        pool.close()


def test_after_a_job_the_pool_starts_its_next_worker_ahead(store_url: str) -> None:
    """Issue 38: a pool of 2 has its second process started once a job is answered (idle, its
    interpreter loaded before two jobs at once need it); never more than `size`, and a pool of
    1 none."""
    pool = ReadWorkers(store_url, size=2)
    single = ReadWorkers(store_url, size=1)
    try:
        built = pool.run(_replay_job(store_url, "m-old000000"))
        pids = pool.pids()
        assert len(pids) == 2 and built.pid in pids
        pool.run(_replay_job(store_url, "m-old000000"))
        assert sorted(pool.pids()) == sorted(pids)
        single.run(_replay_job(store_url, "m-old000000"))
        assert len(single.pids()) == 1
    finally:
        pool.close()
        single.close()


@pytest.mark.skipif(not hasattr(os, "SCHED_IDLE"), reason="Linux's SCHED_IDLE")
def test_an_idle_class_pool_runs_its_workers_in_sched_idle(store_url: str) -> None:
    """The analysis pool's workers yield their core to any other task at once (SCHED_IDLE); the
    other pools' are niced only."""
    idle = ReadWorkers(store_url, size=1, idle_class=True)
    plain = ReadWorkers(store_url, size=1)
    try:
        in_idle = idle.run(_replay_job(store_url, "m-old000000")).pid
        niced = plain.run(_replay_job(store_url, "m-old000000")).pid
        assert os.sched_getscheduler(in_idle) == os.SCHED_IDLE
        assert os.sched_getscheduler(niced) == os.SCHED_OTHER
        ours = os.getpriority(os.PRIO_PROCESS, 0)
        assert os.getpriority(os.PRIO_PROCESS, niced) == min(ours + NICENESS, 19)
    finally:
        idle.close()
        plain.close()
