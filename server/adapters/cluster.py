"""Several `crapette serve` processes as one server (`--message-queue redis://…`).

What the processes share, and how (docs/deploy.md explains the whole picture):
- the event store (PostgreSQL): the only arbiter of who wrote what (command ids and expected
  versions); every process learns of every append from it (`server.adapters.feed`);
- Redis, through this module: the node's connection, presence (`SharedPresence`), the
  leases that pick the one process driving each match's clock and bots (`RedisLeases`), the
  heavy jobs' fair shares, one per address and kind across every process (`RedisShares`); and
  Flask-SocketIO's message queue, which carries every room emit to every process.

One process alone (the default) uses none of this: `Presence` and `Leases` in memory."""

from __future__ import annotations

import logging
import os
import secrets
import socket
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

import redis

from server.adapters.leases import Leases
from server.adapters.matches import MatchEntry
from server.adapters.presence import Presence, TableOf
from server.adapters.workers import FairShares
from server.wire.payloads import PresenceJson

log = logging.getLogger(__name__)

PREFIX = "crapette:"
# A process renews its presence entries and its leases every HEARTBEAT_S; a process that stops
# doing so for PRESENCE_TTL_S counts as gone (its sockets away), and its leases lapse after
# LEASE_TTL_S, when another process takes the match over. Both a few seconds, per the issue.
HEARTBEAT_S = 1.0
PRESENCE_TTL_S = 5.0
LEASE_TTL_S = 3.0
# Presence and away keys outlive any grace period, then clean themselves up.
_KEY_TTL_MS = 7 * 24 * 3600 * 1000
# A fair share held in Redis lapses after SHARE_TTL_S unless its process renews it (every third
# of that while the job runs): a process that dies mid-job frees its address's share by then.
SHARE_TTL_S = 30.0


def new_node_id() -> str:
    return f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(2)}"


class Cluster:
    """This process's membership: its node id and its Redis connection."""

    def __init__(self, url: str, node_id: str | None = None) -> None:
        self.url = url
        self.node_id = node_id or new_node_id()
        # Short timeouts: a Redis that does not answer must fail a health check, not hang it.
        self.redis = redis.Redis.from_url(
            url, socket_timeout=2.0, socket_connect_timeout=2.0, decode_responses=True
        )

    def presence(self, grace_s: float) -> SharedPresence:
        return SharedPresence(self, grace_s=grace_s)

    def leases(self) -> RedisLeases:
        return RedisLeases(self)

    def shares(self) -> RedisShares:
        return RedisShares(self)

    def ping(self) -> None:
        """Raises when Redis cannot be reached (the health check's `queue` part)."""
        self.redis.ping()

    def close(self) -> None:
        self.redis.close()


def _now_ms() -> int:
    return int(time.time() * 1000)


