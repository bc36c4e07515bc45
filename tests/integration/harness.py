"""A real server process on a free port and python-socketio clients that play at its tables."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import requests
import socketio

from bench.procs import stop_process
from server.entrypoints.protocol import CURRENT
from tests.conftest import REPO_ROOT, find_free_port

PROTOCOL = CURRENT  # the protocol version these clients speak

WAIT_S = 15.0  # upper bound of any wait; never an assertion about speed
# A server's start imports Flask, eventlet and the domain: over 15 s on this 2-core machine when
# the suite's workers and a colleague's benchmark share it (scripts/test.sh runs in parallel).
START_WAIT_S = 60.0


class ServerProcess:
    """`python -m server serve` with a temporary SQLite store; stopped by its PID."""

    def __init__(
        self,
        data_dir: Path,
        async_mode: str = "eventlet",
        grace_s: float = 1.0,
        store_url: str | None = None,
        bot_delay_s: float | None = 0.02,
        test_bots: bool = False,
        rate_limits: tuple[str, ...] = ("all=off",),
        extra_args: tuple[str, ...] = (),
    ) -> None:
        """`bot_delay_s`: None lets each table's bot pace apply (as in production)."""
        self.data_dir = data_dir
        self.extra_args = extra_args
        self.store_url = store_url or f"sqlite:///{data_dir / 'store.sqlite3'}"
        self.async_mode = async_mode
        # Off by default: every player of a test comes from one address, far above what one
        # person does (tests/integration/test_limits.py runs with the server's own limits).
        self.rate_limits = rate_limits
        self.grace_s = grace_s
        self.bot_delay_s = bot_delay_s
        self.test_bots = test_bots
        self.port = find_free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None
        self.log_path = data_dir / f"server-{self.port}.log"

    def start(self) -> ServerProcess:
        store = self.store_url
        command = [
            sys.executable, "-m", "server", "serve", "--host", "127.0.0.1",
            "--port", str(self.port), "--store", store, "--async-mode", self.async_mode,
            "--grace", str(self.grace_s), "--quiet", *self.extra_args,
            *(arg for limit in self.rate_limits for arg in ("--rate-limit", limit)),
        ]  # fmt: skip
        if self.bot_delay_s is not None:
            command += ["--bot-delay", str(self.bot_delay_s)]
        if self.test_bots:
            command.append("--test-bots")
        with open(self.log_path, "ab") as log:  # the child keeps its own copy of the handle
            self.proc = subprocess.Popen(command, cwd=REPO_ROOT, stdout=log, stderr=log)
        deadline = time.monotonic() + START_WAIT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {self.log_path.read_text()[-3000:]}")
            try:
                if requests.get(self.url + "/api/server-info", timeout=1).ok:
                    return self
            except requests.RequestException:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"server did not start: {self.log_path.read_text()[-3000:]}")

    def kill(self) -> None:
        """kill -9: no goodbye to anyone (sockets, leases, presence)."""
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)

    def stop(self) -> None:
        stop_process(self.proc)

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    # -- REST ------------------------------------------------------------------------------------

    def post(self, path: str, body: Any) -> requests.Response:
        return requests.post(self.url + path, json=body, timeout=10)

    def get(self, path: str) -> requests.Response:
        return requests.get(self.url + path, timeout=10)

    def open_table(self, **body: Any) -> dict[str, Any]:
        body.setdefault("name", "Ann")
        response = self.post("/api/tables", body)
        assert response.status_code == 201, response.text
        result: dict[str, Any] = response.json()
        return result

    def join(self, match_id: str, name: str = "Bob", **body: Any) -> dict[str, Any]:
        response = self.post(f"/api/tables/{match_id}/join", {"name": name, **body})
        assert response.status_code == 200, response.text
        result: dict[str, Any] = response.json()
        return result


