"""`crapette bench server`: N concurrent bot-vs-bot games through real Socket.IO clients.

In the same run, the same asyncio client drives a bare Flask-SocketIO echo server (the ceiling of
the transport on this machine) with the same traffic: as many clients, in pairs that both receive
each update, updates of a real view's size, the same codec, transport and async mode. Prints
moves/s, p50/p99 command round trip (command sent → the sender's first `updates` message: the
command's whole batch; the echo's holds one update) and the ratio to the echo ceiling.
Everything it starts, it stops by PID."""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import click

from bench.players import (
    START_TIMEOUT_S,
    Stats,
    _run_echo,
    _run_server_games,
    _sample_view,
    _start,
    _summary,
)
from bench.procs import free_port, stop_process
from server.runtime.patches import OPTIONAL as OPTIONAL_PATCHES
from server.runtime.patches import WITHOUT_ENV


def _pace_figure(
    server_url: str,
    echo_url: str,
    procs: list[Any],
    games: int,
    warmup: float,
    seconds: float,
    think_ms: float,
    rounds: int,
) -> dict[str, Any]:
    """(b): the games at human pace against the server and the echo, alternately `rounds`
    times; each side's p99 over all of its round trips (at this pace a single pause of either
    loop moves one phase's p99, and a few thousand round trips hold only tens above it)."""
    think_s = think_ms / 1000
    sides: dict[str, list[Stats]] = {"server": [], "echo": []}
    for _ in range(rounds):
        sides["server"].append(
            asyncio.run(
                _run_server_games(server_url, games, warmup, seconds, think_s, [procs[0].pid])
            )
        )
        sides["echo"].append(
            asyncio.run(_run_echo(echo_url, games, warmup, seconds, think_s, [procs[1].pid]))
        )
    pooled = {name: _summary(_pool(stats), seconds * rounds) for name, stats in sides.items()}
    each = [
        _summary(s, seconds)["p99_ms"] / _summary(e, seconds)["p99_ms"]
        for s, e in zip(sides["server"], sides["echo"], strict=True)
    ]
    return {
        "think_ms": think_ms,
        "seconds": seconds,
        "rounds": rounds,
        "server": pooled["server"],
        "echo": pooled["echo"],
        "ratio": pooled["server"]["p99_ms"] / pooled["echo"]["p99_ms"],
        "ratio_each_round": each,
    }


def _pool(runs: list[Stats]) -> Stats:
    pooled = Stats()
    for run in runs:
        pooled.rtts.extend(run.rtts)
        pooled.moves += run.moves
        pooled.refused += run.refused
        pooled.refusals.extend(run.refusals[: 5 - len(pooled.refusals)])
        pooled.client_cpu_s += run.client_cpu_s
        if run.cpu_s is not None:
            pooled.cpu_s = (pooled.cpu_s or 0.0) + run.cpu_s
    return pooled


class LongMatchMover:
    """Plays the long match on while the readers read it (`--long-moves-per-s`): one more event
    every 1/rate s, appended to the store as another writer would. Each read then finds a new
    version, so the server builds a replay per version instead of serving one from its cache:
    a live match being watched."""

    def __init__(self, store_url: str, match_id: str, later: list[Any], rate: float) -> None:
        self.store_url, self.match_id, self.later, self.rate = store_url, match_id, later, rate
        self.appended = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self.rate > 0 and self.later:
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()

    def _run(self) -> None:
        from bench.history import append_later
        from eventstore import open_store

        store = open_store(self.store_url)
        try:
            while self.later and not self._stop.wait(1 / self.rate):
                if not append_later(store, self.match_id, self.later[0]):
                    self.later.clear()  # the server moved the match itself: stop here
                    break
                self.later.pop(0)
                self.appended += 1
        finally:
            store.close()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()


