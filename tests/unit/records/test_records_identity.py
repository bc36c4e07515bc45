"""The same record imported twice counts once (issue 28): its content hash names the match that
holds it; a second import under any id is a 409 naming the first; statistics count it once;
times in the future and ids of the server's own form are refused."""

from __future__ import annotations

import itertools
import json
import time
from pathlib import Path
from typing import Any, cast

import pytest
from click.testing import CliRunner
from flask import Flask

from eventstore import EventStore, NewEvent, open_store
from records.errors import MatchExistsError, RecordFormatError, error_reply
from records.export import export_match
from records.identity import events_hash, stored_hash
from records.importer import CLOCK_SKEW_MS, SERVER_ID, import_record, store_record
from server.app import create_app
from server.config import ServerConfig
from server.readmodels.stats import StatsIndex
from server.service import GameService
from tests.http_kit import json_of
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
    from records.importer import parse_record_file

    with pytest.raises(MatchExistsError, match="'first'"):
        import_record(store, parse_record_file(text), match_id="third")
    # Another match is welcome.
    assert import_record(store, _golden("classic-stalemate.json"), match_id="fourth")


def test_the_hash_leaves_the_id_out_and_is_stored_with_the_match() -> None:
    store = open_store("memory://")
    import_record(store, _golden(), match_id="one")
    opened = store.read("table-one", 1, 1)[0].data
    assert opened["imported"] and len(opened["content_hash"]) == 64
    computed = events_hash((r.type, r.data) for r in store.read("match-one"))
    assert opened["content_hash"] == computed == stored_hash(store, "one")
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
    opened = service.openings.open_table(name="Ann", bot="random", options={"match": "points:20"})
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
    body = json_of(again)
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
    assert refused.status_code == 400 and json_of(refused)["code"] == "invalid"
    assert "server's own match ids" in json_of(refused)["message"]


def test_the_cli_import_refuses_the_same_record_twice(tmp_path: Path) -> None:
    from server.cli.records import import_cmd

    url = f"sqlite:///{tmp_path / 'events.sqlite3'}"
    golden = str(GOLDEN / "classic-calls-resign.json")
    assert CliRunner().invoke(import_cmd, [golden, "--store", url, "--id", "a"]).exit_code == 0
    twice = CliRunner().invoke(import_cmd, [golden, "--store", url, "--id", "b"])
    assert twice.exit_code == 1 and "already here as match 'a'" in twice.output


def test_a_match_played_here_and_stored_again_counts_once_in_stats_and_ratings() -> None:
    """A store from before issue 28 may hold a match played here and its record imported under
    another id: the statistics count it once (one content hash), the ratings once (an import
    is never rated)."""
    from server.readmodels.ratings import rated_matches

    ticks = itertools.count(int(time.time() * 1000) + 1000, 450)
    store = open_store("memory://")
    service = GameService(store, bot_delay_s=0, clock=lambda: next(ticks))
    opened = service.openings.open_table(name="Ann", bot="steady", options={"match": "wins:1"})
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


# ----------------------------------------------------------------- records exported from a server


@pytest.fixture(scope="module")
def played() -> dict[str, list[NewEvent]]:
    """The streams of a finished match played on a server (its id of the server's own form)."""
    ticks = itertools.count(int(time.time() * 1000) + 1000, 450)
    store = open_store("memory://")
    service = GameService(store, bot_delay_s=0, clock=lambda: next(ticks))
    opened = service.openings.open_table(name="Ann", bot="steady", options={"match": "wins:1"})
    _play(service, opened["match_id"], opened["seat_token"], 2000)
    return {
        stream: [NewEvent(r.type, r.data, r.metadata) for r in store.read(stream)]
        for stream in (f"match-{opened['match_id']}", f"table-{opened['match_id']}")
    }


@pytest.fixture
def server_record(played: dict[str, list[NewEvent]]) -> dict[str, Any]:
    """The record of that match, as `crapette export` writes it."""
    store = open_store("memory://")
    for stream, events in played.items():
        store.append(stream, events, 0)
    match_id = next(iter(played)).removeprefix("match-")
    record: dict[str, Any] = json.loads(json.dumps(export_match(store, match_id, public=False)))
    assert SERVER_ID.match(record["match_id"]) and not record["live"]
    return record


