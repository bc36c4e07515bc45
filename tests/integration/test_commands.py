"""Commands under contention and in the wrong hands: races, retries, stolen or foreign tokens."""

from __future__ import annotations

import threading
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.integration.conftest import seat_two
from tests.integration.harness import Client, ServerProcess, choose, view_of


def test_two_clients_racing_the_same_command(server: ServerProcess, clients: list[Client]) -> None:
    match_id, ann, bob = seat_two(server, clients, preset="beginner")
    ann.wait_version(2)
    seat = view_of(ann)["to_move"]
    mover = (ann, bob)[seat]
    # A second connection of the same player (a phone and a laptop) races the first.
    twin = Client(server, mover.token).connect()
    clients.append(twin)
    twin.join(match_id, last_version=0)
    twin.wait_version(mover.version)
    action = choose(mover.view or {})
    assert action is not None
    acks: list[Any] = [None, None]
    barrier = threading.Barrier(2)

    def send(index: int, client: Client) -> None:
        barrier.wait()
        acks[index] = client.send(match_id, action)

    threads = [threading.Thread(target=send, args=(i, c)) for i, c in enumerate((mover, twin))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    oks = [a for a in acks if a["ok"]]
    refused = [a for a in acks if not a["ok"]]
    assert len(oks) >= 1
    if refused:  # the loser is refused with a reason, never applied twice
        assert refused[0]["code"] in ("refused", "conflict")
        assert refused[0]["message"]
    # Whatever happened, the stream holds one copy of the action per accepted ack.
    mover.wait_version(max(a["version"] for a in oks))
    applied = [u for u in mover.updates if u["version"] > 2 and u["event"]]
    assert len([u for u in applied if u["event"]["type"] != "TurnEnded"]) >= len(oks)


def test_a_retried_command_is_applied_once(server: ServerProcess, clients: list[Client]) -> None:
    match_id, ann, bob = seat_two(server, clients, preset="beginner")
    ann.wait_version(2)
    mover = (ann, bob)[view_of(ann)["to_move"]]
    action = choose(mover.view or {})
    command_id = "retry-" + uuid.uuid4().hex
    first = mover.send(match_id, action or {}, command_id)
    again = mover.send(match_id, action or {}, command_id)
    assert first["ok"] and again["ok"] and again.get("duplicate") is True
    assert again["version"] == first["version"]
    state = server.get(f"/api/matches/{match_id}/view").json()
    assert state["version"] == first["version"]


def test_a_seat_token_used_by_the_wrong_client(
    server: ServerProcess, clients: list[Client]
) -> None:
    match_id, ann, bob = seat_two(server, clients, preset="beginner")
    ann.wait_version(2)
    seat = view_of(ann)["to_move"]
    mover, other = (ann, bob)[seat], (ann, bob)[1 - seat]
    action = choose(mover.view or {})
    assert action is not None
    # The other player tries the mover's action with his own token: the seat is not his.
    stolen = other.send(match_id, action)
    assert not stolen["ok"] and stolen["code"] == "forbidden"
    # A token of another table.
    elsewhere = server.open_table(name="Zed")
    foreign = Client(server, elsewhere["seat_token"]).connect()
    clients.append(foreign)
    assert foreign.send(match_id, action)["code"] == "forbidden"
    refused = foreign.sio.call(
        "join_table", {"match_id": match_id, "seat_token": elsewhere["seat_token"]}, timeout=10
    )
    assert refused["ok"] is False and refused["code"] == "forbidden"
    # A spectator has no token at all.
    watcher = Client(server).connect()
    clients.append(watcher)
    watcher.join(match_id)
    assert watcher.send(match_id, action)["code"] == "invalid"
    # Nothing was applied.
    assert server.get(f"/api/matches/{match_id}/view").json()["version"] == 2
    assert mover.send(match_id, action)["ok"]
    other.wait_for(lambda c: any(m[0] == "refused" for m in c.messages), "a refused message")


@pytest.mark.slow
def test_two_server_processes_on_one_store_never_both_win(
    tmp_path: Path, clients: list[Client]
) -> None:
    """Two servers share one SQLite store: the append's expected version lets one command win;
    the other server re-reads, re-decides and refuses with the reason."""
    first = ServerProcess(tmp_path).start()
    second = ServerProcess(tmp_path).start()
    try:
        match_id, ann, bob = seat_two(first, clients, preset="beginner")
        ann.wait_for(lambda c: c.view is not None, "a view")
        seat = view_of(ann)["to_move"]
        mover = (ann, bob)[seat]
        twin = Client(second, mover.token).connect()
        clients.append(twin)
        twin.join(match_id, last_version=0)
        twin.wait_version(mover.version)
        turn = {"do": "turn", "seat": seat}
        assert any(a["do"] == "turn" for a in (mover.view or {})["legal"])
        acks: list[Any] = [None, None]
        barrier = threading.Barrier(2)

        def send(index: int, client: Client) -> None:
            barrier.wait()
            acks[index] = client.send(match_id, turn)

        threads = [threading.Thread(target=send, args=(i, c)) for i, c in enumerate((mover, twin))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(a["ok"] for a in acks) == [False, True], acks
        loser = next(a for a in acks if not a["ok"])
        assert loser["code"] == "refused" and loser["rule"] == "hand card showing", loser
        # Both servers agree on the match once they have read the store.
        path = f"/api/matches/{match_id}/view"
        assert first.get(path).json() == second.get(path).json()
    finally:
        first.stop()
        second.stop()
