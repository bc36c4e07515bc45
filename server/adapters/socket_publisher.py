"""The outgoing Socket.IO adapter: `SocketPublisher` delivers folded events to the rooms of a
match, each room its own redaction, a joining client its backlog, and a table's lobby view to
everyone at that table (the `server.adapters.publisher.Publisher` protocol). The incoming side,
the handlers of what clients send, is `server/entrypoints/sockets.py`.

The messages' contents (an event and a view as one viewer may see them) are built by
`server.readmodels.updates`, which sits above this room: `server/app.py` hands that module in as
`messages` (`Messages`)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Protocol

from flask_socketio import SocketIO

import domain
from server.adapters.matches import Applied
from server.adapters.publisher import CatchUp
from server.wire.payloads import SeatMessage, TableJson, Update, Updates, ViewJson

_VIEWERS: tuple[int | None, ...] = (0, 1, None)
NAMESPACE = "/"


class Messages(Protocol):
    """What the publisher needs to build its messages (`server.readmodels.updates`)."""

    def batch_updates(
        self, match_id: str, items: Sequence[Applied], viewers: Sequence[int | None]
    ) -> list[list[Update]]: ...

    def update_payload(
        self,
        match_id: str,
        version: int,
        event: domain.Event,
        state: domain.MatchState,
        viewer: int | None,
        final: bool = True,
        at_ms: int | None = None,
    ) -> Update: ...

    def view_json(self, state: domain.MatchState | None, viewer: int | None) -> ViewJson | None: ...


def room_of(match_id: str, viewer: int | None) -> str:
    return f"{match_id}:{'spect' if viewer is None else viewer}"


class SocketPublisher:
    """Delivers folded events to the rooms of a match, each room its own redaction, and a
    table's lobby view to everyone at that table (`server.adapters.publisher.Publisher`)."""

    def __init__(self, socketio: SocketIO, messages: Messages, *, shared: bool = False) -> None:
        self.socketio = socketio
        self.messages = messages
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
        batches = self.messages.batch_updates(match_id, items, viewers)
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
                "view": self.messages.view_json(last.state, viewer),
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
            view = self.messages.view_json(catch_up.state, viewer)
            snapshot = {"match_id": match_id, "version": catch_up.version, "view": view}
            self.socketio.emit("snapshot", snapshot, to=sid)
            return
        if not catch_up.backlog:
            return
        batch = [
            self.messages.update_payload(
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
