"""`crapette bench store`: the event store against baselines measured in the same run.

1. Durable appends/s (one event per append, each its own committed transaction) of the store vs
   raw sqlite3 doing the same inserts into the same table with the same WAL/synchronous settings
   (target: >= 0.8x raw).
2. Time to read and fold a 500-event stream vs the `eventsourcing` library rebuilding a
   500-event aggregate from the same kind of database (target: >= 5x faster).
3. The same for PostgreSQL when it is reachable (raw psycopg inserts; eventsourcing.postgres).

Runs alternate between the store and its baseline in rounds, so drift in the machine's speed
affects both sides alike."""

from __future__ import annotations

import functools
import gc
import json
import os
import sqlite3
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, NamedTuple

import click

from eventstore import NewEvent, RecordedEvent, StoreUnavailableError, open_store
from eventstore.base import EventStore

DEFAULT_POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/test"
APPEND_TARGET = 0.8
REBUILD_TARGET = 5.0
STREAMS = 16  # appends go round-robin over a few streams, like tables in play
ROUNDS = 10


def _payload(i: int) -> dict[str, Any]:
    """A payload shaped like a CardMoved event."""
    return {
        "seat": i % 2,
        "src": f"T{i % 8}",
        "dst": f"F{i % 8}",
        "card": "7H/1",
        "fault": None,
        "at_ms": 1_700_000_000_000 + i,
    }


# -- appends -----------------------------------------------------------------------------------


def _store_appender(store: EventStore) -> Callable[[int], None]:
    versions = [store.stream_version(f"bench-{s}") for s in range(STREAMS)]

    def append(i: int) -> None:
        s = i % STREAMS
        event = NewEvent("CardMoved", _payload(i))
        versions[s] = store.append(f"bench-{s}", [event], versions[s])

    return append


def _raw_sqlite_appender(path: Path, synchronous: str) -> tuple[Callable[[int], None], Any]:
    from eventstore.sqlite import INSERT_SQL, SCHEMA_SQL

    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute(f"PRAGMA synchronous={synchronous}")
    db.execute(SCHEMA_SQL)
    versions = [0] * STREAMS

    def append(i: int) -> None:
        s = i % STREAMS
        versions[s] += 1
        db.execute("BEGIN")
        db.execute(
            INSERT_SQL,
            (
                f"raw-{s}",
                versions[s],
                "CardMoved",
                json.dumps(_payload(i), separators=(",", ":")),
                "{}",
                uuid.uuid4().hex,
                1,
                int(time.time() * 1000),
            ),
        )
        db.execute("COMMIT")

    return append, db


def _raw_postgres_appender(url: str, schema: str) -> tuple[Callable[[int], None], Any]:
    import psycopg
    from psycopg import sql

    from eventstore.postgres import split_url

    conninfo, _ = split_url(url)
    conn = psycopg.connect(conninfo)
    table = sql.Identifier(schema, "events")
    position = [0]
    versions = [0] * STREAMS
    insert = sql.SQL(
        "INSERT INTO {} (position, stream, version, type, data, metadata, event_id,"
        " schema_version, recorded_at_ms) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)"
    ).format(table)

    def append(i: int) -> None:
        s = i % STREAMS
        versions[s] += 1
        position[0] += 1
        conn.execute(
            insert,
            (
                position[0],
                f"raw-{s}",
                versions[s],
                "CardMoved",
                json.dumps(_payload(i), separators=(",", ":")),
                "{}",
                uuid.uuid4().hex,
                1,
                int(time.time() * 1000),
            ),
        )
        conn.commit()

    return append, conn


