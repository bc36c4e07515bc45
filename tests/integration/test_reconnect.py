"""A client killed mid-turn comes back and receives exactly the updates it missed; a restarted
server still knows its tables, seats and matches."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.integration.conftest import seat_two
from tests.integration.harness import Client, ServerProcess, choose, view_of


def step(match_id: str, players: list[Client], count: int) -> None:
    """`count` actions of the simple policy, whoever is to move."""
    for _ in range(count):
        version = max(p.version for p in players)
        for player in players:
            player.wait_version(version)
        mover = players[view_of(players[0])["to_move"]]
        action = choose(mover.view or {})
        assert action is not None, (mover.version, mover.view)
        ack = mover.send(match_id, action)
        assert ack["ok"], ack


def test_killed_client_gets_exactly_the_missing_updates(
    server: ServerProcess, clients: list[Client]
) -> None:
    match_id, ann, bob = seat_two(server, clients, preset="beginner")
    step(match_id, [ann, bob], 4)
    for _ in range(200):  # play on until Ann is to move, so that she can play while Bob is away
        bob.wait_version(ann.version)
        if view_of(ann)["to_move"] == 0:
            break
        step(match_id, [ann, bob], 1)
    seen = bob.version
    bob.sio.eio.disconnect(abort=True)  # killed: no goodbye
    bob.sio.disconnect()
    played = 0
    while played < 3 and (ann.view or {}).get("to_move") == 0:
        ack = ann.send(match_id, choose(ann.view or {}) or {})
        assert ack["ok"], ack
        ann.wait_version(ack["version"])
        played += 1
    assert played > 0
    current = ann.version
    # The page comes back with what it had (its updates up to `seen`) and asks for the rest.
    back = Client(server, bob.token).connect()
    clients.append(back)
    back.by_version = {v: u for v, u in bob.by_version.items() if v <= seen}
    ack = back.join(match_id, last_version=seen)
    assert ack["version"] == current and ack["seat"] == 1
    back.wait_version(current)
    missed = [u["version"] for u in back.updates if u["version"] > seen]
    assert missed == list(range(seen + 1, current + 1))
    assert back.duplicates == []
    assert back.snapshot is None
    # And play goes on for the reconnected client.
    step(match_id, [ann, back], 4)


def test_join_without_last_version_gets_a_snapshot(
    server: ServerProcess, clients: list[Client]
) -> None:
    match_id, ann, bob = seat_two(server, clients, preset="beginner")
    step(match_id, [ann, bob], 3)
    late = Client(server).connect()
    clients.append(late)
    ack = late.join(match_id)
    late.wait_for(lambda c: c.snapshot is not None, "snapshot")
    assert late.snapshot is not None
    assert late.snapshot["version"] == ack["version"]
    assert late.snapshot["view"]["viewer"] is None
    assert late.updates == []


@pytest.mark.slow
def test_server_restart_keeps_tables_and_matches(tmp_path: Path, clients: list[Client]) -> None:
    first = ServerProcess(tmp_path).start()
    try:
        match_id, ann, bob = seat_two(first, clients, preset="beginner")
        step(match_id, [ann, bob], 5)
        ann.wait_version(bob.version)
        before = ann.version
        ann_token, bob_token = ann.token, bob.token
        view_before = first.get(f"/api/matches/{match_id}/view").json()
        # A timed table whose player to move will not move: its clock must survive the restart.
        timed = first.open_table(name="Cy", preset="beginner", move_time_limit_s=3)
        first.join(timed["match_id"], "Di")
    finally:
        first.stop()
    for client in clients:
        client.close()
    second = ServerProcess(tmp_path)
    second.port = first.port  # same address, as a restarted server would have
    second.url = first.url
    second.start()
    try:
        table = second.get(f"/api/tables/{match_id}").json()
        assert table["status"] == "playing" and table["version"] == before
        assert second.get(f"/api/matches/{match_id}/view").json() == view_before
        ann2 = Client(second, ann_token).connect()
        bob2 = Client(second, bob_token).connect()
        clients.extend([ann2, bob2])
        assert ann2.join(match_id)["seat"] == 0  # a snapshot
        assert bob2.join(match_id, last_version=0)["seat"] == 1  # the whole history
        bob2.wait_version(before)
        assert ann2.version == before
        step(match_id, [ann2, bob2], 3)
        # Nobody is connected to the timed table: the restarted server times the move out itself.
        replay_path = f"/api/matches/{timed['match_id']}/replay"
        for _ in range(100):
            kinds = [f["event"]["type"] for f in second.get(replay_path).json()["frames"]]
            if "TimeExpired" in kinds:
                break
            time.sleep(0.1)
        assert "TimeExpired" in kinds
    finally:
        second.stop()
