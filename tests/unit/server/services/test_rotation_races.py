"""A rotation table's seat change against a request already under way, or read by a process
that has not folded the change yet (docs/spec/rules.md §10; docs/protocol.md, rotation tables):
the seat a token plays is the one it holds once the match is caught up, never the one a stale
cache remembers. Two services share one store, as two processes of a cluster do (the second
one folds the first's writes only when it next reads the store)."""

from __future__ import annotations

from typing import Any

import pytest

import domain
from eventstore import NewEvent, open_store
from server.errors import ForbiddenError
from server.readmodels.lobbyview import LobbyProjection
from server.service import GameService
from tests.seat_kit import token_of
from tests.unit.server.clock import Clock


def _two_processes() -> tuple[GameService, GameService, str, dict[str, str]]:
    """Ann and Bob seated, Cid waiting, at a winner_out table both services hold; Bob then
    resigns through the first one: Ann won, Cid took her seat 0, Ann waits. The second service
    has not folded it yet."""
    store = open_store("memory://")
    first = GameService(store, grace_s=60, clock=Clock())
    first.autopilot.start()
    opened = first.openings.open_table(name="Ann", preset="italian-four")
    match_id = opened["match_id"]
    bob = token_of(first.seats.join_seat(match_id, "Bob"))
    cid = token_of(first.seats.join_seat(match_id, "Cid"))
    assert bob is not None and cid is not None
    tokens = {"Ann": token_of(opened), "Bob": bob, "Cid": cid}
    second = GameService(store, grace_s=60, clock=Clock())
    assert second.seats.seat_for(match_id, tokens["Ann"]) == 0  # loaded before the change
    first.player_commands.execute(match_id, tokens["Bob"], "c-resign", {"do": "resign", "seat": 1})
    assert first.seats.seat_for(match_id, tokens["Cid"]) == 0
    return first, second, match_id, tokens


def test_a_waiting_persons_command_through_a_stale_process_does_not_play_her_old_seat() -> None:
    first, second, match_id, tokens = _two_processes()
    for name in ("Cid", "Bob"):
        first.endings.next_game(match_id, tokens[name])
    state = first.repo.find(match_id).state
    assert state is not None and state.game is not None and state.game.game_index == 1
    with pytest.raises(ForbiddenError, match="waiting for a seat"):
        second.player_commands.execute(
            match_id, tokens["Ann"], "c-late", {"do": "resign", "seat": 0}
        )
    state = first.repo.find(match_id).state
    assert state is not None and state.game is not None and not state.game.over


def test_a_waiting_person_cannot_say_ready_for_the_seat_she_left() -> None:
    first, second, match_id, tokens = _two_processes()
    with pytest.raises(ForbiddenError, match="waiting for a seat"):
        second.endings.next_game(match_id, tokens["Ann"])
    first.endings.next_game(match_id, tokens["Bob"])  # Cid has not said he is ready
    state = first.repo.find(match_id).state
    assert state is not None and state.game is not None and state.game.game_index == 0


class _MovesMeanwhile:
    """A store where another process plays a move on the match just before each of the next
    `races` appends of a `PlayerQueued` (a game goes on while someone joins the queue)."""

    def __init__(self, races: int) -> None:
        self.inner = open_store("memory://")
        self.races = races

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def append(
        self, stream: str, events: list[NewEvent], expected_version: int, *, retry: bool = True
    ) -> int:
        if self.races > 0 and events and events[0].type == "PlayerQueued":
            self.races -= 1
            records = self.inner.read(stream)
            state = domain.fold([domain.event_from_payload(r.type, r.data) for r in records])
            assert state.game is not None
            seat = state.game.to_move
            action = domain.legal_actions(state, seat)[0]
            moved = domain.decide(state, domain.Act(action=action, at_ms=state.started_at_ms + 1))
            self.inner.append(
                stream, [NewEvent(*domain.event_to_payload(e)) for e in moved], len(records)
            )
        version: int = self.inner.append(stream, events, expected_version, retry=retry)
        return version


@pytest.mark.parametrize("races", [1, 2, 3])
def test_joining_the_queue_while_the_game_goes_on_elsewhere_writes_both_facts(races: int) -> None:
    store = _MovesMeanwhile(races)
    service = GameService(store, grace_s=60, clock=Clock())  # type: ignore[arg-type]
    service.autopilot.start()
    opened = service.openings.open_table(name="Ann", preset="italian-four")
    match_id = opened["match_id"]
    service.seats.join_seat(match_id, "Bob")
    cid = service.seats.join_seat(match_id, "Cid")
    assert cid["waiting"] is True
    fresh = GameService(store.inner, grace_s=60, clock=Clock())  # what the store holds
    state = fresh.repo.find(match_id).state
    assert state is not None and state.session is not None
    assert state.session.queue == ("Cid",)
    assert fresh.seats.person_for(match_id, cid["seat_token"]) == (2, None)
    assert store.races == 0


def test_the_lobby_list_shows_the_seated_pairs_totals_after_a_seat_change() -> None:
    """The lobby's row of a rotation table (its projection) names the same totals as the live
    table: those of the two people seated now, not the sums of what each seat scored."""
    first, _second, match_id, _tokens = _two_processes()
    live = first.views.table(match_id)
    assert [s["name"] for s in live["seats"]] == ["Cid", "Bob"] and live["totals"] == [0, 0]
    projection = LobbyProjection(first.repo.store)
    projection.catch_up()
    row = projection.row(match_id)
    assert row is not None
    listed = first.views.row_json(row)
    assert [s["name"] for s in listed["seats"]] == ["Cid", "Bob"]
    assert listed["totals"] == live["totals"]