def _race(contestants: dict[str, Callable[[int], None]], appends: int) -> dict[str, float]:
    """Appends/s of each contestant, in ROUNDS alternating rounds (the order flips each round),
    so that a slower or busier moment of the machine weighs on both sides alike."""
    elapsed = dict.fromkeys(contestants, 0.0)
    per_round = max(1, appends // ROUNDS)
    order = list(contestants)
    counter = 0
    for _ in range(ROUNDS):
        for name in order:
            append = contestants[name]
            start = time.perf_counter()
            for _ in range(per_round):
                append(counter)
                counter += 1
            elapsed[name] += time.perf_counter() - start
        order.reverse()
    return {name: per_round * ROUNDS / seconds for name, seconds in elapsed.items()}


# -- rebuilds ----------------------------------------------------------------------------------


def fold(events: Iterable[RecordedEvent]) -> dict[str, Any]:
    """A reducer standing in for a game fold (the store knows no cards): what the eventsourcing
    aggregate below keeps, computed from the payloads."""
    state: dict[str, Any] = {"moves": 0, "last": None, "version": 0}
    for event in events:
        if event.type == "CardMoved":
            data = event.data
            state["moves"] += 1
            state["last"] = (data["src"], data["dst"], data["card"])
        state["version"] = event.version
    return state


class Timing(NamedTuple):
    best_ms: float  # the run least disturbed by other processes: what the code itself costs
    median_ms: float


def _paired_ms(
    first: Callable[[], object], second: Callable[[], object], repeats: int
) -> tuple[Timing, Timing]:
    """Times of two rebuilds run turn and turn about, so that load on the machine falls on both
    alike. The comparison uses the best run of each (timeit's advice): on a busy machine a
    median of a 2 ms run catches a scheduler time slice now and then, which a 20 ms run absorbs,
    and that would flatter the slower side."""
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeats):
        for run, bucket in ((first, times[0]), (second, times[1])):
            bucket.append(_timed(run) * 1000)
    a, b = times
    return Timing(min(a), statistics.median(a)), Timing(min(b), statistics.median(b))


def _timed(run: Callable[[], object]) -> float:
    """Seconds one run takes, with the cyclic garbage collector out of the way (as timeit
    does): otherwise one side pays for collecting the other side's garbage."""
    gc.collect()
    gc.disable()
    try:
        start = time.perf_counter()
        run()
        return time.perf_counter() - start
    finally:
        gc.enable()


def _best_ms(run: Callable[[], object], repeats: int) -> float:
    return min(_timed(run) for _ in range(repeats)) * 1000


@functools.cache
def _eventsourcing_classes() -> tuple[type, type]:
    """The aggregate and application, defined once (eventsourcing registers classes by topic);
    imported lazily so that `crapette` runs where the test extras are not installed."""
    from uuid import UUID

    from eventsourcing.application import Application
    from eventsourcing.domain import Aggregate, event

    class Table(Aggregate):
        @event("Created")
        def __init__(self, name: str) -> None:
            self.name = name
            self.moves = 0
            self.last: tuple[str, str, str] | None = None

        @event("CardMoved")
        def move(self, seat: int, src: str, dst: str, card: str, fault: None, at_ms: int) -> None:
            self.moves += 1
            self.last = (src, dst, card)

    class Tables(Application[UUID]):
        pass

    return Table, Tables


def _eventsourcing_rebuilder(env: dict[str, str], events: int) -> Callable[[], object]:
    Table, Tables = _eventsourcing_classes()
    app = Tables(env=env)
    table = Table(name="bench")
    for i in range(events - 1):
        table.move(**_payload(i))
    app.save(table)
    table_id = table.id

    def rebuild() -> object:
        rebuilt = app.repository.get(table_id)
        assert rebuilt.version == events
        return rebuilt

    return rebuild


def _store_rebuilder(store: EventStore, events: int) -> Callable[[], object]:
    stream = f"rebuild-{uuid.uuid4().hex[:8]}"
    version = store.append(stream, [NewEvent("Created", {"name": "bench"})], 0)
    for start in range(0, events - 1, 50):
        batch = [
            NewEvent("CardMoved", _payload(i)) for i in range(start, min(start + 50, events - 1))
        ]
        version = store.append(stream, batch, version)

    def rebuild() -> object:
        state = fold(store.read(stream))
        assert state["version"] == events
        return state

    return rebuild


def _real_match_payloads(count: int) -> list[tuple[str, dict[str, Any]]]:
    """The first `count` events of a match played by random legal moves (classic rules), as
    stored payloads. Imported lazily: the benchmark of the store alone needs no domain."""
    import random

    from domain import (
        PLAY_ACTIONS,
        Act,
        Command,
        Ruleset,
        StartGame,
        StartMatch,
        decide_and_fold,
        event_to_payload,
        legal_actions,
    )

    rng = random.Random(7)
    at_ms = 1_700_000_000_000
    events, state = decide_and_fold(
        None, StartMatch("bench", Ruleset.preset("classic"), ("Ann", "Bob"), at_ms)
    )
    while len(events) < count and not state.finished:
        at_ms += 1000
        if state.game is None or state.game.over:
            command: Command = StartGame(
                seed=f"{rng.getrandbits(256):064x}", packs=None, at_ms=at_ms
            )
        else:
            seat = state.game.to_move
            actions = [a for a in legal_actions(state, seat) if isinstance(a, PLAY_ACTIONS)]
            command = Act(rng.choice(actions), at_ms)
        new_events, state = decide_and_fold(state, command)
        events.extend(new_events)
    return [event_to_payload(event) for event in events[:count]]