def _table_under_reads(
    url: str,
    match_id: str,
    readers: int,
    warmup_s: float,
    seconds: float,
    pid: int | None,
    tmp_path: Path,
    mover: LongMatchMover | None = None,
) -> tuple[Stats, dict[str, int]]:
    """Moves at one table (two clients as fast as the server answers) while `readers` client
    processes (bench/reader.py) loop on the long match's reads (and `mover` plays it)."""
    procs = []
    outputs = [tmp_path / f"reader-{index}.json" for index in range(readers)]
    for output in outputs:
        command = [sys.executable, "-m", "bench.reader", url, match_id, str(output)]
        procs.append(subprocess.Popen(command))
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        ready = [Path(f"{output}.ready") for output in outputs]
        while not all(r.exists() for r in ready) and time.monotonic() < deadline:
            time.sleep(0.05)
        if mover is not None and readers:
            mover.start()
        stats = asyncio.run(
            _run_server_games(url, 1, warmup_s, seconds, 0.0, [] if pid is None else [pid])
        )
    finally:
        if mover is not None:
            mover.stop()
        for proc in procs:
            stop_process(proc)
    counts: dict[str, int] = {}
    for output in outputs:
        if output.exists():
            for status, n in json.loads(output.read_text()).items():
                counts[status] = counts.get(status, 0) + n
            output.unlink()
        Path(f"{output}.ready").unlink(missing_ok=True)
    return stats, counts


def _stall_figure(
    url: str,
    match_id: str,
    warmup_s: float,
    seconds: float,
    pid: int | None,
    tmp_path: Path,
    mover: LongMatchMover | None = None,
) -> dict[str, Any]:
    """(a): the p99 of one table's moves with 3 readers looping on a long match, over the same
    table's p99 without them (measured in turn, twice each, the worse of each kept)."""
    alone: list[Stats] = []
    loaded: list[tuple[Stats, dict[str, int]]] = []
    for _ in range(2):
        phase = (url, match_id)
        alone.append(_table_under_reads(*phase, 0, warmup_s, seconds, pid, tmp_path)[0])
        loaded.append(_table_under_reads(*phase, 3, warmup_s, seconds, pid, tmp_path, mover))
    quiet = [_summary(stats, seconds) for stats in alone]
    busy = [_summary(stats, seconds) for stats, _ in loaded]
    reads: dict[str, int] = {}
    for _, counts in loaded:
        for status, n in counts.items():
            reads[status] = reads.get(status, 0) + n
    p99_quiet = max(x["p99_ms"] for x in quiet)
    p99_busy = max(x["p99_ms"] for x in busy)
    return {
        "p99_ms_alone": p99_quiet,
        "p99_ms_with_readers": p99_busy,
        "p50_ms_alone": max(x["p50_ms"] for x in quiet),
        "p50_ms_with_readers": max(x["p50_ms"] for x in busy),
        "reads_per_s": sum(reads.values()) / (2 * (seconds + warmup_s)),
        "read_statuses": reads,
        "long_match_events_appended": 0 if mover is None else mover.appended,
        "ratio": p99_busy / p99_quiet if p99_quiet else float("nan"),
    }


