"""Every HTTP route parses bodies with limits, and only the server's own pages (or an allowed
origin) may change things: deep or huge or broken bodies get a structured 4xx, never a 500."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from server.app import create_app
from server.config import ServerConfig
from server.entrypoints.bodies import MAX_JSON_BYTES, json_depth_over, parse_json
from server.entrypoints.origins import OriginPolicy
from server.errors import InvalidInputError
from tests.http_kit import json_of

DEEP = b"[" * 100_000
DEEP_OBJECT = b'{"a":' * 40_000


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    url = f"sqlite:///{tmp_path}/limits.sqlite3"
    app, _socketio = create_app(
        ServerConfig(
            async_mode="threading", store_url=url, allowed_origins=("http://friend.example",)
        )
    )
    yield app
    app.extensions["crapette_store"].close()


def _structured(response: Any, status: int, code: str | None = None) -> None:
    assert response.status_code == status, (response.status_code, response.data[:300])
    body = json_of(response)
    assert isinstance(body["code"], str) and isinstance(body["message"], str), body
    if code is not None:
        assert body["code"] == code, body


def _routes(app: Flask, match_id: str) -> list[tuple[str, str]]:
    """(method, path) of every route of the app, path parameters filled in."""
    result = []
    for rule in app.url_map.iter_rules():
        path = re.sub(r"<(?:[a-z]+:)?match_id>", match_id, rule.rule)
        path = re.sub(r"<(?:[a-z]+:)?path>", "app.js", path)
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            result.append((method, path))
    return result


def test_json_nested_100000_deep_gets_a_structured_400_on_every_route(app: Flask) -> None:
    client = app.test_client()
    opened = json_of(client.post("/api/tables", json={"name": "Ann"}))
    match_id = opened["match_id"]
    posts = 0
    for method, path in _routes(app, match_id):
        for body in (DEEP, DEEP_OBJECT):
            response = client.open(path, method=method, data=body, content_type="application/json")
            assert response.status_code < 500, (method, path, response.data[:300])
            if method == "POST":  # a route that reads its body refuses this one
                _structured(response, 400, "invalid")
            response.close()  # a page is sent as a file
        posts += method == "POST"
    assert posts >= 5  # tables, join, rematch, records, records/verify


def test_json_body_limits(app: Flask) -> None:
    client = app.test_client()
    match_id = json_of(client.post("/api/tables", json={"name": "Ann"}))["match_id"]
    for path in ("/api/tables", f"/api/tables/{match_id}/join", f"/api/tables/{match_id}/rematch"):
        for body in (b"", b"  ", b"{", b"\xff\xfe", b"1e99999", b"9" * 5000, b"[1]" * 3, b"NaN]"):
            _structured(client.post(path, data=body, content_type="application/json"), 400)
        deep_but_small = b'{"name": "A", "options": ' + b"[" * 40 + b"]" * 40 + b"}"
        _structured(client.post(path, data=deep_but_small), 400, "invalid")
        huge = b'{"name": "' + b"a" * MAX_JSON_BYTES + b'"}'
        _structured(client.post(path, data=huge), 413, "too_large")
    # Over the app's limit even for a record upload: refused before it is read.
    response = client.post("/api/records", data=b"x" * (22 * 1024 * 1024))
    _structured(response, 413, "too_large")
    # A well-formed body still works, with or without a JSON content type.
    assert client.post("/api/tables", data=b'{"name": "Bo"}').status_code == 201


def test_parse_json_refuses_depth_iteratively() -> None:
    assert parse_json(b'{"a": [1, {"b": 2}]}') == {"a": [1, {"b": 2}]}
    assert not json_depth_over([[[]]], 3) and json_depth_over([[[[]]]], 3)
    assert not json_depth_over("[[[[[", 1)
    for raw in (DEEP, b"[" * 20 + b"]" * 20):
        with pytest.raises(InvalidInputError, match="nested more than"):
            parse_json(raw)


def _post(client: FlaskClient, path: str, origin: str | None) -> Any:
    headers = {} if origin is None else {"Origin": origin}
    return client.post(path, json={"name": "Ann"}, headers=headers)


def test_changing_requests_come_only_from_allowed_origins(app: Flask) -> None:
    client = app.test_client()
    # The test client addresses http://localhost/: that is the server's own origin.
    assert _post(client, "/api/tables", "http://localhost").status_code == 201
    assert _post(client, "/api/tables", None).status_code == 201  # not a browser page
    allowed = _post(client, "/api/tables", "http://friend.example/")
    assert allowed.status_code == 201
    assert allowed.headers["Access-Control-Allow-Origin"] == "http://friend.example/"
    for origin in ("http://evil.example", "null", "http://localhost:8001", "https://localhost"):
        response = _post(client, "/api/tables", origin)
        _structured(response, 403, "forbidden_origin")
        assert "--allowed-origin" in response.json["message"]
    # Reading stays open to any page (the lobby and replays are public).
    listed = client.get("/api/tables", headers={"Origin": "http://evil.example"})
    assert listed.status_code == 200 and "Access-Control-Allow-Origin" not in listed.headers
    assert len(json_of(listed)["tables"]) == 3


def _limited_app(tmp_path: Path, **limits: str | None) -> Flask:
    url = f"sqlite:///{tmp_path}/limited.sqlite3"
    app, _socketio = create_app(
        ServerConfig(async_mode="threading", store_url=url, rate_limits=limits, refusal_pause_s=0.0)
    )
    return app


def _from(address: str) -> dict[str, Any]:
    return {"environ_base": {"REMOTE_ADDR": address}}


def test_table_creation_is_rate_limited_per_address(tmp_path: Path) -> None:
    app = _limited_app(tmp_path, create="3/minute")
    client = app.test_client()
    created = [client.post("/api/tables", json={"name": "Ann"}, **_from("10.0.0.1")) for _ in "abc"]
    assert [r.status_code for r in created] == [201, 201, 201]
    refused = client.post("/api/tables", json={"name": "Ann"}, **_from("10.0.0.1"))
    _structured(refused, 429, "rate_limited")
    assert 1 <= json_of(refused)["retry_after_s"] <= 61  # within the minute (rounded up)
    assert int(refused.headers["Retry-After"]) >= 1
    assert "try again in" in json_of(refused)["message"]
    assert len(json_of(client.get("/api/tables"))["tables"]) == 3  # nothing opened
    # Another address has its own budget; moves and the lobby are never limited.
    assert client.post("/api/tables", json={"name": "Bo"}, **_from("10.0.0.2")).status_code == 201
    assert all(client.get("/api/tables", **_from("10.0.0.1")).status_code == 200 for _ in "abcd")
    app.extensions["crapette_store"].close()


def test_behind_a_proxy_each_player_has_a_budget_of_his_own(tmp_path: Path) -> None:
    """Behind HAProxy every request comes from the balancer's address; with `behind_proxy` the
    limit counts the address it forwards (X-Forwarded-For), and without it, the balancer's."""
    url = f"sqlite:///{tmp_path}/proxied.sqlite3"
    for proxied in (True, False):
        app, _socketio = create_app(
            ServerConfig(
                async_mode="threading",
                store_url=url,
                rate_limits={"create": "1/minute"},
                refusal_pause_s=0.0,
                behind_proxy=proxied,
            )
        )
        client = app.test_client()
        codes = [
            client.post(
                "/api/tables",
                json={"name": "Ann"},
                headers={"X-Forwarded-For": player},
                **_from("127.0.0.1"),  # the balancer
            ).status_code
            for player in ("10.0.0.1", "10.0.0.2", "10.0.0.1")
        ]
        assert codes == ([201, 201, 429] if proxied else [201, 429, 429])
        app.extensions["crapette_store"].close()


