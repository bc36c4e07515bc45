"""Running a tournament in process (memory store, a clock of our own): the director's orders,
names claimed, each round's tables opened by themselves with the players' tokens, results read
from the matches' own events, no-shows and withdrawals forfeiting the seat at the table too."""

from __future__ import annotations

from typing import Any

import pytest

from eventstore import open_store
from records.streams import match_stream
from server.errors import CommandRefusedError, ForbiddenError, SeatTakenError
from server.readmodels.tournament_views import tournament_json
from server.service import GameService
from tests.unit.server.clock import Clock

NAMES = ["Ann", "Bob", "Cid", "Dee"]


def _service() -> tuple[GameService, Clock]:
    clock = Clock()
    service = GameService(open_store("memory://"), grace_s=60, clock=clock, bot_delay_s=0)
    service.autopilot.start()
    return service, clock


def _create(service: GameService, players: list[dict[str, Any]], **kw: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "name": "Club night",
        "format": "swiss",
        "rounds": 2,
        "preset": "classic",
    }
    body.update(match="wins:1", players=players, **kw)
    return service.tournaments.create(**body)


def _tick(service: GameService) -> None:
    service.tournaments._next_tick = 0.0  # no waiting for the half-second pace here
    service.tournaments.tick()


def _resign(service: GameService, match_id: str, token: str) -> None:
    entry = service.repo.find(match_id)
    seat = entry.authorised_seat(token)
    service.player_commands.execute(
        match_id, token, f"resign-{seat}-x", {"do": "resign", "seat": seat}
    )


def _view(service: GameService, tid: str) -> dict[str, Any]:
    return tournament_json(service.tournaments.repo.find(tid), service.repo)


def test_a_swiss_runs_by_itself_from_the_matches_results() -> None:
    service, _clock = _service()
    created = _create(service, [{"name": n} for n in NAMES])
    tid, director = created["tournament_id"], created["director_token"]
    tokens = {n: service.tournaments.claim(tid, n)["player_token"] for n in NAMES}
    assert _view(service, tid)["status"] == "registering"
    service.tournaments.direct(tid, director, "start")
    for round_number in (1, 2):
        view = _view(service, tid)
        assert view["current_round"] == round_number
        tables = view["rounds"][-1]["tables"]
        assert len(tables) == 2
        for table in tables:
            seat0, seat1 = table["players"]
            # Each player's page: his next table, the seat his token holds there.
            mine = service.tournaments.me(tid, tokens[seat1])["next_table"]
            assert mine["match_id"] == table["match_id"] and mine["seat"] == 1
            assert mine["opponent"] == seat0
            match = service.repo.find(table["match_id"])
            assert match.authorised_seat(tokens[seat0]) == 0 and match.live
            _resign(service, table["match_id"], tokens[seat1])  # seat 0 wins every match
        _tick(service)
    view = _view(service, tid)
    assert view["status"] == "finished"
    results = [t["result"]["winner"] for r in view["rounds"] for t in r["tables"]]
    assert results == [0, 0, 0, 0]
    top = view["standings"][0]
    assert top["score"] == 2.0 and top["rank"] == 1
    assert sorted(row["score"] for row in view["standings"]) == [0.0, 1.0, 1.0, 2.0]
    assert service.tournaments.me(tid, tokens["Ann"])["next_table"] is None


def test_a_bot_takes_a_seat_and_plays_its_table() -> None:
    service, _clock = _service()
    players = [{"name": "Ann"}, {"name": "steady bot", "bot": "steady"}]
    created = _create(service, players, rounds=1)
    tid = created["tournament_id"]
    ann = service.tournaments.claim(tid, "Ann")["player_token"]
    with pytest.raises(ForbiddenError):
        service.tournaments.claim(tid, "steady bot")
    service.tournaments.direct(tid, created["director_token"], "start")
    table = _view(service, tid)["rounds"][0]["tables"][0]
    match = service.repo.find(table["match_id"])
    bot_seat = table["players"].index("steady bot")
    assert match.table.seats[bot_seat].bot == "steady"
    _resign(service, table["match_id"], ann)
    _tick(service)
    view = _view(service, tid)
    assert view["status"] == "finished"
    assert view["standings"][0]["name"] == "steady bot"


def test_a_name_claimed_after_the_pairing_is_seated_with_its_new_token() -> None:
    service, _clock = _service()
    created = _create(service, [{"name": n} for n in NAMES[:2]], rounds=1)
    tid = created["tournament_id"]
    service.tournaments.direct(tid, created["director_token"], "start")
    table = _view(service, tid)["rounds"][0]["tables"][0]
    bob = service.tournaments.claim(tid, "Bob")["player_token"]
    assert service.repo.find(table["match_id"]).authorised_seat(bob) == table["players"].index(
        "Bob"
    )
    with pytest.raises(SeatTakenError):
        service.tournaments.claim(tid, "Bob")
    # The director frees the name (a lost phone): a new claim, a new token, the same seat.
    service.tournaments.direct(tid, created["director_token"], "release", name="Bob")
    again = service.tournaments.claim(tid, "Bob")["player_token"]
    match = service.repo.find(table["match_id"])
    assert match.authorised_seat(again) == table["players"].index("Bob")
    with pytest.raises(ForbiddenError):
        match.authorised_seat(bob)


