"""Issue 38: no Socket.IO packet shape makes the server fail. Packets built from every part a
Socket.IO packet has (type, attachment count, namespace, ack id, data, the frames that follow)
go through the app factory's engine.io `message` handler, the one `crapette serve` runs (the
packet codec, server.runtime.patches (8), the handlers of server.entrypoints.sockets): none
raises, none logs a traceback, and the connection still answers a good message afterwards.
tests/integration/test_packets.py sends the review's list to a real server over a WebSocket."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask_socketio import SocketIO
from flask_socketio.test_client import SocketIOTestClient
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from server.app import create_app
from server.config import ServerConfig


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


class _App:
    def __init__(self, directory: Path) -> None:
        config = ServerConfig(async_mode="threading", store_url=f"sqlite:///{directory}/s.db")
        self.app, self.socketio = create_app(config)
        self.store = self.app.extensions["crapette_store"]
        self.client: SocketIOTestClient = self.socketio.test_client(self.app)

    @property
    def io(self) -> SocketIO:
        return self.socketio

    def deliver(self, frame: str | bytes) -> None:
        """One engine.io message from the client, through the handler the server runs."""
        self.socketio.server.eio.handlers["message"](self.client.eio_sid, frame)


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Iterator[_App]:
    app = _App(tmp_path_factory.mktemp("packets"))
    yield app
    app.client.disconnect()
    app.store.close()


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=6,
)
_DATA = (
    st.sampled_from(["", "null", "{}", "[]", "[1]", '["*"]', "[", '"x"', "1e999", "NaN", "[[[]]]"])
    | st.sampled_from(["join_table", "command", "claim", "leave_table", "x", "connect"]).flatmap(
        lambda name: _JSON.map(lambda payload: json.dumps([name, payload]))
    )
    | _JSON.map(json.dumps)
    | st.text(max_size=12)
)
_PACKET = st.tuples(
    st.sampled_from("023456789") | st.text(max_size=2),  # the type ("1" disconnects: below)
    st.sampled_from(["", "0-", "1-", "2-", "-", "99999999999-", "x-"]),  # attachments
    st.sampled_from(["", "/", "/nsp", "/nsp,", "/?x,", "/x?y,"]),  # namespace
    st.sampled_from(["", "0", "7", "9" * 20, "1x"]),  # ack id
    _DATA,
).map("".join)
_FOLLOWING = st.lists(st.binary(max_size=6) | st.text(max_size=6), max_size=2)


@settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],  # the fixture is module-wide
)
@given(packet=_PACKET, following=_FOLLOWING)
@example(packet="2", following=[])  # the review's `42`, `420`, `42null`, `42{}`, `42/nsp,`
@example(packet="20", following=[])
@example(packet="2null", following=[])
@example(packet="2{}", following=[])
@example(packet="2/nsp,", following=[])
@example(packet="5", following=['2["x"]'])  # `45`…`49`
@example(packet="6", following=[])
@example(packet="7", following=[])
@example(packet="8", following=[])
@example(packet="9", following=[])
@example(packet='51-["x",{"_placeholder":true,"num":4}]', following=[b"\x00"])
def test_no_packet_shape_fails(made: _App, packet: str, following: list[str | bytes]) -> None:
    records = _Records()
    root = logging.getLogger()
    root.addHandler(records)
    # A CONNECT or DISCONNECT does what it says (ends the connection to "/", refuses a second
    # one): such a packet goes to a connection of its own, which then closes. So does one in a
    # following frame (`-/1x…` then `1` is a client that disconnects itself).
    lifecycle = any(
        isinstance(frame, str) and frame[:1] in ("0", "1") for frame in (packet, *following)
    )
    client = made.socketio.test_client(made.app) if lifecycle else made.client
    try:
        for frame in (packet, *following):
            made.socketio.server.eio.handlers["message"](client.eio_sid, frame)
        # A binary packet announcing more attachments than were sent waits for them (the
        # protocol's rule): the good message below must not be taken as one.
        made.socketio.server._binary_packet.pop(client.eio_sid, None)
        if not lifecycle:
            assert made.socketio.server.manager.sid_from_eio_sid(client.eio_sid, "/"), packet
            client.get_received()
            ack = client.emit("join_table", {"match_id": "m-0000000000"}, callback=True)
            assert ack["ok"] is False and ack["code"] == "not_found", ack
    finally:
        if lifecycle:
            made.socketio.server._handle_eio_disconnect(client.eio_sid, "client disconnect")
        root.removeHandler(records)
    failures = [r for r in records.records if r.exc_info or r.levelno >= logging.ERROR]
    assert not failures, [r.getMessage() for r in failures]


def test_each_nameless_packet_is_answered(made: _App) -> None:
    """`42`, `42null`, `42{}` and `42"x"` are the unknown message "", with their ack."""
    for data in ("", "null", "{}", '"x"', "[]"):
        made.client.get_received()
        made.deliver(f"23{data}")
        received: list[dict[str, Any]] = made.client.get_received()
        errors = [m["args"][0] for m in received if m["name"] == "error"]
        assert len(errors) == 1 and errors[0]["event"] == "", (data, received)
        assert "names itself first" in errors[0]["message"]
