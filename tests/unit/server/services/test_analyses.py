"""The analysis of a finished match over HTTP (server/services/analyses.py, docs/protocol.md §
analysis): built once and kept by the record's content hash, refused for a match still in play
(before any job, and again in the worker), with its progress while it runs, in a worker process when
the store has a URL. The judgements come from the fixture analyser (tests/analysis_fixture.py)."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from records.export import export_match
from server.app import create_app
from server.config import ServerConfig
from server.errors import MatchRunningError
from server.readmodels.analysis_build import build_analysis, record_hash
from tests import analysis_fixture
from tests.http_kit import json_of

GOLDEN = Path(__file__).resolve().parents[3] / "data" / "records"
FIXTURE = "tests.analysis_fixture:analyse_record"


def _app(**config: Any) -> Any:
    config = {"analyser": FIXTURE, **config}
    app, _ = create_app(ServerConfig(async_mode="threading", **config))
    return app


def _import(client: FlaskClient, name: str = "classic-win-recycle", as_id: str = "") -> str:
    body = (GOLDEN / f"{name}.json").read_bytes()
    query = f"?match_id={as_id}" if as_id else ""
    answer = client.post(f"/api/records{query}", data=body, content_type="application/json")
    assert answer.status_code == 201, answer.json
    match_id: str = json_of(answer)["match_id"]
    return match_id


def _analysed(client: FlaskClient, match_id: str, depth: str = "normal") -> dict[str, Any]:
    """Ask for the analysis and poll its progress until it is built."""
    answer = client.post(f"/api/matches/{match_id}/analysis?depth={depth}")
    deadline = time.monotonic() + 30
    while answer.status_code == 202 and time.monotonic() < deadline:
        time.sleep(0.05)
        answer = client.get(f"/api/matches/{match_id}/analysis?depth={depth}")
    assert answer.status_code == 200, answer.json
    body: dict[str, Any] = json_of(answer)
    assert body["status"] == "done"
    status = client.get(f"/api/matches/{match_id}/analysis/status?depth={depth}")
    assert status.status_code == 200 and json_of(status) == body  # the same, as a state
    return body


def test_built_once_and_kept_by_the_record_s_content_hash(tmp_path: Path) -> None:
    cache = tmp_path / "analyses"
    app = _app(analysis_dir=str(cache))
    client = app.test_client()
    calls = len(analysis_fixture.CALLS)
    first = _import(client)
    done = _analysed(client, first)
    analysis = done["analysis"]
    assert analysis["format"] == "crapette-analysis/4"
    assert analysis["match_id"] == first and analysis["version"] == done["version"]
    game = analysis["games"][0]
    assert len(game["decisions"]) == done["progress"]["total"] > 0
    assert {d["judgement"] for d in game["decisions"]} >= {"best", "mistake"}
    # Asked again: the same body, no second job.
    again = client.post(f"/api/matches/{first}/analysis")
    assert again.status_code == 200 and again.json == done
    assert app.extensions["crapette"].analyses.started == 1
    # The same record under another id is refused here (issue 28: a record is imported once).
    body = (GOLDEN / "classic-win-recycle.json").read_bytes()
    twice = client.post("/api/records?match_id=again", data=body, content_type="application/json")
    assert twice.status_code == 409 and twice.json["match_id"] == first
    record = export_match(app.extensions["crapette_store"], first)
    assert list(cache.iterdir()) == [cache / f"{record_hash(record)}-normal-0-v4.json"]
    # A server started afresh on another store with that record, under another id, reads the
    # file kept by the record's content hash, builds nothing.
    fresh = _app(analysis_dir=str(cache)).test_client()
    second = _import(fresh, as_id="the-same-record")
    other = _analysed(fresh, second)["analysis"]
    assert other["record_hash"] == analysis["record_hash"]
    assert other["match_id"] == second and other["games"] == analysis["games"]
    assert len(analysis_fixture.CALLS) == calls + 1
    # Another depth is another analysis.
    _analysed(client, first, "quick")
    assert len(analysis_fixture.CALLS) == calls + 2


def test_an_analysis_by_the_old_judge_is_built_again_not_shown(tmp_path: Path) -> None:
    """A file the judge of format 1 left in the cache (issue 37) is never read."""
    cache = tmp_path / "analyses"
    cache.mkdir()
    app = _app(analysis_dir=str(cache))
    client = app.test_client()
    first = _import(client)
    record = export_match(app.extensions["crapette_store"], first)
    old = {"format": "crapette-analysis/1", "games": [], "match": {"seats": []}}
    (cache / f"{record_hash(record)}-normal-0.json").write_text(json.dumps(old))
    calls = len(analysis_fixture.CALLS)
    analysis = _analysed(client, first)["analysis"]
    assert analysis["format"] == "crapette-analysis/4" and analysis["games"]
    assert len(analysis_fixture.CALLS) == calls + 1


def test_the_events_stay_the_only_truth(tmp_path: Path) -> None:
    """An analysis writes nothing to the store: the match and table streams are as imported."""
    app = _app(analysis_dir=str(tmp_path / "a"))
    client = app.test_client()
    match_id = _import(client)
    store = app.extensions["crapette_store"]
    before = store.last_position()
    _analysed(client, match_id)
    assert store.last_position() == before


def test_a_match_in_play_is_never_analysed() -> None:
    app = _app()
    client = app.test_client()
    ticket = client.post("/api/tables", json={"name": "Ann", "bot": "steady"}).json
    match_id = ticket["match_id"]
    assert client.get(f"/api/tables/{match_id}").json["status"] == "playing"
    for answer in (
        client.post(f"/api/matches/{match_id}/analysis"),
        client.get(f"/api/matches/{match_id}/analysis"),
    ):
        assert answer.status_code == 409
        assert answer.json["code"] == "match_running" and answer.json["match_id"] == match_id
        assert "still being played" in answer.json["message"]
        assert "games" not in answer.json
    assert app.extensions["crapette"].analyses.started == 0
    # The worker checks again on the record it exports, whatever the server thought.
    job = {"match_id": match_id, "version": 3, "analyser": FIXTURE}
    with pytest.raises(MatchRunningError):
        build_analysis(app.extensions["crapette_store"], job, lambda _d, _t: None)


def test_refusals_are_structured() -> None:
    client = _app().test_client()
    match_id = _import(client)
    answer = client.get(f"/api/matches/{match_id}/analysis")
    assert answer.status_code == 404 and answer.json["code"] == "not_analysed"
    # The status endpoint says the same as a state (issue 39: no error in the page's console).
    answer = client.get(f"/api/matches/{match_id}/analysis/status")
    assert answer.status_code == 200 and answer.json["status"] == "none"
    assert answer.json["match_id"] == match_id and answer.json["depth"] == "normal"
    missing = client.get("/api/matches/m-0000000000/analysis/status")
    assert missing.status_code == 404 and missing.json["code"] == "not_found"
    answer = client.post(f"/api/matches/{match_id}/analysis?depth=forever")
    assert answer.status_code == 400 and answer.json["code"] == "invalid"
    assert "quick, normal, deep" in answer.json["message"]
    for missing in ("m-0000000000", "no such id!"):
        answer = client.post(f"/api/matches/{missing}/analysis")
        assert answer.status_code == 404 and answer.json["code"] == "not_found"


def test_a_server_without_its_evaluator_says_so() -> None:
    """An analyser that cannot be imported: a structured 503, no job, and the page shows no
    button for it (web/js/judgements.js)."""
    app = _app(analyser="no_such_package.judge:analyse_record")
    client = app.test_client()
    match_id = _import(client)
    for answer in (
        client.post(f"/api/matches/{match_id}/analysis"),
        client.get(f"/api/matches/{match_id}/analysis"),
    ):
        assert answer.status_code == 503 and answer.json["code"] == "analysis_unavailable"
    status = client.get(f"/api/matches/{match_id}/analysis/status")
    assert status.status_code == 200 and status.json["status"] == "unavailable"
    assert app.extensions["crapette"].analyses.started == 0


@pytest.fixture
def worker_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """The app on a SQLite file: analyses built by a worker process of their own pool; the
    fixture analyser spends 20 ms per decision there, so that its progress can be watched."""
    monkeypatch.setenv("CRAPETTE_FIXTURE_DELAY_S", "0.02")
    app = _app(store_url=f"sqlite:///{tmp_path / 's.db'}", analysis_dir=str(tmp_path / "a"))
    yield app
    service = app.extensions["crapette"]
    service.analyses.workers.close()
    service.reads.workers.close()


def test_a_worker_process_builds_it_and_says_how_far_it_has_come(worker_app: Any) -> None:
    client = worker_app.test_client()
    match_id = _import(client)
    analyses = worker_app.extensions["crapette"].analyses
    calls = len(analysis_fixture.CALLS)
    answer = client.post(f"/api/matches/{match_id}/analysis")
    assert answer.status_code == 202 and answer.json["status"] == "running"
    seen: list[tuple[int, int]] = []
    while answer.status_code == 202:
        progress = answer.json["progress"]
        seen.append((progress["done"], progress["total"]))
        time.sleep(0.05)
        answer = client.get(f"/api/matches/{match_id}/analysis")
    assert answer.status_code == 200, answer.json
    total = answer.json["progress"]["total"]
    assert any(0 < done < total for done, _ in seen), seen  # part-way there, said so
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)
    assert analyses.workers.pids() and os.getpid() not in analyses.workers.pids()
    assert len(analysis_fixture.CALLS) == calls  # not in this process
    assert len(answer.json["analysis"]["games"][0]["decisions"]) == total


def test_the_server_s_own_analyser_and_try_judge_use_the_evaluator() -> None:
    """No fixture: the default `server.readmodels.judge:analyse_record` (domain.evaluator) builds
    the analysis, per-match accuracy included, and the learning mode's try gets the figures the
    analysis gave: the best move `best`, the move played its own chance."""
    app, _ = create_app(ServerConfig(async_mode="threading"))
    client = app.test_client()
    match_id = _import(client, "classic-calls-resign")
    analysis = _analysed(client, match_id, "quick")["analysis"]
    assert analysis["depth"] == "quick" and len(analysis["match"]["seats"]) == 2
    decisions = analysis["games"][0]["decisions"]
    assert decisions
    worse = [d for d in decisions if d["best"]["text"] != d["played"]["text"]]
    for d in decisions[:2] + worse[:2]:
        url = f"/api/matches/{match_id}/analysis/try?depth=quick"
        best = client.post(url, json={"version": d["version"], "action": d["best"]})
        assert best.status_code == 200 and json_of(best)["verdict"] == "best", best.json
        played = client.post(url, json={"version": d["version"], "action": d["played"]})
        assert played.status_code == 200, played.json
        assert json_of(played)["win_chance"]["tried"] == d["win_chance"]["after"]


@pytest.mark.parametrize("kept", [False, True])
def test_the_replay_file_over_http_embeds_the_analysis_once_built(
    tmp_path: Path, kept: bool
) -> None:
    from server.readmodels.share.html import analysis_of_html

    app = _app(analysis_dir=str(tmp_path / "analyses") if kept else None)
    client = app.test_client()
    match_id = _import(client)
    before = client.get(f"/api/matches/{match_id}/replay.html").get_data(as_text=True)
    assert analysis_of_html(before) is None  # none built: none computed for the file
    built = _analysed(client, match_id)["analysis"]
    after = client.get(f"/api/matches/{match_id}/replay.html").get_data(as_text=True)
    assert analysis_of_html(after) == built  # the file cached before it is built again
