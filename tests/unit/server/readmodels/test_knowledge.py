"""The replay's analysis and each seat's options, through the server's GameService: shown for
finished games only, never while a game runs."""

from __future__ import annotations

import itertools
import json
import time
from pathlib import Path

import domain
from eventstore import open_store
from records.importer import import_record
from server.service import GameService
from tests.http_kit import json_of
from tests.seat_kit import seat_of, token_of

GOLDEN = Path(__file__).resolve().parents[3] / "data" / "records"


def test_a_finished_game_replays_with_its_analysis_and_options() -> None:
    record = json.loads((GOLDEN / "classic-calls-resign.json").read_text(encoding="utf-8"))
    store = open_store("memory://")
    import_record(store, record, match_id="m-golden")
    service = GameService(store)
    replay = service.reads.replay("m-golden").data()
    (game,) = replay["analysis"]["games"]
    (fault,) = game["faults"]
    assert fault["missed"] is False and fault["called_by"] == 1
    assert fault["skipped"] == {"from": "R0", "to": "F0", "card": "AS/0"}
    frame = next(f for f in replay["frames"] if f["version"] == fault["version"])
    assert frame["event"]["type"] == "HandCardTurned" and frame["event"]["fault"] == fault["rule"]
    assert game["seats"][0]["wrong_calls"] == 1 and game["seats"][1]["right_calls"] == 1
    assert len(game["cards_left"]) == game["end_version"] - game["start_version"] + 1
    # Before Ann's first action she could play AS up (sound) or turn (a fault).
    ann = dict(service.reads.options("m-golden", 0).data()["options"])
    first = dict(ann[fault["version"] - 1])
    assert first["R0-F0"] is None and first["turn"] == fault["rule"]
    # There A♠ up was compulsory (reserve to foundation first): the options name it, and only
    # moves of the reserve's A♠ to a foundation (any empty one).
    must = dict(service.reads.options("m-golden", 0).data()["compulsory"])
    assert "R0-F0" in must[fault["version"] - 1]
    assert all(m.startswith("R0-F") for m in must[fault["version"] - 1])
    assert all(first[m] is None for m in must[fault["version"] - 1])  # each one sound
    # Right after it, Bob could call.
    bob = dict(service.reads.options("m-golden", 1).data()["options"])
    assert ["crapette", None] in bob[fault["version"]]


def test_a_running_game_shows_no_analysis_and_no_options() -> None:
    ticks = itertools.count(int(time.time() * 1000) + 1000, 450)
    store = open_store("memory://")
    service = GameService(store, bot_delay_s=0, clock=lambda: next(ticks))
    opened = service.openings.open_table(name="Ann", bot="random")
    match_id = opened["match_id"]
    service.clients.connect(match_id, seat_of(opened))  # Ann is at the table: the bot plays
    for number in range(40):
        state = service.repo.find(match_id).state
        assert state is not None
        if state.game is not None and state.game.to_move == 0:
            action = domain.legal_actions(state, 0)[0]
            service.player_commands.execute(
                match_id, token_of(opened), f"c-{number}", action.to_json()
            )
        else:
            service.autopilot.tick()
    replay = service.reads.replay(match_id).data()
    assert replay["live"] is True and len(replay["frames"]) > 10
    assert replay["analysis"]["games"] == [] and replay["analysis"]["scores"] == []
    assert service.reads.options(match_id, 0).data()["options"] == []
    hands = [f["view"]["piles"]["H0"] for f in replay["frames"][2:] if f["view"]]
    assert all(set(cards) <= {None} for cards in hands)  # the running game: face down
    resign = domain.Resign(0).to_json()
    service.player_commands.execute(match_id, token_of(opened), "c-resign", resign)
    replay = service.reads.replay(match_id).data()
    assert replay["live"] is True  # the match goes on to its target
    (game,) = replay["analysis"]["games"]
    assert game["outcome"] == "resign" and game["winner"] == 1
    assert service.reads.options(match_id, 0).data()["options"]
    # The game is over: its frames show every card, the face-down ones counted.
    dealt = replay["frames"][1]["view"]
    assert None not in dealt["piles"]["H0"] and dealt["face_down"]["H0"] > 0


def test_the_options_route() -> None:
    from server.app import create_app
    from server.config import ServerConfig

    record = json.loads((GOLDEN / "classic-calls-resign.json").read_text(encoding="utf-8"))
    app, _socketio = create_app(ServerConfig(async_mode="threading"))
    import_record(app.extensions["crapette_store"], record, match_id="m-golden")
    client = app.test_client()
    answer = client.get("/api/matches/m-golden/options?seat=1")
    assert answer.status_code == 200 and json_of(answer)["seat"] == 1 and json_of(answer)["options"]
    for bad in ("", "?seat=2", "?seat=x"):
        refused = client.get(f"/api/matches/m-golden/options{bad}")
        assert refused.status_code == 400 and json_of(refused)["details"] == {
            "seat": ["Not a seat."]
        }
    assert client.get("/api/matches/m-nothing/options?seat=0").status_code == 404
