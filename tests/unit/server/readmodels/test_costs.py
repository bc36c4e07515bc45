"""The cost caps (server/readmodels/costs.py, docs/deploy.md § Security) over HTTP, each
answered `422 too_costly` naming its limit before the work it bounds; here with the caps
lowered to a golden record's size, so that one small record is over them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from server.app import create_app
from server.config import ServerConfig
from server.readmodels import costs
from tests.http_kit import json_of

GOLDEN = Path(__file__).resolve().parents[3] / "data" / "records"
RECORD = GOLDEN / "classic-win-recycle.json"


@pytest.fixture
def client() -> FlaskClient:
    app, _ = create_app(
        ServerConfig(async_mode="threading", analyser="tests.analysis_fixture:analyse_record")
    )
    return app.test_client()


def _post(client: FlaskClient, path: str, record: dict[str, Any]) -> Any:
    return client.post(path, data=json.dumps(record), content_type="application/json")


def test_a_record_over_the_caps_is_refused_before_it_is_verified(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = json.loads(RECORD.read_text())
    actions = sum(len(game["actions"]) for game in record["games"])
    monkeypatch.setattr(costs, "MAX_RECORD_ACTIONS", actions - 1)
    for path in ("/api/records/verify", "/api/records"):
        answer = _post(client, path, record)
        assert answer.status_code == 422, answer.json
        body = json_of(answer)
        assert body["code"] == "too_costly" and body["limit"] == {"actions": actions - 1}
        assert f"not {actions:,}." in body["message"]
    monkeypatch.setattr(costs, "MAX_RECORD_ACTIONS", actions)
    # Counted before anything is checked: a record broken after the cap's count is still 422.
    broken = {**record, "games": [{**record["games"][0], "actions": "garbage"}] * 2}
    monkeypatch.setattr(costs, "MAX_RECORD_GAMES", 1)
    answer = _post(client, "/api/records/verify", broken)
    assert answer.status_code == 422 and json_of(answer)["limit"] == {"games": 1}
    monkeypatch.setattr(costs, "MAX_RECORD_GAMES", 100)
    # At the caps it passes: verified and stored.
    assert _post(client, "/api/records/verify", record).status_code == 200
    assert _post(client, "/api/records", record).status_code == 201


def test_the_html_and_the_analysis_of_a_match_over_the_caps_are_refused(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    stored = json_of(_post(client, "/api/records", json.loads(RECORD.read_text())))
    match_id = stored["match_id"]
    replay = json_of(client.get(f"/api/matches/{match_id}/replay"))
    events = replay["version"]
    monkeypatch.setattr(costs, "MAX_HTML_EVENTS", events - 1)
    monkeypatch.setattr(costs, "MAX_ANALYSIS_EVENTS", events - 1)
    html = client.get(f"/api/matches/{match_id}/replay.html")
    assert html.status_code == 422
    assert json_of(html)["code"] == "too_costly"
    assert json_of(html)["limit"] == {"events": events - 1}
    analysis = client.post(f"/api/matches/{match_id}/analysis")
    assert analysis.status_code == 422 and json_of(analysis)["limit"] == {"events": events - 1}
    # A file over the bytes cap is refused once built.
    monkeypatch.setattr(costs, "MAX_HTML_EVENTS", events)
    monkeypatch.setattr(costs, "MAX_HTML_BYTES", 1000)
    html = client.get(f"/api/matches/{match_id}/replay.html")
    assert html.status_code == 422 and json_of(html)["limit"] == {"bytes": 1000}
    monkeypatch.setattr(costs, "MAX_HTML_BYTES", 12 * 1024 * 1024)
    assert client.get(f"/api/matches/{match_id}/replay.html").status_code == 200
