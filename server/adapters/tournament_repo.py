"""The tournaments in the store and in memory: two streams per tournament.

- `tournament-<id>`: the domain's events (`domain.tournament`), folded into its state;
- `desk-<id>`: the server's own facts beside them, as `table-<id>` is beside a match: the
  director's token (its hash) and which person claimed which registered name, with the hash of
  the seat token he was given (`desk.py`).

Appends go at the version last folded (the store's expected-version check: two processes, or
two requests, never both write); a writer that lost re-reads and decides again."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from domain import tournament as tm
from eventstore import ConcurrencyError, EventStore, NewEvent
from records.streams import TOURNAMENT_PREFIX, desk_stream, tournament_stream
from server.errors import CommandConflictError, NotFoundError
from server.model.desk import Desk, evolve_desk

# The ids this server makes (`t-` and 8 hex digits) and any the domain accepts.
TOURNAMENT_ID = re.compile(r"[A-Za-z0-9_-]{1,40}")
# How often a command is decided again after another writer appended first.
ATTEMPTS = 5

T = TypeVar("T")


@dataclass
class TournamentEntry:
    tournament_id: str
    state: tm.TournamentState
    desk: Desk
    version: int  # of the tournament stream
    lock: threading.RLock = field(default_factory=threading.RLock)


class TournamentRepository:
    def __init__(self, store: EventStore) -> None:
        self.store = store
        self._entries: dict[str, TournamentEntry] = {}
        self._lock = threading.Lock()

    def ids(self) -> list[str]:
        """Every tournament of the store, whether in memory or not."""
        streams = self.store.list_streams(TOURNAMENT_PREFIX)
        return [stream.removeprefix(TOURNAMENT_PREFIX) for stream in streams]

    def entries(self) -> list[TournamentEntry]:
        with self._lock:
            return list(self._entries.values())

    def find(self, tournament_id: str) -> TournamentEntry:
        if not TOURNAMENT_ID.fullmatch(tournament_id):
            raise NotFoundError(f"There is no tournament {tournament_id!r}.")
        with self._lock:
            entry = self._entries.get(tournament_id)
        if entry is not None:
            return entry
        records = self.store.read(tournament_stream(tournament_id))
        if not records:
            raise NotFoundError(f"There is no tournament {tournament_id}.")
        state = tm.fold(tm.event_from_payload(r.type, r.data) for r in records)
        desk = Desk()
        for record in self.store.read(desk_stream(tournament_id)):
            desk = evolve_desk(desk, record.type, record.data)
        entry = TournamentEntry(tournament_id, state, desk, len(records))
        with self._lock:
            return self._entries.setdefault(tournament_id, entry)

    def forget(self, tournament_id: str) -> None:
        """Let a tournament leave memory (a finished one; read again when asked for)."""
        with self._lock:
            self._entries.pop(tournament_id, None)

    def refresh(self, entry: TournamentEntry) -> None:
        """Fold what other writers appended since (both streams). The caller holds the lock."""
        newer = self.store.read(tournament_stream(entry.tournament_id), entry.version + 1)
        for record in newer:
            entry.state = tm.evolve(entry.state, tm.event_from_payload(record.type, record.data))
        entry.version += len(newer)
        for record in self.store.read(desk_stream(entry.tournament_id), entry.desk.version + 1):
            entry.desk = evolve_desk(entry.desk, record.type, record.data)

    def create(
        self, tournament_id: str, events: list[tm.TournamentEvent], desk: list[NewEvent]
    ) -> TournamentEntry:
        """A new tournament's streams: its desk first (the director's token), then its events,
        each at version 0, so an id taken meanwhile is a ConcurrencyError, nothing half-made
        visible (a tournament stream always has its desk)."""
        self.store.append(desk_stream(tournament_id), desk, expected_version=0)
        self.store.append(
            tournament_stream(tournament_id), [_new(e) for e in events], expected_version=0
        )
        return self.find(tournament_id)

    def decide(
        self,
        entry: TournamentEntry,
        decide: Callable[[tm.TournamentState], tuple[list[tm.TournamentEvent], T]],
    ) -> tuple[list[tm.TournamentEvent], T]:
        """Decide on the latest state and append at its version; once more after a conflict.
        `decide` raises `TournamentError` to refuse. The caller holds the lock."""
        for _attempt in range(ATTEMPTS):
            events, result = decide(entry.state)
            if not events:
                return events, result
            try:
                self.store.append(
                    tournament_stream(entry.tournament_id),
                    [_new(e) for e in events],
                    expected_version=entry.version,
                )
            except ConcurrencyError:
                self.refresh(entry)
                continue
            for event in events:
                entry.state = tm.evolve(entry.state, event)
            entry.version += len(events)
            return events, result
        raise CommandConflictError("The tournament kept changing meanwhile: try again.")

    def append_desk(self, entry: TournamentEntry, event_type: str, data: dict[str, object]) -> bool:
        """Append one desk fact at the desk's version; False if another writer was first (the
        desk is read again: the caller decides once more). The caller holds the lock."""
        try:
            self.store.append(
                desk_stream(entry.tournament_id),
                [NewEvent(type=event_type, data=data)],
                expected_version=entry.desk.version,
            )
        except ConcurrencyError:
            self.refresh(entry)
            return False
        entry.desk = evolve_desk(entry.desk, event_type, data)
        return True


def _new(event: tm.TournamentEvent) -> NewEvent:
    kind, data = tm.event_to_payload(event)
    return NewEvent(type=kind, data=data)
