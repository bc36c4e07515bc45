"""Limits seen from outside, against a real server process: Socket.IO connections only from the
server's own pages, and deep JSON refused with a structured 400 on the lobby routes."""

from __future__ import annotations

from pathlib import Path

import pytest
import requests
import socketio

from tests.integration.harness import PROTOCOL, ServerProcess


def _connects(server: ServerProcess, origin: str | None, transport: str = "polling") -> bool:
    """(The WebSocket client library sends an Origin of its own, the server's URL: a header
    given here would be a second one. Polling sends exactly the headers given.)"""
    client = socketio.Client(reconnection=False)
    headers = {} if origin is None else {"Origin": origin}
    try:
        client.connect(
            server.url,
            headers=headers,
            transports=[transport],
            wait_timeout=10,
            auth={"protocol": PROTOCOL},
        )
    except socketio.exceptions.ConnectionError:
        return False
    client.disconnect()
    return True


@pytest.mark.parametrize("transport", ["websocket", "polling"])
def test_socketio_refuses_other_sites_pages(server: ServerProcess, transport: str) -> None:
    assert _connects(server, None, "websocket")  # its own Origin: the server's own page
    assert _connects(server, server.url)
    assert _connects(server, None)  # a program, not a page
    assert not _connects(server, "http://evil.example")
    assert not _connects(server, "null")
    # The polling handshake is refused the same way, with a 400 and no session.
    response = requests.get(
        f"{server.url}/socket.io/?EIO=4&transport={transport}",
        headers={"Origin": "http://evil.example"},
        timeout=10,
    )
    assert response.status_code == 400
    assert server.alive()


def test_deep_json_on_the_lobby_routes(server: ServerProcess) -> None:
    match_id = server.open_table()["match_id"]
    deep = b"[" * 100_000
    for path in ("/api/tables", f"/api/tables/{match_id}/join", f"/api/tables/{match_id}/rematch"):
        response = requests.post(
            server.url + path, data=deep, headers={"Content-Type": "application/json"}, timeout=10
        )
        assert response.status_code == 400, response.text
        assert response.json()["code"] == "invalid"
    assert server.alive()


def test_the_servers_own_limits_answer_429(tmp_path: Path) -> None:
    """`crapette serve` with its default limits: the 31st table in a minute is refused."""
    server = ServerProcess(tmp_path, rate_limits=()).start()
    try:
        answers = [server.post("/api/tables", {"name": "Ann"}) for _ in range(31)]
        assert {a.status_code for a in answers[:30]} == {201}
        refused = answers[30]
        assert refused.status_code == 429 and refused.json()["code"] == "rate_limited"
        assert int(refused.headers["Retry-After"]) >= 1
        assert server.alive()
    finally:
        server.stop()
