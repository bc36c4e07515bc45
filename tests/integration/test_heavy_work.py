"""Issue 38: nothing one visitor does stalls the club. A real `crapette serve` (eventlet) checks
and stores uploaded records in a worker process while everyone else is answered; an address
has one heavy job of a kind at a time (a second is a 429, another address is not refused); the
cost caps answer 413/422 before any work; a worker over its memory bound is replaced and its
job refused, never the server. Assertions are on order and counts, never on speed."""

from __future__ import annotations

import http.client
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from bench.abuse import finished_record, record_bytes
from bench.history import finished_matches, long_live_match
from eventstore import open_store
from server.readmodels.costs import MAX_HTML_EVENTS, MAX_RECORD_ACTIONS, MAX_RECORD_GAMES
from tests.integration.cluster import Cluster
from tests.integration.harness import Client, ServerProcess
from tests.integration.test_read_workers import _alive, _children

# Each test runs seconds of heavy work (uploads, GIFs, memory bounds): out of the quick loop.
pytestmark = pytest.mark.slow

wait_until = Cluster.wait_until
JSON = {"Content-Type": "application/json"}
UPLOAD_S = 300.0  # an upper bound for a test's upload on a loaded machine, never an assertion


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    """A finished match of two games won, some 4,000 actions a server verifies one by one."""
    return finished_record(wins=2, seed=5)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    data_dir = tmp_path_factory.mktemp("heavy-work")
    url = f"sqlite:///{data_dir / 'store.sqlite3'}"
    store = open_store(url)
    try:
        long_live_match(store, MAX_HTML_EVENTS + 10)  # m-benchlong0, over the HTML cap
        finished_matches(store, 1, 150)  # m-old000000
    finally:
        store.close()
    server = ServerProcess(data_dir, store_url=url).start()
    yield server
    server.stop()


def _upload(server: ServerProcess, path: str, body: bytes, out: dict[str, Any]) -> None:
    out["answer"] = requests.post(server.url + path, data=body, headers=JSON, timeout=UPLOAD_S)


def _post_from(address: str, server: ServerProcess, path: str, body: bytes) -> tuple[int, Any]:
    """POST from another local address (the server counts 127.0.0.2 as another client)."""
    connection = http.client.HTTPConnection(
        "127.0.0.1", server.port, timeout=UPLOAD_S, source_address=(address, 0)
    )
    try:
        connection.request("POST", path, body=body, headers=JSON)
        answer = connection.getresponse()
        return answer.status, json.loads(answer.read())
    finally:
        connection.close()


def test_an_upload_leaves_every_other_client_answered(
    server: ServerProcess, record: dict[str, Any]
) -> None:
    """While the record is verified and stored, the lobby and a Socket.IO round trip of another
    client are answered again and again: before, the whole upload ran on the loop and each
    waited for its end."""
    table = server.open_table()
    watcher = Client(server).connect()
    out: dict[str, Any] = {}
    token = "heavy-work-upload-0001"
    uploading = threading.Thread(
        target=_upload,
        args=(server, f"/api/records?progress={token}", record_bytes(record), out),
    )
    told: list[dict[str, Any]] = []  # the upload's progress, as the import dialog polls it
    try:
        uploading.start()
        answered_meanwhile = 0
        while uploading.is_alive():
            assert requests.get(server.url + "/api/tables", timeout=UPLOAD_S).ok
            assert watcher.join(table["match_id"])["ok"]
            progress = requests.get(f"{server.url}/api/records/progress/{token}", timeout=UPLOAD_S)
            if progress.status_code == 200:
                told.append(progress.json())
            if uploading.is_alive():  # both answered before the upload was
                answered_meanwhile += 1
        uploading.join()
    finally:
        watcher.close()
    answer = out["answer"]
    assert answer.status_code == 201, answer.text
    stored = answer.json()
    assert stored["match_id"] == "club-abuse" and "imported club-abuse" in stored["summary"]
    assert answered_meanwhile >= 3, answered_meanwhile
    # The worker said how far its check had come, and the server passed it on while it ran.
    actions = sum(len(game["actions"]) for game in record["games"])
    checking = [t["actions"]["done"] for t in told if t["stage"] == "checking"]
    assert any(0 < done < actions for done in checking), told
    assert {t["stage"] for t in told} <= {"queued", "checking", "storing", "done"}, told
    after = requests.get(f"{server.url}/api/records/progress/{token}", timeout=UPLOAD_S).json()
    assert after == {"stage": "done", "actions": {"done": actions, "total": actions}}
    unknown = requests.get(f"{server.url}/api/records/progress/{'x' * 20}", timeout=UPLOAD_S)
    assert unknown.status_code == 404 and unknown.json()["code"] == "not_found"
    bad = requests.post(f"{server.url}/api/records/verify?progress=short", data=b"{}")
    assert bad.status_code == 400 and bad.json()["code"] == "invalid"
    # Stored by the worker, read by the server like any other match.
    replay = server.get(stored["replay_url"].replace("/replay/", "/api/matches/") + "/replay")
    assert replay.status_code == 200, replay.text
    assert replay.json()["live"] is False
    # The heavy pool is a process of its own beside the read pool's two (one started ahead).
    assert server.proc is not None
    workers = _children(server.proc.pid)
    assert len(workers) == 3, (workers, server.log()[-2000:])


