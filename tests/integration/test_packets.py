"""Issue 38: no Socket.IO packet makes a traceback. A raw WebSocket client (websocket-client, no
Socket.IO library to tidy what it sends) writes the packets of the outside review and more to a
real server: each is answered with a structured error or dropped with one log line per client
and minute, the connection goes on answering, and the server's log holds no traceback."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
import websocket

from tests.integration.harness import WAIT_S, ServerProcess

# The review's list (`42` … `42/nsp,`, `45`-`49`, as engine.io messages: the leading 4), and
# more of each kind: other packet types, binary packets announcing nothing or too little, acks
# nobody waits for, a namespace nobody joined, text that is not JSON.
BAD: tuple[str, ...] = (
    "42", "420", "42null", "42{}", "42/nsp,", "45", "46", "47", "48", "49",
    "4", "43", "430", "43[]", "431[1]", "44", '44{"message":"x"}', "4x", "4-1", "42-",
    "42[]", "42[1]", "42[null]", '42"x"', "421", '42[{"a":1},2]', '42[["x"]]', "42[",
    "42/nsp,1[]", "43/nsp,", '451-["join_table",{"_placeholder":true,"num":3}]',
    "450-[]", "46-[]", "4999", '45999999999999-["x"]', '42["*"]', "42123456789012345678901[]",
)  # fmt: skip
# The review's shapes with no message name: answered as the unknown message "".
NAMELESS = ("42", "420", "42null", "42{}", "42[]", '42"x"')


class Raw:
    """A Socket.IO connection spoken by hand over a WebSocket: every frame as written."""

    def __init__(self, server: ServerProcess) -> None:
        url = f"ws://127.0.0.1:{server.port}/socket.io/?EIO=4&transport=websocket"
        self.ws = websocket.create_connection(url, origin=server.url, timeout=WAIT_S)
        assert str(self.ws.recv()).startswith("0")  # engine.io's open
        self.ws.send("40")
        assert str(self.ws.recv()).startswith("40")  # connected to "/"

    def send(self, frame: str) -> None:
        self.ws.send(frame)

    def call(self, event: str, payload: Any, ack: int) -> Any:
        """Send a message with an ack id; its answer (skipping the other frames on the way)."""
        self.ws.send(f"42{ack}" + json.dumps([event, payload]))
        while True:
            frame = self.ws.recv()
            assert isinstance(frame, str)
            if frame == "2":  # engine.io's ping
                self.ws.send("3")
            elif frame.startswith(f"43{ack}"):
                return json.loads(frame[len(f"43{ack}") :])[0]

    def frames_until_ack(self, ack: int) -> list[str]:
        """Every frame received until the answer to a `join_table` with `ack` (which follows)."""
        self.ws.send(f"42{ack}" + json.dumps(["join_table", {}]))
        received: list[str] = []
        while True:
            frame = self.ws.recv()
            assert isinstance(frame, str)
            if frame.startswith(f"43{ack}"):
                return received
            received.append(frame)

    def close(self) -> None:
        self.ws.close()


@pytest.fixture
def raw(server: ServerProcess) -> Iterator[Raw]:
    client = Raw(server)
    yield client
    client.close()


def test_the_review_packets_leave_no_traceback(server: ServerProcess, raw: Raw) -> None:
    start = len(server.log())
    for frame in BAD:
        raw.send(frame)
    # The connection still answers (a half-announced binary packet went with its drop).
    ack = raw.call("join_table", {"match_id": "m-0000000000"}, ack=77)
    assert ack["ok"] is False and ack["code"] == "not_found", ack
    assert server.alive()
    logged = server.log()[start:]
    assert "Traceback" not in logged and "Error" not in logged.replace("Error:", ""), logged[-3000:]
    # One line per client and minute, whatever was dropped.
    lines = [line for line in logged.splitlines() if line.strip()]
    assert len(lines) <= 1, logged[-3000:]


@pytest.mark.parametrize("frame", NAMELESS)
def test_a_packet_naming_no_message_gets_a_structured_error(
    server: ServerProcess, raw: Raw, frame: str
) -> None:
    raw.send(frame)
    errors = [json.loads(f[2:])[1] for f in raw.frames_until_ack(5) if f.startswith('42["error"')]
    nameless = [e for e in errors if e["event"] == ""]  # the join_table's own error follows
    assert len(nameless) == 1, errors
    reply = nameless[0]
    assert reply["code"] == "invalid", reply
    assert "names itself first" in reply["message"], reply


def test_an_ack_id_gets_its_ack(server: ServerProcess, raw: Raw) -> None:
    raw.send("423")
    frames = raw.frames_until_ack(6)
    acks = [json.loads(f[3:])[0] for f in frames if f.startswith("433")]
    assert acks and acks[0]["ok"] is False and acks[0]["code"] == "invalid", frames


def test_five_hundred_nameless_packets_grow_the_log_by_nothing(
    server: ServerProcess, raw: Raw
) -> None:
    """The review: 500 × `42` on one connection grew the log by 778 KB."""
    start = len(server.log())
    for _ in range(500):
        raw.send("42")
    for _ in range(100):
        raw.send("47")
    raw.frames_until_ack(9)
    grown = server.log()[start:]
    assert "Traceback" not in grown and len(grown) < 500, grown[-3000:]
