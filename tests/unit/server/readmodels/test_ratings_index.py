"""The players pages' ratings (server/readmodels/ratings_index.py): equal to `ratings_of(store)`,
the fold over every event, while reading only the match streams that moved; and over HTTP."""

from __future__ import annotations

from flask import Flask

from eventstore import open_store
from server.app import create_app
from server.config import ServerConfig
from server.readmodels.ratings import ratings_of
from server.readmodels.ratings_index import RatingsIndex
from server.service import GameService
from tests.http_kit import json_of
from tests.seat_kit import token_of


def _match(service: GameService, first: str, second: str, loser: int | None) -> str:
    """A table of two people; the seat `loser` resigns its one game (None: left unfinished)."""
    opened = service.openings.open_table(name=first, match="wins:1")
    joined = service.seats.join_seat(opened["match_id"], second)
    if loser is not None:
        token = (token_of(opened), token_of(joined))[loser]
        action = {"do": "resign", "seat": loser}
        service.player_commands.execute(opened["match_id"], token, f"resign-{loser}-x", action)
    return opened["match_id"]


def test_the_index_equals_the_full_fold_and_reads_only_what_moved() -> None:
    store = open_store("memory://")
    service = GameService(store)
    service.autopilot.start()
    _match(service, "Ann", "Bob", 1)
    _match(service, "Bob", "Cid", 1)  # Bob beats Cid: Ann is alone on top, no tie
    _match(service, "Cid", "Ann", None)  # still in play: counts for nobody yet
    index = RatingsIndex()
    got = index.ratings(store)
    reference = ratings_of(store)
    assert got.leaderboard() == reference.leaderboard()
    assert [row["name"] for row in got.leaderboard()][0] == "Ann"
    assert got.history_json("Bob") == reference.history_json("Bob")
    cid = got.history_json("Cid")
    assert cid is not None and cid["matches"] == 1
    reads = index.reads
    assert index.ratings(store) is got and index.reads == reads  # nothing moved: nothing read
    _match(service, "Dee", "Ann", 0)
    again = index.ratings(store)
    assert index.reads == reads + 1  # the new match only
    assert again.leaderboard() == ratings_of(store).leaderboard()


def test_the_leaderboard_and_one_name_over_http() -> None:
    app: Flask
    app, _socketio = create_app(ServerConfig(async_mode="threading", store_url="memory://"))
    service: GameService = app.extensions["crapette"]
    _match(service, "Ann", "Bob", 1)
    _match(service, "Ann", "Bob", 1)
    client = app.test_client()
    board = json_of(client.get("/api/ratings"))["ratings"]
    assert [(row["rank"], row["name"], row["wins"]) for row in board] == [
        (1, "Ann", 2),
        (2, "Bob", 0),
    ]
    assert board[0]["rating"] > 1500 > board[1]["rating"] and board[0]["provisional"]
    ann = json_of(client.get("/api/ratings/Ann"))
    assert [p["opponent"] for p in ann["history"]] == ["Bob", "Bob"]
    assert ann["history"][0]["rating"] < ann["history"][1]["rating"] == ann["rating"]
    missing = client.get("/api/ratings/Zed")
    assert missing.status_code == 404 and json_of(missing)["code"] == "not_found"
    # Asked as a state (the players page, issue 39): no 404 for a name without a rating.
    assert json_of(client.get("/api/ratings?name=Zed")) == {"name": "Zed", "rated": False}
    assert json_of(client.get("/api/ratings?name=Ann")) == {**ann, "rated": True}
    app.extensions["crapette_store"].close()
