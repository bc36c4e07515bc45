"""Presence and leases shared through a real Redis by two "processes" (two services with their
own caches and node ids, on one store), on a clock of our own: server/adapters/cluster.py."""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from eventstore import open_store
from server.adapters.cluster import Cluster, RedisLeases, RedisShares, SharedPresence
from server.app import create_app
from server.config import ServerConfig
from server.errors import FairShareError, TooEarlyError
from server.service import GameService
from tests.seat_kit import token_of
from tests.unit.server.clock import Clock


@pytest.fixture
def nodes(redis_url: str) -> Iterator[tuple[Cluster, Cluster]]:
    a, b = Cluster(redis_url, "test-a"), Cluster(redis_url, "test-b")
    yield a, b
    a.close()
    b.close()


def _service(store: object, cluster: Cluster, clock: Clock) -> GameService:
    presence = SharedPresence(cluster, grace_s=60, clock=clock, ttl_s=5)
    return GameService(store, grace_s=60, clock=clock, presence=presence)  # type: ignore[arg-type]


def test_a_claim_sees_the_player_connected_to_the_other_process_until_it_dies(
    nodes: tuple[Cluster, Cluster],
) -> None:
    clock = Clock()
    clock.ms = 1_000_000
    store = open_store("memory://")
    on_a, on_b = _service(store, nodes[0], clock), _service(store, nodes[1], clock)
    opened = on_a.openings.open_table(name="Ann", options={"enforcement": "lenient"})
    match_id, ann = opened["match_id"], token_of(opened)
    on_b.seats.join_seat(match_id, "Bob")
    on_b.clients.connect(match_id, 1)  # Bob's socket is on b
    try:
        for _ in range(3):  # minutes pass; b beats, so Bob stays connected as far as a knows
            clock.ms += 61_000
            on_b.presence.heartbeat()
            with pytest.raises(TooEarlyError):
                on_a.seats.claim(match_id, ann, "bot")
            assert on_a.views.table(match_id)["presence"][1]["connected"] is True
        last_beat = clock.ms
        clock.ms += 6_000  # b died: no beat for longer than the presence TTL (5 s)
        presence = on_a.views.table(match_id)["presence"][1]
        assert presence == {
            "connected": False,
            "away_since_ms": last_beat,
            "claimable_at_ms": last_beat + 60_000,
        }
        with pytest.raises(TooEarlyError):  # the grace runs from b's last beat
            on_a.seats.claim(match_id, ann, "bot")
        clock.ms = last_beat + 60_000
        assert on_a.seats.claim(match_id, ann, "bot") == {"ok": True}
    finally:
        redis = nodes[0].redis
        redis.delete(
            *(f"crapette:{kind}:{match_id}:{s}" for kind in ("conn", "away") for s in (0, 1))
        )


def test_a_seat_left_on_one_process_is_away_for_both(nodes: tuple[Cluster, Cluster]) -> None:
    clock = Clock()
    clock.ms = 2_000_000
    store = open_store("memory://")
    on_a, on_b = _service(store, nodes[0], clock), _service(store, nodes[1], clock)
    opened = on_a.openings.open_table(name="Ann", bot="steady")
    match_id = opened["match_id"]
    try:
        on_a.clients.connect(match_id, 0)
        on_b.clients.connect(match_id, 0)  # Ann on both processes (two tabs)
        clock.ms += 1_000
        on_a.clients.disconnect(match_id, 0)  # one tab closed: still connected through b
        assert on_b.views.table(match_id)["presence"][0]["connected"] is True
        clock.ms += 1_000
        on_b.clients.disconnect(match_id, 0)
        for service in (on_a, on_b):
            presence = service.views.table(match_id)["presence"][0]
            assert presence["connected"] is False and presence["away_since_ms"] == clock.ms
    finally:
        redis = nodes[0].redis
        redis.delete(
            *(f"crapette:{kind}:{match_id}:{s}" for kind in ("conn", "away") for s in (0, 1))
        )


