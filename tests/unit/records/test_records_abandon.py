"""Abandoning a match (issue 31, point 6; docs/spec/rules.md §8): the game in play is resigned
and the match ends at once, with no game nobody played; the record holds exactly the games
played, verifies, and goes through text and JSON unchanged."""

from __future__ import annotations

from typing import Any

import pytest

import domain
from domain.engine_match import EngineMatch, play_obediently
from eventstore import NewEvent, open_store
from records.export import export_match, record_from_events
from records.importer import import_record
from records.text import to_text
from records.verify import verify_record
from tests.unit.records.round_trip import round_trip


def _two_games(preset: str = "classic") -> EngineMatch:
    """A 300-point match: game 1 resigned after a few actions, game 2 dealt and begun."""
    table = EngineMatch(preset)
    table.deal(seed="a" * 64)
    play_obediently(table, 12)
    table.act(domain.Resign(table.game.to_move))
    table.deal(seed="b" * 64)
    play_obediently(table, 9)
    assert not table.game.over and not table.state.finished
    return table


def _round_trip(events: list[domain.Event]) -> dict[str, Any]:
    record, verified = round_trip(events)
    assert "wins the match" in verified.summary
    return record


def test_abandon_in_game_two_resigns_it_and_ends_the_match() -> None:
    table = _two_games()
    totals_before = table.state.totals
    seat = table.game.to_move  # any seat may abandon, to move or not; here the one to move
    penalty = table.game.penalty(seat)
    events = table.act(domain.Abandon(seat))
    resigned, won = events
    assert isinstance(resigned, domain.GameResigned) and resigned.seat == seat
    expected = [0, 0]
    expected[1 - seat] = 30 + penalty  # the rules' resign score: the cards where they lie
    assert list(resigned.score) == expected
    assert isinstance(won, domain.MatchWon)
    assert won.winner == 1 - seat and won.abandoned_by == seat
    totals = [totals_before[i] + expected[i] for i in (0, 1)]
    assert list(won.totals) == totals
    assert max(totals) < 300  # the target is not reached: the match ends anyway
    assert table.state.finished and table.state.winner == 1 - seat

    record = _round_trip(table.events)
    assert len(record["games"]) == 2  # exactly the games played
    last = record["games"][-1]
    assert last["result"]["outcome"] == "resign"
    assert last["result"]["score"] == expected
    assert last["actions"][-1]["do"] == "abandon" and last["actions"][-1]["seat"] == seat
    assert record["result"] == {"finished": True, "winner": 1 - seat, "totals": totals}
    assert sum(sum(g["result"]["score"]) for g in record["games"]) == sum(totals)
    assert f"{seat} abandon @" in to_text(record)


def test_abandon_by_the_seat_not_to_move() -> None:
    table = _two_games()
    seat = 1 - table.game.to_move
    events = table.act(domain.Abandon(seat))
    assert [type(e) for e in events] == [domain.GameResigned, domain.MatchWon]
    assert events[1].winner == 1 - seat  # type: ignore[union-attr]
    _round_trip(table.events)


def test_abandon_between_games_ends_the_match_without_a_game() -> None:
    table = EngineMatch("classic")
    table.deal(seed="c" * 64)
    play_obediently(table, 10)
    table.act(domain.Resign(0))
    totals = table.state.totals
    assert totals[1] > 0
    events = table.act(domain.Abandon(1))  # the winner of game 1 gives up the match
    assert events == [domain.MatchWon(0, totals, table.now, abandoned_by=1)]
    assert table.state.finished and table.state.winner == 0
    with pytest.raises(domain.RulesError, match="match over"):
        domain.decide_and_fold(table.state, domain.StartGame("d" * 64, None, table.now + 1))

    record = _round_trip(table.events)
    assert len(record["games"]) == 1
    game = record["games"][0]
    assert game["result"]["outcome"] == "resign"  # game 1 keeps its result
    assert game["actions"][-2]["do"] == "resign"
    assert game["actions"][-1]["do"] == "abandon" and game["actions"][-1]["seat"] == 1
    assert record["result"] == {"finished": True, "winner": 0, "totals": list(totals)}


def test_the_payload_names_the_abandon_only_when_there_was_one() -> None:
    won = domain.MatchWon(1, (40, 90), 5)
    plain = {"winner": 1, "totals": [40, 90], "at_ms": 5}
    assert domain.event_to_payload(won) == ("MatchWon", plain)
    abandoned = domain.MatchWon(1, (40, 90), 5, abandoned_by=0)
    kind, payload = domain.event_to_payload(abandoned)
    assert payload == {"winner": 1, "totals": [40, 90], "at_ms": 5, "abandoned_by": 0}
    assert domain.event_from_payload(kind, payload) == abandoned


