"""Names at the HTTP routes (issue 28, docs/protocol.md § Names): each refused name is a 400
that says which rule, names are stored in NFC, and at a rotation table or in a tournament two
confusable names are one."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from server.app import create_app
from server.config import ServerConfig
from tests.http_kit import json_of

GOLDEN = Path(__file__).resolve().parents[3] / "data" / "records"

REFUSED = [
    ("Ann\x00", "control", "U+0000 NUL"),
    ("Ann\r\nSet-Cookie: x", "control", "U+000D CARRIAGE RETURN"),
    ("\u202eAnn", "bidi", "U+202E RIGHT-TO-LEFT OVERRIDE"),
    ("\u2067Ann", "bidi", "U+2067 RIGHT-TO-LEFT ISOLATE"),
    ("Ann\u200b", "invisible", "U+200B ZERO WIDTH SPACE"),
    ("\ufeffAnn", "invisible", "U+FEFF"),
    ("  \t ", "control", "U+0009 TAB"),
    ("   ", "empty", "empty or only white space"),
    ("x" * 41, "too_long", "at most 40 characters"),
]


@pytest.fixture
def client() -> Iterator[FlaskClient]:
    app: Flask
    app, _ = create_app(ServerConfig(async_mode="threading", store_url="memory://"))
    yield app.test_client()
    app.extensions["crapette_store"].close()


def _refused(response: Any, rule: str, said: str) -> None:
    assert response.status_code == 400, response.json
    body = json_of(response)
    assert body["code"] == "invalid" and body["rule"] == rule, body
    assert body["message"].startswith("name: A name ") and said in body["message"], body
    assert said in body["details"]["name"][0]


@pytest.mark.parametrize(("name", "rule", "said"), REFUSED)
def test_each_refused_name_is_a_400_naming_its_rule(
    client: FlaskClient, name: str, rule: str, said: str
) -> None:
    _refused(client.post("/api/tables", json={"name": name}), rule, said)
    opened = json_of(client.post("/api/tables", json={"name": "Ann"}))
    joined = client.post(f"/api/tables/{opened['match_id']}/join", json={"name": name})
    _refused(joined, rule, said)


def test_names_are_stored_in_nfc_without_surrounding_spaces(client: FlaskClient) -> None:
    opened = json_of(client.post("/api/tables", json={"name": " E\u0301mile "}))
    table = json_of(client.get(f"/api/tables/{opened['match_id']}"))
    assert "\u00c9mile" in json.dumps(table, ensure_ascii=False)
    assert "E\u0301mile" not in json.dumps(table, ensure_ascii=False)


def test_a_rotation_table_takes_one_name_once_however_it_is_spelt(client: FlaskClient) -> None:
    opened = json_of(
        client.post("/api/tables", json={"name": "Ann", "preset": "italian-four", "options": {}})
    )
    url = f"/api/tables/{opened['match_id']}/join"
    assert client.post(url, json={"name": "Bob"}).status_code == 200
    for spoof in ("\u0410nn", "\u0391nn", "\uff21nn"):  # Cyrillic, Greek, fullwidth A
        refused = client.post(url, json={"name": spoof})
        assert refused.status_code == 409, refused.json
        assert json_of(refused)["code"] == "conflict" and json_of(refused)["taken_by"] == "Ann"
        assert "Ann is already at this table" in json_of(refused)["message"]
    _refused(client.post(url, json={"name": "Ann\u200b"}), "invisible", "ZERO WIDTH SPACE")
    queued = client.post(url, json={"name": "Cid"})
    assert queued.status_code == 200 and json_of(queued)["waiting"] is True
    assert client.post(url, json={"name": "C\u0456d"}).status_code == 409  # Cyrillic і


def test_a_tournament_takes_one_name_once(client: FlaskClient) -> None:
    body: dict[str, Any] = {"name": "Club", "format": "round-robin", "players": [{"name": "Ann"}]}
    body["players"].append({"name": "\u0410nn"})
    refused = client.post("/api/tournaments", json=body)
    assert refused.status_code == 422 and json_of(refused)["rule"] == "name taken", refused.json
    assert "Ann is already registered" in json_of(refused)["message"]
    bad = {**body, "players": [{"name": "Ann"}, {"name": "B\u202eob"}]}
    response = client.post("/api/tournaments", json=bad)
    assert response.status_code == 400 and json_of(response)["rule"] == "bidi"
    assert json_of(response)["message"].startswith("players.1.name: A name may not contain a bidi")
    title = {**body, "name": "Club\x00", "players": [{"name": "Ann"}, {"name": "Bob"}]}
    response = client.post("/api/tournaments", json=title)
    assert response.status_code == 400 and json_of(response)["rule"] == "control"
    assert "A tournament's name may not contain" in json_of(response)["message"]


def _upload(client: FlaskClient, record: dict[str, Any], match_id: str) -> Any:
    return client.post(
        f"/api/records?match_id={match_id}",
        data=json.dumps(record),
        content_type="application/json",
    )


def test_a_record_names_people_as_the_lobby_does(client: FlaskClient) -> None:
    record = json.loads((GOLDEN / "classic-calls-resign.json").read_text(encoding="utf-8"))
    for index, (name, _rule, said) in enumerate(REFUSED):
        refused = _upload(client, {**record, "players": [name, "Bob"]}, f"bad-{index}")
        assert refused.status_code == 400 and refused.json["code"] == "invalid", refused.json
        assert "players.0: A name" in refused.json["message"] and said in refused.json["message"]
    # 60 KB grew /api/players by 120 KB an upload; 70 KB gave a 500 (the store's event limit).
    for size in (60_000, 70_000):
        refused = _upload(client, {**record, "players": ["A" * size, "Bob"]}, f"big-{size}")
        assert refused.status_code == 400 and "at most 40 characters" in refused.json["message"]
        assert len(refused.data) < 2_000
    stored = _upload(client, {**record, "players": [" Ann ", "Bo\u0308b"]}, "nfc")
    assert stored.status_code == 201, stored.json
    names = json_of(client.get("/api/players"))
    assert "B\u00f6b" in json.dumps(names, ensure_ascii=False)


def test_a_record_over_the_stores_event_limit_is_a_400_not_a_500() -> None:
    """Whatever event a record makes, the store's size limit is a structured refusal (it was a
    500), checked before anything is written."""
    from eventstore import open_store
    from records.errors import RecordFormatError, error_reply
    from records.importer import import_record

    record = json.loads((GOLDEN / "classic-calls-resign.json").read_text(encoding="utf-8"))
    store = open_store("memory://", max_event_bytes=600)  # MatchStarted is larger than that
    with pytest.raises(RecordFormatError, match="too large to store") as refused:
        import_record(store, record)
    body, status = error_reply(refused.value)
    assert status == 400 and body["code"] == "invalid" and len(body["message"]) <= 300
    assert store.last_position() == 0
