"""One `updates` message per batch and room (docs/protocol.md): a command's events reach each
seat and the spectators as one message, in version order, the last one with the legal actions;
a reconnect backlog comes as one message, in order."""

from __future__ import annotations

from typing import Any

from server.services.reads import MAX_BACKLOG
from tests.integration.conftest import seat_two
from tests.integration.harness import Client, ServerProcess, choose

MAX_ACTIONS = 400


def batches(client: Client) -> list[list[dict[str, Any]]]:
    """The update lists of the `updates` messages the client has received."""
    return [message["updates"] for message in client.received("updates")]


def test_a_command_of_several_events_reaches_every_room_as_one_message(
    server: ServerProcess, clients: list[Client]
) -> None:
    match_id, ann, bob = seat_two(server, clients, preset="beginner")
    watcher = Client(server).connect()
    clients.append(watcher)
    watcher.join(match_id, last_version=0)
    everyone = [ann, bob, watcher]
    for client in everyone:
        client.wait_version(2)  # MatchStarted, GameStarted: the server's own batches
    several = 0
    for _ in range(MAX_ACTIONS):
        before = [len(client.received("updates")) for client in everyone]
        version = ann.version
        mover = everyone[(ann.view or {})["to_move"]]
        ack = mover.send(match_id, choose(mover.view or {}) or {})
        assert ack["ok"], ack
        for client in everyone:
            client.wait_version(ack["version"])
        sent: list[list[dict[str, Any]]] = []
        for client, count in zip(everyone, before, strict=True):
            new = batches(client)[count:]
            assert len(new) == 1, f"{len(new)} messages for one command"
            sent.append(new[0])
        versions = list(range(version + 1, ack["version"] + 1))
        for updates in sent:
            assert [u["version"] for u in updates] == versions
            assert all(u["match_id"] == match_id for u in updates)
            assert [u["view"]["version"] for u in updates] == versions
            # Only the batch's last position is one a seat can act on.
            assert all(u["view"]["legal"] == [] for u in updates[:-1])
        # The same events, in the same order, in every room (each with its own view).
        kinds = [[u["event"]["type"] for u in updates] for updates in sent]
        assert kinds[0] == kinds[1] == kinds[2]
        assert [[u["view"]["viewer"] for u in updates] for updates in sent] == [
            [0] * len(versions),
            [1] * len(versions),
            [None] * len(versions),
        ]
        if len(versions) > 1:
            several += 1
            if several == 3:
                break
    assert several == 3, "no command made several events"
    for client in everyone:
        assert client.duplicates == []
        assert [u["version"] for u in client.updates] == list(range(1, client.version + 1))


def test_a_reconnect_backlog_arrives_as_one_message_in_order(
    server: ServerProcess, clients: list[Client]
) -> None:
    match_id, ann, bob = seat_two(server, clients, preset="beginner")
    players = [ann, bob]
    for _ in range(MAX_ACTIONS):  # a backlog of many batches
        version = max(p.version for p in players)
        for player in players:
            player.wait_version(version)
        if version >= 30:
            break
        mover = players[(ann.view or {})["to_move"]]
        ack = mover.send(match_id, choose(mover.view or {}) or {})
        assert ack["ok"], ack
    current = ann.version
    assert 30 <= current <= MAX_BACKLOG
    # A spectator that had the first 5 versions, and a seat back from a disconnect at 1.
    late = Client(server).connect()
    back = Client(server, bob.token).connect()
    clients.extend([late, back])
    for client, seen, viewer in ((late, 5, None), (back, 1, 1)):
        assert client.join(match_id, last_version=seen)["version"] == current
        client.wait_version(current)
        [updates] = batches(client)
        assert [u["version"] for u in updates] == list(range(seen + 1, current + 1))
        assert [u["event"]["type"] for u in updates] == [
            u["event"]["type"] for u in ann.updates[seen:current]
        ]
        assert all(u["view"]["viewer"] == viewer for u in updates)
        # Only the current position offers legal actions, and only to a seat.
        assert all(u["view"]["legal"] == [] for u in updates[:-1])
        last = updates[-1]["view"]
        assert (last["legal"] != []) == (viewer is not None and last["to_move"] == viewer)
        assert client.duplicates == [] and client.snapshot is None