def _domain_rebuild(store: EventStore, events: int, repeats: int) -> dict[str, Any]:
    """Read and fold a real match stream with `domain.fold`: what the server pays to load a
    match. Reported beside the target comparison, which uses the simple reducer."""
    try:
        from domain import event_from_payload
        from domain import fold as domain_fold

        payloads = _real_match_payloads(events)
    except Exception as exc:  # the domain is another part's work in progress: report, go on
        return {"skipped": f"{type(exc).__name__}: {exc}"}
    stream = f"match-{uuid.uuid4().hex[:8]}"
    store.append(stream, [NewEvent(kind, data) for kind, data in payloads], 0)

    def rebuild() -> object:
        return domain_fold(event_from_payload(e.type, e.data) for e in store.read(stream))

    return {
        "domain_events": len(payloads),
        "store_read_ms": round(_best_ms(lambda: store.read(stream), repeats), 3),
        "store_read_and_domain_fold_ms": round(_best_ms(rebuild, repeats), 3),
    }


# -- the two databases -------------------------------------------------------------------------


def bench_sqlite(appends: int, events: int, repeats: int, synchronous: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="crapette-bench-") as folder:
        root = Path(folder)
        store = open_store(f"sqlite:///{root / 'store.db'}", synchronous=synchronous)
        raw_append, raw_db = _raw_sqlite_appender(root / "raw.db", synchronous)
        try:
            rates = _race({"store": _store_appender(store), "raw": raw_append}, appends)
            es_env = {
                "PERSISTENCE_MODULE": "eventsourcing.sqlite",
                "SQLITE_DBNAME": str(root / "eventsourcing.db"),
            }
            store_rebuild, es_rebuild = _paired_ms(
                _store_rebuilder(store, events), _eventsourcing_rebuilder(es_env, events), repeats
            )
            real_match = _domain_rebuild(store, events, repeats)
        finally:
            store.close()
            raw_db.close()
    figures = _figures(
        f"SQLite (WAL, synchronous={synchronous})",
        "raw sqlite3",
        appends,
        events,
        repeats,
        rates,
        store_rebuild,
        es_rebuild,
    )
    figures["real_match"] = real_match
    return figures


def bench_postgres(url: str, appends: int, events: int, repeats: int) -> dict[str, Any]:
    import urllib.parse

    from eventstore.postgres import PostgresStore

    schema = f"bench_{uuid.uuid4().hex[:10]}"
    raw_schema = f"{schema}_raw"
    separator = "&" if "?" in url else "?"
    store = PostgresStore(f"{url}{separator}schema={schema}", pool_size=2, connect_timeout=3)
    try:
        raw_tables = PostgresStore(f"{url}{separator}schema={raw_schema}", pool_size=1)
        try:
            raw_append, raw_conn = _raw_postgres_appender(url, raw_schema)
            try:
                rates = _race({"store": _store_appender(store), "raw": raw_append}, appends)
            finally:
                raw_conn.close()
        finally:
            raw_tables.drop()
            raw_tables.close()
        parts = urllib.parse.urlsplit(url)
        es_env = {
            "PERSISTENCE_MODULE": "eventsourcing.postgres",
            "POSTGRES_DBNAME": parts.path.lstrip("/") or "postgres",
            "POSTGRES_HOST": parts.hostname or "127.0.0.1",
            "POSTGRES_PORT": str(parts.port or 5432),
            "POSTGRES_USER": urllib.parse.unquote(parts.username or "postgres"),
            "POSTGRES_PASSWORD": urllib.parse.unquote(parts.password or ""),
            "POSTGRES_SCHEMA": schema,  # dropped with the store's tables below
        }
        store_rebuild, es_rebuild = _paired_ms(
            _store_rebuilder(store, events), _eventsourcing_rebuilder(es_env, events), repeats
        )
    finally:
        store.drop()
        store.close()
    return _figures(
        "PostgreSQL (synchronous_commit=on)",
        "raw psycopg",
        appends,
        events,
        repeats,
        rates,
        store_rebuild,
        es_rebuild,
    )