def test_a_no_show_forfeits_the_table_and_its_match() -> None:
    service, _clock = _service()
    created = _create(service, [{"name": n} for n in NAMES[:2]], rounds=1)
    tid, director = created["tournament_id"], created["director_token"]
    service.tournaments.direct(tid, director, "start")
    table = _view(service, tid)["rounds"][0]["tables"][0]
    absent = table["players"][1]
    with pytest.raises(ForbiddenError):
        service.tournaments.direct(tid, "not-the-director", "no_show")
    service.tournaments.direct(
        tid, director, "no_show", match_id=table["match_id"], absent=[absent]
    )
    view = _view(service, tid)
    assert view["status"] == "finished"
    assert view["rounds"][0]["tables"][0]["result"]["kind"] == "forfeit"
    match = service.repo.find(table["match_id"])
    assert match.table.seats[1].forfeited  # the match ends too: the absent seat abandons it
    _tick(service)  # its end reports nothing more: the table has its result already
    assert _view(service, tid)["version"] == view["version"]


def test_a_no_show_ends_a_long_match_in_one_claimed_abandon() -> None:
    """A no-show forfeits that one pairing (issue 39): at a match to 300 points the absent seat
    abandons the match once (a `MatchWon` saying it was claimed), never game after game to the
    target; the standings hold one result."""
    service, _clock = _service()
    created = service.tournaments.create(
        name="Club night",
        format="swiss",
        rounds=1,
        preset="classic",
        match="points:300",
        players=[{"name": n} for n in NAMES[:2]],
    )
    tid, director = created["tournament_id"], created["director_token"]
    service.tournaments.direct(tid, director, "start")
    table = _view(service, tid)["rounds"][0]["tables"][0]
    absent = table["players"][1]
    service.tournaments.direct(
        tid, director, "no_show", match_id=table["match_id"], absent=[absent]
    )
    _tick(service)
    kinds = [r.type for r in service.repo.store.read(match_stream(table["match_id"]))]
    assert kinds.count("GameStarted") == 1 and kinds.count("GameResigned") <= 1, kinds
    won = [r.data for r in service.repo.store.read(match_stream(table["match_id"]))][-1]
    assert kinds[-1] == "MatchWon" and won["abandoned_by"] == 1 and won["claimed"] is True
    view = _view(service, tid)
    assert view["status"] == "finished"
    assert [t["result"]["kind"] for t in view["rounds"][0]["tables"]] == ["forfeit"]


def test_a_withdrawal_is_the_director_s_and_forfeits_the_open_table() -> None:
    service, _clock = _service()
    created = _create(service, [{"name": n} for n in NAMES])
    tid, director = created["tournament_id"], created["director_token"]
    service.tournaments.direct(tid, director, "start")
    service.tournaments.direct(tid, director, "withdraw", name="Dee")
    view = _view(service, tid)
    dee = next(p for p in view["players"] if p["name"] == "Dee")
    assert dee["withdrawn"]
    forfeited = [t for t in view["rounds"][0]["tables"] if "Dee" in t["players"]][0]
    assert forfeited["result"]["absent"] == ["Dee"]
    with pytest.raises(CommandRefusedError, match="withdrawn"):
        service.tournaments.direct(tid, director, "withdraw", name="Dee")


def test_the_tournament_is_read_again_from_the_store() -> None:
    """A restarted server folds both streams again: the same view, the same claims."""
    store = open_store("memory://")
    clock = Clock()
    first = GameService(store, clock=clock)
    created = first.tournaments.create(
        name="Cup", format="round-robin", rounds=None, preset="classic", match="wins:1",
        players=[{"name": n} for n in NAMES[:3]],
    )  # fmt: skip
    tid = created["tournament_id"]
    ann = first.tournaments.claim(tid, "Ann")["player_token"]
    first.tournaments.direct(tid, created["director_token"], "start")
    again = GameService(store, clock=clock)
    assert _settled(_view(again, tid)) == _settled(_view(first, tid))
    assert again.tournaments.me(tid, ann)["name"] == "Ann"
    assert _view(again, tid)["rounds"][0]["byes"]  # three players: one sits out each round


def _settled(view: dict[str, Any]) -> dict[str, Any]:
    """The view without the live scores (only a process holding the match has them)."""
    for played in view["rounds"]:
        for table in played["tables"]:
            table.pop("live_totals")
    return view


def test_a_tournament_the_server_ran_exports_and_verifies() -> None:
    """What the server wrote (the tournament stream, its tables' matches, reported by the
    server from each MatchWon) is a record `crapette verify` accepts: each result checked
    against its match, the standings recomputed."""
    from records.tournament import export_tournament, verify_tournament

    service, _clock = _service()
    created = _create(
        service, [{"name": n} for n in NAMES[:3]] + [{"name": "sharp bot", "bot": "sharp"}]
    )
    tid = created["tournament_id"]
    tokens = {n: service.tournaments.claim(tid, n)["player_token"] for n in NAMES[:3]}
    service.tournaments.direct(tid, created["director_token"], "start")
    for _round in (1, 2):
        for table in _view(service, tid)["rounds"][-1]["tables"]:
            people = [name for name in table["players"] if name in tokens]
            _resign(service, table["match_id"], tokens[max(people)])
        _tick(service)
    assert _view(service, tid)["status"] == "finished"
    verified = verify_tournament(export_tournament(service.repo.store, tid))
    assert "4 players, 4 match(es) verified, standings hold" in verified.summary


def test_the_director_ends_a_swiss_after_the_round_in_play() -> None:
    service, _clock = _service()
    created = _create(service, [{"name": n} for n in NAMES], rounds=3)
    tid, director = created["tournament_id"], created["director_token"]
    tokens = {n: service.tournaments.claim(tid, n)["player_token"] for n in NAMES}
    service.tournaments.direct(tid, director, "start")
    said = service.tournaments.direct(tid, director, "finish")
    assert said["finish_requested"] and _view(service, tid)["status"] == "playing"
    for table in _view(service, tid)["rounds"][0]["tables"]:
        _resign(service, table["match_id"], tokens[table["players"][1]])
    _tick(service)
    view = _view(service, tid)
    assert view["status"] == "finished" and view["current_round"] == 1
