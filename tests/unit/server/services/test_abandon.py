"""`abandon` at the server (issue 31, point 6; docs/protocol.md): the lobby (`Endings`) decides
the domain's `Abandon` and appends its events in one batch. The match ends at once, with only
the games played: in the stream, the record and the statistics; no game is dealt after it."""

from __future__ import annotations

import pytest

import domain
from eventstore import open_store
from records.export import export_match
from records.verify import verify_record
from server.errors import NotPlayingError
from server.readmodels.stats import match_stats
from server.service import GameService
from tests.seat_kit import token_of
from tests.unit.server.clock import Clock


def _table() -> tuple[GameService, str, dict[int, str]]:
    service = GameService(open_store("memory://"), grace_s=60, clock=Clock())
    service.autopilot.start()
    opened = service.openings.open_table(name="Ann", options={"enforcement": "lenient"})
    joined = service.seats.join_seat(opened["match_id"], "Bob")
    return service, opened["match_id"], {0: token_of(opened), 1: token_of(joined)}


def _events(service: GameService, match_id: str) -> list[domain.Event]:
    return list(service.repo.find(match_id).events)


def _play(service: GameService, match_id: str, tokens: dict[int, str], n: int) -> None:
    for i in range(n):
        state = service.repo.find(match_id).state
        assert state is not None and state.game is not None and not state.game.over
        seat = state.game.to_move
        action = domain.legal_actions(state, seat)[0]
        service.player_commands.execute(match_id, tokens[seat], f"p{i}", action.to_json())


def test_abandon_in_game_two_ends_the_match_with_two_games() -> None:
    service, match_id, tokens = _table()
    _play(service, match_id, tokens, 5)
    service.player_commands.execute(match_id, tokens[1], "r1", {"do": "resign", "seat": 1})
    for seat in (0, 1):
        service.endings.next_game(match_id, tokens[seat])
    entry = service.repo.find(match_id)
    assert entry.state is not None and entry.state.game is not None
    assert entry.state.game.game_index == 1 and not entry.state.game.over
    penalty = entry.state.game.penalty(0)
    before = entry.state.totals
    version = entry.version

    assert service.endings.abandon(match_id, tokens[0]) == {"ok": True}

    events = _events(service, match_id)
    resigned, won = events[version:]
    assert isinstance(resigned, domain.GameResigned) and resigned.score == (0, 30 + penalty)
    assert isinstance(won, domain.MatchWon) and won.winner == 1 and won.abandoned_by == 0
    assert won.totals == (before[0], before[1] + 30 + penalty)
    assert sum(isinstance(e, domain.GameStarted) for e in events) == 2  # no game nobody played
    commands = service.repo.find(match_id).commands
    assert f"abandon-{version}" in commands  # one batch, under one command id
    assert service.views.table(match_id)["status"] == "finished"

    record = export_match(service.repo.store, match_id)
    assert [g["result"]["outcome"] for g in record["games"]] == ["resign", "resign"]
    assert record["games"][1]["result"]["score"] == [0, 30 + penalty]
    assert record["games"][1]["actions"][-1]["do"] == "abandon"
    assert record["result"]["winner"] == 1 and record["result"]["totals"] == list(won.totals)
    verify_record(record)
    stats = {s.name: s for s in match_stats(match_id, events)}
    assert (stats["Ann"].games, stats["Bob"].games) == (2, 2)
    assert (stats["Ann"].wins, stats["Bob"].wins) == (1, 1)  # a game each: Bob resigned game 1

    with pytest.raises(NotPlayingError):
        service.endings.abandon(match_id, tokens[1])
    service.autopilot.follow_up(service.repo.find(match_id))
    assert len(_events(service, match_id)) == len(events)  # nothing dealt afterwards


def test_abandon_between_games_deals_nothing() -> None:
    service, match_id, tokens = _table()
    _play(service, match_id, tokens, 3)
    service.player_commands.execute(match_id, tokens[0], "r0", {"do": "resign", "seat": 0})
    totals = service.repo.find(match_id).state.totals  # type: ignore[union-attr]
    service.endings.abandon(match_id, tokens[1])  # the winner of game 1 leaves before game 2
    events = _events(service, match_id)
    assert sum(isinstance(e, domain.GameStarted) for e in events) == 1
    assert events[-1] == domain.MatchWon(0, totals, events[-1].at_ms, abandoned_by=1)
    record = export_match(service.repo.store, match_id)
    assert len(record["games"]) == 1 and record["result"]["winner"] == 0
    verify_record(record)


def test_abandon_as_a_command_is_the_same_action() -> None:
    service, match_id, tokens = _table()
    _play(service, match_id, tokens, 2)
    service.player_commands.execute(match_id, tokens[1], "quit", {"do": "abandon", "seat": 1})
    won = _events(service, match_id)[-1]
    assert isinstance(won, domain.MatchWon) and won.abandoned_by == 1 and won.winner == 0


def test_abandon_as_a_command_goes_the_abandon_message_s_way() -> None:
    """`command` `{"do": "abandon"}` is `Endings.abandon_command` (issue 28 review): the table is
    announced finished, the command's own id makes a repeat a duplicate, nothing else differs."""
    from tests.unit.server.services.test_service_wiring import RecordingPublisher

    publisher = RecordingPublisher()
    service = GameService(open_store("memory://"), grace_s=60, clock=Clock(), publisher=publisher)
    service.autopilot.start()
    opened = service.openings.open_table(name="Ann", options={"enforcement": "lenient"})
    match_id = opened["match_id"]
    tokens = {0: token_of(opened), 1: token_of(service.seats.join_seat(match_id, "Bob"))}
    _play(service, match_id, tokens, 2)
    publisher.tables.clear()
    done = service.player_commands.execute(
        match_id, tokens[1], "quit", {"do": "abandon", "seat": 1}
    )
    entry = service.repo.find(match_id)
    assert done == {"ok": True, "version": entry.version}
    assert entry.commands["c1:quit"] == entry.version  # the command's own id, namespaced
    # As the `abandon` message does, the lobby's view of the table is announced: finished.
    assert [table["status"] for _mid, table in publisher.tables] == ["finished"]
    again = service.player_commands.execute(
        match_id, tokens[1], "quit", {"do": "abandon", "seat": 1}
    )
    assert again == {"ok": True, "version": entry.version, "duplicate": True}
    with pytest.raises(NotPlayingError):  # another command id: the match is over
        service.player_commands.execute(match_id, tokens[0], "late", {"do": "abandon", "seat": 0})


def test_abandon_as_a_command_at_a_rotation_table_is_the_message_s_answer() -> None:
    from server.errors import CommandConflictError

    service = GameService(open_store("memory://"), grace_s=60, clock=Clock())
    service.autopilot.start()
    opened = service.openings.open_table(
        name="Ann", preset="italian-four", options={"rotation": "winner_out"}
    )
    match_id = opened["match_id"]
    service.seats.join_seat(match_id, "Bob")
    with pytest.raises(CommandConflictError, match="You are seated") as by_message:
        service.endings.abandon(match_id, token_of(opened))
    with pytest.raises(CommandConflictError, match="You are seated") as by_command:
        service.player_commands.execute(
            match_id, token_of(opened), "q", {"do": "abandon", "seat": 0}
        )
    assert by_command.value.message == by_message.value.message