def test_one_heavy_job_of_a_kind_per_address(server: ServerProcess, record: dict[str, Any]) -> None:
    """Checks sent from one address while one of its checks is under way: one at a time, the
    others 429 with Retry-After; the same from another address at the same time is not
    refused."""
    body = record_bytes(record)
    out: dict[str, Any] = {}
    first = threading.Thread(target=_upload, args=(server, "/api/records/verify", body, out))
    other: dict[str, Any] = {}

    def from_another_address() -> None:
        other["answer"] = _post_from("127.0.0.2", server, "/api/records/verify", body)

    elsewhere = threading.Thread(target=from_another_address)
    first.start()
    elsewhere.start()
    answers = []
    while first.is_alive():  # whichever of these came first runs, the others are refused
        answers.append(requests.post(server.url + "/api/records/verify", data=body, headers=JSON))
    first.join()
    elsewhere.join()
    answers.append(out["answer"])
    codes = [answer.status_code for answer in answers]
    assert 200 in codes and 429 in codes, codes
    assert set(codes) == {200, 429}, codes
    actions = sum(len(g["actions"]) for g in record["games"])
    for answer in answers:
        if answer.status_code == 200:
            assert answer.json()["actions"] == actions
        else:
            assert answer.json()["code"] == "rate_limited" and answer.json()["kind"] == "upload"
            assert int(answer.headers["Retry-After"]) >= 1
    assert other["answer"][0] == 200 and other["answer"][1]["actions"] == actions
    # Once done, the address may ask again.
    assert requests.post(server.url + "/api/records/verify", data=body, headers=JSON).ok


def test_the_cost_caps_answer_before_any_work(
    server: ServerProcess, record: dict[str, Any]
) -> None:
    game = record["games"][0]
    short = {**game, "actions": game["actions"][:5]}  # counted before anything is checked
    many_games = {**record, "games": [{**short, "index": i} for i in range(MAX_RECORD_GAMES + 1)]}
    answer = server.post("/api/records/verify", many_games)
    assert answer.status_code == 422, answer.text
    assert answer.json()["code"] == "too_costly"
    assert answer.json()["limit"] == {"games": MAX_RECORD_GAMES}
    copies = MAX_RECORD_ACTIONS // len(game["actions"]) + 1
    many_actions = {**record, "games": [{**game, "index": i} for i in range(copies)]}
    answer = server.post("/api/records", many_actions)
    assert answer.status_code == 422 and answer.json()["limit"] == {"actions": MAX_RECORD_ACTIONS}
    too_big = b"{" + b" " * (20 * 1024 * 1024)
    answer = requests.post(server.url + "/api/records", data=too_big, headers=JSON, timeout=60)
    assert answer.status_code == 413 and answer.json()["code"] == "too_large"
    html = server.get("/api/matches/m-benchlong0/replay.html")
    assert html.status_code == 422, html.text
    assert html.json()["code"] == "too_costly" and html.json()["limit"] == {
        "events": MAX_HTML_EVENTS
    }
    assert server.alive()


