"""The bench's players: bot clients that play real games against a server over Socket.IO (and
echo loops against the bare echo server), what they measure (`Stats`) and its summary. Shared by
`crapette bench server` (server_bench.py), its `--nodes` form (nodes.py), the game's floor
(floor.py) and `bench analysis`."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import random
import statistics
import subprocess
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from bench.procs import stop_process
from server.entrypoints.protocol import CURRENT as PROTOCOL

_NEVER = {"resign", "offer-draw", "accept-draw", "call"}
START_TIMEOUT_S = 30.0


def _start(
    command: list[str], ping_url: str, log_path: Path, env: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    import requests

    with open(log_path, "ab") as log:  # the child keeps its own copy of the handle
        proc = subprocess.Popen(command, stdout=log, stderr=log, env=env)
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise click.ClickException(f"{command[2]} exited: {log_path.read_text()[-2000:]}")
        try:
            if requests.get(ping_url, timeout=1).ok:
                return proc
        except requests.RequestException:
            time.sleep(0.1)
    stop_process(proc)
    raise click.ClickException(f"{' '.join(command)} did not start")


def _rank(action: dict[str, Any]) -> int:
    do, src, dst = action.get("do"), str(action.get("from", "")), str(action.get("to", ""))
    if do == "move" and dst.startswith("F"):
        return 0
    if do == "move" and src.startswith(("R", "X")):
        return 1
    return 2 if do in ("turn", "discard", "pass") else 3


def choose_action(view: dict[str, Any] | None) -> dict[str, Any] | None:
    """A bench seat's next command in `view` (None: nothing to do), the same for every run."""
    if not view or view.get("over"):
        return None
    legal = [a for a in view.get("legal", []) if a.get("do") not in _NEVER]
    return min(legal, key=_rank) if legal else None


@dataclass
class Stats:
    rtts: list[float] = field(default_factory=list)
    moves: int = 0
    refused: int = 0
    refusals: list[str] = field(default_factory=list)  # the first few, to say why
    measuring: bool = False
    cpu_s: float | None = None  # CPU time the server process(es) used while measuring
    cpu_by_process: list[float] = field(default_factory=list)  # the same, per server process
    client_cpu_s: float = 0.0  # CPU time of this process (every client) while measuring


