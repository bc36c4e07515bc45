"""`crapette bench server --nodes N`: the same bot-vs-bot games against 1 and then N server
processes behind HAProxy (the shipped deploy/haproxy.cfg), in one run.

The processes share one PostgreSQL store (a schema of their own for each phase, dropped after it)
and one Redis (message queue, presence, leases), as `docs/deploy.md` deploys them. Clients
connect through the balancer without a cookie, so the two seats of a game usually sit on
different processes, as they would in a club. Prints moves/s, p50/p99 command round trip, and
the CPU each server process used per move; the ratio N/1 of moves/s is the gain."""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any

import click

from bench.balancer import Balancer, BalancerError
from bench.players import _run_server_games, _start, _summary
from bench.procs import free_port, stop_process


def _schema_url(store_url: str, schema: str) -> str:
    separator = "&" if "?" in store_url else "?"
    return f"{store_url}{separator}schema={schema}"


def _drop(url: str) -> None:
    from eventstore.postgres import PostgresStore

    store = PostgresStore(url, pool_size=1)
    try:
        store.drop()
    finally:
        store.close()


def _phase(
    count: int,
    games: int,
    seconds: float,
    warmup: float,
    think_s: float,
    async_mode: str,
    store_url: str,
    message_queue: str,
    work: Path,
) -> dict[str, Any]:
    """One measurement with `count` processes: a fresh schema, the processes, HAProxy."""
    url = _schema_url(store_url, f"bench_nodes_{uuid.uuid4().hex[:10]}")
    ports = {f"n{i + 1}": free_port() for i in range(count)}
    procs = []
    balancer: Balancer | None = None
    try:
        for name, port in ports.items():
            serve = [
                sys.executable, "-m", "server", "serve", "--host", "127.0.0.1",
                "--port", str(port), "--store", url, "--async-mode", async_mode, "--quiet",
                "--message-queue", message_queue, "--node-id", name, "--behind-proxy",
                # Every simulated player comes from this one address (through HAProxy's).
                "--rate-limit", "all=off",
            ]  # fmt: skip
            ping = f"http://127.0.0.1:{port}/healthz"
            procs.append(_start(serve, ping, work / f"{name}-{count}.log"))
        balancer = Balancer(work, free_port(), ports).start()
        stats = asyncio.run(
            _run_server_games(balancer.url, games, warmup, seconds, think_s, [p.pid for p in procs])
        )
    except BalancerError as exc:
        raise click.ClickException(str(exc)) from None
    finally:
        if balancer is not None:
            balancer.stop()
        for proc in procs:
            stop_process(proc)
        _drop(url)
    summary = _summary(stats, seconds)
    moves = max(1, stats.moves)
    summary["processes"] = count
    summary["cpu_ms_per_move_by_process"] = [
        round(cpu * 1000 / moves, 3) for cpu in stats.cpu_by_process
    ]
    summary["cpu_share_by_process"] = [
        round(cpu / seconds, 3) for cpu in stats.cpu_by_process
    ]  # cores busy: 1.0 = one core the whole time
    summary["client_cpu_share"] = round(stats.client_cpu_s / seconds, 3)
    return summary


def bench_nodes(
    nodes: int,
    games: int,
    seconds: float,
    warmup: float,
    think_s: float,
    async_mode: str,
    store_url: str,
    message_queue: str,
    rounds: int,
    as_json: bool,
) -> None:
    phases: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="crapette-bench-nodes-") as tmp:
        work = Path(tmp)
        # 1 and N alternate, so that a change in the machine's load hits both.
        for _ in range(rounds):
            for count in (1, nodes):
                phases.append(
                    _phase(
                        count,
                        games,
                        seconds,
                        warmup,
                        think_s,
                        async_mode,
                        store_url,
                        message_queue,
                        work,
                    )  # fmt: skip
                )
    one = _median([p for p in phases if p["processes"] == 1])
    many = _median([p for p in phases if p["processes"] == nodes])
    gain = many["moves_per_s"] / one["moves_per_s"] if one["moves_per_s"] else 0.0
    result = {
        "games": games,
        "seconds": seconds,
        "think_ms": think_s * 1000,
        "async_mode": async_mode,
        "nodes": nodes,
        "one": one,
        "many": many,
        "gain": gain,
        "phases": phases,
    }
    if as_json:
        click.echo(json.dumps(result))
        return
    click.echo(
        f"{games} concurrent games through HAProxy, {seconds:.0f} s measured per phase, "
        f"think {think_s * 1000:.0f} ms, async mode {async_mode}"
    )
    for phase in (one, many):
        cpu = ", ".join(f"{c:.2f}" for c in phase["cpu_ms_per_move_by_process"])
        busy = ", ".join(f"{c:.2f}" for c in phase["cpu_share_by_process"])
        click.echo(
            f"{phase['processes']} process(es): {phase['moves_per_s']:.0f} moves/s, "
            f"p50 {phase['p50_ms']:.2f} ms, p99 {phase['p99_ms']:.2f} ms, "
            f"refused {phase['refused']}; CPU ms/move per process [{cpu}], "
            f"cores busy per process [{busy}], clients {phase['client_cpu_share']:.2f}"
        )
    click.echo(f"gain of {nodes} processes over 1: {gain:.2f}x moves/s")


def _median(phases: list[dict[str, Any]]) -> dict[str, Any]:
    ordered = sorted(phases, key=lambda p: float(p["moves_per_s"]))
    return ordered[len(ordered) // 2]
