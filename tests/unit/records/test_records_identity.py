"""The same record imported twice counts once (issue 28): its content hash names the match that
holds it; a second import under any id is a 409 naming the first; statistics count it once;
times in the future and ids of the server's own form are refused."""

from __future__ import annotations

import itertools
import json
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from flask import Flask

from eventstore import NewEvent, open_store
from server.app import create_app
from server.config import ServerConfig
from server.identity import events_hash, stored_hash
from server.records.errors import MatchExistsError, RecordFormatError
from server.records.export import export_match
from server.records.importer import CLOCK_SKEW_MS, import_record
from server.service import GameService
from server.stats import StatsIndex
from tests.unit.records.test_records_server import _play

GOLDEN = Path(__file__).resolve().parents[2] / "data" / "records"


def _golden(name: str = "classic-calls-resign.json") -> dict[str, Any]:
    record: dict[str, Any] = json.loads((GOLDEN / name).read_text(encoding="utf-8"))
    return record


def test_a_second_import_under_another_id_names_the_first() -> None:
    store = open_store("memory://")
    import_record(store, _golden(), match_id="first")
    with pytest.raises(MatchExistsError) as twice:
        import_record(store, _golden(), match_id="second")
    assert twice.value.match_id == "first" and twice.value.same_record
    assert "already here as match 'first'" in twice.value.message
    assert store.stream_version("match-second") == 0 and store.stream_version("table-second") == 0
    # The text form of the same match is the same record.
    text = (GOLDEN / "classic-calls-resign.txt").read_text(encoding="utf-8")
    from server.records.importer import parse_record_file

    with pytest.raises(MatchExistsError, match="'first'"):
        import_record(store, parse_record_file(text), match_id="third")
    # Another match is welcome.
    assert import_record(store, _golden("classic-stalemate.json"), match_id="fourth")


def test_the_hash_leaves_the_id_out_and_is_stored_with_the_match() -> None:
    store = open_store("memory://")
    import_record(store, _golden(), match_id="one")
    opened = store.read("table-one", 1, 1)[0].data
    assert opened["imported"] and len(opened["record_hash"]) == 64
    computed = events_hash((r.type, r.data) for r in store.read("match-one"))
    assert opened["record_hash"] == computed == stored_hash(store, "one")
    other = open_store("memory://")
    import_record(other, _golden(), match_id="two")
    assert stored_hash(other, "two") == computed


def test_an_import_that_did_not_finish_does_not_hold_the_record() -> None:
    """The claim (`imported-<hash>`) is written first; if the match never followed it, the next
    import takes the record over."""
    store = open_store("memory://")
    import_record(store, _golden(), match_id="one")
    content_hash = stored_hash(store, "one")
    fresh = open_store("memory://")
    claim = NewEvent(type="RecordImported", data={"match_id": "lost", "at_ms": 1})
    fresh.append(f"imported-{content_hash}", [claim], 0)
    assert import_record(fresh, _golden(), match_id="kept").startswith("imported kept")
    with pytest.raises(MatchExistsError, match="'kept'"):
        import_record(fresh, _golden(), match_id="again")


def test_a_match_played_here_comes_back_once() -> None:
    ticks = itertools.count(int(time.time() * 1000) + 1000, 450)
    store = open_store("memory://")
    service = GameService(store, bot_delay_s=0, clock=lambda: next(ticks))
    opened = service.lobby.open_table(name="Ann", bot="random", options={"match": "points:20"})
    match_id = opened["match_id"]
    _play(service, match_id, opened["seat_token"], 400)
    record = export_match(store, match_id, public=False)
    if record["live"]:
        record["games"].pop()
        record["live"] = False
    if not record["games"]:
        pytest.skip("no finished game to export")
    other = open_store("memory://")  # the finished part only: another stream than the live one
    import_record(other, record, match_id="elsewhere")
    with pytest.raises(MatchExistsError, match="'elsewhere'"):
        import_record(other, record, match_id="copy")
    # Played here and finished: its full record under another id is this very match.
    full = export_match(store, match_id, public=False)
    if not full["live"]:
        with pytest.raises(MatchExistsError) as back:
            import_record(store, full, match_id="copy")
        assert back.value.match_id == match_id


def test_times_in_the_future_and_server_ids_are_refused() -> None:
    store = open_store("memory://")
    now = int(time.time() * 1000)
    early = _golden()
    with pytest.raises(RecordFormatError, match=r"started_at_ms: \d+ is in the future"):
        import_record(store, early, now_ms=early["started_at_ms"] - CLOCK_SKEW_MS - 1)
    # Within the skew another machine's clock may have: accepted.
    skewed = _golden()
    assert import_record(store, skewed, match_id="skew", now_ms=skewed["started_at_ms"] - 1000)
    later = _golden("classic-stalemate.json")
    later["games"][0]["started_at_ms"] = now + 3_600_000
    with pytest.raises(RecordFormatError, match=r"games\.0\.started_at_ms: .* in the future"):
        import_record(store, later, match_id="later")
    with pytest.raises(RecordFormatError, match=r"this server's own match ids") as own:
        import_record(store, _golden("classic-stalemate.json"), match_id="m-0123456789")
    assert "'x-0123456789'" in own.value.message
    assert store.list_streams("match-") == ["match-skew"]
    # Ids that only look alike are not the server's own.
    assert import_record(store, _golden("classic-stalemate.json"), match_id="m-old000001")


