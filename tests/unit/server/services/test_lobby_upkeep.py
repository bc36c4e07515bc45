"""The lobby projection (a restart catches up from its saved position and loads only the tables
in play), open tables expiring with a `TableExpired` fact, and idle matches leaving memory and
coming back on demand. Real SQLite stores; a clock of our own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import domain
from eventstore import EventStore, open_store
from records.importer import import_record
from server.adapters.matches import now_ms
from server.errors import SeatTakenError
from server.service import GameService
from tests.seat_kit import token_of
from tests.unit.server.clock import Clock

GOLDEN = Path(__file__).resolve().parents[3] / "data" / "records"


def _service(store: EventStore, tmp_path: Path, clock: Clock, **options: Any) -> GameService:
    service = GameService(
        store, grace_s=60, clock=clock, lobby_file=tmp_path / "lobby.json", **options
    )
    service.autopilot.start()
    return service


def _finished_match(service: GameService) -> str:
    """A match against a bot, won by the bot at once (one game to win)."""
    opened = service.openings.open_table(name="Ann", bot="random", match="wins:1")
    resign = domain.Resign(seat=0).to_json()
    service.player_commands.execute(opened["match_id"], token_of(opened), "c-resign-01", resign)
    assert service.repo.find(opened["match_id"]).status == "finished"
    return opened["match_id"]


class CountingReads:
    """Counts the events a store hands out (per stream and through the global order)."""

    def __init__(self, store: EventStore) -> None:
        self.events = 0
        read, read_all = store.read, store.read_all

        def counted_read(*args: Any, **kwargs: Any) -> Any:
            records = read(*args, **kwargs)
            self.events += len(records)
            return records

        def counted_read_all(*args: Any, **kwargs: Any) -> Any:
            records = read_all(*args, **kwargs)
            self.events += len(records)
            return records

        store.read = counted_read  # type: ignore[method-assign]
        store.read_all = counted_read_all  # type: ignore[method-assign]


def test_a_restart_reads_the_live_tables_not_the_history(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/history.sqlite3"
    clock = Clock(now_ms())
    store = open_store(url)
    service = _service(store, tmp_path, clock)
    record = json.loads((GOLDEN / "classic-calls-resign.json").read_text(encoding="utf-8"))
    for index in range(30):  # matches played elsewhere: replayable, never live here
        # Thirty matches, not one record thirty times (a record is imported once: issue 28).
        players = [f"{name} {index}" for name in record["players"]]
        import_record(store, {**record, "players": players}, match_id=f"m-old{index:03d}")
    finished = [_finished_match(service) for _ in range(10)]
    live = service.openings.open_table(name="Cy", bot="random")["match_id"]
    waiting = service.openings.open_table(name="Di")["match_id"]
    service.upkeep.projection.catch_up()
    service.upkeep.projection.save()
    history = store.last_position()
    store.close()

    # Restarted with the saved projection: nothing to catch up, two tables to load.
    store = open_store(url)
    counted = CountingReads(store)
    again = _service(store, tmp_path, clock)
    loaded = {entry.match_id for entry in again.repo.entries()}
    assert loaded == {live, waiting}
    live_events = sum(
        store.stream_version(f"{kind}-{m}") for m in loaded for kind in ("match", "table")
    )
    assert counted.events == live_events  # the live tables' events, and nothing else
    assert counted.events / history < 0.1, (counted.events, history)
    # The lobby is whole all the same, and any match is loaded when asked for.
    listed = {t["match_id"]: t["status"] for t in again.views.tables(include_all=True)}
    assert listed[live] == "playing" and listed[waiting] == "open"
    assert {listed[m] for m in finished} == {"finished"}
    assert len(listed) == 42
    assert again.reads.replay(finished[0]).data()["live"] is False
    store.close()

    # Without a saved projection (or with one that does not fit the store) it is rebuilt once.
    (tmp_path / "lobby.json").write_text('{"format": "crapette-lobby/1", "position": 99999999}')
    store = open_store(url)
    counted = CountingReads(store)
    rebuilt = _service(store, tmp_path, clock)
    assert counted.events >= history
    assert {t["match_id"] for t in rebuilt.views.tables(include_all=True)} == set(listed)
    store.close()


def test_the_projection_catches_up_with_other_writers(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/shared.sqlite3"
    clock = Clock(now_ms())
    mine = _service(open_store(url), tmp_path, clock)
    other = GameService(open_store(url), clock=clock)  # another process on the same store
    opened = other.openings.open_table(name="Eve")
    assert opened["match_id"] in {t["match_id"] for t in mine.views.tables()}
    other.seats.join_seat(opened["match_id"], "Fay")
    (row,) = [t for t in mine.views.tables() if t["match_id"] == opened["match_id"]]
    assert row["status"] == "playing" and row["version"] > 0


def test_an_open_table_nobody_joins_expires_from_the_lobby(tmp_path: Path) -> None:
    clock = Clock(now_ms())
    store = open_store(f"sqlite:///{tmp_path}/expiry.sqlite3")
    service = _service(store, tmp_path, clock, expire_open_s=3600)
    waiting = service.openings.open_table(name="Gus")["match_id"]
    joined = service.openings.open_table(name="Hal")["match_id"]
    service.seats.join_seat(joined, "Ida")
    clock.ms += 3_599_000
    service.upkeep.run()
    assert waiting in {t["match_id"] for t in service.views.tables()}
    clock.ms += 2_000
    service.upkeep.run()
    assert store.read(f"table-{waiting}")[-1].type == "TableExpired"  # a fact, nothing deleted
    assert store.read(f"table-{joined}")[-1].type != "TableExpired"
    listed = {t["match_id"]: t["status"] for t in service.views.tables()}
    assert waiting not in listed and listed[joined] == "playing"
    assert {t["match_id"]: t["status"] for t in service.views.tables(True)}[waiting] == "expired"
    with pytest.raises(SeatTakenError, match="expired"):
        service.seats.join_seat(waiting, "Jo")
    assert service.repo.find(waiting).status == "expired"  # still readable on demand


def test_an_idle_table_leaves_memory_and_comes_back_on_demand(tmp_path: Path) -> None:
    clock = Clock(now_ms())
    store = open_store(f"sqlite:///{tmp_path}/idle.sqlite3")
    service = _service(store, tmp_path, clock, unload_idle_s=600)
    opened = service.openings.open_table(name="Kim", bot="random")
    match_id, token = opened["match_id"], token_of(opened)
    busy = service.openings.open_table(name="Lou", bot="random")["match_id"]
    service.clients.connect(busy, 0)  # Lou's client is at her table
    version = service.repo.find(match_id).version
    clock.ms += 599_000
    service.upkeep.run()
    assert service.repo.loaded(match_id)
    clock.ms += 60_000
    service.upkeep.run()
    assert not service.repo.loaded(match_id) and service.repo.loaded(busy)
    # Kim comes back: her table is read again, as it was, and she plays on.
    entry = service.repo.find(match_id)
    assert entry.version == version and entry.table.seat_of(token) == 0
    state = entry.state
    assert state is not None and state.game is not None
    if state.game.to_move == 0:
        action = domain.legal_actions(state, 0)[0].to_json()
        assert service.player_commands.execute(match_id, token, "c-back-0001", action)["ok"]


def test_the_lobby_list_says_what_each_table_says(tmp_path: Path) -> None:
    """The list comes from the projection, a table from its loaded match: they agree."""
    clock = Clock(now_ms())
    store = open_store(f"sqlite:///{tmp_path}/same.sqlite3")
    service = _service(store, tmp_path, clock)
    service.openings.open_table(name="Mo")  # open
    playing = service.openings.open_table(name="Ned", bot="random")  # playing, a game running
    _finished_match(service)  # finished
    between = service.openings.open_table(name="Oz", bot="random")  # a game over, match not
    resign = domain.Resign(seat=0).to_json()
    service.player_commands.execute(between["match_id"], token_of(between), "c-resign-02", resign)
    between_state = service.repo.find(between["match_id"]).state
    assert between_state is not None and between_state.game is not None
    assert between_state.game.over
    service.clients.connect(playing["match_id"], 0)
    listed = service.views.tables(include_all=True)
    assert len(listed) == 4
    for row in listed:
        assert row == service.views.table(row["match_id"]), row["match_id"]


def test_the_saved_projection_is_every_row_as_asdict_gives_it(tmp_path: Path) -> None:
    """`save` writes each row as `dataclasses.asdict` would (keeping a table's JSON while the
    row holds the same Table, and a row's text while it has the same table and version): after
    a change of table, or a match event, the new row is written, not the old."""
    from dataclasses import asdict

    from server.readmodels.lobbyview import _json_default

    clock = Clock(now_ms())
    store = open_store(f"sqlite:///{tmp_path}/rows.sqlite3")
    service = _service(store, tmp_path, clock)
    projection = service.upkeep.projection

    def saved_rows() -> list[Any]:
        projection.catch_up()
        projection.save()
        data = json.loads((tmp_path / "lobby.json").read_text(encoding="utf-8"))
        assert (data["format"], data["position"]) == ("crapette-lobby/1", projection.position)
        expected = [asdict(row) for row in projection.rows.values()]
        assert data["rows"] == json.loads(json.dumps(expected, default=_json_default))
        return list(data["rows"])

    waiting = service.openings.open_table(name="Di")["match_id"]
    cy = service.openings.open_table(name="Cy", bot="random", preset="italian-four", match="wins:1")
    before = {r["table"]["match_id"]: r for r in saved_rows()}
    assert before[waiting]["table"]["people"][1]["name"] is None
    service.seats.join_seat(waiting, name="Eve")  # a new Table object for that row
    after = {r["table"]["match_id"]: r for r in saved_rows()}
    assert after[waiting]["table"]["people"][1]["name"] == "Eve"
    resign = domain.Resign(seat=0).to_json()  # match events only: the same Table object
    service.player_commands.execute(cy["match_id"], token_of(cy), "c-resign-01", resign)
    over = {r["table"]["match_id"]: r for r in saved_rows()}[cy["match_id"]]
    assert over["finished"] and over["version"] > before[cy["match_id"]]["version"]
    store.close()
