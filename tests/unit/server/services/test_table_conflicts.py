"""A table fact written by another process between our re-read of the table stream and our
append (docs/protocol.md, errors): nothing half-written, the table read again, a join decided
once more on the table as it is now, and any other lobby call answered with a structured
`conflict`, never `internal`. Two services share one store, as two processes of a cluster do."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from eventstore import NewEvent, open_store
from server.errors import CommandConflictError, ServerError, TableConflictError
from server.service import GameService
from tests.unit.server.clock import Clock


class _TableRaced:
    """A store where `rival` runs (as another process would) just before each of our next
    `races` appends to a table stream, once our service has read that stream."""

    def __init__(self, races: int) -> None:
        self.inner = open_store("memory://")
        self.races = races
        self.rival: Callable[[], None] | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def append(
        self, stream: str, events: list[NewEvent], expected_version: int, *, retry: bool = True
    ) -> int:
        if self.rival is not None and self.races > 0 and stream.startswith("table-"):
            self.races -= 1
            rival, self.rival = self.rival, None  # the rival's own appends are not raced
            try:
                rival()
            finally:
                self.rival = rival
        version: int = self.inner.append(stream, events, expected_version, retry=retry)
        return version


def _services(races: int, preset: str) -> tuple[_TableRaced, GameService, GameService, str]:
    store = _TableRaced(races)
    first = GameService(store, grace_s=60, clock=Clock())  # type: ignore[arg-type]
    first.autopilot.start()
    match_id = first.openings.open_table(name="Ann", preset=preset)["match_id"]
    second = GameService(store, grace_s=60, clock=Clock())  # type: ignore[arg-type]
    return store, first, second, match_id


def _join(service: GameService, match_id: str, name: str) -> None:
    service.seats.join_seat(match_id, name)


def test_a_join_raced_by_a_join_elsewhere_is_decided_again_and_queues() -> None:
    store, first, second, match_id = _services(1, "italian-four")
    first.seats.join_seat(match_id, "Bob")
    store.rival = lambda: _join(second, match_id, "Dan")
    cid = first.seats.join_seat(match_id, "Cid")
    assert store.races == 0
    assert cid["waiting"] is True and cid["seat_token"] is not None
    fresh = GameService(store.inner, grace_s=60, clock=Clock())  # what the store holds
    people = [p.name for p in fresh.repo.find(match_id).table.people]
    assert people == ["Ann", "Bob", "Dan", "Cid"]
    assert fresh.seats.person_for(match_id, cid["seat_token"]) == (3, None)
    state = fresh.repo.find(match_id).state
    assert state is not None and state.session is not None
    assert state.session.queue == ("Dan", "Cid")


def test_a_join_raced_for_the_last_seat_is_refused_as_a_full_table() -> None:
    store, first, second, match_id = _services(1, "beginner")
    store.rival = lambda: _join(second, match_id, "Dan")
    with pytest.raises(ServerError) as refused:
        first.seats.join_seat(match_id, "Bob")
    assert refused.value.to_json() == {"code": "conflict", "message": "This table is full."}
    names = [s.name for s in GameService(store.inner).repo.find(match_id).table.seats]
    assert names == ["Ann", "Dan"]


def test_a_join_raced_every_time_ends_in_a_structured_conflict() -> None:
    store, first, second, match_id = _services(99, "italian-four")
    first.seats.join_seat(match_id, "Bob")
    ticks = iter(range(1, 99))

    def rival() -> None:  # another process keeps changing the table (a rematch offer, ...)
        second.repo.refresh(second.repo.find(match_id))
        entry = second.repo.find(match_id)
        second.repo.append_table(entry, "NextGameReady", {"seat": 0, "game_index": next(ticks)})

    store.rival = rival
    with pytest.raises(CommandConflictError) as refused:
        first.seats.join_seat(match_id, "Cid")
    assert refused.value.to_json()["code"] == "conflict"
    table = GameService(store.inner).repo.find(match_id).table
    assert [p.name for p in table.people] == ["Ann", "Bob"]  # nothing half-written


def test_another_lobby_call_raced_answers_conflict_with_the_table_read_again() -> None:
    store, first, second, match_id = _services(1, "beginner")
    bob = first.seats.join_seat(match_id, "Bob")["seat_token"]
    assert bob is not None
    entry = first.repo.find(match_id)
    before = entry.table.version

    def rival() -> None:
        other = second.repo.find(match_id)
        second.repo.append_table(other, "NextGameReady", {"seat": 0, "game_index": 7})

    store.rival = rival
    with pytest.raises(TableConflictError) as refused:
        first.repo.append_table(entry, "NextGameReady", {"seat": 1, "game_index": 7})
    assert refused.value.to_json()["code"] == "conflict"
    assert entry.table.version == before + 1  # the rival's fact, read again; ours not written
    assert GameService(store.inner).repo.find(match_id).table.version == before + 1
