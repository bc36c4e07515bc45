"""Every change this server makes to how a library behaves, in one place, each with what it does
and why. Nothing else in the project monkey-patches; a new patch goes here, with its reason and
its figure.

1. `eventlet_first()`: `eventlet.monkey_patch()`, before anything else is imported.
   `crapette serve` runs under eventlet (docs/architecture.md, "The layers"); sockets, locks
   and `select` must be green before Flask, python-socketio or psycopg create any, so
   `server.cli` calls this at import, ahead of every other import, when the command is `serve`
   (`wants_eventlet`). It also hides eventlet's deprecation notice (it would only alarm
   players) and applies (2).
2. `green_psycopg()`: psycopg's `waiting.wait` becomes `waiting.wait_select`.
   psycopg 3 waits for the database in C (`poll()`), which eventlet cannot see: every PostgreSQL
   query froze every greenthread until its answer (measured: during a 0.3 s `pg_sleep` another
   greenthread got zero ticks; `tests/contract/test_eventlet.py`). psycopg detects gevent, not
   eventlet; `wait_select` calls `select.select`, which eventlet has made green, and psycopg
   looks `waiting.wait` up at each call. It targets the event store's driver, but eventstore must
   not know about the server's concurrency, so it is applied from here (docs/eventstore.md).
3. (removed, issue 27) `fast_websocket_unmask()` replaced eventlet's byte-at-a-time
   `RFC6455WebSocket._apply_mask` with one big-integer XOR (68 µs to 3.3 µs for a 250-byte
   command, alone). In the server, left out against kept in the same run, it saved -25 % to
   +24 % of the CPU per move over 7 rounds (median -5 %): within noise, below the 10 % a patch
   must buy to stay (docs/benchmarks.md § What each transport patch buys).
4. `run_options()`: TCP_NODELAY on every accepted connection, through `socketio.run`.
   A command's reply is two small writes (the `updates` message, then the ack); with Nagle's
   algorithm the second waited for the client's delayed ACK, a flat 40 ms per command on Linux
   loopback. Kept for that latency (a correctness fix): it buys no CPU (left out, -25 % to +5 %
   over 3 rounds, issue 27), and goes through `socketio.run`'s public `protocol` argument.
5. `json_packet()`: the Socket.IO packet class, given to `SocketIO(serializer=...)`.
   It encodes with orjson (the standard library's encoder cost about as much as deciding the
   move, for a view of some 3 KB; orjson's option for non-str keys only when needed, as it
   doubles the time of every encoding) and skips python-socketio's recursive scan of each outgoing
   payload for bytes (on a 24-pile view that scan cost more than deciding the move): everything
   this server sends is JSON. It decodes with the standard library, which accepts all a client
   may send (numbers beyond 64 bits, NaN): the handlers' schemas refuse what they must. What it
   cannot decode at all (not JSON, a number of over 4,300 digits) python-socketio drops before
   any handler: logged, with no answer to the client (docs/protocol.md). What it buys (issue
   27): with python-socketio's own packet instead, the server's CPU per move was 0.98-1.24 ms
   against 0.70-0.79 ms with it, a share of 21-44 % over 3 rounds: it stays.
6. (removed, issue 27) `coalesced_websocket_writes()` packed the packets the WebSocket writer found
   queued into one `sendall`. Since (7) writes most packets at once, little is ever queued: left
   out against kept in the same run, it saved -39 % to +15 % of the CPU per move over 7 rounds
   (median +2 %), below the 10 % a patch must buy to stay (docs/benchmarks.md § What each
   transport patch buys).
7. `immediate_websocket_writes()`: engine.io's `Socket.send` writes a packet to the WebSocket
   at once, in the greenthread that sends it, when nothing is queued before it and no write is
   under way; otherwise it queues it for the writer, as before. A queued packet waited until
   the writer's turn came, behind every greenthread already ready: at human pace, when a few
   commands arrive together, each command's `updates` left only after all of them had been
   decided (measured at 100 tables: the slowest 1 % of round trips spent 3.3 ms between the
   end of their command and the client's receipt, against 0.5 ms for the median). The write
   never waits for room: what a slow (or stalled) client's connection does not take at once is
   queued for the writer as frame bytes. Frames and their order are the same; a command's
   `updates` and ack now leave in two writes instead of one. Only Socket.IO messages take this
   path: engine.io's own packets (ping, close, noop) still go through the queue, because the
   writer's `poll` waits for its queue at most ping_interval + ping_timeout (45 s) and closes the
   connection when nothing came; on an idle connection the ping every 25 s is what it gets (when
   the pings too were written at once, every idle connection dropped after exactly 45 s; tests/
   integration/test_connections.py). Installed by `run_options("eventlet")`, for the server and
   the echo alike. Its CPU share (issue 27): -18 % to +20 % over 7 rounds (median -6 %), none
   to speak of; it is kept as a correctness fix, for the p99 at human pace and the 45 s rule.

8. `quiet_undecodable_packets()`: a Socket.IO packet python-socketio cannot decode (not JSON,
   a number of over 4,300 digits, JSON nested deeper than the recursion limit) or refuses while
   dispatching it (a packet type a client never sends, `4` and `7`-`9`; a binary packet that
   announces no attachment, `5` or `6`, which would have swallowed the client's next packet as
   its attachment; a binary frame nothing announced; any `ValueError`, `TypeError`, `KeyError`,
   `IndexError` or `AttributeError` the library raises on a packet's shape) is dropped with no
   answer, and logged as one warning line per client address per minute (with the count of
   those dropped since), not as engine.io's 27-line traceback each time: a client sending a
   packet nested 5,000 deep in a loop filled the log at the rate it sent, and 500 × `42` grew it
   by 778 KB (issue 38). `JsonPacket.decode` raises `UndecodablePacketError` for what it cannot
   decode, and the engine.io `message` handler is wrapped to drop what is malformed. Any other
   error (a bug) still logs its traceback. A well-formed EVENT packet whose data is no list
   naming a message (`42`, `42null`, `42{}`) is answered by the handlers instead
   (server.entrypoints.sockets, `named_event`). Installed by the app factory
   (tests/integration/test_malformed.py, tests/integration/test_packets.py).

Not patches, so they stay where they are: `server.entrypoints.sockets` registers its handlers on the
python-socketio server itself (no Flask request context per message, about 15 % of the server's
time), and eventstore's own fast paths (`tuple.__new__` for `RecordedEvent`, one C-level JSON
decode per payload, a wake-up of subscribers that never blocks) are that package's code.

This module imports only the standard library at import time: `server.cli` imports it before
eventlet has patched anything.
"""

