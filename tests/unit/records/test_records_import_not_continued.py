"""An imported match was played elsewhere: the server keeps it for replay and never deals it a
next game, even when the record stops between two games of an unfinished match."""

from __future__ import annotations

import domain
from domain.engine_match import EngineMatch
from eventstore import open_store
from records.export import record_from_events
from records.importer import import_record
from server.service import GameService


def test_an_imported_unfinished_match_gets_no_next_game() -> None:
    table = EngineMatch("classic")  # points:300: one resigned game cannot end the match
    table.deal(seed="00" * 32)
    table.act(domain.Resign(seat=table.game.to_move))
    assert table.game.over and not table.state.finished

    store = open_store("memory://")
    import_record(store, record_from_events(table.events, public=False), match_id="m-elsewhere")
    imported_version = store.stream_version("match-m-elsewhere")

    service = GameService(store, bot_delay_s=0)
    service.autopilot.start()
    service.autopilot.tick()
    assert store.stream_version("match-m-elsewhere") == imported_version
    state = service.repo.find("m-elsewhere").state
    assert state is not None and state.game is not None
    assert state.games_played == 1 and state.game.over


def test_an_imported_unfinished_match_is_listed_as_finished_not_live() -> None:
    table = EngineMatch("classic")
    table.deal(seed="00" * 32)
    table.act(domain.Resign(seat=table.game.to_move))
    store = open_store("memory://")
    import_record(store, record_from_events(table.events, public=False), match_id="m-partial")
    service = GameService(store, bot_delay_s=0)
    service.autopilot.start()
    listed = {t["match_id"]: t for t in service.views.tables(include_all=True)}
    assert listed["m-partial"]["status"] == "finished"
    assert service.reads.replay("m-partial").live is False