def test_one_holder_per_lease_and_a_takeover_once_it_lapses(
    nodes: tuple[Cluster, Cluster],
) -> None:
    # A TTL long enough that a stall of the test process between a renewal and the check that
    # follows it (a loaded CI machine) cannot lapse the lease before it is checked.
    a, b = RedisLeases(nodes[0], ttl_s=2.0), RedisLeases(nodes[1], ttl_s=2.0)
    match_id = f"m-lease-{time.monotonic_ns()}"
    try:
        a.renew([match_id])
        b.renew([match_id])
        assert a.holds(match_id) and not b.holds(match_id)
        a.renew([match_id])  # renewing keeps it
        b.renew([match_id])
        assert a.holds(match_id) and not b.holds(match_id)
        time.sleep(2.1)  # a stops renewing (it died): the lease lapses
        assert not a.holds(match_id)  # a itself stops driving before the key expires
        b.renew([match_id])
        a.renew([match_id])  # a back: too late, b has it
        assert b.holds(match_id) and not a.holds(match_id)
        assert nodes[0].redis.get(RedisLeases.key(match_id)) == "test-b"
    finally:
        nodes[0].redis.delete(RedisLeases.key(match_id))


def test_released_leases_are_taken_at_once_and_never_again_by_their_releaser(
    nodes: tuple[Cluster, Cluster],
) -> None:
    # A TTL far longer than the test: only a release can let b in.
    a, b = RedisLeases(nodes[0], ttl_s=60.0), RedisLeases(nodes[1], ttl_s=60.0)
    mine, theirs = f"m-rel-a-{time.monotonic_ns()}", f"m-rel-b-{time.monotonic_ns()}"
    keys = [RedisLeases.key(m) for m in (mine, theirs)]
    try:
        b.renew([theirs])
        a.renew([mine, theirs])
        assert a.holds(mine) and not a.holds(theirs)
        a.release()  # a stops cleanly
        assert not a.holds(mine)
        assert nodes[0].redis.get(keys[0]) is None  # deleted, not left to lapse
        assert nodes[0].redis.get(keys[1]) == "test-b"  # another's lease is left alone
        b.renew([mine, theirs])
        assert b.holds(mine) and b.holds(theirs)
        a.renew([mine])  # a last heartbeat of the stopping process takes nothing back
        assert not a.holds(mine) and nodes[0].redis.get(keys[0]) == "test-b"
    finally:
        nodes[0].redis.delete(*keys)


def test_a_release_waits_for_the_renewal_on_its_way_and_leaves_no_key_behind(
    nodes: tuple[Cluster, Cluster],
) -> None:
    """SIGTERM while the heartbeat's renewal is on its way (sent, Redis took the key, the
    answer not read yet): the process ends as soon as `release` returns, so by then the key
    must be gone, not left naming the dead process until it lapses."""
    a = RedisLeases(nodes[0], ttl_s=60.0)
    match_id = f"m-fly-{time.monotonic_ns()}"
    key = RedisLeases.key(match_id)
    reached, answer = threading.Event(), threading.Event()
    pipeline = a.redis.pipeline

    def slow_once(*args: Any, **kwargs: Any) -> Any:
        a.redis.pipeline = pipeline  # type: ignore[method-assign]  # only the renewal's
        pipe = pipeline(*args, **kwargs)
        execute = pipe.execute

        def answered_late(raise_on_error: bool = True) -> Any:
            result = execute(raise_on_error)  # the renewal reached Redis and took the key
            reached.set()
            answer.wait(5)  # its answer is on its way back
            return result

        pipe.execute = answered_late  # type: ignore[method-assign]  # only this pipeline's
        return pipe

    a.redis.pipeline = slow_once  # type: ignore[method-assign]
    at_exit: list[bytes | str | None] = []

    def stop() -> None:
        a.release()
        at_exit.append(nodes[0].redis.get(key))  # the process ends right here

    renewal = threading.Thread(target=a.renew, args=([match_id],))
    stopping = threading.Thread(target=stop)
    try:
        renewal.start()
        assert reached.wait(5)
        stopping.start()
        time.sleep(0.2)
        answer.set()
        renewal.join(5)
        stopping.join(5)
        assert at_exit == [None]
        assert nodes[0].redis.get(key) is None and not a.holds(match_id)
    finally:
        answer.set()
        a.redis.pipeline = pipeline  # type: ignore[method-assign]
        nodes[0].redis.delete(key)