def test_a_record_exported_from_a_server_is_imported_under_an_x_id(
    server_record: dict[str, Any],
) -> None:
    store = open_store("memory://")
    own = server_record["match_id"]
    stored = store_record(store, server_record)
    assert stored.match_id == "x-" + own[2:] and stored.renamed and stored.record_id == own
    assert stored.summary.startswith(f"imported x-{own[2:]}: (the record's id {own!r} is of a")
    assert store.list_streams("match-") == [f"match-x-{own[2:]}"]
    started = store.read(f"match-x-{own[2:]}", 1, 1)[0].data
    assert started["match_id"] == f"x-{own[2:]}"  # the stream's own id, not the record's
    # It replays: its export is the record under its new id.
    assert export_match(store, stored.match_id, public=False) == {
        **server_record,
        "match_id": stored.match_id,
    }
    with pytest.raises(MatchExistsError) as twice:
        store_record(store, server_record)
    assert twice.value.match_id == stored.match_id and twice.value.same_record
    # An id of the server's form given on purpose is still refused.
    with pytest.raises(RecordFormatError, match="server's own match ids"):
        store_record(open_store("memory://"), server_record, match_id=own)


def test_the_derived_id_goes_round_another_match_that_has_it(
    server_record: dict[str, Any],
) -> None:
    store = open_store("memory://")
    taken = "x-" + server_record["match_id"][2:]
    import_record(store, _golden(), match_id=taken)
    stored = store_record(store, server_record)
    assert stored.match_id == taken + "-2"
    with pytest.raises(MatchExistsError, match=f"already here as match '{taken}-2'"):
        store_record(store, server_record)


def test_export_all_then_import_all_with_the_cli(
    tmp_path: Path, played: dict[str, list[NewEvent]], server_record: dict[str, Any]
) -> None:
    """The README's `crapette export --all > all.ndjson; crapette import all.ndjson`."""
    from server.cli.records import export_cmd, import_cmd

    source = f"sqlite:///{tmp_path / 'played.sqlite3'}"
    with open_store(source) as server:
        import_record(server, _golden(), match_id="golden")
        for stream, events in played.items():
            server.append(stream, events, 0)
    exported = CliRunner().invoke(export_cmd, ["--all", "--store", source])
    assert exported.exit_code == 0, exported.output
    ndjson = tmp_path / "all.ndjson"
    ndjson.write_text(exported.stdout, encoding="utf-8")
    target = f"sqlite:///{tmp_path / 'here.sqlite3'}"
    imported = CliRunner().invoke(import_cmd, [str(ndjson), "--store", target])
    assert imported.exit_code == 0, imported.output
    own = server_record["match_id"]
    assert "2 of 2 record(s) imported" in imported.output
    assert f"  {own} -> x-{own[2:]}" in imported.output
    again = CliRunner().invoke(import_cmd, [str(ndjson), "--store", target])
    assert again.exit_code == 1 and f"already here as match 'x-{own[2:]}'" in again.output
    single = tmp_path / "one.json"
    single.write_text(json.dumps(server_record), encoding="utf-8")
    fresh = f"sqlite:///{tmp_path / 'fresh.sqlite3'}"
    one = CliRunner().invoke(import_cmd, [str(single), "--store", fresh])
    assert one.exit_code == 0 and one.output.startswith(f"imported x-{own[2:]}: (the record's id")
    refused = CliRunner().invoke(import_cmd, [str(single), "--store", fresh, "--id", own])
    assert refused.exit_code == 1  # the same record: the conflict comes first
    assert f"already here as match 'x-{own[2:]}'" in refused.output


def test_an_upload_of_a_server_record_is_stored_under_an_x_id(
    app: Flask, server_record: dict[str, Any]
) -> None:
    client = app.test_client()
    own = server_record["match_id"]
    body = json.dumps(server_record)
    first = client.post("/api/records", data=body, content_type="application/json")
    assert first.status_code == 201, first.json
    assert json_of(first)["match_id"] == f"x-{own[2:]}" and json_of(first)["renamed_from"] == own
    assert json_of(first)["replay_url"] == f"/replay/x-{own[2:]}"
    assert f"the record's id {own!r}" in json_of(first)["summary"]
    again = client.post("/api/records", data=body, content_type="application/json")
    assert again.status_code == 409 and json_of(again)["match_id"] == f"x-{own[2:]}"
    golden = (GOLDEN / "classic-stalemate.json").read_text(encoding="utf-8")
    plain = client.post("/api/records", data=golden, content_type="application/json")
    assert plain.status_code == 201 and json_of(plain)["renamed_from"] is None