class SharedPresence(Presence):
    """Presence kept in Redis, so that every process sees every seat's clients.

    Per seat, a sorted set `crapette:conn:<match>:<seat>` holds the nodes with a client of that
    seat, scored by the node's last heartbeat; a node that stopped beating for PRESENCE_TTL_S
    (killed, cut off) no longer counts, and its seats are away since that last beat. The string
    `crapette:away:<match>:<seat>` holds when the seat's last client left, or when it was taken."""

    def __init__(
        self,
        cluster: Cluster,
        *,
        grace_s: float,
        clock: Callable[[], int] = _now_ms,
        ttl_s: float = PRESENCE_TTL_S,
    ) -> None:
        super().__init__(grace_s=grace_s, clock=clock)
        self.redis = cluster.redis
        self.node = cluster.node_id
        self.ttl_ms = int(ttl_s * 1000)
        self._lock = threading.Lock()

    @staticmethod
    def _keys(match_id: str, seat: int) -> tuple[str, str]:
        return f"{PREFIX}conn:{match_id}:{seat}", f"{PREFIX}away:{match_id}:{seat}"

    def _connected_anywhere(self, match_id: str, seat: int) -> bool:
        conn, _ = self._keys(match_id, seat)
        return bool(self.redis.zcount(conn, self.clock() - self.ttl_ms, "+inf"))

    def seated(self, match_id: str, seat: int) -> None:
        if not self._connected_anywhere(match_id, seat):
            _, away = self._keys(match_id, seat)
            self.redis.set(away, self.clock(), px=_KEY_TTL_MS)

    def connect(self, match_id: str, seat: int) -> None:
        with self._lock:
            super().connect(match_id, seat)  # this process's own count (for unloading, beats)
        conn, _ = self._keys(match_id, seat)
        with self.redis.pipeline(transaction=False) as pipe:
            pipe.zadd(conn, {self.node: self.clock()})
            pipe.pexpire(conn, _KEY_TTL_MS)
            pipe.execute()

    def disconnect(self, match_id: str, seat: int) -> None:
        with self._lock:
            super().disconnect(match_id, seat)
            left = self._connections.get((match_id, seat), 0)
        if left:
            return
        conn, away = self._keys(match_id, seat)
        self.redis.zrem(conn, self.node)
        if not self._connected_anywhere(match_id, seat):
            self.redis.set(away, self.clock(), px=_KEY_TTL_MS)

    def person_connected(self, entry: MatchEntry | TableOf, place: int) -> bool:
        if entry.table.people[place].bot is not None:
            return True
        return self._connected_anywhere(entry.match_id, place)

    def left_ms(self, entry: MatchEntry | TableOf) -> int:
        """As `Presence.left_ms`, from every process: the latest `away` mark of its people."""
        keys = [self._keys(entry.match_id, place)[1] for place in range(len(entry.table.people))]
        marks = self.redis.mget(keys) if keys else []
        return max((int(mark) for mark in marks if mark is not None), default=0)

    def person_json(self, entry: MatchEntry | TableOf, place: int) -> PresenceJson:
        person = entry.table.people[place]
        if person.bot is not None or person.free:
            return super().person_json(entry, place)
        conn, away = self._keys(entry.match_id, place)
        with self.redis.pipeline(transaction=False) as pipe:
            pipe.zrange(conn, 0, -1, withscores=True)
            pipe.get(away)
            beats, left = pipe.execute()
        now = self.clock()
        scores = [int(score) for _node, score in beats]
        if any(score >= now - self.ttl_ms for score in scores):
            return {"connected": True, "away_since_ms": None, "claimable_at_ms": None}
        # Gone since the last client left, or since the last beat of a node that died with
        # clients of this seat, whichever is later; a seat with no trace at all since the start.
        known = [int(left)] if left is not None else []
        since = max(known + scores) if known or scores else self.started_ms
        return {
            "connected": False,
            "away_since_ms": since,
            "claimable_at_ms": since + int(self.grace_s * 1000),
        }

    def heartbeat(self) -> None:
        """Renew this node's beat on every seat it has clients of."""
        with self._lock:
            keys = [key for key, count in self._connections.items() if count > 0]
        if not keys:
            return
        now = self.clock()
        with self.redis.pipeline(transaction=False) as pipe:
            for match_id, seat in keys:
                conn, _ = self._keys(match_id, seat)
                pipe.zadd(conn, {self.node: now})
                pipe.pexpire(conn, _KEY_TTL_MS)
            pipe.execute()


# Take the lease if it is free, keep it if it is ours: one atomic step, so two processes can
# never both believe they hold it (short of a holder paused past the expiry: then the store's
# expected-version check still lets only one of their writes through).
_TAKE_OR_KEEP = """
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    return 1
end
if not holder then
    redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
    return 1
end
return 0
"""

# Give the lease up only if it is still ours (it may have lapsed and been taken meanwhile).
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
    return redis.call('DEL', KEYS[1])