def test_a_worker_over_its_memory_bound_is_replaced(tmp_path: Path) -> None:
    """With a bound under what drawing a GIF takes, the GIF is refused with 422 too_costly, its
    worker killed and the next heavy job done by a fresh one; the server serves on."""
    url = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    store = open_store(url)
    try:
        finished_matches(store, 1, 150)
    finally:
        store.close()
    args = ("--worker-memory-mb", "64")
    server = ServerProcess(tmp_path, store_url=url, extra_args=args).start()
    try:
        assert server.proc is not None
        assert server.get("/api/matches/m-old000000/replay").status_code == 200
        readers = _children(server.proc.pid)  # the read pool's 2: one built, one ahead
        gif = server.get("/api/matches/m-old000000/game.gif?game=0")
        assert gif.status_code == 422, gif.status_code
        assert gif.json()["code"] == "too_costly" and gif.json()["limit_mb"] == 64
        assert "64 MB" in gif.json()["message"]
        assert "went over its memory bound on gif" in server.log()
        (killed,) = [pid for pid in _dead_workers(server) if pid not in readers]
        wait_until(lambda: not _alive(killed), "the worker killed")
        # The next heavy job has a fresh worker (a small record's check fits the bound).
        small = server.get("/api/matches/m-old000000/record").content
        check = requests.post(server.url + "/api/records/verify", data=small, headers=JSON)
        assert check.status_code == 200, check.text
        workers = _children(server.proc.pid)
        assert set(readers) <= set(workers) and killed not in workers and len(workers) == 3
        assert server.get("/api/matches/m-old000000/replay").status_code == 200
        assert server.alive()
    finally:
        server.stop()


def _dead_workers(server: ServerProcess) -> list[int]:
    """The workers the log says went over their bound."""
    found = []
    for line in server.log().splitlines():
        if "went over its memory bound" in line:
            found.append(int(line.split("read worker ")[1].split()[0]))
    return found


def test_one_heavy_job_per_address_across_two_processes_on_one_redis(
    tmp_path: Path, redis_url: str, record: dict[str, Any]
) -> None:
    """Two `crapette serve` on one store and one Redis (the cluster mode): while one process
    checks an address's upload, the other refuses that address's upload with a 429 (without
    Redis each process would count its own), and takes another address's; the share is given
    back in Redis once the job is done."""
    import redis

    url = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    open_store(url).close()
    servers = [
        ServerProcess(
            tmp_path, store_url=url, extra_args=("--message-queue", redis_url, "--node-id", node)
        )
        for node in ("shares-a", "shares-b")
    ]
    shared = redis.Redis.from_url(redis_url, decode_responses=True)
    key = "crapette:share:upload:127.0.0.1"
    shared.delete(key)
    try:
        a, b = (server.start() for server in servers)
        body = record_bytes(record)
        out: dict[str, Any] = {}
        first = threading.Thread(target=_upload, args=(a, "/api/records/verify", body, out))
        first.start()
        wait_until(lambda: shared.get(key) is not None or not first.is_alive(), "a's check")
        codes = []
        while first.is_alive():  # the same address at the other process: refused meanwhile
            answer = requests.post(b.url + "/api/records/verify", data=body, headers=JSON)
            codes.append(answer.status_code)
            if answer.status_code == 429 and codes.count(429) == 1:
                assert answer.json()["code"] == "rate_limited" and answer.json()["kind"] == "upload"
                other = _post_from("127.0.0.2", b, "/api/records/verify", body)
                assert other[0] == 200, other  # another address is not refused
        first.join()
        assert out["answer"].status_code == 200, out["answer"].text
        assert 429 in codes, codes
        wait_until(lambda: shared.get(key) is None, "the share given back")
        again = requests.post(b.url + "/api/records/verify", data=body, headers=JSON)
        assert again.status_code == 200, again.text
    finally:
        for server in servers:
            server.stop()
        shared.close()
