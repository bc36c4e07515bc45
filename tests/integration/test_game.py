"""A whole game between two clients to its result, watched by a spectator."""

from __future__ import annotations

from typing import Any

import pytest

from tests.integration.conftest import seat_two
from tests.integration.harness import Client, ServerProcess, choose

MAX_ACTIONS = 6000  # a game of this policy takes at most ~800 in-process


def play_out(match_id: str, players: list[Client], until: Any) -> int:
    """Both players follow the simple policy until `until(view)`; returns the actions sent."""
    sent = 0
    while sent < MAX_ACTIONS:
        version = max(p.version for p in players)
        for player in players:
            player.wait_version(version)
        view = players[0].view
        assert view is not None
        if until(view):
            return sent
        mover = players[view["to_move"]]
        action = choose(mover.view or {})
        assert action is not None, f"seat {view['to_move']} has nothing to do: {mover.view}"
        ack = mover.send(match_id, action)
        assert ack["ok"], ack
        sent += 1
        for player in players:
            player.wait_version(ack["version"])
    raise AssertionError(f"no result after {MAX_ACTIONS} actions")


@pytest.mark.slow
def test_whole_game_to_its_result_with_a_spectator(
    server: ServerProcess, clients: list[Client]
) -> None:
    # points:1 ends the match with the first game that scores: a stalemate is no win, so under
    # wins:1 the server would deal a next game straight away and the match could run on.
    match_id, ann, bob = seat_two(server, clients, preset="beginner", match="points:1")
    watcher = Client(server).connect()
    clients.append(watcher)
    assert watcher.join(match_id, last_version=0)["seat"] is None
    ann.wait_version(2)  # MatchStarted, GameStarted
    first = ann.updates[1]["view"]
    assert first["commitment"] and first["seed"] is None
    assert first["viewer"] == 0 and bob.updates[1]["view"]["viewer"] == 1

    sent = play_out(match_id, [ann, bob], lambda view: view["match_over"])
    final = ann.version
    watcher.wait_version(final)
    assert sent > 10

    # Each client saw every version exactly once, in order.
    for client in (ann, bob, watcher):
        assert [u["version"] for u in client.updates] == list(range(1, final + 1))
        assert client.duplicates == []
    # While the game ran the spectator never saw a face-down card or the seed.
    for update in watcher.updates:
        view = update["view"]
        if view and not view["over"]:
            assert view["seed"] is None
            assert view["legal"] == []
            for pile in ("H0", "H1"):
                assert all(card is None for card in view["piles"].get(pile, []))
    kinds = [u["event"]["type"] for u in watcher.updates if u["event"]]
    assert kinds[0] == "MatchStarted" and kinds[1] == "GameStarted"
    assert any(k in ("GameWon", "GameStalemated", "GameResigned") for k in kinds)
    assert kinds[-1] == "MatchWon"
    last = watcher.view
    assert last is not None and last["seed"] is not None  # revealed once over

    table = server.get(f"/api/tables/{match_id}").json()
    assert table["status"] == "finished"
    replay = server.get(f"/api/matches/{match_id}/replay").json()
    assert [f["version"] for f in replay["frames"]] == list(range(1, final + 1))
    assert replay["frames"][1]["event"]["seed"] is not None  # finished: full events
    dealt = replay["frames"][1]["view"]  # finished: every card shown, face-down ones counted
    assert all(None not in cards for cards in dealt["piles"].values())
    assert dealt["face_down"]["H0"] == len(dealt["piles"]["H0"]) > 0
    assert dealt["face_down"]["R0"] == len(dealt["piles"]["R0"]) - 1
    assert sum(len(cards) for cards in dealt["piles"].values()) == 104
    middle = server.get(f"/api/matches/{match_id}/view?version={final // 2}").json()
    assert middle["version"] == final // 2
    assert middle["view"]["version"] == final // 2
    assert server.get(f"/api/matches/{match_id}/view?version={final + 1}").status_code == 404


def test_lobby_lists_the_table_and_refuses_a_third_player(server: ServerProcess) -> None:
    presets = server.get("/api/presets").json()
    assert {p["name"] for p in presets["presets"]} >= {"classic", "beginner", "finnish"}
    assert {b["name"] for b in presets["bots"]} == {"random", "steady", "sharp", "expert"}
    opened = server.open_table(name="Cy", preset="classic")
    listed = {t["match_id"]: t for t in server.get("/api/tables").json()["tables"]}
    assert listed[opened["match_id"]]["status"] == "open"
    assert opened["invite_url"].endswith(f"/table/{opened['match_id']}")
    server.join(opened["match_id"], "Di")
    third = server.post(f"/api/tables/{opened['match_id']}/join", {"name": "Ed"})
    assert third.status_code == 409 and third.json()["code"] == "conflict"
    listed = {t["match_id"]: t for t in server.get("/api/tables").json()["tables"]}
    assert listed[opened["match_id"]]["status"] == "playing"
    assert [s["name"] for s in listed[opened["match_id"]]["seats"]] == ["Cy", "Di"]
