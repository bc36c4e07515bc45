"""patches.quiet_undecodable_packets (issue 28): a packet python-socketio cannot decode is
dropped and logged once per client address per minute, with the count dropped in between."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from server.runtime import patches


class _Eio:
    def __init__(self) -> None:
        self.handlers: dict[str, Any] = {}

    def on(self, event: str, handler: Any) -> None:
        self.handlers[event] = handler


class _Server:
    """The two attributes of a python-socketio Server the patch uses."""

    def __init__(self) -> None:
        self.eio = _Eio()
        self.environ = {"a1": {"REMOTE_ADDR": "10.0.0.1"}, "a2": {"REMOTE_ADDR": "10.0.0.1"}}
        self.environ["b"] = {"REMOTE_ADDR": "10.0.0.2"}
        self.handled: list[str] = []
        self.eio.on("message", self._message)

    def _message(self, sid: str, data: str) -> None:
        self.handled.append(data)
        patches.json_packet()(encoded_packet=data)  # the server's own decoding


def test_one_line_per_client_per_minute(caplog: pytest.LogCaptureFixture) -> None:
    now = [1000.0]
    server = _Server()
    patches.quiet_undecodable_packets(server, clock=lambda: now[0])
    deep = "2" + "[" * 5000 + "]" * 5000
    caplog.set_level(logging.WARNING, logger="server.entrypoints.sockets")
    for _ in range(30):
        server.eio.handlers["message"]("a1", deep)
        server.eio.handlers["message"]("a2", "2{not json")
    server.eio.handlers["message"]("b", deep)
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2 and "10.0.0.1" in lines[0] and "10.0.0.2" in lines[1]
    assert "RecursionError" in lines[0] and not any(r.exc_info for r in caplog.records)
    now[0] += 59
    server.eio.handlers["message"]("a1", deep)
    assert len(caplog.records) == 2
    now[0] += 1
    server.eio.handlers["message"]("a2", deep)
    assert len(caplog.records) == 3
    assert "60 more dropped since the last line" in caplog.records[-1].getMessage()
    assert len(server.handled) == 63  # every packet reached the library, none was answered


def test_a_good_packet_and_a_bug_pass_through() -> None:
    server = _Server()
    patches.quiet_undecodable_packets(server)
    server.eio.handlers["message"]("a1", '2["join_table",{}]')
    assert server.handled == ['2["join_table",{}]']

    def failing(sid: str, data: str) -> None:
        raise RuntimeError("a bug is not hidden")

    server.eio.handlers["message"] = failing
    patches.quiet_undecodable_packets(server)
    with pytest.raises(RuntimeError, match="not hidden"):
        server.eio.handlers["message"]("a1", "2[]")


@pytest.mark.parametrize("packet", ["4", "7", "8", "9", "5", "6", "5-[]", "50-[]", "6x"])
def test_packet_types_no_client_sends_never_reach_the_library(
    caplog: pytest.LogCaptureFixture, packet: str
) -> None:
    """Issue 38: `44`-`49` raised inside python-socketio (or, for a binary packet announcing no
    attachment, made it take the client's next packet as one)."""
    server = _Server()
    patches.quiet_undecodable_packets(server)
    caplog.set_level(logging.WARNING, logger="server.entrypoints.sockets")
    server.eio.handlers["message"]("a1", packet)
    server.eio.handlers["message"]("b", b"\x00binary")  # a binary frame nothing announced
    assert server.handled == []
    assert len(caplog.records) == 2 and not any(r.exc_info for r in caplog.records)


def test_the_library_refusing_a_shape_is_one_line(caplog: pytest.LogCaptureFixture) -> None:
    server = _Server()

    def refusing(sid: str, data: str) -> None:
        raise ValueError("Unexpected binary attachment")

    server.eio.handlers["message"] = refusing
    patches.quiet_undecodable_packets(server)
    caplog.set_level(logging.WARNING, logger="server.entrypoints.sockets")
    for _ in range(10):
        server.eio.handlers["message"]("a1", "2" + "x" * 100)
    assert len(caplog.records) == 1 and not caplog.records[0].exc_info
    line = caplog.records[0].getMessage()
    assert "ValueError: Unexpected binary attachment" in line
    assert "'2" + "x" * 39 + "'…" in line  # the packet quoted, at most 40 characters