from __future__ import annotations

import contextlib
import functools
import json as _stdlib
import os
import re
import sys
import warnings
from collections.abc import Callable
from typing import Any

# -- a patch left out, by name, for the bench's with/without figure (docs/benchmarks.md) ----------

#: The patches `crapette bench server --without NAME` can leave out of the server it measures.
OPTIONAL = ("nodelay", "json", "immediate")
#: Comma-separated names of OPTIONAL left out of this process (for the bench only).
WITHOUT_ENV = "CRAPETTE_BENCH_WITHOUT_PATCHES"


def enabled(name: str) -> bool:
    """False if `name` (one of OPTIONAL) is left out of this process by WITHOUT_ENV."""
    off = {n.strip() for n in os.environ.get(WITHOUT_ENV, "").split(",") if n.strip()}
    unknown = off - set(OPTIONAL)
    if unknown:
        raise SystemExit(f"{WITHOUT_ENV}: unknown patch {sorted(unknown)}; known: {OPTIONAL}")
    return name not in off


# -- the versions these patches were tested with ------------------------------------------------

#: The distributions whose internals (7) replaces (and (4), (5) subclass), at the
#: versions the patches and their tests were run against (pyproject.toml pins the same).
TESTED: dict[str, str] = {
    "python-engineio": "4.15.1",
    "python-socketio": "5.18.1",
    "flask-socketio": "5.7.0",
    "eventlet": "0.41.3",
}
#: Set to 1 to start anyway on versions not in TESTED (at your own risk: a patch may break).
UNTESTED_ENV = "CRAPETTE_ALLOW_UNTESTED_VERSIONS"


def untested_versions() -> list[str]:
    """One line per distribution of TESTED installed at another version (or not installed)."""
    from importlib import metadata

    problems = []
    for name, tested in TESTED.items():
        try:
            installed = f"{name} {metadata.version(name)} is installed"
        except metadata.PackageNotFoundError:
            installed = f"{name} is not installed"
        if installed != f"{name} {tested} is installed":
            problems.append(f"{installed}; the patches were tested with {tested}")
    return problems


