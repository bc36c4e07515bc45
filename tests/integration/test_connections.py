"""Connections that last: an idle player or spectator stays connected through engine.io's
heartbeats, whatever path the server's writes take (server/runtime/patches.py, (7)).

Until this test, every WebSocket connection of `crapette serve` was closed after exactly
ping_interval + ping_timeout (45 s): the pings were written straight to the socket, so
engine.io's writer, which waits for its queue at most that long, gave up on a quiet connection.

This test shortens the heartbeat so that it covers several of the writer's timeouts in a few
seconds; tests/browser/test_soak.py keeps the defaults and idles for three minutes.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.conftest import seat_two
from tests.integration.harness import Client, ServerProcess, choose

pytestmark = pytest.mark.integration

PING_S = 1.5  # interval and timeout: the writer's poll gives up after 3 s without a packet
IDLE_QUICK_S = 10.0  # over three of those timeouts


class Watched:
    """A harness client that counts its disconnects."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.disconnects: list[float] = []
        self._lock = threading.Lock()
        client.sio.on("disconnect", self._gone)

    def _gone(self, *_reason: Any) -> None:
        with self._lock:
            self.disconnects.append(time.monotonic())


@pytest.fixture
def quick_server(tmp_path: Path) -> Iterator[ServerProcess]:
    heartbeat = ("--ping-interval", str(PING_S), "--ping-timeout", str(PING_S))
    process = ServerProcess(tmp_path, extra_args=heartbeat).start()
    try:
        yield process
    finally:
        process.stop()


def _spectator(server: ServerProcess, clients: list[Client], match_id: str) -> Client:
    watcher = Client(server).connect()
    clients.append(watcher)
    watcher.join(match_id)
    return watcher


def _play_one(match_id: str, players: list[Client]) -> int:
    """The player to move plays one action; every client then has its update."""
    version = max(p.version for p in players)
    for player in players:
        player.wait_version(version)
    view = players[0].view or {}
    mover = players[view["to_move"]]
    action = choose(mover.view or {})
    assert action is not None
    ack = mover.send(match_id, action)
    assert ack["ok"], ack
    return int(ack["version"])


def test_an_idle_connection_outlives_many_heartbeats(
    quick_server: ServerProcess, clients: list[Client]
) -> None:
    match_id, ann, bob = seat_two(quick_server, clients, preset="beginner")
    watcher = _spectator(quick_server, clients, match_id)
    watched = [Watched(c) for c in (ann, bob, watcher)]
    # Several of the writer's timeouts (ping interval + timeout) with no message at all.
    time.sleep(IDLE_QUICK_S)
    assert [w.disconnects for w in watched] == [[], [], []]
    assert all(c.sio.connected for c in (ann, bob, watcher))
    version = _play_one(match_id, [ann, bob])
    for client in (ann, bob, watcher):
        client.wait_version(version)
    # And busy connections keep their heartbeat too: a move every 0.2 s for a while.
    deadline = time.monotonic() + 3.0
    while time.monotonic() < deadline and (ann.view or {}).get("legal"):
        version = _play_one(match_id, [ann, bob])
        time.sleep(0.2)
    time.sleep(2 * PING_S)
    assert [w.disconnects for w in watched] == [[], [], []]
