"""server/runtime/patches.py: it must be importable before eventlet patches anything (server.cli
imports it first), it picks `crapette serve` under eventlet only, and it changes nothing in a
process that has not monkey-patched."""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from server.runtime import (
    patches,  # What must not be imported before `eventlet.monkey_patch()`: it would hold unpatched
)

# locks or selectors (and the libraries that create them).
_TOO_EARLY = {"socket", "threading", "select", "selectors", "ssl", "asyncio", "eventlet"}
_TOO_EARLY |= {"flask", "flask_socketio", "socketio", "engineio", "psycopg", "orjson"}


def test_importing_the_patches_module_imports_nothing_that_must_come_after_eventlet() -> None:
    code = (
        "import sys, json; before = set(sys.modules); import server.runtime.patches; "
        "print(json.dumps(sorted(set(sys.modules) - before)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    imported = {name.split(".")[0] for name in json.loads(done.stdout)}
    assert not imported & _TOO_EARLY


@pytest.mark.parametrize(
    ("argv", "wanted"),
    [
        (["serve"], True),
        (["serve", "--port", "8001"], True),
        (["serve", "--async-mode", "threading"], False),
        (["serve", "--async-mode=threading"], False),
        (["deal", "--seed", "ab"], False),
        (["-k", "serve"], False),
        ([], False),
    ],
)
def test_only_crapette_serve_under_eventlet_patches(argv: list[str], wanted: bool) -> None:
    assert patches.wants_eventlet(argv) is wanted


def test_psycopg_is_left_alone_without_eventlet() -> None:
    if "eventlet.patcher" in sys.modules:
        from eventlet import patcher

        if patcher.is_monkey_patched("select"):
            pytest.skip("this test process is monkey-patched")
    import psycopg.waiting

    before = psycopg.waiting.wait
    assert patches.green_psycopg() is False
    assert psycopg.waiting.wait is before


def test_packets_encode_with_orjson_and_fall_back_to_the_standard_library() -> None:
    packet_class = patches.json_packet()
    assert packet_class is patches.json_packet()  # made once
    packet: Any = packet_class  # a socketio Packet subclass: socketio is untyped
    assert packet.uses_binary_events is False
    assert patches.dumps({"a": [1, "é"]}) == '{"a":[1,"é"]}'
    # What orjson refuses (a lone surrogate, an integer beyond 64 bits) still encodes.
    assert json.loads(patches.dumps({"x": "\ud800"})) == {"x": "\ud800"}
    assert patches.loads(patches.dumps({"n": 2**70})) == {"n": 2**70}
    # Non-str keys (marshmallow's errors of list items) as the standard library writes them.
    errors = {"details": {"items": {0: ["Not a string."]}}, "n": 1.5}
    assert patches.dumps(errors) == json.dumps(errors, separators=(",", ":"))


def _websocket() -> Any:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from eventlet.websocket import RFC6455WebSocket
    return RFC6455WebSocket


class _Wire:
    """The server's end of a connection, recording each write."""

    def __init__(self, peer: socket.socket) -> None:
        self.peer = peer
        self.writes: list[bytes] = []
        self.waited = 0  # sendall calls: writes that may wait for room

    def sendall(self, data: bytes) -> None:
        self.waited += 1
        self.writes.append(bytes(data))
        self.peer.sendall(data)

    def send(self, data: bytes) -> int:  # what the immediate write (7) calls, never waiting
        sent = self.peer.send(data)
        self.writes.append(bytes(data[:sent]))
        return sent


def _queued_socket(packets: list[Any], websocket: Any, *, upgraded: bool = True) -> Any:
    """An engine.io socket with `packets` queued, sending through `websocket` once upgraded."""
    import engineio
    from engineio.socket import Socket

    eio = Socket(engineio.Server(async_mode="threading"), "sid")
    eio.upgraded = upgraded
    eio.coalescing_ws = websocket
    for pkt in packets:
        eio.queue.put(pkt)
    return eio


@contextlib.contextmanager
def _connection() -> Iterator[tuple[_Wire, Any, Any]]:
    """A server WebSocket writing through a recording wire, and the client's end of it."""
    websocket = _websocket()
    server_end, client_end = socket.socketpair()
    with server_end, client_end:
        wire = _Wire(server_end)
        yield wire, websocket(wire, {}, 13), websocket(client_end, {}, 13, client=True)


def test_a_packet_with_nothing_queued_before_it_is_written_at_once_and_in_order() -> None:
    """(7): `send` writes at once when the queue is empty and no write is under way; a packet
    sent while another waits in the queue, or while a frame is being written, is queued
    behind it, so the client reads every packet in the order it was sent."""
    from engineio import packet

    patches.immediate_websocket_writes()
    with _connection() as (wire, ws, client):
        eio = _queued_socket([], ws)
        first = packet.Packet(packet.MESSAGE, data='2["updates",{"v":1}]')
        eio.send(first)
        assert len(wire.writes) == 1 and eio.queue.empty()  # written, not queued

        waiting = packet.Packet(packet.MESSAGE, data='2["updates",{"v":2}]')
        eio.queue.put(waiting)  # one the writer has not taken yet
        behind = packet.Packet(packet.MESSAGE, data="3[{}]")
        eio.send(behind)
        assert len(wire.writes) == 1  # queued behind it

        ws._sendlock.acquire()  # a frame is being written (the writer, blocked in sendall)
        try:
            during = packet.Packet(packet.MESSAGE, data='2["table",{}]')
            eio.send(during)
        finally:
            ws._sendlock.release()
        assert len(wire.writes) == 1
        for pkt in eio.poll():  # the writer's turn: what was queued, in order
            ws.send(pkt.encode())
        sent = [first, waiting, behind, during]
        assert [client.wait() for _ in sent] == [pkt.encode() for pkt in sent]


def test_engineio_packets_are_queued_so_the_writer_hears_the_heartbeat() -> None:
    """(7) writes Socket.IO messages only: a ping (or a close, or a noop) written at once never
    reached the writer's `poll`, which then gave up on every idle connection after ping_interval
    + ping_timeout (tests/integration/test_connections.py holds a real one for longer)."""
    from engineio import packet

    patches.immediate_websocket_writes()
    with _connection() as (wire, ws, client):
        eio = _queued_socket([], ws)
        for kind in (packet.PING, packet.NOOP):
            ping = packet.Packet(kind)
            eio.send(ping)
            assert wire.writes == []
            assert eio.poll() == [ping]  # what wakes the writer within its timeout
        eio.send(packet.Packet(packet.MESSAGE, data="2[1]"))
        assert len(wire.writes) == 1 and eio.queue.empty()
        assert client.wait() == "42[1]"


def test_a_socket_not_upgraded_or_closed_still_queues_or_refuses() -> None:
    from engineio import exceptions, packet

    patches.immediate_websocket_writes()
    pkt = packet.Packet(packet.MESSAGE, data="2[1]")
    polling = _queued_socket([], object(), upgraded=False)
    polling.send(pkt)
    assert polling.queue.get(block=False) is pkt
    with _connection() as (_wire, ws, _client):
        closed = _queued_socket([], ws)
        closed.closed = True
        with pytest.raises(exceptions.SocketIsClosedError):
            closed.send(pkt)


def test_the_echo_dispatches_messages_as_the_game_server_does() -> None:
    """Both run each client's handlers in the greenthread that reads its messages (no new
    greenthread per message): the echo is the same transport without the game."""
    from bench.echo_server import create_echo_app
    from eventstore import open_store
    from server.app import create_app
    from server.config import ServerConfig

    store = open_store("memory://")
    _app, game = create_app(ServerConfig(async_mode="threading"), store=store)
    _echo_app, echo = create_echo_app("threading")
    assert game.server.async_handlers is False
    assert echo.server.async_handlers is game.server.async_handlers
    assert echo.server.packet_class is game.server.packet_class
    store.close()


def test_a_client_that_does_not_read_never_holds_the_sender() -> None:
    """(7) writes what the connection takes at once and queues the rest of the frame for the
    writer: a command that publishes to a stalled client goes on at once, and the client,
    once it reads, gets every frame whole and in order."""
    import threading

    from engineio import packet

    patches.immediate_websocket_writes()
    with _connection() as (wire, ws, client):
        wire.peer.setblocking(False)  # as eventlet keeps every socket
        eio = _queued_socket([], ws)
        big = packet.Packet(packet.MESSAGE, data="2" + "x" * 5_000_000)
        small = packet.Packet(packet.MESSAGE, data="3[1]")
        eio.send(big)  # far more than the connection holds: returns at once, nobody reads
        assert not eio.queue.empty()
        eio.send(small)  # behind the rest of `big`
        assert wire.waited == 0 and wire.writes  # part of `big` written, without waiting
        received: list[bytes] = []
        reader = threading.Thread(target=lambda: received.extend([client.wait(), client.wait()]))
        reader.start()
        wire.peer.setblocking(True)  # the writer's sendall may wait; the reader drains
        for pkt in eio.poll():
            ws.send(pkt.encode())
        reader.join(30)
        assert received == [big.encode(), small.encode()]