end
return 0
"""


class RedisLeases(Leases):
    """A Redis key per live match, `crapette:lease:<match>` = the holder's node id, expiring
    after LEASE_TTL_S unless renewed. Every process tries every live match at each heartbeat:
    the first takes it; when its holder dies, the key lapses and the next heartbeat of another
    process takes it over. A lease counts as held here only until 0.8 × TTL after the renewal
    was sent, so a node that cannot reach Redis stops driving before another may start. A node
    that stops cleanly (SIGTERM, SIGINT: `server.app.start_cluster`) deletes its keys first, so
    another process takes its matches at its next heartbeat instead of after the lapse."""

    def __init__(self, cluster: Cluster, *, ttl_s: float = LEASE_TTL_S) -> None:
        self.redis = cluster.redis
        self.node = cluster.node_id
        self.ttl_s = ttl_s
        self.ttl_ms = int(ttl_s * 1000)
        self._script = self.redis.register_script(_TAKE_OR_KEEP)
        self._release = self.redis.register_script(_RELEASE)
        self._held_until: dict[str, float] = {}
        self._released = False
        # One renewal or release at a time: a release waits for the renewal on its way, whose
        # keys it must delete before the process ends (`server.app.start_cluster`).
        self._busy = threading.Lock()

    @staticmethod
    def key(match_id: str) -> str:
        return f"{PREFIX}lease:{match_id}"

    def holds(self, match_id: str) -> bool:
        return self._held_until.get(match_id, 0.0) > time.monotonic()

    def renew(self, match_ids: Iterable[str]) -> None:
        with self._busy:
            if self._released:  # shutting down: take nothing again
                return
            ids = list(match_ids)
            sent = time.monotonic()
            with self.redis.pipeline(transaction=False) as pipe:
                for match_id in ids:
                    self._script(
                        keys=[self.key(match_id)], args=[self.node, self.ttl_ms], client=pipe
                    )
                results = pipe.execute() if ids else []
            valid = sent + self.ttl_s * 0.8
            held = {match_id: valid for match_id, ok in zip(ids, results, strict=True) if ok}
            taken = set(held) - set(self._held_until)
            if taken:
                log.info("node %s now drives %s", self.node, ", ".join(sorted(taken)))
            self._held_until = held

    def release(self) -> None:
        self._released = True  # a renewal not begun yet takes nothing
        # One on its way has taken its keys once it lets go: then delete them. (Redis answers
        # within its socket timeout; past the TTL its keys would have lapsed anyway.)
        waited = self._busy.acquire(timeout=self.ttl_s)
        try:
            held, self._held_until = list(self._held_until), {}
            if not held:
                return
            with self.redis.pipeline(transaction=False) as pipe:
                for match_id in held:
                    self._release(keys=[self.key(match_id)], args=[self.node], client=pipe)
                pipe.execute()
        finally:
            if waited:
                self._busy.release()
        log.info("node %s released %s", self.node, ", ".join(sorted(held)))


# Keep the share's lapse away while it is still this holder's.
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
    return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""


class RedisShares(FairShares):
    """The heavy jobs' fair shares (server/adapters/workers.py `FairShares`) of every process:
    a Redis key per share held, `crapette:share:<kind>:<address>` = a token of its holder, set
    only if absent (one atomic step) and expiring after SHARE_TTL_S unless renewed. So an
    address has one job of a kind in the whole cluster, whichever process its requests reach.
    This process's own shares are checked in memory first (no round trip to refuse those).
    Redis unreachable: the share is this process's alone meanwhile (logged), never a refusal."""

    def __init__(self, cluster: Cluster, *, ttl_s: float = SHARE_TTL_S, **options: Any) -> None:
        super().__init__(**options)
        self.redis = cluster.redis
        self.node = cluster.node_id
        self.ttl_s = ttl_s
        self.ttl_ms = int(ttl_s * 1000)
        self._tokens: dict[tuple[str, str], str] = {}
        self._give_back_script = self.redis.register_script(_RELEASE)
        self._renew_script = self.redis.register_script(_RENEW)
        self._renewing = False

    @staticmethod
    def key(share: tuple[str, str]) -> str:
        owner, kind = share
        return f"{PREFIX}share:{kind}:{owner}"

    def _claim(self, key: tuple[str, str]) -> bool:
        if not super()._claim(key):  # held by this very process
            return False
        token = f"{self.node}:{secrets.token_hex(4)}"
        try:
            taken = self.redis.set(self.key(key), token, nx=True, px=self.ttl_ms)
        except redis.RedisError as exc:
            log.warning("fair share of %s kept by this process alone (Redis: %s)", key[1], exc)
            return True
        if not taken:  # another process's job
            super()._give_back(key)
            return False
        with self._lock:
            self._tokens[key] = token
            start = not self._renewing
            self._renewing = True
        if start:
            threading.Thread(target=self._renew_loop, name="shares", daemon=True).start()
        return True

    def _give_back(self, key: tuple[str, str]) -> None:
        with self._lock:
            token = self._tokens.pop(key, None)
        try:
            if token is not None:
                self._give_back_script(keys=[self.key(key)], args=[token])
        except redis.RedisError as exc:  # it lapses by itself
            log.warning("fair share of %s not given back (Redis: %s)", key[1], exc)
        finally:
            super()._give_back(key)

    def renew(self) -> None:
        """Keep this process's shares from lapsing while their jobs run."""
        with self._lock:
            held = list(self._tokens.items())
        if not held:
            return
        with self.redis.pipeline(transaction=False) as pipe:
            for key, token in held:
                self._renew_script(keys=[self.key(key)], args=[token, self.ttl_ms], client=pipe)
            pipe.execute()

    def _renew_loop(self) -> None:
        # A (green)thread of its own, started with the first share held: no other beat to join.
        while True:
            time.sleep(self.ttl_s / 3)
            try:
                self.renew()
            except redis.RedisError:
                log.warning("fair shares not renewed (Redis away)", exc_info=True)
