"""The tournament routes (docs/protocol.md § Tournaments): bodies validated into structured
errors, the director's token required for his orders, the view's ETag answered with 304."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from server.app import create_app
from server.config import ServerConfig
from tests.http_kit import json_of

PLAYERS = [{"name": "Ann"}, {"name": "Bob"}, {"name": "steady bot", "bot": "steady"}]


@pytest.fixture
def client() -> Iterator[FlaskClient]:
    app: Flask
    app, _socketio = create_app(ServerConfig(async_mode="threading", store_url="memory://"))
    yield app.test_client()
    app.extensions["crapette_store"].close()


def _create(client: FlaskClient, **body: Any) -> dict[str, Any]:
    body = {"name": "Club night", "format": "swiss", "rounds": 2, "players": PLAYERS, **body}
    response = client.post("/api/tournaments", json=body)
    assert response.status_code == 201, response.json
    created: dict[str, Any] = json_of(response)
    return created


def test_create_follow_and_direct(client: FlaskClient) -> None:
    created = _create(client, match="wins:1")
    tid = created["tournament_id"]
    assert created["url"] == f"/tournament/{tid}"
    view = client.get(f"/api/tournaments/{tid}")
    assert view.status_code == 200 and json_of(view)["format_version"] == 1
    assert (
        json_of(view)["status"] == "registering" and json_of(view)["ruleset"]["match"] == "wins:1"
    )
    # Unchanged: 304, no body.
    again = client.get(f"/api/tournaments/{tid}", headers={"If-None-Match": view.headers["ETag"]})
    assert again.status_code == 304 and again.data == b""
    ann = json_of(client.post(f"/api/tournaments/{tid}/claim", json={"name": "Ann"}))
    assert ann["name"] == "Ann" and len(ann["player_token"]) > 20
    refused = client.post(f"/api/tournaments/{tid}/director", json={
        "director_token": ann["player_token"], "action": "start"})  # fmt: skip
    assert refused.status_code == 403 and json_of(refused)["code"] == "forbidden"
    start = {"director_token": created["director_token"], "action": "start"}
    assert client.post(f"/api/tournaments/{tid}/director", json=start).status_code == 200
    changed = client.get(f"/api/tournaments/{tid}", headers={"If-None-Match": view.headers["ETag"]})
    assert changed.status_code == 200 and json_of(changed)["current_round"] == 1
    me = client.post(f"/api/tournaments/{tid}/me", json={"player_token": ann["player_token"]})
    table = json_of(me)["next_table"]
    if table is not None:  # Ann may have the bye
        assert table["table_url"] == f"/table/{table['match_id']}"
    listed = json_of(client.get("/api/tournaments"))["tournaments"]
    assert [row["tournament_id"] for row in listed] == [tid]


@pytest.mark.parametrize(
    "body",
    [
        {"name": "x", "format": "knockout", "players": PLAYERS},
        {"name": "x", "format": "swiss", "rounds": 2, "players": [{"name": "Ann"}]},
        {"name": "x", "format": "swiss", "rounds": 2, "players": PLAYERS, "extra": 1},
        {"name": "x", "format": "swiss", "rounds": 2, "players": [{"name": "A", "bot": "nope"}]},
    ],
)
def test_malformed_bodies_are_structured_400s(client: FlaskClient, body: dict[str, Any]) -> None:
    response = client.post("/api/tournaments", json=body)
    assert response.status_code == 400 and json_of(response)["code"] == "invalid", response.json


def test_the_rules_refusals_say_why(client: FlaskClient) -> None:
    swiss_without_rounds = {"name": "x", "format": "swiss", "players": PLAYERS}
    response = client.post("/api/tournaments", json=swiss_without_rounds)
    assert response.status_code == 422 and json_of(response)["rule"] == "bad rounds"
    twice = {"name": "x", "format": "round-robin", "players": [{"name": "A"}, {"name": "A"}]}
    response = client.post("/api/tournaments", json=twice)
    assert response.status_code == 422 and json_of(response)["rule"] == "name taken"


def test_orders_need_their_arguments_and_names_their_players(client: FlaskClient) -> None:
    created = _create(client)
    tid, director = created["tournament_id"], created["director_token"]
    url = f"/api/tournaments/{tid}/director"
    missing = client.post(url, json={"director_token": director, "action": "withdraw"})
    assert missing.status_code == 400 and "name" in json_of(missing)["details"]
    nobody = client.post(f"/api/tournaments/{tid}/claim", json={"name": "Zed"})
    assert nobody.status_code == 404
    assert client.get("/api/tournaments/t-nothere").status_code == 404
    assert client.get("/api/tournaments/..%2Fetc").status_code == 404