def test_processes_sharing_redis_share_each_players_rate_limit(
    redis_url: str, tmp_path: Path
) -> None:
    """Two processes behind one balancer: a player's budget is counted in Redis, once for all
    (in memory, each process would give him a budget of his own)."""
    player = f"10.{secrets.randbelow(250)}.{secrets.randbelow(250)}.{secrets.randbelow(250)}"
    apps = []
    for node in ("limit-a", "limit-b"):
        config = ServerConfig(
            async_mode="threading",
            store_url=f"sqlite:///{tmp_path / 'shared.sqlite3'}",
            rate_limits={"create": "1/minute"},
            refusal_pause_s=0.0,
            message_queue=redis_url,
            node_id=node,
        )
        apps.append(create_app(config)[0])
    environ = {"REMOTE_ADDR": player}
    codes = [
        app.test_client().post("/api/tables", json={"name": "Ann"}, environ_base=environ)
        for app in apps
    ]
    assert [r.status_code for r in codes] == [201, 429]
    for app in apps:
        app.extensions["crapette_feed"].stop()
        app.extensions["crapette_store"].close()
        app.extensions["crapette_cluster"].close()
        for limiter in app.extensions["limiter"]:  # the limiter's own Redis connections
            limiter.storage.storage.close()


def _owner() -> str:
    return f"10.{secrets.randbelow(250)}.{secrets.randbelow(250)}.{secrets.randbelow(250)}"


def test_a_heavy_jobs_share_is_one_for_every_process(nodes: tuple[Cluster, Cluster]) -> None:
    """Issue 38: one queued heavy job per address and kind in the whole cluster. Held by one
    process, the share is refused by the other (429) and by itself; given back, either takes
    it; another address or another kind is never refused."""
    a, b = (RedisShares(node, pause_s=0.0) for node in nodes)
    owner = _owner()
    give_back = a.take(owner, "import")
    for shares in (a, b):
        with pytest.raises(FairShareError) as refused:
            shares.take(owner, "verify")  # an import and a check are one kind: "upload"
        assert refused.value.http_status == 429 and refused.value.to_json()["kind"] == "upload"
    b.take(_owner(), "verify")()
    b.take(owner, "gif")()
    assert nodes[0].redis.get(RedisShares.key((owner, "upload"))) is not None
    give_back()
    assert nodes[0].redis.get(RedisShares.key((owner, "upload"))) is None
    b.take(owner, "verify")()
    assert b.refused == 1 and a.refused == 1


def test_a_share_is_renewed_while_held_and_lapses_once_its_process_is_gone(
    nodes: tuple[Cluster, Cluster],
) -> None:
    """While its job runs, the holder renews its share past the TTL; a share whose process died
    (nobody renews it) lapses after the TTL; a give-back after a lapse frees nobody else's."""
    a = RedisShares(nodes[0], pause_s=0.0, ttl_s=0.3)
    b = RedisShares(nodes[1], pause_s=0.0, ttl_s=30)
    owner = _owner()
    held = a.take(owner, "analysis")
    time.sleep(1.0)  # three TTLs: renewed by a's own beat meanwhile
    with pytest.raises(FairShareError):
        b.take(owner, "analysis")
    held()
    dead = RedisShares.key((owner, "gif"))
    nodes[0].redis.set(dead, "gone-node:0000", px=300)  # a process that died mid-job
    with pytest.raises(FairShareError):
        b.take(owner, "gif")
    time.sleep(0.5)
    late = b.take(owner, "gif")  # lapsed: taken
    nodes[0].redis.set(dead, "other-node:0000", px=30_000)  # b's lapsed and another took it
    late()
    assert nodes[0].redis.get(dead) == "other-node:0000"
    nodes[0].redis.delete(dead)
