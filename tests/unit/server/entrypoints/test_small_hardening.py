"""The small ones of issue 28 at the WSGI level: no Python file behind a trailing slash, an
upload over the record limit is `413 too_large`, a chunked JSON body is read (within the same
limit), and seat joins are rate-limited per address."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from server.app import create_app
from server.config import ServerConfig
from server.entrypoints.bodies import MAX_JSON_BYTES
from server.entrypoints.records_http import MAX_UPLOAD_BYTES
from tests.http_kit import json_of


def _make(tmp_path: Path, **config: Any) -> Flask:
    url = f"sqlite:///{tmp_path}/small.sqlite3"
    app, _socketio = create_app(
        ServerConfig(async_mode="threading", store_url=url, refusal_pause_s=0.0, **config)
    )
    return app


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    app = _make(tmp_path)
    yield app
    app.extensions["crapette_store"].close()


def _get(client: Any, path: str) -> tuple[int, str]:
    response = client.get(path)
    response.close()
    return response.status_code, response.mimetype


def test_no_python_file_is_served(app: Flask) -> None:
    client = app.test_client()
    for path in (
        "/static/__init__.py",
        "/static/__init__.py/",
        "/static/__init__.py//",
        "/static/js/",
        "/static/__pycache__/__init__.cpython-311.pyc",
        "/static/x.pyc",
    ):
        assert _get(client, path)[0] == 404, path
    assert _get(client, "/static/js/net.js") == (200, "text/javascript")


def test_an_upload_over_the_limit_is_413_too_large(app: Flask) -> None:
    client = app.test_client()
    body = b"{" + b" " * MAX_UPLOAD_BYTES + b"}"
    for path in ("/api/records", "/api/records/verify"):
        answer = client.post(path, data=body, content_type="application/json")
        assert answer.status_code == 413, answer.data[:200]
        assert json_of(answer)["code"] == "too_large"
        assert "20 MB" in json_of(answer)["message"]


def _chunked(client: Any, path: str, body: bytes, content_type: str = "application/json") -> Any:
    """A body with no Content-Length, as `Transfer-Encoding: chunked` sends it (the WSGI server
    undoes the chunking; Werkzeug's test client has the environ say so)."""
    import io

    return client.post(
        path,
        input_stream=io.BytesIO(body),
        headers={"Transfer-Encoding": "chunked", "Content-Type": content_type},
    )


def test_a_chunked_json_body_is_read_within_the_limit(app: Flask) -> None:
    client = app.test_client()
    opened = _chunked(client, "/api/tables", b'{"name": "Ann"}')
    assert opened.status_code == 201, opened.json
    match_id = opened.json["match_id"]
    joined = _chunked(client, f"/api/tables/{match_id}/join", b'{"name": "Bob"}')
    assert joined.status_code == 200, joined.json
    huge = b'{"name": "' + b"a" * MAX_JSON_BYTES + b'"}'
    refused = _chunked(client, "/api/tables", huge)
    assert refused.status_code == 413 and refused.json["code"] == "too_large"
    empty = _chunked(client, "/api/tables", b"")
    assert empty.status_code == 400 and empty.json["message"] == "Expected a JSON body."


def test_seat_joins_are_rate_limited_per_address(tmp_path: Path) -> None:
    from server.entrypoints.fairuse import DEFAULT_LIMITS

    assert DEFAULT_LIMITS["join"] == "20/minute"
    app = _make(tmp_path, rate_limits={"join": "3/minute"})
    client = app.test_client()
    here = {"environ_base": {"REMOTE_ADDR": "10.0.0.1"}}
    tables = [
        json_of(client.post("/api/tables", json={"name": "Ann"}))["match_id"] for _ in "abcde"
    ]
    answers = [client.post(f"/api/tables/{t}/join", json={"name": "Bob"}, **here) for t in tables]
    assert [a.status_code for a in answers] == [200, 200, 200, 429, 429]
    refused = answers[3]
    assert json_of(refused)["code"] == "rate_limited"
    assert json_of(refused)["retry_after_s"] >= 1
    assert int(refused.headers["Retry-After"]) >= 1
    # Another address has its own budget; the refused join took no seat.
    there = {"environ_base": {"REMOTE_ADDR": "10.0.0.2"}}
    late = client.post(f"/api/tables/{tables[3]}/join", json={"name": "Cy"}, **there)
    assert late.status_code == 200, late.json
    app.extensions["crapette_store"].close()
