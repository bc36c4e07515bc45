"""The in-memory cache of each match: its table, its folded state and the events behind it.

The store is the truth; an entry folds what it has read and, before every decision, reads only the
newer events (another process may have written them). Every write goes through `append_match`,
which appends with the expected version, so two writers can never both win."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Protocol

import domain
from domain import Action, Event, MatchState, View
from eventstore import ConcurrencyError, DuplicateEventError, EventStore, NewEvent
from records.streams import MATCH_ID_PATTERN, match_stream, table_stream
from server.errors import ForbiddenError, NotFoundError, TableConflictError, quoted
from server.model.tables import Table, evolve_table
from server.wire.payloads import JsonObject

log = logging.getLogger(__name__)

# A match keeps its state after every SNAPSHOT_EVERY-th event, so the state at any version is
# at most that many folds away. Measured (2026-12-01, a 3,000-event classic match, this 2-core
# machine under load): a fold costs ~23 µs and a spectator view ~73 µs, so K = 50 bounds a view
# at any version to ~1.2 ms (K = 100: 2.3 ms, 400: 9 ms); states share their unchanged parts,
# and one snapshot costs ~1.6 KiB, against ~10 KiB for the 50 events it covers.
SNAPSHOT_EVERY = 50


def now_ms() -> int:
    return int(time.time() * 1000)


class SeatBot(Protocol):
    """A bot seated at a table: `domain.bots.Bot`, or the server's stand-in
    (`server.services.standin`)."""

    def choose(self, view: View) -> Action | None: ...

    def delay_hint_ms(self, action: Action) -> int: ...


@dataclass
class Applied:
    """One event just folded: its stream version, the domain event and the state after it."""

    version: int
    event: Event
    state: MatchState

    @property
    def at_ms(self) -> int:
        """The event's time: the one clock (docs/architecture.md § Time)."""
        return self.event.at_ms


@dataclass
class MatchEntry:
    match_id: str
    table: Table
    state: MatchState | None = None  # None before the match starts
    version: int = 0
    events: list[Event] = field(default_factory=list)  # each carries its time (at_ms)
    # version -> the state after it, every SNAPSHOT_EVERY events
    snapshots: dict[int, MatchState] = field(default_factory=dict)
    commands: dict[str, int] = field(default_factory=dict)  # command id -> version after it
    last_event_ms: int = 0
    bots: dict[int, SeatBot] = field(default_factory=dict)
    failed_timeout_version: int = -1
    failed_bot_version: int = -1
    # A bot's call waiting for its human-like delay: (version it was chosen at, seat, call, due).
    pending_call: tuple[int, int, domain.Call, int] | None = None
    lock: threading.RLock = field(default_factory=threading.RLock)
    last_rotation_version: int = 0  # the version of the last SeatsRotated (rotation tables)
    # (version, table) at which the clock found a game with nothing to do (no time limit, no
    # bot): `Autopilot.tick` skips the entry while both are the same.
    quiet: tuple[int, Table] | None = None
    # When a client last asked for this match (loading it counts): an idle entry leaves memory.
    touched_ms: int = field(default_factory=lambda: now_ms())

    @property
    def live(self) -> bool:
        return self.state is not None and not self.state.finished

    @property
    def status(self) -> str:
        # An imported match never goes on here (even one that stopped short of its target): the
        # lobby lists it as finished, never as live.
        if self.table.imported or self.state is not None and self.state.finished:
            return "finished"
        if self.table.expired:
            return "expired"
        return "playing" if self.table.full else "open"

    def authorised_seat(self, token: str) -> int:
        """The seat this token owns at this table, or the refusal that says why it owns none
        (the fact itself is `Table.seat_of`, None for no seat)."""
        seat = self.table.seat_of(token)
        if seat is None:
            if self.table.place_of(token) is not None:
                raise ForbiddenError("You are waiting for a seat at this table.")
            raise ForbiddenError("This seat token does not belong to this table.")
        return seat

    def place_of(self, token: str) -> int:
        """The place of the person this token is (seated or waiting: docs/spec/rules.md §10)."""
        place = self.table.place_of(token)
        if place is None:
            raise ForbiddenError("This seat token does not belong to this table.")
        return place


