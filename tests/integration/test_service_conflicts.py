"""The application service against a store that another writer races: re-read and re-decide once,
then give up with `conflict`. In process, with the memory store (no sockets needed)."""

from __future__ import annotations

from typing import Any, cast

import pytest

import domain
from eventstore import NewEvent, open_store
from server.errors import CommandConflictError, CommandRefusedError, ForbiddenError
from server.service import GameService


class RacedStore:
    """A store where, before each of our next `races` match appends, a rival appends first."""

    def __init__(self, races: int) -> None:
        self.inner = open_store("memory://")
        self.races = races
        self.rival_events = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def append(
        self, stream: str, events: list[NewEvent], expected_version: int, *, retry: bool = True
    ) -> int:
        if self.races > 0 and stream.startswith("match-") and expected_version >= 2:
            self.races -= 1
            self._rival_move(stream)
        version: int = self.inner.append(stream, events, expected_version, retry=retry)
        return version

    def _rival_move(self, stream: str) -> None:
        """The mover's own other device plays its first legal action."""
        records = self.inner.read(stream)
        state = domain.fold([domain.event_from_payload(r.type, r.data) for r in records])
        assert state is not None and state.game is not None
        seat = state.game.to_move
        action = domain.legal_actions(state, seat)[0]
        events = domain.decide(state, domain.Act(action=action, at_ms=state.started_at_ms + 1))
        batch = [NewEvent(*domain.event_to_payload(e)) for e in events]
        self.inner.append(stream, batch, len(records))
        self.rival_events += len(batch)


def seated(store: Any) -> tuple[GameService, str, list[str]]:
    service = GameService(store)
    opened = service.openings.open_table(name="Ann", preset="beginner")
    joined = service.seats.join_seat(opened["match_id"], "Bob")
    tokens = [opened["seat_token"], joined["seat_token"]]
    assert None not in tokens
    return service, opened["match_id"], cast(list[str], tokens)


def mover_turn(service: GameService, match_id: str) -> tuple[int, dict[str, Any]]:
    state = service.repo.find(match_id).state
    assert state is not None and state.game is not None
    seat = state.game.to_move
    return seat, {"do": "turn", "seat": seat}


def test_one_conflict_is_re_read_and_re_decided() -> None:
    store = RacedStore(races=1)
    service, match_id, tokens = seated(store)
    seat, turn = mover_turn(service, match_id)
    before = service.repo.find(match_id).version
    # The rival played first; our `turn` is judged again on the new position.
    try:
        result = service.player_commands.execute(match_id, tokens[seat], "cmd-race-0001", turn)
    except CommandRefusedError as refused:  # the rival's action may have made `turn` illegal
        assert refused.extra["rule"]
        assert service.repo.find(match_id).version == before + store.rival_events
    else:
        assert result["ok"] and result["version"] > before + store.rival_events
    assert store.rival_events > 0
    # The cache and the store agree event for event.
    entry = service.repo.find(match_id)
    assert entry.version == store.stream_version(f"match-{match_id}")


def test_two_conflicts_in_a_row_give_up_with_conflict() -> None:
    store = RacedStore(races=2)
    service, match_id, tokens = seated(store)
    seat, turn = mover_turn(service, match_id)
    # The rival keeps playing (possibly `turn` itself): either way our command is not applied.
    with pytest.raises((CommandConflictError, CommandRefusedError)):
        service.player_commands.execute(match_id, tokens[seat], "cmd-race-0002", turn)
    assert service.repo.find(match_id).version == store.stream_version(f"match-{match_id}")


def test_retried_command_id_is_applied_once_and_tokens_are_checked() -> None:
    service, match_id, tokens = seated(open_store("memory://"))
    seat, turn = mover_turn(service, match_id)
    with pytest.raises(ForbiddenError):
        service.player_commands.execute(match_id, tokens[1 - seat], "cmd-steal-001", turn)
    first = service.player_commands.execute(match_id, tokens[seat], "cmd-once-0001", turn)
    again = service.player_commands.execute(match_id, tokens[seat], "cmd-once-0001", turn)
    assert again == {**first, "duplicate": True}
    # A fresh service over the same store knows the command id from the stored metadata.
    fresh = GameService(service.repo.store)
    fresh.autopilot.start()
    assert (
        fresh.player_commands.execute(match_id, tokens[seat], "cmd-once-0001", turn)["duplicate"]
        is True
    )