def refuse_untested_versions() -> None:
    """Exit with a message naming each distribution at an untested version, unless
    UNTESTED_ENV=1. Called by `crapette serve` before any patch is applied."""
    problems = untested_versions()
    if not problems or os.environ.get(UNTESTED_ENV) == "1":
        return
    raise SystemExit(
        "crapette serve: server/runtime/patches.py changes the internals of these libraries and "
        "was not tested with the installed versions:\n  "
        + "\n  ".join(problems)
        + f"\nInstall the tested versions (pyproject.toml), or set {UNTESTED_ENV}=1 to start "
        "anyway."
    )


# -- 1. eventlet, before anything else -----------------------------------------------------------


def wants_eventlet(argv: list[str]) -> bool:
    """`crapette serve …` under eventlet (not `--async-mode threading`, not `pytest -k serve`)."""
    if not argv or argv[0] != "serve":
        return False
    return not any(a in ("threading", "--async-mode=threading") for a in argv)


def eventlet_first() -> None:
    """Monkey-patch the whole process for eventlet, then make psycopg wait greenly (2)."""
    # Eventlet is the server's loop (docs/architecture.md); its deprecation notice would only
    # alarm players.
    warnings.filterwarnings("ignore", message=r"\s*Eventlet is deprecated")
    import eventlet

    eventlet.monkey_patch()
    green_psycopg()


# -- 2. psycopg under eventlet -------------------------------------------------------------------


def green_psycopg() -> bool:
    """Make psycopg yield to other greenthreads while it waits, if eventlet has patched
    `select`; True if it did (in a process without eventlet nothing changes)."""
    patcher = sys.modules.get("eventlet.patcher")
    if patcher is None or not patcher.is_monkey_patched("select"):
        return False
    import psycopg.waiting

    psycopg.waiting.wait = psycopg.waiting.wait_select
    return True


# -- 4. TCP_NODELAY ------------------------------------------------------------------------------


def _no_delay(connection: Any) -> None:
    import socket

    # Not a TCP socket (tests, unix sockets): nothing to tune.
    with contextlib.suppress(OSError, AttributeError):
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def run_options(async_mode: str) -> dict[str, Any]:
    """Extra keyword arguments for `socketio.run` in this async mode (and, under eventlet, the
    immediate writes (7), which both the server and the bench's echo server get this way)."""
    if async_mode == "eventlet":
        import eventlet.wsgi

        if enabled("immediate"):
            immediate_websocket_writes()
        nodelay = enabled("nodelay")

        class NoDelayProtocol(eventlet.wsgi.HttpProtocol):  # type: ignore[misc]
            def setup(self) -> None:
                if nodelay:
                    _no_delay(self.request)
                super().setup()

        return {"protocol": NoDelayProtocol}
    from werkzeug.serving import WSGIRequestHandler

    class NoDelayHandler(WSGIRequestHandler):
        def setup(self) -> None:
            _no_delay(self.request)
            super().setup()

    return {"request_handler": NoDelayHandler}


# -- 5. Socket.IO packets: orjson, no bytes scan -------------------------------------------------


@functools.cache
def _orjson() -> Any:
    """orjson, imported on first use (after (1)), or None where it is not installed."""
    try:
        import orjson
    except ImportError:  # pragma: no cover - a dependency, but the server runs without it
        return None
    return orjson


def dumps(obj: Any, **_options: Any) -> str:
    orjson = _orjson()
    if orjson is not None:
        # Non-str keys (marshmallow reports errors of list items under int keys) need an option
        # that makes every encoding nearly twice as slow: only for what fails without it.
        for option in (0, orjson.OPT_NON_STR_KEYS):
            try:
                encoded: bytes = orjson.dumps(obj, option=option)
            except TypeError:
                # What orjson refuses and a client may make us echo: a lone surrogate (JSON's
                # "\ud800", in a field name or an error message) or an integer beyond 64 bits.
                continue
            return encoded.decode()
    return _stdlib.dumps(obj, separators=(",", ":"))


def loads(text: str | bytes, **_options: Any) -> Any:
    return _stdlib.loads(text)


