"""Rotation tables at the server (docs/protocol.md, rotation tables; docs/spec/rules.md §10):
joining the queue, the seat change after a won game, tokens of seated and waiting people, the
table object, bots in the queue, leaving, and the lobby projection's copy of it all."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import domain
from eventstore import open_store
from records.importer import import_record
from server.adapters.matches import now_ms
from server.errors import CommandConflictError, ForbiddenError, SeatTakenError
from server.readmodels.lobbyview import LobbyProjection
from server.readmodels.stats import match_stats
from server.service import GameService
from tests.seat_kit import token_of
from tests.unit.server.clock import Clock

GOLDEN = Path(__file__).resolve().parents[3] / "data" / "records" / "italian-four-session.json"


def _table(
    mode: str = "winner_out", match: str = "points:300"
) -> tuple[GameService, str, dict[str, str]]:
    """Ann and Bob seated, Cid waiting: their tokens by name."""
    service = GameService(open_store("memory://"), grace_s=60, clock=Clock())
    service.autopilot.start()
    opened = service.openings.open_table(
        name="Ann", preset="italian-four", options={"rotation": mode}, match=match
    )
    match_id = opened["match_id"]
    bob = service.seats.join_seat(match_id, "Bob")
    cid = service.seats.join_seat(match_id, "Cid")
    assert cid["seat"] is None and cid["waiting"] is True and cid["name"] == "Cid"
    assert bob["seat_token"] is not None and cid["seat_token"] is not None
    tokens = {"Ann": token_of(opened), "Bob": token_of(bob), "Cid": token_of(cid)}
    return service, match_id, tokens


def _resign(service: GameService, match_id: str, token: str, n: int) -> None:
    seat = service.seats.seat_for(match_id, token)
    assert seat is not None
    service.player_commands.execute(
        match_id, token, f"c-resign-{n}", {"do": "resign", "seat": seat}
    )


def _rotation(service: GameService, match_id: str) -> dict[str, Any]:
    rotation = service.views.table(match_id)["rotation"]
    assert rotation is not None
    return dict(rotation)


def test_a_third_person_waits_and_takes_the_winners_seat() -> None:
    service, match_id, tokens = _table()
    rotation = _rotation(service, match_id)
    assert rotation["seated"] == ["Ann", "Bob"] and rotation["queue"] == ["Cid"]
    assert rotation["can_join"] is True and rotation["max_people"] == 4
    assert [p["name"] for p in rotation["people"]] == ["Ann", "Bob", "Cid"]
    assert rotation["people"][2]["waiting"] == 0 and rotation["people"][2]["seat"] is None
    with pytest.raises(ForbiddenError, match="waiting for a seat"):
        service.player_commands.execute(
            match_id, tokens["Cid"], "c-x-1", {"do": "resign", "seat": 0}
        )

    _resign(service, match_id, tokens["Bob"], 1)  # Ann wins game 0 and gives seat 0 to Cid
    rotation = _rotation(service, match_id)
    assert rotation["seated"] == ["Cid", "Bob"] and rotation["queue"] == ["Ann"]
    assert rotation["last_change"]["left"] == "Ann" and rotation["last_change"]["seat"] == 0
    ann = next(p for p in rotation["people"] if p["name"] == "Ann")
    assert ann["total"] > 0 and ann["wins"] == 1 and ann["seat"] is None and ann["waiting"] == 0
    assert service.seats.seat_for(match_id, tokens["Cid"]) == 0
    assert service.seats.person_for(match_id, tokens["Ann"]) == (0, None)
    table = service.views.table(match_id)
    assert [s["name"] for s in table["seats"]] == ["Cid", "Bob"] and table["totals"] == [0, 0]

    # The next game starts once the two now seated are ready; Ann's readiness is not asked.
    with pytest.raises(ForbiddenError):
        service.endings.next_game(match_id, tokens["Ann"])
    service.endings.next_game(match_id, tokens["Cid"])
    service.endings.next_game(match_id, tokens["Bob"])
    state = service.repo.find(match_id).state
    assert state is not None and state.game is not None and not state.game.over
    assert state.players == ("Cid", "Bob") and state.game.game_index == 1


def test_loser_out_and_a_stalemate() -> None:
    service, match_id, tokens = _table("loser_out")
    seat = service.seats.seat_for(match_id, tokens["Ann"])
    assert seat is not None
    service.player_commands.execute(
        match_id, tokens["Ann"], "c-draw-1", {"do": "offer-draw", "seat": seat}
    )
    service.player_commands.execute(
        match_id, tokens["Bob"], "c-draw-2", {"do": "accept-draw", "seat": 1 - seat}
    )
    assert _rotation(service, match_id)["seated"] == ["Ann", "Bob"]  # nobody moves
    for name in ("Ann", "Bob"):
        service.endings.next_game(match_id, tokens[name])
    _resign(service, match_id, tokens["Bob"], 2)  # the loser leaves
    assert _rotation(service, match_id)["seated"] == ["Ann", "Cid"]


def test_names_are_unique_and_four_people_at_most() -> None:
    service, match_id, tokens = _table()
    with pytest.raises(SeatTakenError, match="already at this table"):
        service.seats.join_seat(match_id, "Bob")
    bot = service.seats.join_seat(match_id, "x", bot="steady", token=tokens["Ann"])
    assert bot["seat_token"] is None and bot["name"] == "steady bot"
    with pytest.raises(SeatTakenError, match="full"):
        service.seats.join_seat(match_id, "Eve")
    rotation = _rotation(service, match_id)
    assert rotation["can_join"] is False and rotation["queue"] == ["Cid", "steady bot"]


def test_a_waiting_person_leaves_a_seated_one_may_not() -> None:
    service, match_id, tokens = _table()
    with pytest.raises(CommandConflictError, match="You are seated"):
        service.endings.abandon(match_id, tokens["Ann"])
    service.endings.abandon(match_id, tokens["Cid"])
    rotation = _rotation(service, match_id)
    assert rotation["queue"] == [] and [p["name"] for p in rotation["people"]][2] == "Cid"
    _resign(service, match_id, tokens["Bob"], 1)
    assert _rotation(service, match_id)["seated"] == ["Ann", "Bob"]  # nobody waits now


def test_a_bot_in_the_queue_plays_once_seated_and_the_session_ends_by_name() -> None:
    service, match_id, tokens = _table(match="wins:1")
    service.endings.abandon(match_id, tokens["Cid"])
    service.seats.join_seat(match_id, "x", bot="random", token=tokens["Ann"])
    _resign(service, match_id, tokens["Bob"], 1)  # Ann has 1 win: the session is hers
    rotation = _rotation(service, match_id)
    assert rotation["winner"] == "Ann" and service.views.table(match_id)["status"] == "finished"
    assert rotation["seated"] == ["Ann", "Bob"]  # no seat change after the last game


def test_the_seat_change_survives_a_reload_and_the_lobby_projection_agrees() -> None:
    service, match_id, tokens = _table()
    _resign(service, match_id, tokens["Bob"], 1)
    live = service.views.table(match_id)
    store = service.repo.store
    again = GameService(store, grace_s=60, clock=Clock())
    assert again.seats.seat_for(match_id, tokens["Cid"]) == 0
    assert again.seats.person_for(match_id, tokens["Ann"]) == (0, None)
    reloaded = again.views.table(match_id)
    assert reloaded["rotation"] == live["rotation"]
    projection = LobbyProjection(store)
    projection.catch_up()
    row = projection.row(match_id)
    assert row is not None
    listed = again.views.row_json(row)
    assert listed["rotation"] == live["rotation"]
    assert [s["name"] for s in listed["seats"]] == ["Cid", "Bob"]


def test_a_bot_rotates_out_and_back_in_and_plays_when_seated() -> None:
    clock = Clock(now_ms())  # a bot's pace counts from the wall-clock time of the last event
    service = GameService(open_store("memory://"), grace_s=60, clock=clock, bot_delay_s=0.0)
    service.autopilot.start()
    opened = service.openings.open_table(name="Ann", preset="italian-four", bot="random")
    match_id, ann = opened["match_id"], token_of(opened)
    bob = token_of(service.seats.join_seat(match_id, "Bob"))
    assert bob is not None
    _resign(service, match_id, ann, 1)  # the bot wins game 0 and leaves: Bob sits
    rotation = _rotation(service, match_id)
    assert rotation["seated"] == ["Ann", "Bob"] and rotation["queue"] == ["random bot"]
    for token in (ann, bob):
        service.endings.next_game(match_id, token)
    _resign(service, match_id, bob, 2)  # Ann wins and leaves: the bot sits with Bob
    rotation = _rotation(service, match_id)
    assert rotation["seated"] == ["random bot", "Bob"] and rotation["queue"] == ["Ann"]
    service.endings.next_game(match_id, bob)  # a bot is always ready
    entry = service.repo.find(match_id)
    before = entry.version
    clock.ms += 61_000  # Bob's client is away past the grace period: the table goes on
    for n in range(40):
        state = entry.state
        assert state is not None and state.game is not None
        if state.game.over:
            break
        if state.game.to_move == 1:  # Bob plays whatever he may
            action = domain.legal_actions(state, 1)[0]
            service.player_commands.execute(match_id, bob, f"c-bob-{n}", action.to_json())
        service.autopilot.tick()
        clock.ms += 1000
    bot_events = [e for e in entry.events[before:] if getattr(e, "seat", None) == 0]
    assert bot_events  # the bot, in seat 0, acted


def test_statistics_and_the_replay_follow_each_person_across_seats() -> None:
    service, match_id, tokens = _table(match="wins:2")
    _resign(service, match_id, tokens["Bob"], 1)  # Ann wins; Cid takes seat 0
    for name in ("Cid", "Bob"):
        service.endings.next_game(match_id, tokens[name])
    _resign(service, match_id, tokens["Bob"], 2)  # Cid wins; Ann comes back into seat 0
    entry = service.repo.find(match_id)
    stats = {s.name: s for s in match_stats(match_id, list(entry.events))}
    assert {name: (s.games, s.wins) for name, s in stats.items()} == {
        "Ann": (1, 1),
        "Bob": (2, 0),
        "Cid": (1, 1),
    }
    assert stats["Cid"].recent[0]["seat"] == 0 and stats["Cid"].recent[0]["opponent"] == "Bob"
    assert stats["Cid"].points == stats["Ann"].points > 0
    replay = service.reads.replay(match_id).data()
    kinds = [frame["event"]["type"] for frame in replay["frames"]]
    assert kinds.count("SeatsRotated") == 2 and "PlayerQueued" in kinds
    assert replay["pairs"] == [["Ann", "Bob"], ["Cid", "Bob"]]
    last = replay["frames"][-1]["view"]
    assert last["players"] == ["Ann", "Bob"] and last["session"]["queue"] == ["Cid"]
    assert [p for p in last["session"]["people"]] == ["Ann", "Bob", "Cid"]


def test_an_imported_session_is_listed_and_replayed_with_everyone() -> None:
    service = GameService(open_store("memory://"), grace_s=60, clock=Clock())
    record = json.loads(GOLDEN.read_text(encoding="utf-8"))
    import_record(service.repo.store, record, match_id="m-imported-4")
    table = service.views.table("m-imported-4")
    rotation = table["rotation"]
    assert table["status"] == "finished" and rotation is not None
    assert rotation["winner"] == "Ann" and rotation["seated"] == ["Ann", "Bob"]
    assert [(p["name"], p["total"]) for p in rotation["people"]] == [
        ("Ann", 182),
        ("Bob", 0),
        ("Cid", 93),
        ("Dan", 0),
    ]
    replay = service.reads.replay("m-imported-4").data()
    assert replay["pairs"] == [["Ann", "Bob"], ["Cid", "Bob"], ["Cid", "Bob"], ["Ann", "Bob"]]


def test_a_waiting_person_may_add_a_bot_one_who_left_may_not() -> None:
    """docs/spec/rules.md §10: a bot joins the queue for a person at the table, seated or
    waiting; one who left for good is no longer at it."""
    service, match_id, tokens = _table()
    bot = service.seats.join_seat(match_id, "x", bot="steady", token=tokens["Cid"])
    assert bot["name"] == "steady bot"
    assert _rotation(service, match_id)["queue"] == ["Cid", "steady bot"]

    service, match_id, tokens = _table()
    service.endings.abandon(match_id, tokens["Cid"])
    with pytest.raises(ForbiddenError, match="Only someone at this table") as refused:
        service.seats.join_seat(match_id, "x", bot="sharp", token=tokens["Cid"])
    assert refused.value.to_json()["reason"] == "bot_by_person"
    service.seats.join_seat(match_id, "x", bot="sharp", token=tokens["Bob"])
    assert _rotation(service, match_id)["queue"] == ["sharp bot"]
