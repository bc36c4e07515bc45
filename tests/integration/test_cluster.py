"""Three server processes behind HAProxy behave as one server (issue 15): players and spectators
on different processes see the same match, a reconnect to another process catches up exactly,
a claim sees a player connected to any process, and when the process driving a match's bots and
clock is killed, another takes over. Real processes: PostgreSQL, Redis, HAProxy, three servers."""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from eventstore import open_store
from server.adapters.cluster import LEASE_TTL_S
from tests.integration.cluster import Cluster, running_cluster
from tests.integration.harness import Client, choose, view_of

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def cluster(
    tmp_path_factory: pytest.TempPathFactory, postgres_url: str, redis_url: str
) -> Iterator[Cluster]:
    with running_cluster(tmp_path_factory.mktemp("cluster"), postgres_url, redis_url) as running:
        yield running


def connect(cluster: Cluster, clients: list[Client], node: str, token: str | None) -> Client:
    """A client through the balancer, pinned to `node` by the sticky cookie. The balancer
    must route that cookie to `node` now: while it holds the process down (just restarted) it
    would send the client to another one, and a test meaning to stop some other process could
    stop this client's instead (`Cluster.restart`)."""
    assert cluster.node_behind(node) == node, f"the balancer does not route {node}'s cookie to it"
    client = Client(cluster.nodes[node], token, via=cluster.balancer.url, node=node).connect()
    clients.append(client)
    return client


def open_table(cluster: Cluster, node: str, **table: Any) -> dict[str, Any]:
    response = cluster.balancer.post("/api/tables", {"name": "Ann", **table}, node=node)
    assert response.status_code == 201, response.text
    opened: dict[str, Any] = response.json()
    return opened


def join(cluster: Cluster, node: str, match_id: str) -> dict[str, Any]:
    response = cluster.balancer.post(f"/api/tables/{match_id}/join", {"name": "Bob"}, node=node)
    assert response.status_code == 200, response.text
    joined: dict[str, Any] = response.json()
    return joined


def play(match_id: str, players: list[Client], actions: int) -> None:
    """`actions` moves of the simple policy by whoever is to move, everybody kept in step."""
    for _ in range(actions):
        version = max(p.version for p in players)
        for player in players:
            player.wait_version(version)
        view = players[0].view
        assert view is not None
        mover = players[view["to_move"]]
        action = choose(mover.view or {})
        assert action is not None, mover.view
        ack = mover.send(match_id, action)
        assert ack["ok"], ack


def seated(
    cluster: Cluster, clients: list[Client], ann_node: str, bob_node: str, **table: Any
) -> tuple[str, Client, Client]:
    opened = open_table(cluster, ann_node, preset="beginner", **table)
    match_id = opened["match_id"]
    joined = join(cluster, bob_node, match_id)
    ann = connect(cluster, clients, ann_node, opened["seat_token"])
    bob = connect(cluster, clients, bob_node, joined["seat_token"])
    for client in (ann, bob):
        client.join(match_id, last_version=0)
    return match_id, ann, bob


def test_the_balancer_pins_each_client_to_its_process(cluster: Cluster) -> None:
    for name in cluster.nodes:
        assert {cluster.node_behind(name) for _ in range(3)} == {name}
    # Without a cookie, new visitors are spread over every process.
    seen = {cluster.balancer.get("/healthz").json()["node"] for _ in range(9)}
    assert seen == set(cluster.nodes)
    health = cluster.balancer.get("/healthz", node="n1").json()
    assert health["store"] == {"ok": True} and health["queue"] == {"ok": True}


def test_a_long_polling_client_stays_on_its_process(
    cluster: Cluster, clients: list[Client]
) -> None:
    """Socket.IO's polling fallback: many HTTP requests per connection, spread round robin they
    would hit processes that do not know the session; the inserted cookie keeps them on one."""
    match_id, ann, bob = seated(cluster, clients, "n1", "n2")
    polling = Client(cluster.nodes["n1"], via=cluster.balancer.url, transports=("polling",))
    clients.append(polling.connect())
    assert polling.sio.transport() == "polling"
    polling.join(match_id, last_version=0)
    play(match_id, [ann, bob], 6)
    final = ann.version  # read once: a later event may reach the polling client first
    polling.wait_version(final)
    versions = [u["version"] for u in polling.updates]
    assert versions == list(range(1, len(versions) + 1)) and versions[-1] >= final, versions
    assert polling.duplicates == []


