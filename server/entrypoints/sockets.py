"""Socket.IO play: per-viewer rooms, join/reconnect with exactly the missing updates, commands,
claims. Every handler validates its payload and answers with an ack; nothing a client sends can
crash the server or close the connection.

The handlers are registered on the Socket.IO server under Flask-SocketIO (`socketio.server`), not
through `SocketIO.on`: that wrapper pushes a Flask request context for every message (URL matching,
opening the cookie session), about 15% of the server's time under load, and nothing here reads the
Flask request or session: the session id comes as an argument."""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable, Mapping
from typing import TypeVar

from flask_socketio import SocketIO
from socketio import exceptions as sio_errors

import domain
from server.adapters.matches import Applied
from server.adapters.publisher import CatchUp
from server.entrypoints import protocol, schemas
from server.errors import ServerError, clipped
from server.readmodels.updates import batch_updates, update_payload, view_json
from server.service import GameService
from server.wire.payloads import SeatMessage, TableJson, Updates

log = logging.getLogger(__name__)

# Codes a refused command is reported with (anything else is a malformed message: `error`).
_REFUSAL_CODES = {"refused", "forbidden", "conflict", "not_playing", "too_early"}
_VIEWERS: tuple[int | None, ...] = (0, 1, None)
NAMESPACE = "/"

Ack = Mapping[str, object]  # a handler's answer, sent back as the message's acknowledgement
Handler = Callable[[str, object], Ack]  # (sid, the client's payload)
AnyHandler = TypeVar("AnyHandler", bound=Callable[..., object])


def room_of(match_id: str, viewer: int | None) -> str:
    return f"{match_id}:{'spect' if viewer is None else viewer}"