def test_statistics_count_a_match_once_however_often_it_was_stored() -> None:
    """A store from before issue 28 may hold one record under two ids: it counts once."""
    store = open_store("memory://")
    import_record(store, _golden(), match_id="one")
    alone = StatsIndex().players(store)
    for stream in ("match", "table"):  # a copy, as an old import wrote it (no claim)
        events = [
            NewEvent(type=r.type, data={**r.data, "match_id": "two"} if "match_id" in r.data
                     else r.data)
            for r in store.read(f"{stream}-one")
        ]  # fmt: skip
        store.append(f"{stream}-two", events, 0)
    assert store.list_streams("match-") == ["match-one", "match-two"]
    both = StatsIndex().players(store)
    assert {n: s.to_json() for n, s in both.items()} == {n: s.to_json() for n, s in alone.items()}
    assert both["Ann"].matches == 1


@pytest.fixture
def app() -> Any:
    flask_app: Flask
    flask_app, _ = create_app(ServerConfig(async_mode="threading", store_url="memory://"))
    yield flask_app
    flask_app.extensions["crapette_store"].close()


def test_http_answers_409_naming_the_first_match(app: Flask) -> None:
    client = app.test_client()
    text = (GOLDEN / "classic-calls-resign.json").read_text(encoding="utf-8")
    first = client.post("/api/records?match_id=first", data=text, content_type="application/json")
    assert first.status_code == 201, first.json
    again = client.post("/api/records?match_id=other", data=text, content_type="application/json")
    assert again.status_code == 409
    body = again.json
    assert body["code"] == "conflict" and body["match_id"] == "first"
    assert body["existing_replay_url"] == "/replay/first" and "already here" in body["message"]
    server_id = client.post(
        "/api/records?match_id=m-00000000aa", data=text, content_type="application/json"
    )
    assert server_id.status_code == 409  # the record is here already: that comes first
    stalemate = (GOLDEN / "classic-stalemate.json").read_text(encoding="utf-8")
    refused = client.post(
        "/api/records?match_id=m-00000000aa", data=stalemate, content_type="application/json"
    )
    assert refused.status_code == 400 and refused.json["code"] == "invalid"
    assert "server's own match ids" in refused.json["message"]


def test_the_cli_import_refuses_the_same_record_twice(tmp_path: Path) -> None:
    from server.commands.records import import_cmd

    url = f"sqlite:///{tmp_path / 'events.sqlite3'}"
    golden = str(GOLDEN / "classic-calls-resign.json")
    assert CliRunner().invoke(import_cmd, [golden, "--store", url, "--id", "a"]).exit_code == 0
    twice = CliRunner().invoke(import_cmd, [golden, "--store", url, "--id", "b"])
    assert twice.exit_code == 1 and "already here as match 'a'" in twice.output


def test_a_match_played_here_and_stored_again_counts_once_in_stats_and_ratings() -> None:
    """A store from before issue 28 may hold a match played here and its record imported under
    another id: the statistics count it once (one content hash), the ratings once (an import
    is never rated)."""
    from server.ratings import rated_matches

    ticks = itertools.count(int(time.time() * 1000) + 1000, 450)
    store = open_store("memory://")
    service = GameService(store, bot_delay_s=0, clock=lambda: next(ticks))
    opened = service.lobby.open_table(name="Ann", bot="steady", options={"match": "wins:1"})
    match_id = opened["match_id"]
    _play(service, match_id, opened["seat_token"], 2000)
    record = export_match(store, match_id, public=False)
    assert not record["live"], "the match of one win is over"
    alone = {n: s.to_json() for n, s in StatsIndex().players(store).items()}
    rated = rated_matches(store)
    elsewhere = open_store("memory://")  # imported as an old server did: no claim here
    import_record(elsewhere, record, match_id="copy")
    for stream in ("match-copy", "table-copy"):
        store.append(
            stream, [NewEvent(type=r.type, data=r.data) for r in elsewhere.read(stream)], 0
        )
    assert stored_hash(store, "copy") == stored_hash(store, match_id)
    again = {n: s.to_json() for n, s in StatsIndex().players(store).items()}
    assert again == alone and again["Ann"]["matches"] == 1
    assert rated_matches(store) == rated
