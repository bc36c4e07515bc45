"""Presence: which seats have a client connected to this process, and since when a seat's owner
is away. It is a fact of this process, not of the game, so it is kept in memory, never stored.

`Lobby.connect`/`disconnect` (a socket joins or leaves a seat) count here; the lobby's table view
and `Lobby.claim` (a seat away past the grace period may be claimed) read it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from server.matches import MatchEntry
from server.payloads import PresenceJson
from server.tables import Table

SeatKey = tuple[str, int]  # (match id, seat)


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

    def seated(self, match_id: str, seat: int) -> None:
        """A seat just taken over HTTP counts as away only from now, not from the server's
        start: its owner's socket has not had time to connect."""
        if self._connections.get((match_id, seat), 0) == 0:
            self._away_since[(match_id, seat)] = self.clock()

    def connect(self, match_id: str, seat: int) -> None:
        key = (match_id, seat)
        self._connections[key] = self._connections.get(key, 0) + 1
        self._away_since.pop(key, None)

    def disconnect(self, match_id: str, seat: int) -> None:
        key = (match_id, seat)
        self._connections[key] = max(0, self._connections.get(key, 0) - 1)
        if self._connections[key] == 0:
            self._away_since[key] = self.clock()

    def connected(self, entry: MatchEntry | TableOf, seat: int) -> bool:
        """A bot is always there; a person when at least one of his clients is connected."""
        if entry.table.seats[seat].bot is not None:
            return True
        return self._connections.get((entry.match_id, seat), 0) > 0

    def anyone_seated_here(self, match_id: str) -> bool:
        """Has either seat a client connected to this process?"""
        return any(self._connections.get((match_id, seat), 0) > 0 for seat in (0, 1))

    def last_seen_ms(self, match_id: str) -> int:
        """When the last client of a seat of this match left (0: none left since the start)."""
        return max(self._away_since.get((match_id, seat), 0) for seat in (0, 1))

    def seat_json(self, entry: MatchEntry | TableOf, seat: int) -> PresenceJson:
        """`connected`, and for an absent owner since when and from when his seat is claimable."""
        if self.connected(entry, seat) or entry.table.seats[seat].free:
            return {
                "connected": not entry.table.seats[seat].free,
                "away_since_ms": None,
                "claimable_at_ms": None,
            }
        since = self._away_since.get((entry.match_id, seat), self.started_ms)
        return {
            "connected": False,
            "away_since_ms": since,
            "claimable_at_ms": since + int(self.grace_s * 1000),
        }

    def heartbeat(self) -> None:
        """Nothing to renew for a process alone (see `server.cluster.SharedPresence`)."""