class SocketPublisher:
    """Delivers folded events to the rooms of a match, each room its own redaction, and a
    table's lobby view to everyone at that table (`server.adapters.publisher.Publisher`)."""

    def __init__(self, socketio: SocketIO, *, shared: bool = False) -> None:
        self.socketio = socketio
        # Several processes share a message queue (server.adapters.cluster): a table's room may have
        # members on any of them.
        self.shared = shared
        self.members: dict[str, set[str]] = {}  # room -> sids
        self.sessions: dict[str, tuple[str, int | None]] = {}  # sid -> (match, viewer)
        # sid -> (place, name) of the person a client is, seated or waiting (not a spectator)
        self.people: dict[str, tuple[int, str | None]] = {}
        # A table's lobby view by match id, for the `table` message after a seat change: the
        # lobby's, given by `register` (the publisher is built before the service).
        self.table_of: Callable[[str], TableJson] | None = None
        self.lock = threading.Lock()

    def occupied(self, room: str) -> bool:
        """Whether the room has members on this process."""
        with self.lock:
            return bool(self.members.get(room))

    def viewers_here(self, match_id: str) -> list[int | None]:
        """The viewers whose room of this match has members on this process."""
        with self.lock:
            return [v for v in _VIEWERS if self.members.get(room_of(match_id, v))]

    def applied(self, match_id: str, items: list[Applied]) -> None:
        """To this process's members only, never through the message queue: every process
        folds every event (its own writes, and the others' through server.adapters.feed) in version
        order under the match's lock, and a joining client's backlog is sent under that same
        lock, so each client gets each version exactly once, whichever process wrote it."""
        viewers = self.viewers_here(match_id)
        if not viewers:
            return
        # One message per room for the whole batch (a command's events, a server step's):
        # the transport's cost is per message, and a move is often 2-3 events.
        batches = batch_updates(match_id, items, viewers)
        for viewer, batch in zip(viewers, batches, strict=True):
            message: Updates = {"match_id": match_id, "updates": batch}
            self.socketio.emit("updates", message, to=room_of(match_id, viewer), ignore_queue=True)
        for item in items:
            if type(item.event) is domain.SeatsRotated:
                self._reseat(match_id, item.event, items[-1])

    def _reseat(self, match_id: str, event: domain.SeatsRotated, last: Applied) -> None:
        """A rotation table's seat change: each client of the two people who changed place
        moves to his new room and gets his new view (`seat`, docs/protocol.md) after the
        batch's updates, before any later one."""
        with self.lock:
            moving = [
                (sid, self.people[sid][1])
                for sid, (match, _viewer) in self.sessions.items()
                if match == match_id
                and sid in self.people
                and self.people[sid][1] in (event.left, event.entered)
            ]
        for sid, name in moving:
            viewer = event.players.index(name) if name in event.players else None
            self._move(sid, match_id, viewer)
            message: SeatMessage = {
                "match_id": match_id,
                "seat": viewer,
                "waiting": viewer is None,
                "name": name or "",
                "version": last.version,
                "view": view_json(last.state, viewer),
            }
            self.socketio.emit("seat", message, to=sid, ignore_queue=True)
        if self.table_of is not None:
            table = self.table_of(match_id)
            for viewer in _VIEWERS:  # every process tells its own clients: it folds this too
                room = room_of(match_id, viewer)
                if self.occupied(room):
                    self.socketio.emit("table", table, to=room, ignore_queue=True)

    def _move(self, sid: str, match_id: str, viewer: int | None) -> None:
        with self.lock:
            old = self.sessions.get(sid)
            if old is None:
                return
            self.members.get(room_of(*old), set()).discard(sid)
            self.members.setdefault(room_of(match_id, viewer), set()).add(sid)
            self.sessions[sid] = (match_id, viewer)
        self.socketio.server.leave_room(sid, room_of(*old), namespace=NAMESPACE)
        self.socketio.server.enter_room(sid, room_of(match_id, viewer), namespace=NAMESPACE)

    def table_changed(self, match_id: str, table: TableJson) -> None:
        for viewer in _VIEWERS:
            room = room_of(match_id, viewer)
            # A lobby view changes without a stored event (a client came or went), so the
            # other processes learn of it only from this emit, through the message queue.
            if self.shared or self.occupied(room):
                self.socketio.emit("table", table, to=room)

    def enter(
        self,
        sid: str,
        match_id: str,
        viewer: int | None,
        person: tuple[int, str | None] | None = None,
    ) -> None:
        """`sid` watches `match_id` as `viewer` (a seat, or None); `person` (place, name): the
        person it is, seated or waiting (None: a spectator)."""
        room = room_of(match_id, viewer)
        self.socketio.server.enter_room(sid, room, namespace=NAMESPACE)
        with self.lock:
            self.members.setdefault(room, set()).add(sid)
            self.sessions[sid] = (match_id, viewer)
            if person is not None:
                self.people[sid] = person

    def joined(
        self,
        sid: str,
        match_id: str,
        viewer: int | None,
        catch_up: CatchUp,
        person: tuple[int, str | None] | None = None,
    ) -> None:
        """Into the viewer's room, then what the client missed: a snapshot, or every update.
        `person` (place, name): who the client is, seated or waiting (None: a spectator)."""
        self.enter(sid, match_id, viewer, person)
        if catch_up.backlog is None:
            view = view_json(catch_up.state, viewer)
            snapshot = {"match_id": match_id, "version": catch_up.version, "view": view}
            self.socketio.emit("snapshot", snapshot, to=sid)
            return
        if not catch_up.backlog:
            return
        batch = [
            update_payload(
                match_id,
                item.version,
                item.event,
                item.state,
                viewer,
                final=item.version == catch_up.version,
                at_ms=item.at_ms,
            )
            for item in catch_up.backlog
        ]  # at most reads.MAX_BACKLOG: one message
        message: Updates = {"match_id": match_id, "updates": batch}
        self.socketio.emit("updates", message, to=sid)

    def name_of(self, sid: str) -> str | None:
        """The name of the person `sid` is (None: a spectator)."""
        with self.lock:
            person = self.people.get(sid)
        return None if person is None else person[1]

    def viewer_of(self, sid: str) -> int | None:
        """The seat `sid` watches from (None: a spectator's view, or not at a table)."""
        with self.lock:
            session = self.sessions.get(sid)
        return None if session is None else session[1]

    def leave(self, sid: str) -> tuple[str, int | None] | None:
        """Stop sending `sid` its table: (match id, the person's place or None)."""
        with self.lock:
            session = self.sessions.pop(sid, None)
            person = self.people.pop(sid, None)
            if session is None:
                return None
            room = room_of(*session)
            self.members.get(room, set()).discard(sid)
        self.socketio.server.leave_room(sid, room, namespace=NAMESPACE)
        return session[0], None if person is None else person[0]


