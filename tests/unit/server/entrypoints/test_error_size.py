"""Errors do not echo input: a 900 KB bogus value gets an answer of under a kilobyte, on Socket.IO
(the ack and the `error`/`refused` message) and over HTTP; each quotes at most 40 characters of
it (`quoted`, server/errors.py and domain/errors.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask_socketio import SocketIO

from domain.errors import QUOTE_CHARS, quote
from server.app import create_app
from server.config import ServerConfig
from server.errors import InvalidInputError, bounded
from tests.http_kit import json_of

HUGE = "x" * 900_000
LIMIT = 1024


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Flask, SocketIO]]:
    url = f"sqlite:///{tmp_path}/errors.sqlite3"
    app, socketio = create_app(ServerConfig(async_mode="threading", store_url=url))
    yield app, socketio
    app.extensions["crapette_store"].close()


def _size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False).encode())


def test_quote_cuts_a_long_value() -> None:
    assert quote("T3") == "'T3'"
    assert quote(HUGE) == repr("x" * QUOTE_CHARS + "…")
    assert quote("a\nb") == "'a\\nb'"  # control characters escaped
    assert len(quote(list(range(100_000)))) == QUOTE_CHARS + 1
    said = InvalidInputError("bad " + HUGE, details={HUGE: [HUGE]}).to_json()
    assert _size(said) < LIMIT
    assert bounded({"a": [HUGE] * 1000}) == {"a": [bounded(HUGE)] * 50}


def test_a_huge_field_gets_a_small_socket_answer(served: tuple[Flask, SocketIO]) -> None:
    app, socketio = served
    service = app.extensions["crapette"]
    opened = service.openings.open_table(name="Ann")
    match_id = opened["match_id"]
    service.seats.join_seat(match_id, "Bob")
    client = socketio.test_client(app)
    base = {"match_id": match_id, "seat_token": opened["seat_token"]}
    commands = [
        {**base, "command_id": "cmd-00000001", "action": {"do": "move", "seat": 0, "from": "R0",
                                                           "to": HUGE}},
        {**base, "command_id": "cmd-00000002", "action": {"do": HUGE, "seat": 0}},
        {**base, "command_id": "cmd-00000003", "action": {"do": "move", "seat": 0, "from": "R0",
                                                           "to": "F0", "card": HUGE}},
        {**base, "command_id": HUGE, "action": {"do": "turn", "seat": 0}},
        {**base, "command_id": "cmd-00000004", "action": {HUGE: 1}},
    ]  # fmt: skip
    answers = [("command", command) for command in commands]
    answers += [
        ("join_table", {"match_id": HUGE}),
        ("join_table", {"match_id": match_id, HUGE: 1}),
        ("claim", {**base, "what": HUGE}),
    ]
    for event, payload in answers:
        client.get_received()
        ack = client.emit(event, payload, callback=True)
        assert ack["ok"] is False, (event, ack)
        assert _size(ack) < LIMIT, (event, _size(ack), str(ack)[:300])
        received = client.get_received()
        assert received, event
        for message in received:
            assert _size(message) < LIMIT, (event, message["name"], _size(message))
    client.disconnect()


def test_a_huge_field_gets_a_small_http_answer(served: tuple[Flask, SocketIO]) -> None:
    app, _socketio = served
    client = app.test_client()
    big = "x" * 200_000  # a JSON body is at most 256 KB (server/entrypoints/bodies.py)
    match_id = json_of(client.post("/api/tables", json={"name": "Ann"}))["match_id"]
    for path, body in (
        ("/api/tables", {"name": "Ann", "preset": big}),
        ("/api/tables", {"name": big}),
        ("/api/tables", {"name": "Ann", big: 1}),
        ("/api/tables", {"name": "Ann", "options": {big: 1}}),
        ("/api/tables", {"name": "Ann", "options": {"match": big}}),
        (f"/api/tables/{match_id}/join", {"name": "Bob", "seat_token": big}),
        ("/api/tournaments", {"name": "Cup", "format": big, "players": []}),
    ):
        answer = client.post(path, json=body)
        assert 400 <= answer.status_code < 500, (path, answer.status_code)
        assert len(answer.data) < LIMIT, (path, len(answer.data), answer.data[:300])
    # A record upload takes up to 20 MB: a 900 KB bogus value in one.
    record = {"format": "crapette-record/1", "match_id": HUGE, "ruleset": {"preset": HUGE}}
    for path in ("/api/records", "/api/records/verify"):
        answer = client.post(path, json=record)
        assert answer.status_code == 400, answer.data[:300]
        assert len(answer.data) < LIMIT, (path, len(answer.data), answer.data[:300])
    # A name in the URL.
    answer = client.get("/api/players/" + "y" * 5000)
    assert answer.status_code == 404 and len(answer.data) < LIMIT
    origin = {"Origin": "http://" + "z" * 5000}
    answer = client.post("/api/tables", json={"name": "Ann"}, headers=origin)
    assert answer.status_code == 403 and len(answer.data) < LIMIT