def test_expensive_reads_are_rate_limited(tmp_path: Path) -> None:
    app = _limited_app(tmp_path, replay="2/minute", view="2/minute", record="1/minute")
    client = app.test_client()
    match_id = json_of(client.post("/api/tables", json={"name": "Ann", "bot": "random"}))[
        "match_id"
    ]
    for path, allowed in (
        (f"/api/matches/{match_id}/replay", 2),
        (f"/api/matches/{match_id}/view?version=1", 2),
        (f"/api/matches/{match_id}/record.json", 1),
    ):
        answers = [client.get(path) for _ in range(allowed + 1)]
        assert [a.status_code for a in answers[:allowed]] == [200] * allowed, path
        _structured(answers[-1], 429, "rate_limited")
    app.extensions["crapette_store"].close()


def test_health_and_player_statistics_have_a_generous_limit(tmp_path: Path) -> None:
    from server.entrypoints.fairuse import DEFAULT_LIMITS

    # Generous by default: far above a balancer's health checks (one every 2 s).
    for kind in ("health", "players"):
        assert int(DEFAULT_LIMITS[kind].split("/")[0]) >= 100, kind
    app = _limited_app(tmp_path, health="3/minute", players="2/minute")
    client = app.test_client()
    for path, allowed in (("/healthz", 3), ("/api/players", 2), ("/api/players/Ann", 0)):
        answers = [client.get(path, **_from("10.0.0.1")) for _ in range(allowed + 1)]
        assert all(a.status_code in (200, 404) for a in answers[:allowed]), path
        _structured(answers[-1], 429, "rate_limited")
        assert int(answers[-1].headers["Retry-After"]) >= 1
        # Another address has its own budget.
        assert client.get(path, **_from("10.0.0.2")).status_code in (200, 404), path
    app.extensions["crapette_store"].close()