def register(socketio: SocketIO, publisher: SocketPublisher, service: GameService) -> None:
    """The handlers; `publisher` is the one `service` was built with (it keeps the rooms)."""
    clients, player_commands = service.clients, service.player_commands
    publisher.table_of = service.views.table

    def on(event: str) -> Callable[[AnyHandler], AnyHandler]:
        """Register a handler `(sid, *args)` with the Socket.IO server itself."""

        def add(handler: AnyHandler) -> AnyHandler:
            socketio.server.on(event, handler, namespace=NAMESPACE)
            return handler

        return add

    def guarded(event: str) -> Callable[[Handler], Callable[..., Ack]]:
        """Turn every failure into an ack + `refused`/`error` message; never let one escape."""

        def wrap(handler: Handler) -> Callable[..., Ack]:
            @functools.wraps(handler)
            def run(sid: str, *args: object) -> Ack:
                payload = args[0] if len(args) == 1 else list(args)
                try:
                    return handler(sid, payload)
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
                    socketio.emit("refused", {**extra, **reply}, to=sid)
                else:
                    socketio.emit("error", {**extra, **reply, "event": event}, to=sid)
                return {"ok": False, **reply}

            return run

        return wrap

    @on("join_table")
    @guarded("join_table")
    def join_table(sid: str, payload: object) -> Ack:
        data = schemas.load(schemas.JOIN_TABLE, payload)
        ack, table = clients.join_table(
            sid, data["match_id"], data["seat_token"], data["last_version"]
        )
        if table is not None:  # a spectator: a person's coming was told the whole table
            socketio.emit("table", table, to=sid)
        return ack

    @on("command")
    @guarded("command")
    def command(_sid: str, payload: object) -> Ack:
        data = schemas.load_command(payload)
        return player_commands.execute(
            data["match_id"], data["seat_token"], data["command_id"], data["action"]
        )

    @on("claim")
    @guarded("claim")
    def claim(_sid: str, payload: object) -> Ack:
        data = schemas.load(schemas.SEAT_CLAIM, payload)
        return service.seats.claim(data["match_id"], data["seat_token"], data["what"])

    @on("next_game")
    @guarded("next_game")
    def next_game(_sid: str, payload: object) -> Ack:
        data = schemas.load(schemas.SEAT, payload)
        return service.endings.next_game(data["match_id"], data["seat_token"])

    @on("abandon")
    @guarded("abandon")
    def abandon(_sid: str, payload: object) -> Ack:
        data = schemas.load(schemas.SEAT, payload)
        return service.endings.abandon(data["match_id"], data["seat_token"])

    @on("leave_table")
    @guarded("leave_table")
    def leave_table(sid: str, payload: object) -> Ack:
        schemas.load(schemas.LEAVE_TABLE, payload)
        clients.leave(sid)
        return {"ok": True}

    def lifecycle(event: str) -> Callable[[Callable[..., None]], Callable[..., Ack | None]]:
        """Register the handler of a connection's own `connect` or `disconnect`. python-socketio
        hands a client's *message* of that name to the same handler; a real one comes while the
        connection is still being made or already being closed, so a client that is plainly
        connected sent a message, and gets the answer to an unknown one (its seat stays)."""

        def add(handler: Callable[..., None]) -> Callable[..., Ack | None]:
            @functools.wraps(handler)
            def run(sid: str, *args: object) -> Ack | None:
                if socketio.server.manager.is_connected(sid, NAMESPACE):
                    return unknown(event, sid)
                handler(sid, *args)
                return None

            return on(event)(run)

        return add

    @lifecycle("connect")
    def connect(_sid: str, environ: object = None, auth: object = None, *_args: object) -> None:
        """Every connection that speaks a served protocol version is accepted
        (server.entrypoints.protocol): seats are claimed by token in `join_table`. Another version
        is refused at the handshake with a `connect_error` naming the versions served."""
        refused = protocol.refusal(environ if isinstance(environ, Mapping) else None, auth)
        if refused is not None:
            raise sio_errors.ConnectionRefusedError(refused["message"], refused)

    @lifecycle("disconnect")
    def disconnect(sid: str, *_reason: object) -> None:
        try:
            clients.leave(sid)
        except Exception:
            log.exception("disconnect cleanup failed")

    # python-socketio looks a message's name up in its handlers' dict: a packet naming it with a
    # list or an object (or naming none) raised a TypeError (IndexError) inside the library, and
    # the client got no answer. Such a name is made a text no handler has, so the catch-all
    # below answers it like any other unknown message. A packet whose data is no list at all
    # (`42`, `420`, `42null`, `42{}`, `42/nsp,`: None, a number, an object) is the message with
    # no name (issue 38: it raised a TypeError here). A message named "*" itself found the
    # catch-all as its own handler, called without the name (so with the payload as the sid):
    # it is answered as the unknown message "* ".
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

    @on("*")
    def unknown(event: object, sid: str, *_args: object) -> Ack:
        message = f"Unknown message {str(event)[:40]!r}."
        if event == "":
            message = "Unknown message '': a message names itself first: [\"name\", payload]."
        reply = {"code": "invalid", "message": message}
        socketio.emit("error", {**reply, "event": str(event)[:40]}, to=sid)
        return {"ok": False, **reply}
