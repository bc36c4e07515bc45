"""The ratings as the players pages read them: `server.readmodels.ratings` folded over the rated
matches, kept between requests and brought up to date by reading only what changed.

`ratings_of(store)` reads every event of every match; on each request that would be the whole
store, on the playing loop. What a rating needs of a match is its first event (`MatchStarted`:
the players, the ruleset) and its last (`MatchWon`, or not finished), and its table stream (a
bot's seat, an import): so the index keeps, per match stream, the version it looked at and what
it found, and reads those two events again only for a stream whose version moved, and nothing
at all while the store's last position stands still. The fold over the rated matches (a few
µs per match) runs again only when one of them changed. A test keeps it equal to
`ratings_of` (tests/unit/server/readmodels/test_ratings_index.py)."""

from __future__ import annotations

import threading
from collections.abc import Callable

import domain
from eventstore import EventStore
from records.streams import MATCH_PREFIX, table_stream
from server.model.tables import Table, evolve_table
from server.readmodels.ratings import RatedMatch, Ratings, rate, rated_match


class RatingsIndex:
    def __init__(self) -> None:
        self._matches: dict[str, tuple[int, RatedMatch | None]] = {}
        self._position = -1
        self._ratings = Ratings()
        self._lock = threading.Lock()  # green under eventlet: one refresh at a time
        self.reads = 0  # match streams read again (tests)

    def ratings(self, store: EventStore, pause: Callable[[], None] | None = None) -> Ratings:
        with self._lock:
            position = store.last_position()
            if position == self._position:
                return self._ratings
            changed = False
            for stream in store.list_streams(MATCH_PREFIX):
                version = store.stream_version(stream)
                known = self._matches.get(stream)
                if known is not None and known[0] == version:
                    continue
                found = _rated(store, stream, version)
                self.reads += 1
                was = known is not None and known[1] is not None
                changed = changed or found is not None or was
                self._matches[stream] = (version, found)
                if pause is not None:
                    pause()
            if changed:
                self._ratings = rate(m for _, m in self._matches.values() if m is not None)
            self._position = position
            return self._ratings


def _rated(store: EventStore, stream: str, version: int) -> RatedMatch | None:
    """The match as the ratings count it, from its first and last events and its table."""
    if version == 0:
        return None
    first = store.read(stream, 1, 1)
    last = first if version == 1 else store.read(stream, version, version)
    try:
        events = [domain.event_from_payload(r.type, r.data) for r in (*first, *last)]
    except domain.DomainError:
        return None  # a stream the engine cannot read counts for nobody
    table: Table | None = None
    for record in store.read(table_stream(stream.removeprefix(MATCH_PREFIX))):
        table = evolve_table(table, record.type, record.data)
    return rated_match(events, table)
