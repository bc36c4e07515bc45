"""The lobby's list is current (issue 39): a live table is idle once nobody has been at it for
`idle_after_s` (a bot playing on keeps nobody there, and an open table its host left goes too);
a live row tells the game in play; a practice table is never listed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from eventstore import open_store
from server.service import GameService
from tests.seat_kit import token_of
from tests.unit.server.clock import Clock


def _service(tmp_path: Path, clock: Clock) -> GameService:
    service = GameService(
        open_store("memory://"), grace_s=60, clock=clock, lobby_file=tmp_path / "lobby.json",
        idle_after_s=60, bot_delay_s=0,
    )  # fmt: skip
    service.autopilot.start()
    return service


def _row(service: GameService, match_id: str) -> dict[str, Any]:
    rows = {t["match_id"]: t for t in service.views.tables()}
    return dict(rows[match_id])


def test_a_table_is_idle_a_minute_after_its_last_person_left(tmp_path: Path) -> None:
    clock = Clock()
    service = _service(tmp_path, clock)
    bot_table = service.openings.open_table(name="Ann", bot="steady")["match_id"]
    open_table = service.openings.open_table(name="Hugo")["match_id"]
    # Just opened (over HTTP, nobody connected yet): not idle for a minute.
    clock.ms += 59_000
    assert not _row(service, bot_table)["idle"] and not _row(service, open_table)["idle"]
    clock.ms += 1_000
    assert _row(service, bot_table)["idle"] and _row(service, open_table)["idle"]
    # Ann comes back: live however long she stays; she leaves: idle a minute later.
    service.presence.connect(bot_table, 0)
    clock.ms += 600_000
    assert not _row(service, bot_table)["idle"]
    service.presence.disconnect(bot_table, 0)
    clock.ms += 59_000
    assert not _row(service, bot_table)["idle"]
    clock.ms += 1_000
    assert _row(service, bot_table)["idle"]


def test_a_live_row_tells_the_game_in_play(tmp_path: Path) -> None:
    clock = Clock()
    service = _service(tmp_path, clock)
    match_id = service.openings.open_table(name="Ann", bot="steady")["match_id"]
    game = _row(service, match_id)["game"]
    state = service.repo.find(match_id).state
    assert state is not None and state.game is not None
    assert game == {"index": 0, "turn": state.game.turn_number, "cards_left": [48, 48]}
    assert _row(service, match_id)["totals"] == [0, 0]  # the match points, kept for readers
    eve = service.openings.open_table(name="Eve", bot="steady", match="wins:1")
    resign = {"do": "resign", "seat": 0}
    service.player_commands.execute(eve["match_id"], token_of(eve), "c-resign", resign)
    assert _row(service, eve["match_id"])["status"] == "finished"
    assert _row(service, eve["match_id"])["game"] is None