# ------------------------------------------------------------------ imports that stop or collide


class _Interrupting:
    """A store that does what `before(stream)` says before an append to a stream (raise to stop
    the import there, or append something as another import at the same moment would)."""

    def __init__(self, store: Any, before: Any) -> None:
        self._store = store
        self._before = before

    def append(self, stream: str, events: Any, expected_version: int) -> Any:
        self._before(stream)
        return self._store.append(stream, events, expected_version)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


def _interrupting(store: EventStore, before: Any) -> EventStore:
    """An _Interrupting store typed as the EventStore it stands in for (by delegation)."""
    return cast(EventStore, _Interrupting(store, before))


class _Stopped(Exception):
    pass


def _stop_at_table(stream: str) -> None:
    if stream.startswith("table-"):
        raise _Stopped(stream)


def test_an_import_that_stopped_before_its_table_is_finished_by_the_next() -> None:
    store = open_store("memory://")
    with pytest.raises(_Stopped):
        import_record(_interrupting(store, _stop_at_table), _golden(), match_id="one")
    assert store.stream_version("match-one") and not store.stream_version("table-one")
    # The same id again: the import finishes (it was refused for good before).
    assert import_record(store, _golden(), match_id="one").startswith("imported one")
    assert store.read("table-one", 1, 1)[0].data["content_hash"] == stored_hash(store, "one")
    with pytest.raises(MatchExistsError, match="already here as match 'one'"):
        import_record(store, _golden(), match_id="two")


def test_an_import_that_stopped_does_not_hold_the_record_under_another_id() -> None:
    store = open_store("memory://")
    with pytest.raises(_Stopped):
        import_record(_interrupting(store, _stop_at_table), _golden(), match_id="one")
    assert import_record(store, _golden(), match_id="two").startswith("imported two")
    with pytest.raises(MatchExistsError, match="already here as match 'two'"):
        import_record(store, _golden(), match_id="three")


def test_a_server_record_that_stopped_half_way_is_finished_under_its_x_id(
    server_record: dict[str, Any],
) -> None:
    store = open_store("memory://")
    with pytest.raises(_Stopped):
        store_record(_interrupting(store, _stop_at_table), server_record)
    derived = "x-" + server_record["match_id"][2:]
    assert store_record(store, server_record).match_id == derived
    assert store.list_streams("match-") == [f"match-{derived}"]


def _golden_hash() -> str:
    store = open_store("memory://")
    import_record(store, _golden(), match_id="g")
    return stored_hash(store, "g")


def test_two_imports_of_one_record_at_once_the_second_is_told_to_try_again() -> None:
    store = open_store("memory://")
    content_hash = _golden_hash()

    def rival(stream: str) -> None:  # the other import's claim lands first
        if stream.startswith("imported-") and not store.stream_version(stream):
            claim = NewEvent(type="RecordImported", data={"match_id": "other", "at_ms": 1})
            store.append(f"imported-{content_hash}", [claim], 0)

    with pytest.raises(MatchExistsError) as lost:
        import_record(_interrupting(store, rival), _golden(), match_id="mine")
    assert "being imported right now" in lost.value.message and "None" not in lost.value.message
    assert store.stream_version("match-mine") == 0
    body, status = error_reply(lost.value)
    assert status == 409 and body["code"] == "conflict"
    # The other one never finished: trying again works.
    assert import_record(store, _golden(), match_id="mine").startswith("imported mine")


def test_two_records_under_one_free_id_at_once_the_second_is_a_conflict() -> None:
    store = open_store("memory://")

    def rival(stream: str) -> None:  # another record takes the id between the check and the write
        if stream == "match-same" and not store.stream_version(stream):
            import_record(store, _golden("classic-stalemate.json"), match_id="same")

    with pytest.raises(MatchExistsError) as lost:
        import_record(_interrupting(store, rival), _golden(), match_id="same")
    assert lost.value.match_id == "same" and lost.value.free_id == "same-2"
    assert "stored just now" in lost.value.message
    # Its claim names a match of another record: it holds nothing, the record can come in.
    assert import_record(store, _golden(), match_id="same-2").startswith("imported same-2")