def _cpu_s(pid: int | None) -> float | None:
    """User + system CPU seconds of a process so far (Linux /proc; None elsewhere). CPU per move
    varies far less with the machine's load than moves per second do."""
    if pid is None:
        return None
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as file:
            fields = file.read().rpartition(")")[2].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class BenchClient:
    """One seat (or one echo loop): send a command, wait for the ack, measure the first update."""

    def __init__(
        self,
        url: str,
        stats: Stats,
        match_id: str = "echo",
        token: str = "x" * 16,
        think_s: float = 0.0,
    ):
        import socketio

        self.url = url
        self.stats = stats
        self.match_id = match_id
        self.token = token
        self.think_s = think_s
        # A person's think time varies: each pause is drawn from an exponential distribution of
        # mean `think_s` (the clients' commands then arrive as a Poisson stream, as a room of
        # players' would). A fixed pause kept the clients that started together in step, so
        # that every 0.5 s a wave of 200 commands met the server at once and the p99 measured
        # the length of that wave, an artefact of the load generator.
        self.pauses = random.Random(f"{match_id}/{token}")
        self.sio = socketio.AsyncClient(reconnection=False)
        self.view: dict[str, Any] | None = None
        self.version = 0
        self.sent_at: float | None = None
        self.ready_for: int | None = None  # the game after which this seat sent next_game
        self.changed = asyncio.Event()
        self.sio.on("updates", self._on_updates)
        self.sio.on("snapshot", self._on_snapshot)

    async def _on_updates(self, data: dict[str, Any]) -> None:
        if self.sent_at is not None:
            if self.stats.measuring:
                self.stats.rtts.append(time.perf_counter() - self.sent_at)
            self.sent_at = None
        newest = data["updates"][-1]  # a batch is in version order; its last is the position
        if newest["version"] > self.version:  # handlers may run out of order: keep the newest
            self.version = newest["version"]
            self.view = newest.get("view")
        self.changed.set()

    async def _on_snapshot(self, data: dict[str, Any]) -> None:
        self.version = data["version"]
        self.view = data.get("view")
        self.changed.set()

    async def connect(self) -> None:
        await self.sio.connect(
            self.url, transports=["websocket"], wait_timeout=30, auth={"protocol": PROTOCOL}
        )

    async def join(self) -> None:
        ack = await self.sio.call(
            "join_table",
            {"match_id": self.match_id, "seat_token": self.token, "last_version": None},
            timeout=30,
        )
        if not ack.get("ok"):
            raise click.ClickException(f"join_table refused: {ack}")

    async def send(self, action: dict[str, Any]) -> dict[str, Any]:
        payload = {
            "match_id": self.match_id,
            "seat_token": self.token,
            "command_id": uuid.uuid4().hex,
            "action": action,
        }
        self.sent_at = time.perf_counter()
        ack: dict[str, Any] = await self.sio.call("command", payload, timeout=30)
        if self.stats.measuring:
            self.stats.moves += 1
            if not ack.get("ok"):
                self.stats.refused += 1
                if len(self.stats.refusals) < 5:
                    self.stats.refusals.append(f"{action}: {ack.get('rule') or ack.get('code')}")
        # python-socketio handles an ack at once but each event in a task of its own: the ack
        # may overtake the command's last updates. Act only on the position the ack names.
        target = int(ack.get("version") or 0)
        while self.version < target:
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), timeout=1.0)
        return ack

    def my_action(self) -> dict[str, Any] | None:
        return choose_action(self.view)

    async def think(self) -> None:
        if self.think_s:
            await asyncio.sleep(self.pauses.expovariate(1 / self.think_s))

    async def play_games(self, stop_at: float) -> None:
        await self.think()  # not all at the same moment
        while time.perf_counter() < stop_at:
            action = self.my_action()
            if action is None:
                await self.next_game()
                self.changed.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.changed.wait(), timeout=0.5)
                continue
            await self.send(action)
            await self.think()

    async def next_game(self) -> None:
        """After a game, this seat is ready for the next one (it is dealt when both are)."""
        view = self.view
        if not view or not view.get("over") or view.get("match_over"):
            return
        if self.ready_for == view.get("game_index"):
            return
        self.ready_for = view.get("game_index")
        seat = {"match_id": self.match_id, "seat_token": self.token}
        await self.sio.call("next_game", seat, timeout=30)

    async def echo(self, stop_at: float) -> None:
        await self.think()
        while time.perf_counter() < stop_at:
            await self.send({"do": "turn", "seat": 0})
            await self.think()

    async def close(self) -> None:
        await self.sio.disconnect()


async def _measure(
    clients: list[BenchClient],
    stats: Stats,
    warmup_s: float,
    seconds: float,
    echo: bool,
    pids: list[int],
) -> float:
    start = time.perf_counter()
    stop_at = start + warmup_s + seconds
    cpu_at_start: list[float | None] = [None] * len(pids)
    client_cpu_at_start = [0.0]

    async def flip() -> None:
        await asyncio.sleep(warmup_s)
        stats.measuring = True
        cpu_at_start[:] = [_cpu_s(pid) for pid in pids]
        client_cpu_at_start[0] = time.process_time()

    runs = [c.echo(stop_at) if echo else c.play_games(stop_at) for c in clients]
    # The clients' own collector stays off while they run: a full collection in this process
    # (measured at 70-140 ms with 200 clients, a few times a minute) would stop every client at
    # once and add its pause to whichever server's round trips were on their way, the echo's
    # or the game server's alike. What it would have collected waits until the phase ends.
    gc.collect()
    gc.disable()
    try:
        await asyncio.gather(flip(), *runs)
    finally:
        gc.enable()
    stats.measuring = False
    stats.client_cpu_s = time.process_time() - client_cpu_at_start[0]
    used = [
        (now - before) if now is not None and before is not None else None
        for now, before in zip([_cpu_s(pid) for pid in pids], cpu_at_start, strict=True)
    ]
    if used and all(u is not None for u in used):
        stats.cpu_by_process = [u for u in used if u is not None]
        stats.cpu_s = sum(stats.cpu_by_process)
    return seconds


