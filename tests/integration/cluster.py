"""Several server processes as one server: one PostgreSQL store (a schema of their own), one
Redis, and HAProxy in front with the shipped config (deploy/haproxy.cfg), each started as a real
process and stopped by its PID. A client picks its process with the balancer's sticky cookie."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg
import redis
import requests

from tests.conftest import REPO_ROOT, find_free_port, service_unavailable
from tests.integration.harness import WAIT_S, ServerProcess

HAPROXY_CONFIG = REPO_ROOT / "deploy" / "haproxy.cfg"
COOKIE = "CRAPETTE_NODE"


def haproxy_binary() -> str:
    """The haproxy binary (scripts/test.sh installs it); skipped, or failed under CI, if none."""
    found = shutil.which("haproxy") or (
        "/usr/sbin/haproxy" if os.path.exists("/usr/sbin/haproxy") else None
    )
    if found is None:
        service_unavailable("HAProxy", "no haproxy binary (apt-get install haproxy)")
    assert found is not None
    return found


def balancer_config(port: int, nodes: dict[str, int]) -> str:
    """deploy/haproxy.cfg as shipped, with its `bind` and `server` lines for these ports."""
    lines: list[str] = []
    servers_written = False
    for line in HAPROXY_CONFIG.read_text().splitlines():
        stripped = line.strip()
        if stripped.startswith("bind "):
            lines.append(f"    bind 127.0.0.1:{port}")
        elif stripped.startswith("server "):
            if not servers_written:
                lines += [
                    f"    server {name} 127.0.0.1:{node_port} cookie {name}"
                    for name, node_port in nodes.items()
                ]
                servers_written = True
        else:
            lines.append(line)
    return "\n".join(lines) + "\n"


class Balancer:
    def __init__(self, data_dir: Path, nodes: dict[str, int]) -> None:
        self.port = find_free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.config_path = data_dir / "haproxy.cfg"
        self.config_path.write_text(balancer_config(self.port, nodes))
        self.log_path = data_dir / "haproxy.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, binary: str) -> Balancer:
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(
                [binary, "-db", "-f", str(self.config_path)], stdout=log, stderr=log
            )
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"haproxy exited: {self.log_path.read_text()[-2000:]}")
            try:
                if requests.get(self.url + "/healthz", timeout=1).ok:
                    return self
            except requests.RequestException:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"haproxy did not answer: {self.log_path.read_text()[-2000:]}")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            self.proc.wait(timeout=10)

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
                extra_args=("--message-queue", redis_url, "--node-id", name),
            )
            for name in names
        }
        self.balancer = Balancer(data_dir, {name: n.port for name, n in self.nodes.items()})

    def start(self) -> Cluster:
        binary = haproxy_binary()
        first, *others = self.nodes.values()
        first.start()  # creates the schema before the others race to
        for node in others:
            node.start()
        self.balancer.start(binary)
        for name in self.nodes:  # every node up behind the balancer, each reached by its cookie
            self.wait_until(lambda name=name: self.node_behind(name) == name, f"{name} up")
        return self

    def node_behind(self, cookie: str) -> str | None:
        try:
            response = self.balancer.get("/healthz", node=cookie)
        except requests.RequestException:
            return None
        return response.json().get("node") if response.ok else None

    def lease_holder(self, match_id: str) -> str | None:
        holder: str | None = self.redis.get(f"crapette:lease:{match_id}")
        return holder

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
