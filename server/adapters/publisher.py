"""What the service layer tells the outside world, and nothing else: the events a match just folded,
and a table's new lobby view. `server.adapters.socket_publisher.SocketPublisher` delivers both to
the Socket.IO rooms; `NoPublisher` is for a service with no one listening (tests, command-line
tools).

The publisher is built before the service parts and handed to them: it needs nothing from them
(a table change arrives with its JSON already made), so the wiring has no cycle."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from domain import MatchState
from server.adapters.matches import Applied
from server.wire.payloads import TableJson


@dataclass(frozen=True)
class CatchUp:
    """What a joining client missed: every update after its last version (`backlog`), or, when
    it has none to give (or one this match never reached), a snapshot of `state` at `version`."""

    version: int
    state: MatchState | None
    backlog: list[Applied] | None  # None: a snapshot


class Publisher(Protocol):
    def applied(self, match_id: str, items: list[Applied]) -> None:
        """`items` were just folded into the match, in order (the last one is the newest)."""

    def table_changed(self, match_id: str, table: TableJson) -> None:
        """The table's lobby view (`TableViews.table_json`) changed: seats, presence, totals."""

    def joined(
        self,
        client: str,
        match_id: str,
        viewer: int | None,
        catch_up: CatchUp,
        person: tuple[int, str | None] | None = None,
    ) -> None:
        """A client (a Socket.IO session id) joins the match as `viewer` and is sent what it
        missed; `person` (place, name) is who it is, seated or waiting at a rotation table
        (None: a spectator). Called under the match's lock (`Reads.join`): no live update
        comes between."""

    def leave(self, client: str) -> tuple[str, int | None] | None:
        """Stop sending `client` its table: (match id, the person's place or None: a
        spectator), or None when it was at no table."""


class NoPublisher:
    def applied(self, match_id: str, items: list[Applied]) -> None:
        pass

    def table_changed(self, match_id: str, table: TableJson) -> None:
        pass

    def joined(
        self,
        client: str,
        match_id: str,
        viewer: int | None,
        catch_up: CatchUp,
        person: tuple[int, str | None] | None = None,
    ) -> None:
        pass

    def leave(self, client: str) -> tuple[str, int | None] | None:
        return None