def test_rate_limit_settings() -> None:
    from server.entrypoints.fairuse import RateLimitError, parse_limits

    assert parse_limits(("replay=10/minute", "create=off")) == {
        "replay": "10/minute",
        "create": None,
    }
    assert set(parse_limits(("all=off",)).values()) == {None}
    for bad in ("replay", "nothing=1/minute", "replay=often"):
        with pytest.raises(RateLimitError):
            parse_limits((bad,))


def test_forwarded_host_counts_only_behind_a_proxy(tmp_path: Path) -> None:
    """A page of another site that names itself in X-Forwarded-Host passes for the server's own
    page only where a proxy in front is trusted to set that header (`behind_proxy`)."""
    url = f"sqlite:///{tmp_path}/origins.sqlite3"
    evil = {"Origin": "https://evil.example", "X-Forwarded-Host": "evil.example"}
    evil["X-Forwarded-Proto"] = "https"
    for proxied in (False, True):
        # The host is allowed here: what is tested is the Origin check (the Host check:
        # tests/unit/server/entrypoints/test_security.py).
        config = ServerConfig(
            async_mode="threading",
            store_url=url,
            behind_proxy=proxied,
            allowed_hosts=("evil.example",),
        )
        app, _socketio = create_app(config)
        client = app.test_client()
        answer = client.post("/api/tables", json={"name": "Ann"}, headers=evil)
        if proxied:
            assert answer.status_code == 201, answer.json
        else:
            _structured(answer, 403, "forbidden_origin")
        # The server's own page is accepted either way.
        own = {"Origin": "http://localhost"}
        assert client.post("/api/tables", json={"name": "Bo"}, headers=own).status_code == 201
        app.extensions["crapette_store"].close()
    # The Socket.IO handshake asks the same policy.
    environ = {"HTTP_HOST": "play.example:8000", "HTTP_X_FORWARDED_HOST": "evil.example"}
    assert not OriginPolicy().accepts("http://evil.example", environ)
    assert OriginPolicy(behind_proxy=True).accepts("http://evil.example", environ)
    assert OriginPolicy().accepts("http://play.example:8000", environ)