def _figures(
    backend: str,
    baseline: str,
    appends: int,
    events: int,
    repeats: int,
    rates: dict[str, float],
    store_rebuild: Timing,
    eventsourcing_rebuild: Timing,
) -> dict[str, Any]:
    append_ratio = rates["store"] / rates["raw"]
    speedup = eventsourcing_rebuild.best_ms / store_rebuild.best_ms
    return {
        "backend": backend,
        "baseline": baseline,
        "appends": appends,
        "store_appends_per_s": round(rates["store"], 1),
        "raw_appends_per_s": round(rates["raw"], 1),
        "append_ratio": round(append_ratio, 3),
        "append_target": APPEND_TARGET,
        "append_ok": append_ratio >= APPEND_TARGET,
        "rebuild_events": events,
        "rebuild_repeats": repeats,
        "store_rebuild_ms": round(store_rebuild.best_ms, 3),
        "eventsourcing_rebuild_ms": round(eventsourcing_rebuild.best_ms, 3),
        "store_rebuild_median_ms": round(store_rebuild.median_ms, 3),
        "eventsourcing_rebuild_median_ms": round(eventsourcing_rebuild.median_ms, 3),
        "rebuild_speedup": round(speedup, 2),
        "rebuild_target": REBUILD_TARGET,
        "rebuild_ok": speedup >= REBUILD_TARGET,
    }


def _print_figures(f: dict[str, Any]) -> None:
    def verdict(ok: bool) -> str:
        return "meets target" if ok else "BELOW TARGET"

    click.echo(f"{f['backend']}: {f['appends']} appends of one event, each committed")
    click.echo(f"  event store        {f['store_appends_per_s']:>10.0f} appends/s")
    click.echo(f"  {f['baseline']:<18} {f['raw_appends_per_s']:>10.0f} appends/s")
    click.echo(
        f"  ratio              {f['append_ratio']:>10.2f}x  (target >= {APPEND_TARGET}x, "
        f"{verdict(f['append_ok'])})"
    )
    click.echo(f"  rebuild of {f['rebuild_events']} events (best of {f['rebuild_repeats']}):")
    click.echo(f"  store read + fold  {f['store_rebuild_ms']:>10.2f} ms")
    click.echo(f"  eventsourcing get  {f['eventsourcing_rebuild_ms']:>10.2f} ms")
    click.echo(
        f"  speed-up           {f['rebuild_speedup']:>10.2f}x  (target >= {REBUILD_TARGET}x, "
        f"{verdict(f['rebuild_ok'])})"
    )
    real = f.get("real_match")
    if real is not None and "skipped" in real:
        click.echo(f"  real match rebuild: skipped ({real['skipped']})")
    elif real is not None:
        click.echo(f"  a real match of {real['domain_events']} events (random legal play):")
        click.echo(f"  store read         {real['store_read_ms']:>10.2f} ms")
        click.echo(f"  read + domain.fold {real['store_read_and_domain_fold_ms']:>10.2f} ms")


@click.command("store")
@click.option("--json", "as_json", is_flag=True, help="Print every figure as one JSON object.")
@click.option(
    "--postgres-url",
    default=lambda: os.environ.get("CRAPETTE_POSTGRES_URL", DEFAULT_POSTGRES_URL),
    show_default="$CRAPETTE_POSTGRES_URL or " + DEFAULT_POSTGRES_URL,
    help="PostgreSQL to measure too (skipped with a reason when unreachable; '' to skip).",
)
@click.option("--appends", default=2000, show_default=True, help="Appends per contestant.")
@click.option("--events", default=500, show_default=True, help="Events in the rebuilt stream.")
@click.option(
    "--repeats", default=30, show_default=True, help="Rebuilds timed (best kept, median in --json)."
)
@click.option(
    "--synchronous",
    type=click.Choice(["FULL", "NORMAL"], case_sensitive=False),
    default="FULL",
    show_default=True,
    help="SQLite synchronous setting, the same for the store and raw sqlite3.",
)
def store(
    as_json: bool, postgres_url: str, appends: int, events: int, repeats: int, synchronous: str
) -> None:
    """Event store: durable appends/s vs raw sqlite3, and rebuild time vs eventsourcing."""
    results: dict[str, Any] = {
        "sqlite": bench_sqlite(appends, events, repeats, synchronous.upper())
    }
    if not postgres_url:
        results["postgres"] = {"skipped": "no --postgres-url given"}
    else:
        try:
            results["postgres"] = bench_postgres(postgres_url, appends, events, repeats)
        except StoreUnavailableError as exc:  # raised before anything was measured
            results["postgres"] = {"skipped": str(exc).splitlines()[0]}
    if as_json:
        click.echo(json.dumps(results, indent=2))
        return
    _print_figures(results["sqlite"])
    if "skipped" in results["postgres"]:
        click.echo(f"PostgreSQL: skipped ({results['postgres']['skipped']})")
    else:
        _print_figures(results["postgres"])