async def _run_server_games(
    url: str, games: int, warmup_s: float, seconds: float, think_s: float, pids: list[int]
) -> Stats:
    import aiohttp

    stats = Stats()
    clients: list[BenchClient] = []
    async with aiohttp.ClientSession() as http:
        for index in range(games):
            body = {"name": f"a{index}", "preset": "beginner", "match": "points:10000"}
            async with http.post(url + "/api/tables", json=body) as response:
                opened = await response.json()
            async with http.post(
                f"{url}/api/tables/{opened['match_id']}/join", json={"name": f"b{index}"}
            ) as response:
                joined = await response.json()
            for seat in (opened, joined):
                clients.append(
                    BenchClient(url, stats, seat["match_id"], seat["seat_token"], think_s)
                )
    await asyncio.gather(*(c.connect() for c in clients))
    await asyncio.gather(*(c.join() for c in clients))
    try:
        await _measure(clients, stats, warmup_s, seconds, echo=False, pids=pids)
    finally:
        await asyncio.gather(*(c.close() for c in clients), return_exceptions=True)
    return stats


async def _run_echo(
    url: str, games: int, warmup_s: float, seconds: float, think_s: float, pids: list[int]
) -> Stats:
    """As many clients as in the games, in pairs sharing a room like the two seats of a table;
    one of each pair sends (in a game only the player to move does), both receive each update."""
    stats = Stats()
    pairs = [
        (BenchClient(url, stats, f"echo-{i}", think_s=think_s),
         BenchClient(url, stats, f"echo-{i}", think_s=think_s))
        for i in range(games)
    ]  # fmt: skip
    clients = [client for pair in pairs for client in pair]
    await asyncio.gather(*(c.connect() for c in clients))
    await asyncio.gather(*(c.join() for c in clients))
    try:
        senders = [sender for sender, _ in pairs]
        await _measure(senders, stats, warmup_s, seconds, echo=True, pids=pids)
    finally:
        await asyncio.gather(*(c.close() for c in clients), return_exceptions=True)
    return stats


def _sample_view() -> dict[str, Any]:
    """A player's view early in a beginner game: what the echo sends in place of the real view,
    so that both servers carry updates of the same size and shape."""
    import domain
    from server.services.seeds import new_seed

    at_ms = int(time.time() * 1000)
    start = domain.StartMatch(
        match_id="m-echo", ruleset=domain.PRESETS["beginner"], players=("a", "b"), at_ms=at_ms
    )
    state = domain.fold(domain.decide(None, start))
    game = domain.StartGame(seed=new_seed(), packs=None, at_ms=at_ms)
    state = domain.fold(domain.decide(state, game), state)
    view: dict[str, Any] = domain.view(state, 0).to_json()
    return view


def _summary(stats: Stats, seconds: float) -> dict[str, Any]:
    rtts = sorted(stats.rtts)
    if not rtts:
        return {
            "moves_per_s": 0.0,
            "p50_ms": float("nan"),
            "p99_ms": float("nan"),
            "refused": 0,
            "refusals": [],
            "cpu_ms_per_move": None,
            "client_cpu_ms_per_move": None,
        }
    p99 = rtts[min(len(rtts) - 1, int(len(rtts) * 0.99))]
    return {
        "moves_per_s": stats.moves / seconds,
        "p50_ms": statistics.median(rtts) * 1000,
        "p99_ms": p99 * 1000,
        "refused": stats.refused,
        "refusals": stats.refusals,
        "cpu_ms_per_move": None if stats.cpu_s is None else stats.cpu_s * 1000 / stats.moves,
        "client_cpu_ms_per_move": stats.client_cpu_s * 1000 / stats.moves,
    }
