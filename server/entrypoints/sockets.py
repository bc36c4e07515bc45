"""Socket.IO's incoming side: what a client may send, as a table of message → handler
(`HANDLERS`, then the connection's own `LIFECYCLE`), each handler a function of the service, the
client's session id and its payload. Every handler validates its payload and answers with an
ack; nothing a client sends can crash the server or close the connection. The outgoing side
(rooms, updates, backlogs) is `server.adapters.socket_publisher.SocketPublisher`.

The handlers are registered on the Socket.IO server under Flask-SocketIO (`socketio.server`), not
through `SocketIO.on`: that wrapper pushes a Flask request context for every message (URL matching,
opening the cookie session), about 15% of the server's time under load, and nothing here reads the
Flask request or session: the session id comes as an argument."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from flask_socketio import SocketIO
from socketio import exceptions as sio_errors

from server.adapters.socket_publisher import NAMESPACE, SocketPublisher
from server.entrypoints import protocol, schemas
from server.errors import ServerError, clipped
from server.service import GameService

log = logging.getLogger(__name__)

# Codes a refused command is reported with (anything else is a malformed message: `error`).
_REFUSAL_CODES = {"refused", "forbidden", "conflict", "not_playing", "too_early"}

Ack = Mapping[str, object]  # a handler's answer, sent back as the message's acknowledgement


@dataclass(frozen=True)
class Door:
    """What every handler is given besides the message: the service and the Socket.IO server
    (to send the client more than its ack)."""

    service: GameService
    socketio: SocketIO


Handler = Callable[[Door, str, object], Ack]  # (door, sid, the client's payload) -> ack
Lifecycle = Callable[..., None]  # (door, sid, *what python-socketio passes)


# -- the messages a client sends ------------------------------------------------------------


def join_table(door: Door, sid: str, payload: object) -> Ack:
    data = schemas.load(schemas.JOIN_TABLE, payload)
    ack, table = door.service.clients.join_table(
        sid, data["match_id"], data["seat_token"], data["last_version"]
    )
    if table is not None:  # a spectator: a person's coming was told the whole table
        door.socketio.emit("table", table, to=sid)
    return ack


def command(door: Door, _sid: str, payload: object) -> Ack:
    data = schemas.load_command(payload)
    return door.service.player_commands.execute(
        data["match_id"], data["seat_token"], data["command_id"], data["action"]
    )


def claim(door: Door, _sid: str, payload: object) -> Ack:
    data = schemas.load(schemas.SEAT_CLAIM, payload)
    return door.service.seats.claim(data["match_id"], data["seat_token"], data["what"])


def next_game(door: Door, _sid: str, payload: object) -> Ack:
    data = schemas.load(schemas.SEAT, payload)
    return door.service.endings.next_game(data["match_id"], data["seat_token"])


def abandon(door: Door, _sid: str, payload: object) -> Ack:
    data = schemas.load(schemas.SEAT, payload)
    return door.service.endings.abandon(data["match_id"], data["seat_token"])


def leave_table(door: Door, sid: str, payload: object) -> Ack:
    schemas.load(schemas.LEAVE_TABLE, payload)
    door.service.clients.leave(sid)
    return {"ok": True}


HANDLERS: dict[str, Handler] = {
    "join_table": join_table,
    "command": command,
    "claim": claim,
    "next_game": next_game,
    "abandon": abandon,
    "leave_table": leave_table,
}


# -- the connection's own events --------------------------------------------------------------


def connect(
    _door: Door, _sid: str, environ: object = None, auth: object = None, *_args: object
) -> None:
    """Every connection that speaks a served protocol version is accepted
    (server.entrypoints.protocol): seats are claimed by token in `join_table`. Another version
    is refused at the handshake with a `connect_error` naming the versions served."""
    refused = protocol.refusal(environ if isinstance(environ, Mapping) else None, auth)
    if refused is not None:
        raise sio_errors.ConnectionRefusedError(refused["message"], refused)


def disconnect(door: Door, sid: str, *_reason: object) -> None:
    try:
        door.service.clients.leave(sid)
    except Exception:
        log.exception("disconnect cleanup failed")


LIFECYCLE: dict[str, Lifecycle] = {"connect": connect, "disconnect": disconnect}


def unknown(door: Door, event: object, sid: str, *_args: object) -> Ack:
    """The answer to a message no handler has (python-socketio's catch-all, `*`)."""
    message = f"Unknown message {str(event)[:40]!r}."
    if event == "":
        message = "Unknown message '': a message names itself first: [\"name\", payload]."
    reply = {"code": "invalid", "message": message}
    door.socketio.emit("error", {**reply, "event": str(event)[:40]}, to=sid)
    return {"ok": False, **reply}


# -- registering them ------------------------------------------------------------------------


def register(socketio: SocketIO, publisher: SocketPublisher, service: GameService) -> None:
    """Walk the tables: each message's handler `guarded`, each lifecycle event's `alive`-checked,
    the catch-all for the rest; `publisher` is the one `service` was built with (it keeps the
    rooms) and gets the lobby's view of a table (`table_of`)."""
    publisher.table_of = service.views.table
    door = Door(service, socketio)
    server = socketio.server
    for event, handler in HANDLERS.items():
        server.on(event, guarded(door, event, handler), namespace=NAMESPACE)
    for event, lifecycle in LIFECYCLE.items():
        server.on(event, alive(door, event, lifecycle), namespace=NAMESPACE)
    _name_every_message(socketio)
    server.on("*", functools.partial(unknown, door), namespace=NAMESPACE)


def guarded(door: Door, event: str, handler: Handler) -> Callable[..., Ack]:
    """`handler` as python-socketio calls it, `(sid, *args)`; every failure becomes an ack plus a
    `refused` (a refused command) or `error` message, and never escapes."""

    @functools.wraps(handler)
    def run(sid: str, *args: object) -> Ack:
        payload = args[0] if len(args) == 1 else list(args)
        try:
            return handler(door, sid, payload)
        except ServerError as exc:
            reply = exc.to_json()
        except Exception:
            log.exception("%s handler failed", event)
            reply = {"code": "internal", "message": "The server failed on this message."}
        extra: dict[str, object] = {}
        if isinstance(payload, dict):
            extra = {k: payload[k] for k in ("match_id", "command_id") if k in payload}
            extra = {k: clipped(v, 80) for k, v in extra.items() if isinstance(v, str)}
        if event == "command" and reply["code"] in _REFUSAL_CODES:
            door.socketio.emit("refused", {**extra, **reply}, to=sid)
        else:
            door.socketio.emit("error", {**extra, **reply, "event": event}, to=sid)
        return {"ok": False, **reply}

    return run


def alive(door: Door, event: str, handler: Lifecycle) -> Callable[..., Ack | None]:
    """The handler of a connection's own `connect` or `disconnect`. python-socketio hands a
    client's *message* of that name to the same handler; a real one comes while the connection
    is still being made or already being closed, so a client that is plainly connected sent a
    message, and gets the answer to an unknown one (its seat stays)."""

    @functools.wraps(handler)
    def run(sid: str, *args: object) -> Ack | None:
        if door.socketio.server.manager.is_connected(sid, NAMESPACE):
            return unknown(door, event, sid)
        handler(door, sid, *args)
        return None

    return run


def _name_every_message(socketio: SocketIO) -> None:
    """python-socketio looks a message's name up in its handlers' dict: a packet naming it with a
    list or an object (or naming none) raised a TypeError (IndexError) inside the library, and
    the client got no answer. Such a name is made a text no handler has, so the catch-all
    answers it like any other unknown message. A packet whose data is no list at all (`42`,
    `420`, `42null`, `42{}`, `42/nsp,`: None, a number, an object) is the message with no name
    (issue 38: it raised a TypeError here). A message named "*" itself found the catch-all as
    its own handler, called without the name (so with the payload as the sid): it is answered as
    the unknown message "* "."""
    handle_event = socketio.server._handle_event

    def named_event(eio_sid: str, namespace: str, ack_id: int | None, data: object) -> None:
        if not isinstance(data, list):
            data = [""]
        elif not data or not isinstance(data[0], str):
            data = [str(data[0])[:80] if data else "", *data[1:]]
        elif data[0] == "*":
            data = ["* ", *data[1:]]
        handle_event(eio_sid, namespace, ack_id, data)

    socketio.server._handle_event = named_event