class MatchRepository:
    """Loads, refreshes and appends to matches; `on_applied` publishes what was folded (the
    publisher's `applied`, given by whoever builds the repository)."""

    def __init__(self, store: EventStore, on_applied: Callable[[str, list[Applied]], None]) -> None:
        self.store = store
        self.on_applied = on_applied
        self._entries: dict[str, MatchEntry] = {}
        self._lock = threading.Lock()

    # -- loading -------------------------------------------------------------------------------

    def entries(self) -> list[MatchEntry]:
        with self._lock:
            return list(self._entries.values())

    def find(self, match_id: str) -> MatchEntry:
        """The match of a client's id, or NotFoundError."""
        if not MATCH_ID_PATTERN.fullmatch(match_id):  # a path parameter straight from a URL
            raise NotFoundError(f"There is no table {quoted(match_id)}.")
        entry = self.get(match_id)
        if entry is None:
            raise NotFoundError(f"There is no table {quoted(match_id)}.")
        entry.touched_ms = now_ms()
        return entry

    def evict(self, match_id: str) -> bool:
        """Let a match leave memory (it is read again from the store when next asked for)."""
        with self._lock:
            return self._entries.pop(match_id, None) is not None

    def loaded(self, match_id: str) -> bool:
        with self._lock:
            return match_id in self._entries

    def peek(self, match_id: str) -> MatchEntry | None:
        """The match if it is in memory (never loaded for the asking)."""
        with self._lock:
            return self._entries.get(match_id)

    def get(self, match_id: str) -> MatchEntry | None:
        with self._lock:
            entry = self._entries.get(match_id)
        if entry is not None:
            return entry
        records = self.store.read(table_stream(match_id)) if self._exists(match_id) else []
        if not records:
            return None
        table: Table | None = None
        for record in records:
            table = evolve_table(table, record.type, record.data)
        assert table is not None
        entry = MatchEntry(match_id=match_id, table=table)
        with entry.lock:
            self._fold_new(entry, publish=False)
        with self._lock:
            return self._entries.setdefault(match_id, entry)

    def add(self, entry: MatchEntry) -> None:
        with self._lock:
            self._entries[entry.match_id] = entry

    def _exists(self, match_id: str) -> bool:
        return self.store.stream_version(table_stream(match_id)) > 0

    # -- reading newer events ------------------------------------------------------------------

    def refresh(self, entry: MatchEntry, with_table: bool = True) -> None:
        """Fold whatever other writers appended since we last looked (and publish it). Moves
        skip the table stream: seats change only through lobby calls, which refresh it."""
        version = self.store.stream_version(table_stream(entry.match_id)) if with_table else 0
        if version > entry.table.version:
            table = entry.table
            for record in self.store.read(table_stream(entry.match_id), entry.table.version + 1):
                table = evolve_table(table, record.type, record.data)
            entry.table = table
        self._fold_new(entry, publish=True)

    def authorise(self, entry: MatchEntry, token: str) -> int:
        """The seat a token owns; a token not (yet) known to this cache may be one just handed
        out by another process: the table is read again once before it is refused."""
        seat = entry.table.seat_of(token)
        if seat is not None:
            return seat
        with entry.lock:
            self.refresh(entry)
        return entry.authorised_seat(token)

    def learned(self, stream: str, version: int) -> None:
        """The seam through which appends reach this cache when several processes share the
        store (server.adapters.feed calls it for every committed event, in commit order): `stream`
        reached `version`. A match we hold is brought up to it, and what it folds is published
        to this process's clients (`refresh`); a table opened elsewhere joins the lobby."""
        kind, _, match_id = stream.partition("-")
        if kind not in ("match", "table"):
            return
        with self._lock:
            entry = self._entries.get(match_id)
        if entry is None:
            if kind == "table" and version == 1:  # a new table (an evicted one stays out)
                self.get(match_id)
            return
        known = entry.version if kind == "match" else entry.table.version
        if version > known:
            with entry.lock:
                self.refresh(entry, with_table=kind == "table")

    def has_newer(self, entry: MatchEntry) -> bool:
        return bool(self.store.stream_version(match_stream(entry.match_id)) > entry.version)

    def _fold_new(self, entry: MatchEntry, publish: bool) -> None:
        stream = match_stream(entry.match_id)
        if self.store.stream_version(stream) <= entry.version:
            return
        applied: list[Applied] = []
        for record in self.store.read(stream, entry.version + 1):
            event = domain.event_from_payload(record.type, record.data)
            applied.append(self._apply(entry, event, record.metadata))
        if publish and applied:
            self.on_applied(entry.match_id, applied)

    def _apply(
        self,
        entry: MatchEntry,
        event: Event,
        metadata: JsonObject,
        after: MatchState | None = None,
    ) -> Applied:
        """Fold one stored event into the entry (`after`: the state it leads to, when known)."""
        if type(event) is domain.SeatsRotated:
            self._seats_rotated(entry, event)
        entry.state = after if after is not None else domain.evolve(entry.state, event)
        entry.version += 1
        entry.events.append(event)
        if entry.version % SNAPSHOT_EVERY == 0:
            entry.snapshots[entry.version] = entry.state
        entry.last_event_ms = event.at_ms
        command_id = metadata.get("command_id")
        if isinstance(command_id, str):
            entry.commands[command_id] = entry.version
        return Applied(entry.version, event, entry.state)

    def _seats_rotated(self, entry: MatchEntry, event: domain.SeatsRotated) -> None:
        """A rotation table's new pair (docs/spec/rules.md §10): the table learns who sits where
        now, and the bots made for the old seats are dropped (a seat may now hold another)."""
        table = entry.table
        names = {person.name for person in table.people}
        if not set(event.players) <= names:  # a person queued through another process
            for record in self.store.read(table_stream(entry.match_id), table.version + 1):
                table = evolve_table(table, record.type, record.data)
        entry.table = table.with_pair(event.players)
        entry.bots.clear()
        entry.pending_call = None
        entry.last_rotation_version = entry.version + 1

    # -- writing -------------------------------------------------------------------------------

    def append_match(self, entry: MatchEntry, events: list[Event], command_id: str) -> bool:
        """Append a decided batch at the entry's version; False if another writer got there
        first (the caller re-reads and re-decides)."""
        metadata = {"command_id": command_id}
        batch = []
        for index, event in enumerate(events):
            event_type, data = domain.event_to_payload(event)
            batch.append(
                NewEvent(
                    type=event_type,
                    data=data,
                    metadata=metadata,
                    event_id=f"{entry.match_id}/{command_id}/{index}",
                )
            )
        try:
            # retry=False: if these ids are stored already, another process (or an earlier
            # attempt whose answer was lost) wrote this command, perhaps with other events (a
            # game's seed, a time): only what the store holds may be folded, so re-read instead.
            self.store.append(
                match_stream(entry.match_id), batch, expected_version=entry.version, retry=False
            )
        except (ConcurrencyError, DuplicateEventError):
            return False
        # The states `decide` reached, when it decided on this very state (domain.Decided):
        # folding the events again would compute them twice.
        states = events.states_from(entry.state) if isinstance(events, domain.Decided) else None
        if states is None:
            applied = [self._apply(entry, event, metadata) for event in events]
        else:
            applied = [
                self._apply(entry, event, metadata, after)
                for event, after in zip(events, states, strict=True)
            ]
        self.on_applied(entry.match_id, applied)
        return True

    def append_table(self, entry: MatchEntry, event_type: str, data: JsonObject) -> None:
        """Append one lobby fact at the table's version. If another writer appended to the
        table meanwhile, nothing is written: the table is read again (what the caller decided
        may no longer hold) and `TableConflictError` lets the caller decide once more, or
        answers the client `conflict`. The caller holds the entry's lock."""
        try:
            self.store.append(
                table_stream(entry.match_id),
                [NewEvent(type=event_type, data=data)],
                expected_version=entry.table.version,
            )
        except ConcurrencyError:
            self.refresh(entry)
            raise TableConflictError(
                "The table changed meanwhile (someone else joined or left it): try again."
            ) from None
        entry.table = evolve_table(entry.table, event_type, data)

    @staticmethod
    def state_at(entry: MatchEntry, version: int) -> MatchState | None:
        """The state after `version` events (None at 0): the snapshot at or below it, folded
        forward at most SNAPSHOT_EVERY - 1 events. Needs no lock: events and snapshots are only
        ever appended, and `version` is one the caller has seen."""
        base = version - version % SNAPSHOT_EVERY
        state = entry.snapshots[base] if base else None
        for event in entry.events[base:version]:
            state = domain.evolve(state, event)
        return state

    @classmethod
    def states_between(cls, entry: MatchEntry, after: int, upto: int) -> Iterator[Applied]:
        """Each event after version `after` up to `upto`, with the state after it, folded from
        the nearest snapshot: a reconnect's backlog costs its length plus at most K folds."""
        state = cls.state_at(entry, after)
        for version, event in enumerate(entry.events[after:upto], start=after + 1):
            state = domain.evolve(state, event)
            yield Applied(version, event, state)