class _Codec:
    """The `json` a packet uses: python-socketio calls its `dumps` and `loads`."""

    dumps = staticmethod(dumps)
    loads = staticmethod(loads)


def serializer() -> Any:
    """What `SocketIO(serializer=...)` gets: `json_packet()`, or python-socketio's own
    (`"default"`) where the bench leaves (5) out."""
    return json_packet() if enabled("json") else "default"


@functools.cache
def json_packet() -> type:
    """The packet class (made on first use: python-socketio is imported only after (1))."""
    from socketio.packet import Packet

    class JsonPacket(Packet):  # type: ignore[misc]
        uses_binary_events = False
        json = _Codec

        def decode(self, encoded_packet: Any) -> Any:
            try:
                return super().decode(encoded_packet)
            except (ValueError, RecursionError, TypeError) as exc:  # see (8)
                raise UndecodablePacketError(f"{type(exc).__name__}: {str(exc)[:80]}") from None

    return JsonPacket


# -- 8. one log line per client and minute for what cannot be decoded ----------------------------


class UndecodablePacketError(ValueError):
    """A Socket.IO packet python-socketio cannot decode (dropped, see (8))."""


UNDECODABLE_LOG_EVERY_S = 60.0
_MAX_CLIENTS_REMEMBERED = 10_000


# The errors python-socketio raises on a malformed packet's shape while dispatching it (not a bug
# of the server's: every handler of the server's own is wrapped by `sockets.guarded`).
MALFORMED_ERRORS = (ValueError, TypeError, KeyError, IndexError, AttributeError)
# A binary packet (`5` BINARY_EVENT, `6` BINARY_ACK) with its attachment count (`51-[...]`).
_BINARY_HEADER = re.compile(r"[56]([0-9]{1,10})-")


def malformed_reason(data: Any, awaiting_attachment: bool) -> str | None:
    """Why a packet is dropped before python-socketio sees it (None: it goes on): a packet type
    no client sends, a binary packet without attachments, a binary frame nothing announced."""
    if isinstance(data, bytes | bytearray):
        return None if awaiting_attachment else "a binary frame no packet announced"
    if not isinstance(data, str) or awaiting_attachment:
        return None
    kind = data[:1]
    if kind in ("4", "7", "8", "9"):
        return f"packet type {kind}, which a client never sends"
    if kind in ("5", "6"):
        header = _BINARY_HEADER.match(data)
        if header is None or int(header.group(1)) == 0:
            return "a binary packet that announces no attachment"
    return None


def quiet_undecodable_packets(
    server: Any, clock: Callable[[], float] | None = None, every_s: float = UNDECODABLE_LOG_EVERY_S
) -> None:
    """Wrap `server.eio`'s `message` handler (a python-socketio Server): a malformed packet is
    dropped and logged once per client address per `every_s` seconds."""
    import logging
    import time

    now = time.monotonic if clock is None else clock
    log = logging.getLogger("server.entrypoints.sockets")
    handler = server.eio.handlers["message"]
    last: dict[str, float] = {}
    dropped: dict[str, int] = {}
    pending: dict[str, Any] = getattr(server, "_binary_packet", {})

    def drop(eio_sid: str, data: Any, what: str, why: str) -> None:
        pending.pop(eio_sid, None)  # a half-received binary packet goes with it
        environ = server.environ.get(eio_sid) or {}
        client = str(environ.get("REMOTE_ADDR") or eio_sid)
        at = now()
        if at - last.get(client, -every_s) < every_s:
            dropped[client] = dropped.get(client, 0) + 1
            return
        if len(last) >= _MAX_CLIENTS_REMEMBERED:  # forget the quiet ones
            for known in [c for c, t in last.items() if at - t >= every_s]:
                last.pop(known, None)
                dropped.pop(known, None)
        more = dropped.pop(client, 0)
        last[client] = at
        since = f"; {more} more dropped since the last line" if more else ""
        log.warning(
            "dropped a Socket.IO packet from %s that %s (%s; it began %s)%s; "
            "at most one line a minute per client",
            client,
            what,
            why,
            _quoted(data),
            since,
        )

    def message(eio_sid: str, data: Any) -> Any:
        why = malformed_reason(data, eio_sid in pending)
        if why is not None:
            drop(eio_sid, data, "no client sends", why)
            return None
        try:
            return handler(eio_sid, data)
        except UndecodablePacketError as exc:
            drop(eio_sid, data, "cannot be decoded", str(exc))
        except MALFORMED_ERRORS as exc:
            why = f"{type(exc).__name__}: {str(exc)[:80]}"
            drop(eio_sid, data, "python-socketio refused", why)
        return None

    server.eio.on("message", message)


