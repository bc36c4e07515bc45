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


def test_a_good_packet_and_a_handler_error_pass_through() -> None:
    server = _Server()
    patches.quiet_undecodable_packets(server)
    server.eio.handlers["message"]("a1", '2["join_table",{}]')
    assert server.handled == ['2["join_table",{}]']

    def failing(sid: str, data: str) -> None:
        raise ValueError("a handler's own error is not hidden")

    server.eio.handlers["message"] = failing
    patches.quiet_undecodable_packets(server)
    with pytest.raises(ValueError, match="not hidden"):
        server.eio.handlers["message"]("a1", "2[]")