def test_the_notation_of_abandon() -> None:
    action = domain.parse_action("abandon", 1)
    assert action == domain.Abandon(1)
    assert action.notation() == "abandon"
    assert domain.action_from_json({"do": "abandon", "seat": 0}) == domain.Abandon(0)
    assert "abandon" in domain.ACTION_NAMES
    with pytest.raises(domain.NotationError):
        domain.parse_action("abandon now", 0)


def test_abandon_is_refused_at_a_rotation_table_before_a_deal_and_after_the_end() -> None:
    rotation = EngineMatch("classic", rotation="winner_out")
    rotation.join("Cid")
    rotation.deal(seed="e" * 64)
    with pytest.raises(domain.RulesError, match="rotation table") as refused:
        domain.decide_and_fold(rotation.state, domain.Act(domain.Abandon(0), rotation.now))
    assert refused.value.reason == "abandon_at_rotation"

    fresh = EngineMatch("classic")
    with pytest.raises(domain.RulesError, match="no game"):
        domain.decide_and_fold(fresh.state, domain.Act(domain.Abandon(0), fresh.now))

    over = _two_games()
    over.act(domain.Abandon(0))
    with pytest.raises(domain.RulesError, match="match over"):
        domain.decide_and_fold(over.state, domain.Act(domain.Abandon(1), over.now))


def test_a_record_with_an_action_after_the_abandon_is_refused() -> None:
    table = _two_games()
    table.act(domain.Abandon(0))
    record = record_from_events(table.events)
    extra = {"do": "resign", "seat": 1, "ms": record["games"][-1]["actions"][-1]["ms"] + 1}
    record["games"][-1]["actions"].append(extra)
    with pytest.raises(Exception, match="game is over|match over"):
        verify_record(record)


def test_only_an_abandon_may_follow_a_game_s_end() -> None:
    table = EngineMatch("classic")
    table.deal(seed="c" * 64)
    play_obediently(table, 4)
    table.act(domain.Resign(0))
    record = record_from_events(table.events)
    ms = record["games"][0]["actions"][-1]["ms"] + 1
    record["games"][0]["actions"].append({"do": "offer-draw", "seat": 1, "ms": ms})
    with pytest.raises(Exception, match="the game is over"):
        verify_record(record)


def test_stored_abandon_exports_and_imports_back() -> None:
    table = _two_games()
    table.act(domain.Abandon(1))
    store = open_store("memory://")
    batch = [NewEvent(*domain.event_to_payload(e)) for e in table.events]
    store.append("match-m-abandon", batch, expected_version=0)
    record = export_match(store, "m-abandon")
    assert record == record_from_events(table.events)
    other = open_store("memory://")
    assert "wins the match" in import_record(other, record, "m-back")
    assert export_match(other, "m-back")["games"] == record["games"]


def test_a_claimed_abandon_says_so_and_goes_through_the_record() -> None:
    """A claimed win (issue 39): the absent seat abandons the match for him, one `MatchWon`
    with `claimed`; its action is `abandon claimed` (`{"do": "abandon", "claimed": true}`), and
    the record reads back into the very same events."""
    table = _two_games()
    seat = table.game.to_move
    resigned, won = table.act(domain.Abandon(seat, claimed=True))
    assert isinstance(won, domain.MatchWon) and won.claimed and won.abandoned_by == seat
    assert domain.event_to_payload(won)[1]["claimed"] is True
    assert domain.parse_action("abandon claimed", seat) == domain.Abandon(seat, claimed=True)
    assert domain.Abandon(seat, claimed=True).notation() == "abandon claimed"
    claimed_json = {"do": "abandon", "seat": seat, "claimed": True}
    assert domain.action_from_json(claimed_json) == domain.Abandon(seat, claimed=True)
    with pytest.raises(domain.NotationError):
        domain.action_from_json({"do": "abandon", "seat": seat, "claimed": "yes"})
    record = _round_trip(table.events)
    assert (
        record["games"][-1]["actions"][-1] | {"claimed": True} == record["games"][-1]["actions"][-1]
    )
    assert f"{seat} abandon claimed @" in to_text(record)
    other = open_store("memory://")
    import_record(other, record, "m-claimed")
    stored = [r.data for r in other.read("match-m-claimed")]
    assert stored[-1]["claimed"] is True and stored[-1]["abandoned_by"] == seat
