"""The records blueprint: download, upload and verify over HTTP (Flask test client)."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from server.app import create_app
from server.config import ServerConfig
from tests.http_kit import json_of

GOLDEN = Path(__file__).resolve().parents[2] / "data" / "records"


@pytest.fixture
def client() -> FlaskClient:
    """The whole app on a store in memory: records built in this process."""
    app, _socketio = create_app(ServerConfig(async_mode="threading"))
    return app.test_client()


@pytest.fixture
def worker_client(tmp_path: Path) -> Iterator[FlaskClient]:
    """The whole app on a SQLite file: records built by a read worker process."""
    config = ServerConfig(async_mode="threading", store_url=f"sqlite:///{tmp_path / 's.db'}")
    app, _socketio = create_app(config)
    assert app.extensions["crapette"].reads.workers is not None
    yield app.test_client()
    app.extensions["crapette"].reads.workers.close()


def _golden_text(name: str, suffix: str) -> str:
    return (GOLDEN / f"{name}.{suffix}").read_text(encoding="utf-8")


def _upload(client: FlaskClient, body: str, **kwargs: Any) -> Any:
    return client.post("/api/records", data=body.encode(), **kwargs)


@pytest.mark.parametrize("where", ["in_process", "worker"])
def test_upload_json_then_download_both_forms(where: str, request: pytest.FixtureRequest) -> None:
    client: FlaskClient = request.getfixturevalue(
        "client" if where == "in_process" else "worker_client"
    )
    response = _upload(client, _golden_text("classic-win-recycle", "json"))
    assert response.status_code == 201, response.json
    assert response.json["match_id"] == "golden-win"
    assert response.json["replay_url"] == "/replay/golden-win"
    download = client.get("/api/matches/golden-win/record")
    assert download.status_code == 200
    assert "attachment" in download.headers["Content-Disposition"]
    assert download.json == json.loads(_golden_text("classic-win-recycle", "json"))
    text = client.get("/api/matches/golden-win/record?format=text&inline=1")
    assert text.status_code == 200 and "Content-Disposition" not in text.headers
    assert text.get_data(as_text=True) == _golden_text("classic-win-recycle", "txt")
    as_file = client.get("/api/matches/golden-win/record.txt")
    assert as_file.get_data(as_text=True) == _golden_text("classic-win-recycle", "txt")
    assert client.get("/api/matches/golden-win/record.json").json == download.json
    # Built once per version of the match, sent with a strong ETag: naming it gets a 304.
    etag = download.headers["ETag"]
    assert etag != text.headers["ETag"]  # each form has its own
    again = client.get("/api/matches/golden-win/record", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.data == b""
    assert client.get("/api/matches/golden-win/record").headers["ETag"] == etag
    assert download.headers["Cache-Control"] == "public, max-age=3600"  # a finished match
    service = client.application.extensions["crapette"]
    assert service.reads.cache.builds == 2  # the JSON form and the text form, once each


def test_upload_text_as_a_file_under_another_id(client: FlaskClient) -> None:
    data = {"file": (io.BytesIO(_golden_text("danish-resign", "txt").encode()), "r.txt")}
    response = client.post("/api/records?match_id=m-mine", data=data)
    assert response.status_code == 201 and json_of(response)["match_id"] == "m-mine"
    assert json_of(client.get("/api/matches/m-mine/record"))["match_id"] == "m-mine"


def test_the_same_match_twice_is_a_conflict_that_links_to_it(client: FlaskClient) -> None:
    assert _upload(client, _golden_text("g4a-resign", "json")).status_code == 201
    match_id = json.loads(_golden_text("g4a-resign", "json"))["match_id"]
    # The same match, in either form (the text form is the record downloaded another way).
    for body in (_golden_text("g4a-resign", "json"), _golden_text("g4a-resign", "txt")):
        again = _upload(client, body)
        assert again.status_code == 409 and again.json["code"] == "conflict"
        assert again.json["same_record"] is True
        assert "it is this very record" in again.json["message"]
        assert again.json["match_id"] == match_id
        assert again.json["existing_replay_url"] == f"/replay/{match_id}"
        assert again.json["free_id"] == ""  # no other id: a record is imported once
    # Under another id it is still this match (issue 28): 409 naming the first.
    under_new_id = client.post(f"/api/records?match_id={match_id}-2", data=body.encode())
    assert under_new_id.status_code == 409 and json_of(under_new_id)["match_id"] == match_id
    assert json_of(under_new_id)["same_record"] is True


def test_another_match_under_a_taken_id_is_not_the_same_record(client: FlaskClient) -> None:
    assert _upload(client, _golden_text("g4a-resign", "json")).status_code == 201
    taken = json.loads(_golden_text("g4a-resign", "json"))["match_id"]
    other = json.loads(_golden_text("classic-win-recycle", "json"))
    clash = client.post(f"/api/records?match_id={taken}", data=json.dumps(other).encode())
    assert clash.status_code == 409
    assert json_of(clash)["same_record"] is False and json_of(clash)["free_id"] == f"{taken}-2"
    assert "it is another match" in json_of(clash)["message"]


def test_a_tampered_upload_is_refused_naming_the_action(client: FlaskClient) -> None:
    record = json.loads(_golden_text("classic-calls-resign", "json"))
    record["games"][0]["result"]["score"] = [0, 88]
    response = _upload(client, json.dumps(record))
    assert response.status_code == 422
    body = response.json
    assert (body["code"], body["game"], body["action"], body["what"]) == ("mismatch", 1, 5, "score")
    assert body["stated"] == "0 88" and body["engine"] == "0 89"
    assert client.get("/api/matches/golden-calls/record").status_code == 404


@pytest.mark.parametrize("body", ["", "nonsense", "{", '{"format": "x"}', "[Format 1]"])
def test_a_malformed_upload_is_invalid(client: FlaskClient, body: str) -> None:
    response = _upload(client, body)
    assert response.status_code == 400 and response.json["code"] == "invalid"
    assert response.json["message"]


def test_verify_without_storing(client: FlaskClient) -> None:
    response = client.post("/api/records/verify", data=_golden_text("french-resign", "txt"))
    assert response.status_code == 200 and json_of(response)["ok"] is True
    assert client.get("/api/matches/golden-french/record").status_code == 404


def test_download_unknown_match_and_bad_format(client: FlaskClient) -> None:
    missing = client.get("/api/matches/m-404/record")
    assert missing.status_code == 404 and json_of(missing)["code"] == "not_found"
    assert _upload(client, _golden_text("italian-resign", "json")).status_code == 201
    bad = client.get("/api/matches/golden-italian/record?format=pdf")
    assert bad.status_code == 400


def test_an_uploads_progress_is_told_under_its_token(client: FlaskClient) -> None:
    """Issue 38: `?progress=TOKEN` names an upload; `GET /api/records/progress/TOKEN` says how
    far it came (here, in this process: done once answered), a token of another form is refused
    and an unknown one is not found."""
    import records.verify

    record = _golden_text("classic-stalemate", "json")
    actions = sum(len(game["actions"]) for game in json.loads(record)["games"])
    token = "a-token-of-twenty-chars"
    told: list[tuple[int, int]] = []
    original = records.verify.verify_record

    def spied(loaded: object, progress: Any = None) -> Any:
        def tell(done: int, total: int) -> None:
            told.append((done, total))
            progress(done, total)

        return original(loaded, tell)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(records.verify, "PROGRESS_EVERY", 20)
        patch.setattr(records.verify, "verify_record", spied)
        answer = client.post(
            f"/api/records/verify?progress={token}", data=record, content_type="application/json"
        )
    assert answer.status_code == 200, answer.get_data(as_text=True)
    assert told[-1] == (actions, actions) and len(told) >= 3  # every 20 actions, and the end
    assert all(total == actions for _, total in told)
    progress = client.get(f"/api/records/progress/{token}")
    assert progress.status_code == 200 and progress.headers["Cache-Control"] == "no-store"
    assert json_of(progress) == {"stage": "done", "actions": {"done": actions, "total": actions}}
    assert client.get("/api/records/progress/" + "z" * 20).status_code == 404
    short = client.post("/api/records/verify?progress=short", data=record)
    assert short.status_code == 400 and json_of(short)["code"] == "invalid"
