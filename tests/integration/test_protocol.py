"""The Socket.IO protocol version in the handshake (issue 28, docs/protocol.md § Versions): the
current one plays, an unsupported one is refused naming the versions served, none is taken as
the oldest served."""

from __future__ import annotations

import threading
from typing import Any

import pytest
import socketio

from server.entrypoints import protocol
from tests.integration.harness import PROTOCOL, Client, ServerProcess


def _handshake(server: ServerProcess, **connect: Any) -> tuple[bool, dict[str, Any] | None]:
    """Connect with these arguments: (connected, the connect_error data)."""
    client = socketio.Client(reconnection=False)
    refused: dict[str, Any] = {}
    got = threading.Event()

    def on_error(data: Any) -> None:
        refused.update(data if isinstance(data, dict) else {"raw": data})
        got.set()

    client.on("connect_error", on_error)

    try:
        client.connect(server.url, transports=["websocket"], wait_timeout=10, **connect)
    except socketio.exceptions.ConnectionError:
        got.wait(5)
        return False, refused
    try:
        return True, None
    finally:
        client.disconnect()


def test_the_current_version_plays(server: ServerProcess, clients: list[Client]) -> None:
    assert PROTOCOL == protocol.CURRENT == 2
    opened = server.open_table(name="Ann", bot="random")
    ann = Client(server, opened["seat_token"]).connect()  # the harness sends the version
    clients.append(ann)
    assert ann.join(opened["match_id"])["seat"] == 0
    assert _handshake(server, auth={"protocol": 2}) == (True, None)
    assert _handshake(server, auth={"protocol": "2"}) == (True, None)
    info = server.get("/api/server-info").json()
    assert info["protocol"] == {"current": 2, "supported": [2]}


def test_the_version_may_come_in_the_query(server: ServerProcess) -> None:
    client = socketio.Client(reconnection=False)
    client.connect(f"{server.url}?protocol=2", transports=["websocket"], wait_timeout=10)
    assert client.connected
    client.disconnect()
    assert _handshake(server) == (True, None)  # neither auth nor query: the oldest served


@pytest.mark.parametrize(
    ("asked", "said"),
    [
        (1, "protocol version 1 is no longer served"),  # the `update`-per-event protocol
        (3, "protocol version 3 is newer than this server's"),
        (0, "0 is not a protocol version this server knows"),
        ("two", "'two' is not a protocol version this server knows"),
        ([2], "[2] is not a protocol version this server knows"),
        (True, "True is not a protocol version this server knows"),
    ],
)
def test_an_unsupported_version_is_refused_naming_the_served_ones(
    server: ServerProcess, asked: object, said: str
) -> None:
    connected, refused = _handshake(server, auth={"protocol": asked})
    assert not connected and refused is not None
    # The CONNECT_ERROR packet: {"message", "data"}, as the browser's `err.message`, `err.data`.
    data = refused["data"]
    assert refused["message"] == data["message"]
    assert data["code"] == "unsupported_protocol", refused
    assert data["supported"] == [2] and data["current"] == 2
    assert said in data["message"] and "this server speaks version 2" in data["message"]
    assert server.alive()


def test_an_old_version_in_the_query_is_refused_too(server: ServerProcess) -> None:
    client = socketio.Client(reconnection=False)
    with pytest.raises(socketio.exceptions.ConnectionError):
        client.connect(f"{server.url}?protocol=1", transports=["websocket"], wait_timeout=10)
    assert not client.connected


def test_the_browser_speaks_the_current_version() -> None:
    """web/js/net.js sends `auth: {protocol: PROTOCOL}` with the server's current version."""
    import re

    from tests.conftest import REPO_ROOT

    net = (REPO_ROOT / "web" / "js" / "net.js").read_text(encoding="utf-8")
    found = re.search(r"^export const PROTOCOL = (\d+);$", net, re.M)
    assert found is not None and int(found.group(1)) == protocol.CURRENT
    assert "auth: { protocol: PROTOCOL }" in net
    assert 'err?.data?.code === "unsupported_protocol"' in net
