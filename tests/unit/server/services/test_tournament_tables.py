"""Issue 38: a tournament's tables are its desk's own. The importer refuses a tournament's table
id; and should a match be stored under one anyway (written before the importer refused them, or
by a tool that bypasses it), the desk does not adopt it: it seats nobody there, reports no
result from it, and its page shows none of its totals. A table the desk itself opened, in this
process or another, or before openings named their tournament, is the desk's."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from eventstore import NewEvent, open_store
from records.errors import RecordFormatError
from records.importer import store_record
from server.readmodels.tournament_views import tournament_json
from server.service import GameService
from tests.unit.server.clock import Clock

GOLDEN = Path(__file__).resolve().parents[3] / "data" / "records" / "classic-calls-resign.json"


def _forged(match_id: str) -> dict[str, Any]:
    """A finished one-game match Bob (seat 1) won 0–89."""
    record: dict[str, Any] = json.loads(GOLDEN.read_text())
    record["ruleset"]["match"] = "wins:1"
    record["result"] = {"finished": True, "winner": 1, "totals": [0, 89]}
    record["match_id"] = match_id
    return record


def _service(store_url: str = "memory://") -> GameService:
    service = GameService(open_store(store_url), grace_s=60, clock=Clock(), bot_delay_s=0)
    service.autopilot.start()
    return service


def _create(service: GameService) -> tuple[str, str]:
    created = service.tournaments.create(
        name="Club night",
        format="swiss",
        rounds=1,
        preset="classic",
        match="wins:1",
        players=[{"name": "Ann"}, {"name": "Bob"}],
    )
    return created["tournament_id"], created["director_token"]


def _tick(service: GameService) -> None:
    service.tournaments._next_tick = 0.0
    service.tournaments.tick()


def _view(service: GameService, tid: str) -> dict[str, Any]:
    return tournament_json(service.tournaments.repo.find(tid), service.repo)


def test_the_importer_refuses_a_tournament_table_id() -> None:
    store = open_store("memory://")
    for record, asked in ((_forged("t-0123abcd-r1-t1"), None), (_forged("x"), "a-b_c-r12-t3")):
        with pytest.raises(RecordFormatError, match="tournament's table ids") as refused:
            store_record(store, record, match_id=asked)
        assert refused.value.details["match_id"] == [
            "Reserved for <tournament id>-r<round>-t<table>: a tournament's tables."
        ]
    assert "'t-0123abcd.r1.t1'" in str(_refusal("t-0123abcd-r1-t1"))  # an id to use instead
    store_record(store, _forged("x"), match_id="t-0123abcd.r1.t1")  # that one is free to take


def _refusal(match_id: str) -> RecordFormatError:
    try:
        store_record(open_store("memory://"), _forged(match_id))
    except RecordFormatError as exc:
        return exc
    raise AssertionError("not refused")


def test_a_forged_match_under_the_tables_id_is_not_adopted(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The review's attack, with the importer's refusal bypassed: the round opens and the desk
    finds a finished match "0–89, Bob wins" under its table's id."""
    service = _service()
    tid, director = _create(service)
    table_id = f"{tid}-r1-t1"
    store_record(service.repo.store, _forged(table_id), tournament_table=True)  # the bypass
    tokens = {n: service.tournaments.claim(tid, n)["player_token"] for n in ("Ann", "Bob")}
    caplog.set_level(logging.WARNING, logger="server.services.tournaments")
    service.tournaments.direct(tid, director, "start")
    for _ in range(3):
        _tick(service)
    view = _view(service, tid)
    assert view["status"] == "playing", view
    table = view["rounds"][0]["tables"][0]
    assert table["result"] is None and table["live_totals"] is None, table
    # Nobody's token was written into the forged table, and it was logged once.
    match = service.repo.find(table_id)
    assert match.table.imported and all(match.table.seat_of(t) is None for t in tokens.values())
    lines = [r.getMessage() for r in caplog.records if table_id in r.getMessage()]
    assert len(lines) == 1 and "an imported match" in lines[0], lines
    # The director can still end the pairing: a no-show of both, and the tournament ends.
    service.tournaments.direct(tid, director, "no_show", match_id=table_id, absent=["Ann", "Bob"])
    _tick(service)
    assert _view(service, tid)["status"] == "finished"
    assert not match.table.people[0].forfeited  # the forged table itself was left alone


def test_a_table_the_desk_opened_elsewhere_or_before_is_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two processes on one store: the second finds the table the first opened (its opening
    names the tournament) and reports from it. A table opened before openings named their
    tournament (no `tournament`, not imported) is the desk's too."""
    url = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    first, second = _service(url), _service(url)
    tid, director = _create(first)
    tokens = {n: first.tournaments.claim(tid, n)["player_token"] for n in ("Ann", "Bob")}
    first.tournaments.direct(tid, director, "start")
    table_id = f"{tid}-r1-t1"
    assert first.repo.find(table_id).table.tournament == tid
    _tick(second)  # tries to open it too, finds it: the desk's own
    match = second.repo.find(table_id)
    seat = match.table.seat_of(tokens["Bob"])
    assert seat is not None
    second.player_commands.execute(table_id, tokens["Bob"], "r-1", {"do": "resign", "seat": seat})
    _tick(second)
    view = _view(second, tid)
    assert view["status"] == "finished" and view["rounds"][0]["tables"][0]["result"] is not None

    # Before issue 38 a desk's opening named no tournament.
    legacy = _service()
    tid, director = _create(legacy)
    table_id = f"{tid}-r1-t1"
    openings = legacy.openings

    def unnamed(match_id: str, ruleset: Any, seats: Any, pace: str, _tid: str) -> None:
        openings.create(ruleset, seats, None, pace, match_id=match_id)

    with monkeypatch.context() as patched:
        patched.setattr(openings, "open_arranged", unnamed)
        legacy.tournaments.direct(tid, director, "start")
    assert legacy.repo.find(table_id).table.tournament is None
    token = legacy.tournaments.claim(tid, "Ann")["player_token"]
    match = legacy.repo.find(table_id)
    assert match.table.seat_of(token) == 0  # seated there: the desk's table


def test_a_match_with_no_table_under_the_tables_id_is_not_opened(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """An import that stopped half-way leaves a match stream without its table: the desk does
    not open a table over that match (its events would be the round's)."""
    service = _service()
    tid, director = _create(service)
    table_id = f"{tid}-r1-t1"
    store = service.repo.store
    store_record(store, _forged("x-elsewhere"))
    events = [NewEvent(r.type, r.data) for r in store.read("match-x-elsewhere")]
    store.append(f"match-{table_id}", events, expected_version=0)
    caplog.set_level(logging.WARNING, logger="server.services.tournaments")
    service.tournaments.direct(tid, director, "start")
    for _ in range(3):
        _tick(service)
    assert store.stream_version(f"table-{table_id}") == 0  # no table opened over it
    view = _view(service, tid)
    assert view["status"] == "playing" and view["rounds"][0]["tables"][0]["result"] is None
    lines = [r.getMessage() for r in caplog.records if table_id in r.getMessage()]
    assert len(lines) == 1 and "a match with no table" in lines[0], lines
