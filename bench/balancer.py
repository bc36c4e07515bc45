"""HAProxy with the shipped config (deploy/haproxy.cfg) in front of server processes on this
machine: for `crapette bench server --nodes N` and the multi-process tests. Only the `bind` line
and the `server` lines change; everything else is the file a deployment uses."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

from bench.procs import stop_process

REPO_ROOT = Path(__file__).resolve().parents[1]
HAPROXY_CONFIG = REPO_ROOT / "deploy" / "haproxy.cfg"
COOKIE = "CRAPETTE_NODE"  # the sticky-session cookie the config inserts


class BalancerError(Exception):
    """HAProxy is missing, or did not start."""


def find_haproxy() -> str | None:
    found = shutil.which("haproxy")
    if found is None and os.path.exists("/usr/sbin/haproxy"):
        found = "/usr/sbin/haproxy"
    return found


def render_config(port: int, nodes: dict[str, int], template: Path = HAPROXY_CONFIG) -> str:
    """The config with `bind 127.0.0.1:<port>` and one `server` line per node (name → port)."""
    lines: list[str] = []
    servers_written = False
    for line in template.read_text().splitlines():
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
    """One HAProxy process on `port`, stopped by its PID."""

    def __init__(self, work_dir: Path, port: int, nodes: dict[str, int]) -> None:
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.nodes = nodes
        self.config_path = work_dir / f"haproxy-{port}.cfg"
        self.config_path.write_text(render_config(port, nodes))
        self.log_path = work_dir / f"haproxy-{port}.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout_s: float = 30.0) -> Balancer:
        """Start it and wait until every node answers /healthz through it."""
        binary = find_haproxy()
        if binary is None:
            raise BalancerError("haproxy is not installed (apt-get install haproxy)")
        with open(self.log_path, "ab") as log:  # the child keeps its own copy of the handle
            self.proc = subprocess.Popen(
                [binary, "-db", "-f", str(self.config_path)], stdout=log, stderr=log
            )
        deadline = time.monotonic() + timeout_s
        waiting = set(self.nodes)
        while waiting and time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise BalancerError(f"haproxy exited: {self.log_path.read_text()[-2000:]}")
            for name in list(waiting):
                if self.node_behind(name) == name:
                    waiting.discard(name)
            time.sleep(0.1)
        if waiting:
            self.stop()
            raise BalancerError(f"haproxy does not reach {sorted(waiting)} after {timeout_s} s")
        return self

    def node_behind(self, cookie: str) -> str | None:
        """The node id answering /healthz for a client with this sticky cookie."""
        import requests

        try:
            response = requests.get(self.url + "/healthz", cookies={COOKIE: cookie}, timeout=2)
        except requests.RequestException:
            return None
        node: str | None = response.json().get("node") if response.ok else None
        return node

    def stop(self) -> None:
        stop_process(self.proc)