def _rss_kb(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def _start_once(store_url: str, tmp_path: Path, label: str) -> tuple[float, int | None]:
    """Seconds from launching `crapette serve` to its first answer, and its RSS then (KiB)."""
    port = free_port()
    command = [
        sys.executable, "-m", "server", "serve", "--host", "127.0.0.1", "--port", str(port),
        "--store", store_url, "--quiet", "--data-dir", str(tmp_path),
    ]  # fmt: skip
    started = time.perf_counter()
    proc = _start(command, f"http://127.0.0.1:{port}/api/server-info", tmp_path / f"{label}.log")
    took = time.perf_counter() - started
    try:
        rss = _rss_kb(proc.pid)
    finally:
        stop_process(proc)
    return took, rss


def _startup_figure(tmp_path: Path, matches: int, events: int, rounds: int) -> dict[str, Any]:
    """(d): start-up time and RSS with `matches` finished matches in the store, over the same
    with an empty store. The first start with history builds the lobby projection (cold); the
    later ones catch up from it (warm), which is what the figure compares."""
    from bench.history import finished_matches
    from eventstore import open_store

    empty = f"sqlite:///{tmp_path / 'empty.sqlite3'}?synchronous=NORMAL"
    full_path = tmp_path / "history.sqlite3"
    full = f"sqlite:///{full_path}?synchronous=NORMAL"
    store = open_store(full)
    try:
        total_events = finished_matches(store, matches, events)
    finally:
        store.close()
    cold = _start_once(full, tmp_path, "cold")
    empty_runs, warm_runs = [], []
    for index in range(rounds):  # alternated, so a change in the machine's load hits both
        empty_runs.append(_start_once(empty, tmp_path, f"empty-{index}"))
        warm_runs.append(_start_once(full, tmp_path, f"warm-{index}"))
    time_empty = statistics.median(t for t, _ in empty_runs)
    time_warm = statistics.median(t for t, _ in warm_runs)
    rss_empty = statistics.median(r or 0 for _, r in empty_runs)
    rss_warm = statistics.median(r or 0 for _, r in warm_runs)
    return {
        "matches": matches,
        "events": total_events,
        "start_s_empty": time_empty,
        "start_s_history": time_warm,
        "start_s_history_cold": cold[0],
        "rss_kib_empty": rss_empty,
        "rss_kib_history": rss_warm,
        "rss_kib_history_cold": cold[1],
        "time_ratio": time_warm / time_empty,
        "rss_ratio": rss_warm / rss_empty if rss_empty else float("nan"),
    }


@click.command("server")
@click.option("--games", default=100, show_default=True, help="Concurrent games.")
@click.option("--seconds", default=8.0, show_default=True, help="Measured time per phase.")
@click.option("--warmup", default=1.0, show_default=True, help="Unmeasured time per phase.")
@click.option(
    "--think-ms",
    default=0.0,
    show_default=True,
    help="Mean pause of each client after each command, drawn from an exponential "
    "distribution (0: as fast as the server answers).",
)
@click.option("--async-mode", type=click.Choice(["eventlet", "threading"]), default="eventlet")
@click.option("--store", "store_url", default=None, help="Store URL (default: a temp SQLite).")
@click.option("--rounds", default=1, show_default=True, help="Alternating server/echo rounds.")
@click.option(
    "--pace-think-ms",
    default=500.0,
    show_default=True,
    help="(b) mean think time of the human-pace phase (same --games; each pause drawn from an "
    "exponential distribution); 0 skips it.",
)
@click.option(
    "--pace-seconds",
    default=None,
    type=float,
    help="(b) measured time of each human-pace phase (default: --seconds). At human pace the "
    "p99 is decided by the few longest pauses: longer phases count more of them.",
)
@click.option(
    "--pace-rounds",
    default=1,
    show_default=True,
    help="(b) alternating server/echo human-pace phases; each side's p99 is taken over the "
    "round trips of all of its phases together.",
)
@click.option(
    "--long-events",
    default=3000,
    show_default=True,
    help="(a) events of the long live match the readers loop on; 0 skips it.",
)
@click.option(
    "--startup-matches",
    default=500,
    show_default=True,
    help="(d) finished matches in the store for the start-up figures; 0 skips it.",
)
@click.option(
    "--startup-events", default=450, show_default=True, help="(d) events per finished match."
)
@click.option(
    "--startup-rounds", default=3, show_default=True, help="(d) starts of each kind (median)."
)
@click.option(
    "--rate-limit",
    "server_limits",
    multiple=True,
    default=["create=off", "join=off"],
    show_default=True,
    help="Passed to the server (every simulated client comes from this one address, and opens "
    "and joins up to --games tables at once; the readers of (a) meet the server's own read "
    "limits).",
)
@click.option(
    "--long-moves-per-s",
    default=0.0,
    show_default=True,
    help="(a) the long match goes on at this many events a second while it is read (0: it "
    "stands still, and after the first read every replay comes from the server's cache).",
)
@click.option(
    "--read-workers",
    default=1,
    show_default=True,
    help="Passed to the server: processes building replays and records (0: in the server).",
)
@click.option(
    "--nodes",
    default=None,
    type=click.IntRange(2, 16),
    help="Instead of the echo comparison: 1 and then N server processes behind HAProxy, sharing "
    "the --store (PostgreSQL) and the --message-queue (Redis).",
)
@click.option(
    "--message-queue",
    default="redis://127.0.0.1:6379/0",
    show_default=True,
    help="With --nodes: the Redis the processes share.",
)
@click.option(
    "--profile",
    "profile_path",
    default=None,
    type=click.Path(dir_okay=False, writable=True),
    help="Sample the server process's CPU time (bench/cpuprofile.py) and write its "
    "collapsed stacks here when it stops (every phase of the run, setup included).",
)
@click.option(
    "--floor-moves",
    type=int,
    default=10_000,
    show_default=True,
    help="(c)'s floor: moves of the same games played in this process with no transport "
    "(bench/floor.py), the game's own CPU per move; 0 skips it.",
)
@click.option(
    "--stock-echo",
    is_flag=True,
    help="Each round also runs the echo on Flask-SocketIO's defaults, without the transport "
    "changes of server/runtime/patches.py that the server and the echo share, and reports the "
    "server's CPU per move against it too.",
)
@click.option(
    "--without",
    "without",
    multiple=True,
    type=click.Choice(OPTIONAL_PATCHES),
    help="Each round also plays the games against a second `crapette serve` with this one patch "
    "of server/runtime/patches.py left out, and reports the server's CPU per move with and "
    "without it (repeatable: a server per patch).",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def server(
    games: int,
    seconds: float,
    warmup: float,
    think_ms: float,
    async_mode: str,
    store_url: str | None,
    rounds: int,
    pace_think_ms: float,
    pace_seconds: float | None,
    pace_rounds: int,
    long_events: int,
    startup_matches: int,
    startup_events: int,
    startup_rounds: int,
    server_limits: tuple[str, ...],
    long_moves_per_s: float,
    read_workers: int,
    nodes: int | None,
    message_queue: str,
    profile_path: str | None,
    floor_moves: int,
    stock_echo: bool,
    without: tuple[str, ...],
    as_json: bool,
) -> None:
    """Bot-vs-bot games over Socket.IO against the server and a bare echo server, and the
    figures of issue 14: (a) one table's moves while 3 clients loop on a long match's replay,
    (b) p99 at human pace, (c) CPU per move, (d) start-up with a long history; each a ratio
    against a baseline measured in the same run. With --nodes, instead: the games against 1 and
    then N server processes behind HAProxy."""
    think_s = think_ms / 1000
    if nodes is not None:
        if not store_url or not store_url.startswith(("postgresql://", "postgres://")):
            raise click.UsageError("--nodes needs --store postgresql://… (shared by the processes)")
        from bench.nodes import bench_nodes

        bench_nodes(
            nodes, games, seconds, warmup, think_s, async_mode, store_url, message_queue, rounds,
            as_json,
        )  # fmt: skip
        return
    rounds_out: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="crapette-bench-") as tmp:
        tmp_path = Path(tmp)
        # The store `crapette serve` uses by default (SQLite, WAL, synchronous=NORMAL).
        store_url = store_url or f"sqlite:///{tmp_path / 'bench.sqlite3'}?synchronous=NORMAL"
        server_port, echo_port = free_port(), free_port()
        server_url = f"http://127.0.0.1:{server_port}"
        echo_url = f"http://127.0.0.1:{echo_port}"
        # With --profile the same `crapette serve`, under the CPU-time sampler.
        runner = ["server"] if profile_path is None else ["bench.cpuprofile", profile_path]

        def serve_command(port: int, store: str) -> list[str]:
            return [
                sys.executable, "-m", *runner, "serve", "--host", "127.0.0.1",
                "--port", str(port), "--store", store, "--async-mode", async_mode, "--quiet",
                *(arg for limit in server_limits for arg in ("--rate-limit", limit)),
                "--read-workers", str(read_workers),
            ]  # fmt: skip

        serve = serve_command(server_port, store_url)
        view_path = tmp_path / "view.json"
        view_path.write_text(json.dumps(_sample_view()))

        def echo_command(port: int, *flavour: str) -> list[str]:
            return [sys.executable, "-m", "bench.echo_server", str(port), async_mode,
                    str(view_path), *flavour]  # fmt: skip

        long_match, mover = None, None
        if long_events:
            from bench.history import long_match_going_on
            from eventstore import open_store

            # Enough events to go on at the rate through both loaded phases, twice.
            later = int(long_moves_per_s * 2 * (seconds + warmup + START_TIMEOUT_S)) + 1
            seeding = open_store(store_url)
            try:
                long_match, events = long_match_going_on(seeding, long_events, later)
            finally:
                seeding.close()
            mover = LongMatchMover(store_url, long_match, events, long_moves_per_s)
        procs = [_start(serve, server_url + "/api/server-info", tmp_path / "server.log")]
        try:
            procs.append(_start(echo_command(echo_port), echo_url + "/ping", tmp_path / "echo.log"))
            stock_url = None
            if stock_echo:
                stock_port = free_port()
                stock_url = f"http://127.0.0.1:{stock_port}"
                stock = echo_command(stock_port, "stock")
                procs.append(_start(stock, stock_url + "/ping", tmp_path / "stock-echo.log"))
            # One more server per patch left out, each on a store of its own.
            lacking: dict[str, tuple[str, subprocess.Popen[bytes]]] = {}
            for name in without:
                port = free_port()
                command = serve_command(
                    port, f"sqlite:///{tmp_path / f'without-{name}.sqlite3'}?synchronous=NORMAL"
                )
                url = f"http://127.0.0.1:{port}"
                env = {**os.environ, WITHOUT_ENV: name}
                proc = _start(command, url + "/api/server-info", tmp_path / f"{name}.log", env)
                procs.append(proc)
                lacking[name] = (url, proc)
            # Server and echo phases alternate, so a change in the machine's load hits both.
            for _ in range(rounds):
                game_stats = asyncio.run(
                    _run_server_games(server_url, games, warmup, seconds, think_s, [procs[0].pid])
                )
                echo_stats = asyncio.run(
                    _run_echo(echo_url, games, warmup, seconds, think_s, [procs[1].pid])
                )
                server_summary = _summary(game_stats, seconds)
                echo_summary = _summary(echo_stats, seconds)
                ceiling = echo_summary["moves_per_s"]
                ratio = server_summary["moves_per_s"] / ceiling if ceiling else 0.0
                # The same ratio from the CPU time of each server process per command: what the
                # throughput ratio would be if each server had a core of its own.
                cpu_server, cpu_echo = (
                    server_summary["cpu_ms_per_move"],
                    echo_summary["cpu_ms_per_move"],
                )
                cpu_ratio = cpu_echo / cpu_server if cpu_server and cpu_echo else None
                rounds_out.append(
                    {
                        "server": server_summary,
                        "echo": echo_summary,
                        "ratio_to_echo": ratio,
                        "cpu_ratio_to_echo": cpu_ratio,
                    }
                )
                for name, (url, proc) in lacking.items():
                    stats = asyncio.run(
                        _run_server_games(url, games, warmup, seconds, think_s, [proc.pid])
                    )
                    cpu_without = _summary(stats, seconds)["cpu_ms_per_move"]
                    # The share of the server's CPU per move (without it) the patch saves.
                    share = 1 - cpu_server / cpu_without if cpu_server and cpu_without else None
                    rounds_out[-1].setdefault("without", {})[name] = {
                        "cpu_ms_per_move": cpu_without,
                        "share": share,
                    }
                if stock_url is not None:
                    stock_stats = asyncio.run(
                        _run_echo(stock_url, games, warmup, seconds, think_s, [procs[2].pid])
                    )
                    stock_summary = _summary(stock_stats, seconds)
                    cpu_stock = stock_summary["cpu_ms_per_move"]
                    rounds_out[-1]["stock_echo"] = stock_summary
                    rounds_out[-1]["cpu_per_move_over_stock_echo"] = (
                        cpu_server / cpu_stock if cpu_server and cpu_stock else None
                    )
            stall = None
            if long_match is not None:
                stall = _stall_figure(
                    server_url, long_match, warmup, seconds, procs[0].pid, tmp_path, mover
                )
            pace = None
            if pace_think_ms:
                pace = _pace_figure(
                    server_url,
                    echo_url,
                    procs,
                    games,
                    warmup,
                    pace_seconds or seconds,
                    pace_think_ms,
                    pace_rounds,
                )
        finally:
            for proc in procs:
                stop_process(proc)
        if profile_path is not None:
            from bench.cpuprofile import summary

            for line in summary(Path(profile_path).read_text(encoding="utf-8")):
                click.echo(line, err=True)
        startup = None
        if startup_matches:
            startup = _startup_figure(tmp_path, startup_matches, startup_events, startup_rounds)
    floor = _floor_figure(games, floor_moves, rounds_out, pace) if floor_moves else None
    # The round with the median ratio is the result; every round is kept in the JSON. (c) is
    # the median of the rounds' own CPU ratios (the median round's can be any of them).
    middle = sorted(rounds_out, key=lambda r: float(r["ratio_to_echo"]))[len(rounds_out) // 2]
    cpu_ratios = [r["cpu_ratio_to_echo"] for r in rounds_out if r["cpu_ratio_to_echo"]]
    cpu = statistics.median(cpu_ratios) if cpu_ratios else None
    result: dict[str, Any] = {
        "games": games,
        "seconds": seconds,
        "async_mode": async_mode,
        "think_ms": think_ms,
        "server_rate_limits": list(server_limits),
        "read_workers": read_workers,
        "long_moves_per_s": long_moves_per_s,
        "rounds": rounds_out,
        **middle,
        "stall": stall,
        "pace": pace,
        "startup": startup,
        "floor": floor,
        # Issue 14's four figures, each against its baseline of this run, and their targets.
        "figures": {
            "a_stall_p99_ratio": None if stall is None else stall["ratio"],
            "b_pace_p99_ratio": None if pace is None else pace["ratio"],
            "c_cpu_per_move_ratio": 1 / cpu if cpu else None,
            "d_startup_time_ratio": None if startup is None else startup["time_ratio"],
            "d_startup_rss_ratio": None if startup is None else startup["rss_ratio"],
        },
        "targets": TARGETS,
    }
    if as_json:
        click.echo(json.dumps(result))
        return
    s, e = result["server"], result["echo"]
    click.echo(
        f"{games} concurrent games, {seconds:.0f} s measured, think {think_ms:.0f} ms, "
        f"async mode {async_mode}"
    )
    click.echo(
        f"server: {s['moves_per_s']:.0f} moves/s, p50 {s['p50_ms']:.2f} ms, "
        f"p99 {s['p99_ms']:.2f} ms, refused {s['refused']}"
    )
    click.echo(
        f"echo:   {e['moves_per_s']:.0f} msgs/s, p50 {e['p50_ms']:.2f} ms, p99 {e['p99_ms']:.2f} ms"
    )
    click.echo(f"ratio to echo ceiling: {result['ratio_to_echo']:.2f}")
    if result["cpu_ratio_to_echo"] is not None:
        click.echo(
            f"server CPU per move {s['cpu_ms_per_move']:.2f} ms, echo CPU per message "
            f"{e['cpu_ms_per_move']:.2f} ms: ratio {result['cpu_ratio_to_echo']:.2f}"
        )
    if rounds > 1:
        ratios = ", ".join(f"{r['ratio_to_echo']:.2f}" for r in rounds_out)
        click.echo(f"ratios of the {rounds} rounds: {ratios} (the median round is shown)")
        cpus = ", ".join(
            f"{1 / r['cpu_ratio_to_echo']:.2f}" for r in rounds_out if r["cpu_ratio_to_echo"]
        )
        click.echo(f"CPU per move / echo's, each round: {cpus} ((c) is their median)")
    for name in without:
        each = [r["without"][name] for r in rounds_out]
        click.echo(
            f"without {name}: CPU per move "
            + ", ".join(f"{r['server']['cpu_ms_per_move']:.3f}" for r in rounds_out)
            + " ms with it, "
            + ", ".join(f"{w['cpu_ms_per_move']:.3f}" for w in each)
            + " ms without; share it saves, each round: "
            + ", ".join("?" if w["share"] is None else f"{w['share']:.0%}" for w in each)
        )
    over_stock = [r["cpu_per_move_over_stock_echo"] for r in rounds_out if "stock_echo" in r]
    if over_stock:
        stock_cpus = ", ".join(f"{r['stock_echo']['cpu_ms_per_move']:.3f}" for r in rounds_out)
        click.echo(
            f"the echo on Flask-SocketIO's defaults: CPU per message {stock_cpus} ms; the "
            f"server's CPU per move over it, each round: "
            f"{', '.join('?' if r is None else f'{r:.2f}' for r in over_stock)}"
        )
    _print_figures(result)


def _floor_figure(
    games: int, moves: int, rounds_out: list[dict[str, Any]], pace: dict[str, Any] | None
) -> dict[str, Any]:
    """The game's own CPU per move, played in this process with no transport (after the servers
    have stopped), and the least (c) could be with it: (echo + game work) / echo, were the
    server's transport to cost exactly what the echo's does. With the human-pace phases, (b)'s
    model (bench/queueing.py) fed from them: the CPU per command (b) would allow, against
    the least a command can cost (the echo's CPU per message at pace + the game's work)."""
    from bench.floor import game_work
    from bench.queueing import p99_ms, service_for_p99

    work = game_work(tables=games, moves=moves, warmup=max(moves // 5, 1))
    # The same with the caches of the core cleared before each move (16 MiB written: four times
    # its L2 here), as at human pace: between two commands the clients' process ran.
    cold = game_work(
        tables=games, moves=max(moves // 5, 1), warmup=max(moves // 25, 1), cold_mib=16
    )
    work["cold_cpu_ms_per_move"] = cold["cpu_ms_per_move"]
    echo_cpus = [r["echo"]["cpu_ms_per_move"] for r in rounds_out if r["echo"]["cpu_ms_per_move"]]
    echo_cpu = statistics.median(echo_cpus) if echo_cpus else None
    work["echo_cpu_ms_per_message"] = echo_cpu
    work["c_floor_ratio"] = (echo_cpu + work["cpu_ms_per_move"]) / echo_cpu if echo_cpu else None
    work["b_model"] = None
    if pace is not None and pace["server"]["cpu_ms_per_move"] and pace["echo"]["cpu_ms_per_move"]:
        mine, echo = pace["server"], pace["echo"]
        # Outside the server: the echo's median round trip less its own CPU per message.
        outside = max(echo["p50_ms"] - echo["cpu_ms_per_move"], 0.0)
        rate = mine["moves_per_s"]
        work["b_model"] = {
            "outside_ms": outside,
            "server_p99_ms_measured": mine["p99_ms"],
            "server_p99_ms_modelled": p99_ms(rate, mine["cpu_ms_per_move"], outside),
            "echo_p99_ms_measured": echo["p99_ms"],
            "echo_p99_ms_modelled": p99_ms(echo["moves_per_s"], echo["cpu_ms_per_move"], outside),
            "cpu_ms_per_command_measured": mine["cpu_ms_per_move"],
            "cpu_ms_per_command_allowed": service_for_p99(
                rate, TARGETS["b_pace_p99_ratio"] * echo["p99_ms"], outside
            ),
            "cpu_ms_per_command_least": echo["cpu_ms_per_move"] + work["cpu_ms_per_move"],
            "cpu_ms_per_command_least_cold": echo["cpu_ms_per_move"] + cold["cpu_ms_per_move"],
        }
    return work


TARGETS = {
    "a_stall_p99_ratio": 2.0,
    "b_pace_p99_ratio": 1.5,
    "c_cpu_per_move_ratio": 2.5,
    "d_startup_time_ratio": 1.5,
    "d_startup_rss_ratio": 1.5,
}


def _print_figures(result: dict[str, Any]) -> None:
    stall, pace, startup = result["stall"], result["pace"], result["startup"]
    if stall is not None:
        click.echo(
            f"(a) one table, p99 {stall['p99_ms_alone']:.2f} ms alone, "
            f"{stall['p99_ms_with_readers']:.2f} ms while 3 clients loop on a long match's "
            f"replay and view?version=1 ({stall['reads_per_s']:.0f} reads/s; the match went "
            f"on by {stall['long_match_events_appended']} events meanwhile; read workers: "
            f"{result['read_workers']})"
        )
    if pace is not None:
        click.echo(
            f"(b) {result['games']} games at {pace['think_ms']:.0f} ms think time, "
            f"{pace['rounds']} × {pace['seconds']:.0f} s each: server p99 "
            f"{pace['server']['p99_ms']:.2f} ms, echo p99 {pace['echo']['p99_ms']:.2f} ms "
            f"(each round's ratio: {', '.join(f'{r:.2f}' for r in pace['ratio_each_round'])})"
        )
    if startup is not None:
        click.echo(
            f"(d) start with {startup['matches']} finished matches ({startup['events']} events): "
            f"{startup['start_s_history']:.2f} s, {startup['rss_kib_history'] / 1024:.0f} MiB "
            f"(first start, projection built: {startup['start_s_history_cold']:.2f} s); "
            f"empty store {startup['start_s_empty']:.2f} s, "
            f"{startup['rss_kib_empty'] / 1024:.0f} MiB"
        )
    floor = result["floor"]
    if floor is not None:
        least = floor["c_floor_ratio"]
        click.echo(
            f"(c)'s floor: the game's own work, {floor['tables']} tables played in this process "
            f"with no transport, {floor['cpu_ms_per_move']:.3f} ms of CPU per move; with the "
            f"echo's transport (median {floor['echo_cpu_ms_per_message'] or 0:.3f} ms) (c) would "
            f"be at least {'?' if least is None else f'{least:.2f}'}"
        )
        model = floor["b_model"]
        if model is not None:
            allowed = model["cpu_ms_per_command_allowed"]
            click.echo(
                f"(b)'s model (Poisson arrivals, exponential service): p99 server "
                f"{model['server_p99_ms_modelled']:.2f} ms (measured "
                f"{model['server_p99_ms_measured']:.2f}), echo "
                f"{model['echo_p99_ms_modelled']:.2f} ms (measured "
                f"{model['echo_p99_ms_measured']:.2f}); (b) would allow "
                f"{'nothing' if allowed is None else f'{allowed:.2f} ms'} of CPU per command at "
                f"pace: measured {model['cpu_ms_per_command_measured']:.2f} ms, the least "
                f"(echo's + the game's work) {model['cpu_ms_per_command_least']:.2f} ms, "
                f"{model['cpu_ms_per_command_least_cold']:.2f} ms with cold caches "
                f"(game work {floor['cold_cpu_ms_per_move']:.3f} ms)"
            )
    for key, value in result["figures"].items():
        if value is None:
            continue
        target = TARGETS[key]
        verdict = "met" if value <= target else "NOT met"
        click.echo(f"  {key}: {value:.2f} (target <= {target}): {verdict}")