def _quoted(data: Any) -> str:
    """At most 40 characters of a packet, for a log line."""
    text = data if isinstance(data, str) else repr(bytes(data[:40]))
    return repr(text[:40]) + ("…" if len(text) > 40 else "")


# -- 7. (its frames, and the WebSocket it writes to) ---------------------------------------------


class Frames(bytes):
    """WebSocket frames packed already: `RFC6455WebSocket.send` writes them as they are."""


class _PackedBatch:
    """What (7) queues for the writer when the connection did not take a whole frame at once:
    its `encode()` (the writer's only call) is the rest of that frame."""

    def __init__(self, frames: Frames) -> None:
        self.frames = frames

    def encode(self) -> Frames:
        return self.frames


def _track_websocket() -> None:
    """What (7) needs: an upgraded socket knows its eventlet RFC 6455 WebSocket
    (`coalescing_ws`), and that WebSocket's `send` writes `Frames` as they are."""
    from engineio.socket import Socket
    from eventlet.websocket import RFC6455WebSocket

    if getattr(Socket._websocket_handler, "tracks", False):
        return
    handler, send = Socket._websocket_handler, RFC6455WebSocket.send

    def websocket_handler(self: Any, ws: Any) -> Any:
        self.coalescing_ws = ws if isinstance(ws, RFC6455WebSocket) else None
        try:
            return handler(self, ws)
        finally:
            self.coalescing_ws = None

    def frames_send(self: Any, message: Any, **kw: Any) -> None:
        if type(message) is Frames:
            self._send(message)
        else:
            send(self, message, **kw)

    websocket_handler.tracks = True  # type: ignore[attr-defined]
    Socket._websocket_handler = websocket_handler
    RFC6455WebSocket.send = frames_send


# -- 7. a packet written at once when nothing waits before it -------------------------------------


def immediate_websocket_writes() -> None:
    """`Socket.send` writes a Socket.IO message itself when the socket is an upgraded eventlet
    WebSocket (`coalescing_ws`, set by `_track_websocket`), its queue is empty and no frame is
    being written: every packet sent before it has then left, so the order holds. Engine.io's
    own packets (ping, close, noop) are always queued: they keep the writer's `poll` awake,
    whose timeout would otherwise close an idle connection. The write never waits: what the
    connection does not take at once (a client that reads slowly, or not at all) is queued for
    the writer as frame bytes, and the sender goes on; so a command publishing to such a client
    under its match's lock is not held by it. Else, or if the write fails (the writer then meets
    the same error and closes the connection), the packet is queued as before."""
    from engineio import packet
    from engineio.socket import Socket

    _track_websocket()
    if getattr(Socket.send, "immediate", False):
        return
    queued_send = Socket.send
    message = packet.MESSAGE

    def send(self: Any, pkt: Any) -> None:
        ws = getattr(self, "coalescing_ws", None)
        if (
            pkt.packet_type != message
            or ws is None
            or not self.upgraded
            or self.upgrading
            or self.closed
            or not self.queue.empty()
            or ws._sendlock.locked()
        ):
            queued_send(self, pkt)
            return
        if not self.check_ping_timeout():
            return
        frame = ws._pack_message(pkt.encode(), masked=ws.client)
        sent = _send_without_waiting(ws.socket, frame)
        if sent < len(frame):
            self.queue.put(_PackedBatch(Frames(frame[sent:])))

    send.immediate = True  # type: ignore[attr-defined]
    Socket.send = send


def _send_without_waiting(sock: Any, data: bytes) -> int:
    """Bytes of `data` the connection took at once (a green socket's own non-blocking socket,
    `fd`, written directly: eventlet's `sendall` would wait for room)."""
    raw = getattr(sock, "fd", sock)
    try:
        sent: int = raw.send(data)
    except (BlockingIOError, InterruptedError):
        return 0
    except OSError:  # a broken connection: the writer meets it too, and closes the socket
        return 0
    return sent
