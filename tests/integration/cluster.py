"""Several server processes as one server: one PostgreSQL store (a schema of their own), one
Redis, and HAProxy in front with the shipped config (deploy/haproxy.cfg), each started as a real
process and stopped by its PID. A client picks its process with the balancer's sticky cookie."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg
import redis
import requests

from bench import balancer as bench_balancer
from bench.balancer import COOKIE, find_haproxy
from tests.conftest import find_free_port, service_unavailable
from tests.integration.harness import WAIT_S, ServerProcess


def haproxy_binary() -> str:
    """The haproxy binary (scripts/test.sh installs it); skipped, or failed under CI, if none."""
    found = find_haproxy()
    if found is None:
        service_unavailable("HAProxy", "no haproxy binary (apt-get install haproxy)")
    assert found is not None
    return found


class Balancer(bench_balancer.Balancer):
    """The bench's HAProxy runner, with requests that choose their process by cookie."""

    def get(self, path: str, node: str | None = None) -> requests.Response:
        cookies = {COOKIE: node} if node else {}
        return requests.get(self.url + path, cookies=cookies, timeout=10)

    def post(self, path: str, body: Any, node: str | None = None) -> requests.Response:
        cookies = {COOKIE: node} if node else {}
        return requests.post(self.url + path, json=body, cookies=cookies, timeout=10)


class Cluster:
    """`names` server processes sharing a fresh PostgreSQL schema and Redis, behind HAProxy."""

    def __init__(
        self, data_dir: Path, postgres_url: str, redis_url: str, names: tuple[str, ...]
    ) -> None:
        separator = "&" if "?" in postgres_url else "?"
        self.schema = f"cluster_{uuid.uuid4().hex[:10]}"
        self.postgres_url = postgres_url
        self.store_url = f"{postgres_url}{separator}schema={self.schema}"
        self.redis = redis.Redis.from_url(redis_url, decode_responses=True)
        self.nodes = {
            name: ServerProcess(
                data_dir,
                store_url=self.store_url,
                # As deploy/crapette@.service runs them behind deploy/haproxy.cfg.
                extra_args=("--message-queue", redis_url, "--node-id", name, "--behind-proxy"),
            )
            for name in names
        }
        self.balancer = Balancer(
            data_dir, find_free_port(), {name: n.port for name, n in self.nodes.items()}
        )

    def start(self) -> Cluster:
        haproxy_binary()
        first, *others = self.nodes.values()
        first.start()  # creates the schema before the others race to
        for node in others:
            node.start()
        self.balancer.start()  # and waits for every node to answer through it
        return self

    def node_behind(self, cookie: str) -> str | None:
        return self.balancer.node_behind(cookie)

    def restart(self, name: str) -> None:
        """Start a stopped (or killed) process again, and wait until the balancer sends its
        cookie to it. HAProxy takes a server it marked down back only after `rise` passing
        health checks (deploy/haproxy.cfg: 2, every 2 s); until then a client pinned to it is
        sent to another process, which may be the one the next test stops."""
        self.nodes[name].start()
        self.wait_until(lambda: self.node_behind(name) == name, f"the balancer to route to {name}")

    def lease_holder(self, match_id: str) -> str | None:
        holder = self.redis.get(f"crapette:lease:{match_id}")
        return holder if isinstance(holder, str) else None

    @staticmethod
    def wait_until(predicate: Any, what: str, timeout: float = WAIT_S) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate():
                return
            time.sleep(0.05)
        raise AssertionError(f"gave up waiting for {what}")

    def stop(self) -> None:
        self.balancer.stop()
        for node in self.nodes.values():
            node.stop()
        with psycopg.connect(self.postgres_url, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{self.schema}" CASCADE')
        self.redis.close()


@contextmanager
def running_cluster(
    data_dir: Path, postgres_url: str, redis_url: str, names: tuple[str, ...] = ("n1", "n2", "n3")
) -> Iterator[Cluster]:
    cluster = Cluster(data_dir, postgres_url, redis_url, names)
    try:
        yield cluster.start()
    finally:
        cluster.stop()
