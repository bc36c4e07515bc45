"""The Host check and the security headers on a real server process (`crapette serve`, eventlet):
a request or a Socket.IO handshake addressed to another host name (DNS rebinding) is refused with
421 and opens nothing; `--allowed-host` adds a name."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import requests
import socketio

from server.entrypoints.security import CSP
from tests.integration.harness import ServerProcess


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    extra = ("--allowed-host", "play.example.org")
    process = ServerProcess(tmp_path_factory.mktemp("hosts"), extra_args=extra).start()
    try:
        yield process
    finally:
        process.stop()


def _headers(server: ServerProcess, host: str) -> dict[str, str]:
    return {"Host": f"{host}:{server.port}", "Origin": f"http://{host}:{server.port}"}


def test_a_rebound_host_is_refused(server: ServerProcess) -> None:
    evil = _headers(server, "evil.example")
    opened = requests.post(
        server.url + "/api/tables", json={"name": "Ann"}, headers=evil, timeout=10
    )
    assert opened.status_code == 421, opened.text
    assert opened.json()["code"] == "misdirected_host"
    assert opened.headers["Content-Security-Policy"] == CSP
    assert len(opened.content) < 400
    page = requests.get(server.url + "/", headers={"Host": evil["Host"]}, timeout=10)
    assert page.status_code == 421
    tables = server.get("/api/tables?all=1").json()["tables"]
    assert tables == []
    # Socket.IO: the handshake itself is refused.
    polling = requests.get(
        server.url + "/socket.io/?EIO=4&transport=polling",
        headers={"Host": evil["Host"]},
        timeout=10,
    )
    assert polling.status_code == 421
    client = socketio.Client(reconnection=False)
    with pytest.raises(socketio.exceptions.ConnectionError):
        client.connect(server.url, headers=evil, transports=["websocket"], wait_timeout=5)
    client.disconnect()


def test_own_and_allowed_hosts_are_served(server: ServerProcess) -> None:
    for host in ("127.0.0.1", "localhost", "play.example.org"):
        headers = _headers(server, host)
        opened = requests.post(
            server.url + "/api/tables", json={"name": "Ann"}, headers=headers, timeout=10
        )
        assert opened.status_code == 201, (host, opened.text)
        assert "evil" not in opened.json()["invite_url"]
        assert opened.headers["X-Content-Type-Options"] == "nosniff"
        assert opened.headers["Referrer-Policy"] == "same-origin"
    client = socketio.Client(reconnection=False)
    client.connect(server.url, headers=_headers(server, "play.example.org"), wait_timeout=5)
    assert client.connected
    client.disconnect()
