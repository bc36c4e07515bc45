"""What the service layer tells the outside world, and nothing else: the events a match just
folded, and a table's new lobby view. `sockets.SocketPublisher` delivers both to the Socket.IO
rooms; `NoPublisher` is for a service with no one listening (tests, command-line tools).

The publisher is built before the service parts and handed to them: it needs nothing from them
(a table change arrives with its JSON already made), so the wiring has no cycle."""

from __future__ import annotations

from typing import Protocol

from server.matches import Applied
from server.payloads import TableJson


class Publisher(Protocol):
    def applied(self, match_id: str, items: list[Applied]) -> None:
        """`items` were just folded into the match, in order (the last one is the newest)."""

    def table_changed(self, match_id: str, table: TableJson) -> None:
        """The table's lobby view (`Lobby.table_json`) changed: seats, presence, totals."""


class NoPublisher:
    def applied(self, match_id: str, items: list[Applied]) -> None:
        pass

    def table_changed(self, match_id: str, table: TableJson) -> None:
        pass