def test_players_and_a_spectator_on_three_processes_play_a_whole_match(
    cluster: Cluster, clients: list[Client]
) -> None:
    match_id, ann, bob = seated(cluster, clients, "n1", "n2", match="wins:1")
    watcher = connect(cluster, clients, "n3", None)
    assert watcher.join(match_id, last_version=0)["seat"] is None
    ann.wait_version(2)  # MatchStarted, GameStarted
    play(match_id, [ann, bob], 30)
    mover = [ann, bob][view_of(ann)["to_move"]]
    ack = mover.send(match_id, {"do": "resign", "seat": view_of(mover)["viewer"]})
    assert ack["ok"], ack
    for client in (ann, bob, watcher):
        client.wait_for(lambda c: bool((c.view or {}).get("match_over")), "the match's end")
    final = ann.version
    for client in (ann, bob, watcher):
        client.wait_version(final)
        assert [u["version"] for u in client.updates] == list(range(1, final + 1))
        assert client.duplicates == []
    assert watcher.updates[-1]["event"]["type"] == "MatchWon"
    for node in cluster.nodes:  # every process learns of the end (from the store's feed)

        def finished(node: str = node) -> bool:
            table = cluster.balancer.get(f"/api/tables/{match_id}", node=node).json()
            return bool(table["status"] == "finished" and table["version"] == final)

        cluster.wait_until(finished, f"{node} to know the match is over")


def test_a_reconnect_to_another_process_catches_up_exactly(
    cluster: Cluster, clients: list[Client]
) -> None:
    match_id, ann, bob = seated(cluster, clients, "n1", "n2")
    play(match_id, [ann, bob], 4)
    for _ in range(200):  # on until Ann is to move, so that she can play while Bob is away
        bob.wait_version(ann.version)
        if view_of(ann)["to_move"] == 0:
            break
        play(match_id, [ann, bob], 1)
    seen = bob.version
    bob.close()
    played = 0
    while played < 3 and (ann.view or {}).get("to_move") == 0:
        ack = ann.send(match_id, choose(ann.view or {}) or {})
        assert ack["ok"], ack
        ann.wait_version(ack["version"])
        played += 1
    assert played > 0
    current = ann.version
    back = connect(cluster, clients, "n3", bob.token)  # lands on the third process
    back.by_version = {v: u for v, u in bob.by_version.items() if v <= seen}
    ack = back.join(match_id, last_version=seen)
    assert ack["version"] == current and ack["seat"] == 1
    back.wait_version(current)
    assert [u["version"] for u in back.updates if u["version"] > seen] == list(
        range(seen + 1, current + 1)
    )
    assert back.duplicates == [] and back.snapshot is None
    play(match_id, [ann, back], 2)  # and play goes on across the two processes


def test_a_claim_is_refused_while_the_player_is_connected_to_any_process(
    cluster: Cluster, clients: list[Client]
) -> None:
    match_id, ann, bob = seated(cluster, clients, "n1", "n2")
    ann.wait_version(2)
    time.sleep(1.5)  # past the grace period (1 s): only the connection on n2 keeps Bob's seat
    for node in ("n1", "n3"):
        asker = ann if node == "n1" else connect(cluster, clients, "n3", ann.token)
        reply = asker.sio.call(
            "claim", {"match_id": match_id, "seat_token": ann.token, "what": "bot"}, timeout=10
        )
        assert reply["ok"] is False and reply["code"] == "too_early", reply
        table = cluster.balancer.get(f"/api/tables/{match_id}", node=node).json()
        assert table["presence"][1]["connected"] is True
    bob.close()
    cluster.wait_until(
        lambda: (
            not cluster.balancer.get(f"/api/tables/{match_id}", node="n1").json()["presence"][1][
                "connected"
            ]
        ),
        "Bob away on n1",
    )
    time.sleep(1.2)  # the grace period
    reply = ann.sio.call(
        "claim", {"match_id": match_id, "seat_token": ann.token, "what": "bot"}, timeout=10
    )
    assert reply["ok"] is True, reply


def driven_match(cluster: Cluster, clients: list[Client]) -> tuple[str, str, list[str], Client]:
    """A match that runs on the clock and a bot alone, both driven by the lease holder (Ann
    never connects: each of her turns times out after 1 s, and the bot plays its own); a
    spectator on another process (so the match is loaded there too). Returns the match id, the
    holder, the other processes and the spectator."""
    opened = open_table(cluster, "n1", preset="beginner", bot="steady", move_time_limit_s=1)
    match_id = opened["match_id"]
    cluster.wait_until(lambda: cluster.lease_holder(match_id) is not None, "a lease holder")
    holder = cluster.lease_holder(match_id)
    assert holder is not None and holder in cluster.nodes
    survivors = [name for name in cluster.nodes if name != holder]
    watcher = connect(cluster, clients, survivors[0], None)
    watcher.join(match_id, last_version=0)
    return match_id, holder, survivors, watcher


