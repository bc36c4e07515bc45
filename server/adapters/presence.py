"""Presence: which seats have a client connected to this process, and since when a seat's owner
is away. It is a fact of this process, not of the game, so it is kept in memory, never stored.

It is kept per *place* (a person at the table, `Table.people`): at a rotation table (docs/spec/
rules.md §10) a person's seat changes between games while his connections stay; elsewhere a
place is its seat. `connected` and `seat_json` take a seat and ask about the person in it.

`Clients.connect`/`disconnect` (a socket joins or leaves a seat) count here; the lobby's table view
(`TableViews`) and `Seats.claim` (a seat away past the grace period may be claimed) read it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from server.adapters.matches import MatchEntry
from server.model.tables import Table
from server.wire.payloads import PresenceJson

SeatKey = tuple[str, int]  # (match id, place)
MAX_PLACES = 4  # domain.ROTATION_MAX_PEOPLE: people at one table


@dataclass(frozen=True)
class TableOf:
    """A table known only from the lobby projection (its match not loaded): enough for presence."""

    match_id: str
    table: Table


class Presence:
    def __init__(self, *, grace_s: float, clock: Callable[[], int]) -> None:
        self.grace_s = grace_s
        self.clock = clock
        # A seat nobody has connected to since the start is away since the start.
        self.started_ms = clock()
        self._connections: dict[SeatKey, int] = {}
        self._away_since: dict[SeatKey, int] = {}

    def seated(self, match_id: str, place: int) -> None:
        """A seat just taken over HTTP counts as away only from now, not from the server's
        start: its owner's socket has not had time to connect."""
        if self._connections.get((match_id, place), 0) == 0:
            self._away_since[(match_id, place)] = self.clock()

    def connect(self, match_id: str, place: int) -> None:
        key = (match_id, place)
        self._connections[key] = self._connections.get(key, 0) + 1
        self._away_since.pop(key, None)

    def disconnect(self, match_id: str, place: int) -> None:
        key = (match_id, place)
        self._connections[key] = max(0, self._connections.get(key, 0) - 1)
        if self._connections[key] == 0:
            self._away_since[key] = self.clock()

    def connected(self, entry: MatchEntry | TableOf, seat: int) -> bool:
        """A bot is always there; a person when at least one of his clients is connected."""
        return self.person_connected(entry, entry.table.seated[seat])

    def person_connected(self, entry: MatchEntry | TableOf, place: int) -> bool:
        if entry.table.people[place].bot is not None:
            return True
        return self._connections.get((entry.match_id, place), 0) > 0

    def anyone_seated_here(self, match_id: str) -> bool:
        """Has anyone at this table a client connected to this process?"""
        return any(self._connections.get((match_id, p), 0) > 0 for p in range(MAX_PLACES))

    def last_seen_ms(self, match_id: str) -> int:
        """When the last client of a person of this match left (0: none left since the start)."""
        return max(self._away_since.get((match_id, p), 0) for p in range(MAX_PLACES))

    def left_ms(self, entry: MatchEntry | TableOf) -> int:
        """When the last person of this table left it (or took his seat over HTTP without
        connecting yet); 0 when nothing is known (since this process started)."""
        return self.last_seen_ms(entry.match_id)

    def seat_json(self, entry: MatchEntry | TableOf, seat: int) -> PresenceJson:
        """`connected`, and for an absent owner since when and from when his seat is claimable."""
        return self.person_json(entry, entry.table.seated[seat])

    def person_json(self, entry: MatchEntry | TableOf, place: int) -> PresenceJson:
        person = entry.table.people[place]
        if self.person_connected(entry, place) or person.free:
            return {
                "connected": not person.free,
                "away_since_ms": None,
                "claimable_at_ms": None,
            }
        since = self._away_since.get((entry.match_id, place), self.started_ms)
        return {
            "connected": False,
            "away_since_ms": since,
            "claimable_at_ms": since + int(self.grace_s * 1000),
        }

    def heartbeat(self) -> None:
        """Nothing to renew for a process alone (see `server.adapters.cluster.SharedPresence`)."""
