"""A real `crapette serve` (eventlet) builds its heavy reads in a worker process: the replay and
the record come from a child process, with strong ETags and 304s; a killed worker is replaced
on the next request; stopping the server by its PID leaves no worker behind. And the loop keeps
turning while a worker builds (`crapette bench replay`, on a small match)."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from click.testing import CliRunner

from bench.history import finished_matches, long_live_match
from bench.loopstall import replay as bench_replay
from bench.procs import children_stat
from eventstore import open_store
from tests.integration.cluster import Cluster
from tests.integration.harness import ServerProcess

wait_until = Cluster.wait_until


def _children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (zombies left out)."""
    return [child for child, fields in children_stat(pid) if fields[0] not in ("Z", "X")]


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except FileNotFoundError:
        return False
    return state not in ("Z", "X")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    data_dir = tmp_path_factory.mktemp("read-workers")
    url = f"sqlite:///{data_dir / 'store.sqlite3'}"
    store = open_store(url)
    try:
        long_live_match(store, 600)
        finished_matches(store, 1, 150)
    finally:
        store.close()
    server = ServerProcess(data_dir, store_url=url).start()
    yield server
    server.stop()


def test_reads_are_built_in_a_worker_process_with_etags(server: ServerProcess) -> None:
    assert server.proc is not None
    assert _children(server.proc.pid) == []  # started on the first heavy read, not before
    replay = server.get("/api/matches/m-benchlong0/replay")
    assert replay.status_code == 200 and replay.json()["live"] is True
    workers = _children(server.proc.pid)
    # The one that built it, and the pool's second (of 2) started ahead, idle: the next read
    # finds it ready instead of waiting for an interpreter's start.
    assert len(workers) == 2 and server.proc.pid not in workers
    for worker in workers:
        cmdline = Path(f"/proc/{worker}/cmdline").read_bytes().split(b"\0")
        assert b"server.readmodels.builds" in cmdline
    etag = replay.headers["ETag"]
    again = server.get("/api/matches/m-benchlong0/replay")
    assert again.headers["ETag"] == etag and again.content == replay.content
    cached = _get(server, "/api/matches/m-benchlong0/replay", etag)
    assert cached.status_code == 304 and cached.content == b""
    for path in ("/api/matches/m-old000000/record", "/api/matches/m-old000000/record.txt"):
        record = server.get(path)
        assert record.status_code == 200 and record.headers["Cache-Control"].startswith("public")
        assert _get(server, path, record.headers["ETag"]).status_code == 304
    assert json.loads(server.get("/api/matches/m-old000000/record").content)["live"] is False
    missing = server.get("/api/matches/m-nothing/record")
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"
    assert _children(server.proc.pid) == workers  # no other started for them


def test_a_killed_worker_is_replaced_on_the_next_request(server: ServerProcess) -> None:
    assert server.proc is not None
    server.get("/api/matches/m-old000000/options?seat=0")
    workers = _children(server.proc.pid)
    assert len(workers) == 2  # (the second started ahead)
    for worker in workers:
        os.kill(worker, signal.SIGKILL)
    wait_until(lambda: not any(_alive(worker) for worker in workers), "dead")
    options = server.get("/api/matches/m-old000000/options?seat=1")
    assert options.status_code == 200 and options.json()["seat"] == 1
    replacements = _children(server.proc.pid)
    assert replacements and not set(replacements) & set(workers)
    assert "read worker" in server.log() and "trying a new one" in server.log()


def test_stopping_the_server_leaves_no_worker(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    store = open_store(url)
    try:
        finished_matches(store, 1, 150)
    finally:
        store.close()
    for stop in ("stop", "kill"):  # SIGTERM, then kill -9: the workers end either way
        server = ServerProcess(tmp_path, store_url=url, extra_args=("--read-workers", "2")).start()
        assert server.proc is not None
        assert server.get("/api/matches/m-old000000/replay").status_code == 200
        workers = _children(server.proc.pid)
        assert len(workers) == 2  # the one that built it, and one started ahead
        getattr(server, stop)()
        wait_until(lambda ws=workers: not any(_alive(pid) for pid in ws), "ended")


def test_the_loop_keeps_ticking_while_a_worker_builds() -> None:
    """The benchmark's own harness, small: a greenthread asking to tick every millisecond
    ticks many times during a worker's build, and never during a build in one go on the loop
    (which shows the harness can tell them apart). Counts only, no time limits."""
    result = CliRunner().invoke(
        bench_replay, ["--events", "400", "--rounds", "1", "--heap-matches", "0", "--json"]
    )
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output)["figures"]
    assert figures["inline"]["ticks"] == 0
    assert figures["worker"]["ticks"] >= 5, figures["worker"]
    assert figures["worker"]["bytes"] == figures["inline"]["bytes"] > 0


def _get(server: ServerProcess, path: str, etag: str) -> requests.Response:
    return requests.get(server.url + path, headers={"If-None-Match": etag}, timeout=10)
