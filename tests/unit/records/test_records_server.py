"""A match played through the server's GameService (the stream exactly as the server writes it,
with its own batches, metadata and bot moves) exports, verifies, and re-imports."""

from __future__ import annotations

import itertools
import time

import domain
from domain.engine_match import obedient_action
from eventstore import open_store
from records.export import export_match
from records.importer import import_record
from records.text import from_text, to_text
from records.verify import verify_record
from server.service import GameService


def _play(service: GameService, match_id: str, token: str | None, steps: int) -> None:
    """Seat 0 plays obediently and calls, the seated bot answers through the service's tick."""
    assert token is not None
    for number in range(steps):
        state = service.repo.find(match_id).state
        assert state is not None
        if state.finished or state.game is None or state.game.over:
            service.autopilot.tick()  # the server deals the next game
            continue
        calls = [a for a in domain.legal_actions(state, 0) if isinstance(a, domain.Call)]
        # Call the bot's faults, and now and then (wrongly) a sound action of his.
        call = calls[0] if calls and (state.game.last_fault or number % 17 == 0) else None
        action = call or (obedient_action(state, 0) if state.game.to_move == 0 else None)
        if action is None:
            service.autopilot.tick()  # the bot's move
            continue
        service.player_commands.execute(match_id, token, f"c-{number:06d}", action.to_json())


def test_a_server_match_exports_verifies_and_reimports() -> None:
    # A fast clock ahead of the wall clock (the store stamps events with the real time, which the
    # service compares with its own clock before a bot may move).
    ticks = itertools.count(int(time.time() * 1000) + 1000, 450)
    store = open_store("memory://")
    service = GameService(store, bot_delay_s=0, clock=lambda: next(ticks))
    opened = service.openings.open_table(name="Ann", bot="random", options={"match": "points:40"})
    match_id = opened["match_id"]
    _play(service, match_id, opened["seat_token"], 600)

    record = export_match(store, match_id)
    assert record["players"][0] == "Ann" and record["games"]
    assert sum(len(g["actions"]) for g in record["games"]) > 50
    assert from_text(to_text(record)) == record
    if record["live"]:  # the running game's deal is secret: check only the finished part
        assert "seed" not in record["games"][-1]["deal"]
        record["games"].pop()
        record["live"] = False
    if record["games"]:
        verified = verify_record(record)
        assert verified.actions == sum(len(g["actions"]) for g in record["games"])

    full = export_match(store, match_id, public=False)
    other = open_store("memory://")
    assert import_record(other, full, match_id="m-again").startswith("imported m-again")
    stored = [(e.type, e.data) for e in store.read(f"match-{match_id}")]
    again = [(e.type, e.data) for e in other.read("match-m-again")]
    assert [t for t, _ in again] == [t for t, _ in stored]
    assert again[1:] == stored[1:]  # the same events (MatchStarted differs only by its id)


def test_an_imported_match_that_did_not_reach_its_target_replays_with_every_card() -> None:
    import json
    from pathlib import Path

    golden = Path(__file__).resolve().parents[2] / "data" / "records" / "classic-calls-resign.json"
    record = json.loads(golden.read_text(encoding="utf-8"))
    assert not record["result"]["finished"]  # the match target was not reached
    store = open_store("memory://")
    import_record(store, record, match_id="m-imported")
    service = GameService(store)
    service.autopilot.start()
    replay = service.reads.replay("m-imported").data()
    assert replay["live"] is False  # it will never go on: nothing is secret any more
    first_game = next(f for f in replay["frames"] if f["view"] and f["view"].get("piles"))
    hands = [first_game["view"]["piles"][h] for h in ("H0", "H1")]
    assert all(cards and None not in cards for cards in hands), "hand cards hidden"