def test_killing_the_process_that_drives_a_bot_moves_it_elsewhere(
    cluster: Cluster, clients: list[Client], tmp_path: Path
) -> None:
    match_id, holder, survivors, watcher = driven_match(cluster, clients)
    watcher.wait_for(
        lambda c: any(u["event"] and u["event"]["type"] == "TimeExpired" for u in c.updates),
        "a time-out driven by the holder",
    )
    before = watcher.version
    cluster.nodes[holder].kill()
    try:
        # Another process takes the lease within its expiry (3 s) plus a heartbeat (1 s), and
        # the clock and the bot go on from where they were.
        cluster.wait_until(
            lambda: cluster.lease_holder(match_id) in survivors, "the lease taken over", 10
        )
        watcher.wait_for(lambda c: c.version >= before + 3, "the match going on")
        # Nothing lost or doubled: the store's stream is gapless and each command once, and the
        # spectator saw every version once.
        with open_store(cluster.store_url) as store:
            events = store.read(f"match-{match_id}")
        assert [e.version for e in events] == list(range(1, len(events) + 1))
        commands = [e.metadata["command_id"] for e in events]
        firsts = [e.event_id for e in events if e.event_id.endswith("/0")]
        assert len(firsts) == len(set(firsts)) == len(dict.fromkeys(commands))
        kinds = [e.type for e in events]
        assert kinds.count("TimeExpired") >= 2
        top = watcher.version
        assert [u["version"] for u in watcher.updates][:top] == list(range(1, top + 1))
        assert watcher.duplicates == []
    finally:
        cluster.restart(holder)  # the module's other tests keep three processes


def test_a_process_stopped_cleanly_hands_its_matches_over_at_once(
    cluster: Cluster, clients: list[Client]
) -> None:
    """SIGTERM (as systemd stops a unit): the process deletes its lease keys before it ends, so
    another process takes the match at its next heartbeat, not once the lease has lapsed."""
    match_id, holder, survivors, watcher = driven_match(cluster, clients)
    node = cluster.nodes[holder]
    assert cluster.lease_holder(match_id) == holder
    node.stop()  # SIGTERM, then wait for the process to end
    try:
        assert node.proc is not None and node.proc.returncode == -signal.SIGTERM
        # The moment it has ended, the key is no longer its own: released before the process
        # ended (left to lapse, it would still name the stopped process). No wall-clock figure
        # is asserted: on a loaded machine any such bound is a flake, and this check is the proof.
        assert cluster.lease_holder(match_id) != holder
        # Taken over at a survivor's heartbeat; the bound is only against hanging for ever.
        cluster.wait_until(
            lambda: cluster.lease_holder(match_id) in survivors,
            "the lease taken over",
            10 * LEASE_TTL_S,
        )
        before = watcher.version
        # The new holder drives the match on: checked in the store, strictly.
        with open_store(cluster.store_url) as store:
            stream = f"match-{match_id}"
            stored = store.stream_version(stream)
            cluster.wait_until(
                lambda: store.stream_version(stream) >= stored + 2, "the match going on"
            )
        watcher.wait_for(lambda c: c.version >= before + 2, "the spectator seeing it")
    finally:
        cluster.restart(holder)  # the module's other tests keep three processes


def test_a_rotation_tables_seat_change_reaches_each_process_clients(
    cluster: Cluster, clients: list[Client]
) -> None:
    """docs/protocol.md, rotation tables: Cid waits on n3 while Ann (n1) and Bob (n2) play; when
    Bob resigns, the process holding each client moves it to its new place."""
    opened = open_table(cluster, "n1", preset="italian-four")
    match_id = opened["match_id"]
    bob_seat = join(cluster, "n2", match_id)
    response = cluster.balancer.post(f"/api/tables/{match_id}/join", {"name": "Cid"}, node="n3")
    assert response.status_code == 200 and response.json()["waiting"] is True, response.text
    ann = connect(cluster, clients, "n1", opened["seat_token"])
    bob = connect(cluster, clients, "n2", bob_seat["seat_token"])
    cid = connect(cluster, clients, "n3", response.json()["seat_token"])
    for client in (ann, bob, cid):
        client.join(match_id, last_version=0)
    ack = bob.send(match_id, {"do": "resign", "seat": 1})
    assert ack["ok"], ack
    for client in (ann, cid):
        client.wait_for(lambda c: bool(c.received("seat")), "a seat message")
    assert cid.received("seat")[-1]["seat"] == 0 and cid.received("seat")[-1]["view"]["viewer"] == 0
    assert ann.received("seat")[-1]["seat"] is None
    table = cluster.balancer.get(f"/api/tables/{match_id}", node="n2").json()
    assert table["rotation"]["seated"] == ["Cid", "Bob"]