class Client:
    """One Socket.IO connection that records every message it receives.

    The python-socketio client runs each event handler in its own thread, so messages the server
    sent in order may be handled out of order here: updates are filed by version, and `version`
    is the highest version up to which nothing is missing. An `updates` message (a batch) is
    recorded whole in `messages`, and each of its updates filed by version."""

    def __init__(
        self,
        server: ServerProcess,
        token: str | None = None,
        *,
        via: str | None = None,
        node: str | None = None,
        transports: tuple[str, ...] = ("websocket",),
    ) -> None:
        """`via`: connect through this URL (a load balancer) instead of the server's own; `node`:
        with the balancer's sticky cookie naming that server (tests/integration/cluster.py)."""
        self.server = server
        self.token = token
        self.url = via or server.url
        self.headers = {"Cookie": f"CRAPETTE_NODE={node}"} if node else {}
        self.transports = list(transports)
        self.sio = socketio.Client(reconnection=False)
        self.by_version: dict[int, dict[str, Any]] = {}
        self.duplicates: list[dict[str, Any]] = []
        self.messages: list[tuple[str, Any]] = []
        self.snapshot: dict[str, Any] | None = None
        self.table: dict[str, Any] | None = None
        self.top = 0  # every update up to this version has arrived (or came before the join)
        self.cond = threading.Condition()
        for name in ("updates", "snapshot", "table", "refused", "error", "seat"):
            self.sio.on(name, self._recorder(name))

    def _recorder(self, name: str) -> Callable[[Any], None]:
        def record(data: Any) -> None:
            with self.cond:
                self.messages.append((name, data))
                if name == "updates":
                    for update in data["updates"]:
                        if update["version"] in self.by_version:
                            self.duplicates.append(update)
                        self.by_version[update["version"]] = update
                    while self.top + 1 in self.by_version:
                        self.top += 1
                elif name == "snapshot":
                    self.snapshot = data
                    self.top = max(self.top, data["version"])
                elif name == "table":
                    self.table = data
                self.cond.notify_all()

        return record

    @property
    def updates(self) -> list[dict[str, Any]]:
        with self.cond:
            return [self.by_version[v] for v in sorted(self.by_version)]

    def connect(self) -> Client:
        # The protocol version every test client speaks (docs/protocol.md § Versions).
        self.sio.connect(
            self.url,
            headers=self.headers,
            transports=self.transports,
            wait_timeout=10,
            auth={"protocol": PROTOCOL},
        )
        return self

    def close(self) -> None:
        if self.sio.connected:
            self.sio.disconnect()

    def join(self, match_id: str, last_version: int | None = None) -> dict[str, Any]:
        if last_version is not None:
            with self.cond:
                self.top = max(self.top, last_version)
        payload = {"match_id": match_id, "seat_token": self.token, "last_version": last_version}
        ack: dict[str, Any] = self.sio.call("join_table", payload, timeout=WAIT_S)
        assert ack["ok"], ack
        return ack

    def send(self, match_id: str, action: dict[str, Any], command_id: str | None = None) -> Any:
        payload = {
            "match_id": match_id,
            "seat_token": self.token,
            "command_id": command_id or "c-" + uuid.uuid4().hex,
            "action": action,
        }
        return self.sio.call("command", payload, timeout=WAIT_S)

    def received(self, name: str) -> list[Any]:
        """Every message of that name received so far, in order."""
        with self.cond:
            return [data for kind, data in self.messages if kind == name]

    def wait_for(self, predicate: Callable[[Client], bool], what: str) -> None:
        with self.cond:
            if not self.cond.wait_for(lambda: predicate(self), timeout=WAIT_S):
                raise AssertionError(f"gave up waiting for {what}")

    def wait_version(self, version: int) -> None:
        self.wait_for(lambda c: c.version >= version, f"version {version}")

    @property
    def version(self) -> int:
        with self.cond:
            return self.top

    @property
    def view(self) -> dict[str, Any] | None:
        with self.cond:
            if self.top in self.by_version:
                view: dict[str, Any] | None = self.by_version[self.top]["view"]
                return view
            return self.snapshot["view"] if self.snapshot else None


def view_of(client: Client) -> dict[str, Any]:
    """The client's current view, which the test knows it has by now."""
    view = client.view
    assert view is not None, "the client has no view yet"
    return view


def table_of(client: Client) -> dict[str, Any]:
    """The client's last table payload, which the test knows it has by now."""
    table = client.table
    assert table is not None, "the client has no table yet"
    return table


# A simple policy that finishes games: foundations first, then the reserve, then the hand.
_NEVER = {"resign", "offer-draw", "accept-draw", "call"}


def _rank(action: dict[str, Any]) -> int:
    do, src, dst = action.get("do"), str(action.get("from", "")), str(action.get("to", ""))
    if do == "move" and dst.startswith("F"):
        return 0
    if do == "move" and src.startswith("R"):
        return 1
    if do == "move" and src.startswith("X"):
        return 2
    if do in ("turn", "discard", "pass"):
        return 3
    return 4


def choose(view: dict[str, Any]) -> dict[str, Any] | None:
    legal: list[dict[str, Any]] = [a for a in view.get("legal", []) if a.get("do") not in _NEVER]
    if not legal:
        return None
    return min(legal, key=_rank)
