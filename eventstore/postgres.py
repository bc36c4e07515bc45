"""The PostgreSQL backend (`postgresql://user@host:port/db[?schema=name]`), psycopg 3 with a
psycopg_pool connection pool.

Global commit order: PostgreSQL sequences hand out numbers in call order, not commit order, so a
reader could see position 11 committed before position 10 and skip 10 for ever. Instead each
append (the server-side function `append_events`, one statement in its own transaction) first
takes the store's transaction-level advisory lock, then numbers its events from max(position) + 1.
The lock is released only after the commit is visible, so appends are serialised from that point:
positions are assigned in commit order, without gaps (a refused append writes nothing), and any
snapshot that sees position p also sees every position below p. The price is one writer at a time
across the whole store, like SQLite - ample for a game server. (A one-row counter table updated
under its row lock gives the same order, but measured 15-40% slower: every append then also
writes, and leaves behind, a new version of that row.)

Durability: PostgreSQL's default `synchronous_commit=on`; an acknowledged append is on disk.

psycopg 3 is not eventlet-aware: a process that calls this store from greenthreads must make
psycopg wait greenly itself (the server does, in `server.runtime.patches`; docs/eventstore.md)."""

from __future__ import annotations

import contextlib
import threading
import time
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
import psycopg_pool
from psycopg import sql

from eventstore.base import EventStore, Existing, Row, RowTuple
from eventstore.errors import (
    ConcurrencyError,
    DuplicateEventError,
    EventStoreError,
    InvalidEventError,
    StoreUnavailableError,
)
from eventstore.events import PreparedEvent
from eventstore.subscription import Subscription

_COLUMNS = (
    "stream, version, position, type, data, metadata, event_id, schema_version, recorded_at_ms"
)


_MAX_VERSION = 2**31 - 1


# How long a listening subscription waits before re-reading anyway (a lost notification costs
# at most this), and how often the listener looks whether the store was closed.
_LISTEN_FALLBACK_S = 1.0

_VERSION_CONFLICT = "CR409"  # the SQLSTATE append_events raises on an expected-version mismatch

# The whole append as one server-side function, so that an append costs one round trip. The
# advisory lock taken first is held until the statement's transaction has committed: that is
# what makes positions follow commit order (see the module docstring).
_LOCK_CLASS = 4242  # first key of our advisory locks; the second is hashtext('eventstore:<schema>')
# The start both append functions share: take the lock, read the last position and the stream's
# version, refuse an expected version that does not match.
_LOCK_AND_CHECK = """
    PERFORM pg_advisory_xact_lock({lock_class}, hashtext({lock_name}));
    SELECT coalesce(max(position), 0) INTO head FROM {schema}.events;
    SELECT coalesce(max(version), 0) INTO actual FROM {schema}.events WHERE stream = p_stream;
    IF NOT (p_expected = -2 OR (p_expected = -1 AND actual = 0) OR p_expected = actual) THEN
        RAISE EXCEPTION 'stream % is at version %', p_stream, actual
            USING ERRCODE = 'CR409', DETAIL = actual::text;
    END IF;"""

_APPEND_FUNCTION = (
    """
CREATE OR REPLACE FUNCTION {schema}.append_events(
    p_stream text, p_expected integer, p_types text[], p_data text[], p_metadata text[],
    p_ids text[], p_schema_versions integer[], p_now bigint) RETURNS integer
LANGUAGE plpgsql AS $body$
DECLARE
    n integer := cardinality(p_ids);
    head bigint;
    actual integer;
BEGIN"""
    + _LOCK_AND_CHECK
    + """
    INSERT INTO {schema}.events (position, stream, version, type, data, metadata, event_id,
                                 schema_version, recorded_at_ms)
    SELECT head + i, p_stream, actual + i, p_types[i], p_data[i], p_metadata[i], p_ids[i],
           p_schema_versions[i], p_now
    FROM generate_series(1, n) AS i;
    PERFORM pg_notify({channel}, '');
    RETURN actual + n;
END
$body$
"""
)

# The same for the usual one-event append, with plain parameters: arrays cost psycopg an escaping
# pass per element on the client and PostgreSQL a parse on the server, for nothing here.
_APPEND_ONE_FUNCTION = (
    """
CREATE OR REPLACE FUNCTION {schema}.append_event(
    p_stream text, p_expected integer, p_type text, p_data text, p_metadata text,
    p_id text, p_schema_version integer, p_now bigint) RETURNS integer
LANGUAGE plpgsql AS $body$
DECLARE
    head bigint;
    actual integer;
BEGIN"""
    + _LOCK_AND_CHECK
    + """
    INSERT INTO {schema}.events (position, stream, version, type, data, metadata, event_id,
                                 schema_version, recorded_at_ms)
    VALUES (head + 1, p_stream, actual + 1, p_type, p_data, p_metadata, p_id,
            p_schema_version, p_now);
    PERFORM pg_notify({channel}, '');
    RETURN actual + 1;
END
$body$
"""
)


def split_url(url: str) -> tuple[str, str]:
    """Separate our own `schema=` query parameter from the libpq connection URL."""
    parts = urllib.parse.urlsplit(url)
    query = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
    schema = "public"
    kept = []
    for key, value in query:
        if key == "schema":
            schema = value
        else:
            kept.append((key, value))
    if not schema.isidentifier():
        raise InvalidEventError(f"schema name {schema!r} must be an identifier")
    conninfo = urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(kept)))
    return conninfo, schema


class PostgresStore(EventStore):
    def __init__(
        self,
        url: str,
        *,
        pool_size: int = 10,
        connect_timeout: float = 5.0,
        **options: Any,
    ) -> None:
        super().__init__(**options)
        conninfo, self.schema = split_url(url)
        self._lock_name = f"eventstore:{self.schema}"
        # Every append NOTIFYs this channel when it commits (see `subscribe`).
        self.channel = f"eventstore_{self.schema}"[:63]
        self._conninfo = conninfo
        self._connect_timeout = connect_timeout
        self._listener: threading.Thread | None = None
        self._listen_lock = threading.Lock()
        parts = urllib.parse.urlsplit(conninfo)  # named in errors, without the password
        self._where = f"{parts.hostname or 'localhost'}:{parts.port or 5432}{parts.path}"
        s = sql.Identifier(self.schema)
        self._sql = {
            "append": sql.SQL(
                "SELECT {}.append_events(%s, %s, %s, %s, %s, %s, %s::integer[], %s)"
            ).format(s),
            "append_one": sql.SQL("SELECT {}.append_event(%s, %s, %s, %s, %s, %s, %s, %s)").format(
                s
            ),
            "version": sql.SQL(
                "SELECT coalesce(max(version), 0) FROM {}.events WHERE stream = %s"
            ).format(s),
            "existing": sql.SQL(
                "SELECT event_id, stream, version FROM {}.events WHERE event_id = ANY(%s)"
            ).format(s),
            "read": sql.SQL(
                "SELECT " + _COLUMNS + " FROM {}.events"
                " WHERE stream = %s AND version >= %s AND version <= %s ORDER BY version"
            ).format(s),
            "read_all": sql.SQL(
                "SELECT " + _COLUMNS + " FROM {}.events WHERE position >= %s"
                " ORDER BY position LIMIT %s"
            ).format(s),
            # A loose index scan: one index seek per distinct stream name.
            "streams": sql.SQL(
                "WITH RECURSIVE names(stream) AS ("
                " (SELECT stream FROM {s}.events WHERE stream >= %s ORDER BY stream LIMIT 1)"
                " UNION ALL SELECT (SELECT e.stream FROM {s}.events e WHERE e.stream > n.stream"
                " ORDER BY e.stream LIMIT 1) FROM names n WHERE n.stream IS NOT NULL)"
                " SELECT stream FROM names WHERE stream IS NOT NULL AND starts_with(stream, %s)"
            ).format(s=s),
            "last": sql.SQL("SELECT coalesce(max(position), 0) FROM {}.events").format(s),
            "copy": sql.SQL(
                "INSERT INTO {}.events (position, stream, version, type, data, metadata,"
                " event_id, schema_version, recorded_at_ms)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)"
            ).format(s),
        }
        try:
            self._pool = psycopg_pool.ConnectionPool(
                conninfo,
                min_size=1,
                max_size=pool_size,
                kwargs={"autocommit": True, "connect_timeout": max(1, round(connect_timeout))},
                timeout=connect_timeout,
                open=False,
                name=f"eventstore-{self.schema}",
            )
            self._pool.open(wait=True, timeout=connect_timeout)
        except (psycopg.Error, psycopg_pool.PoolTimeout) as exc:
            self._pool.close()
            raise StoreUnavailableError(f"cannot reach PostgreSQL at {self._where}: {exc}") from exc
        self._create_schema()

    def _create_schema(self) -> None:
        s = sql.Identifier(self.schema)
        with self._connection() as conn, conn.transaction():
            # Two processes opening a new store at once must not both create the tables.
            conn.execute(
                "SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (_LOCK_CLASS, self._lock_name)
            )
            conn.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(s))
            conn.execute(
                sql.SQL(
                    "CREATE TABLE IF NOT EXISTS {}.events ("
                    " position bigint PRIMARY KEY,"
                    " stream text NOT NULL,"
                    " version integer NOT NULL,"
                    " type text NOT NULL,"
                    " data text NOT NULL,"
                    " metadata text NOT NULL,"
                    " event_id text NOT NULL UNIQUE,"
                    " schema_version integer NOT NULL,"
                    " recorded_at_ms bigint NOT NULL,"
                    " UNIQUE (stream, version))"
                ).format(s)
            )
            for function in (_APPEND_FUNCTION, _APPEND_ONE_FUNCTION):
                conn.execute(
                    sql.SQL(function).format(
                        schema=s,
                        lock_class=_LOCK_CLASS,
                        lock_name=sql.Literal(self._lock_name),
                        channel=sql.Literal(self.channel),
                    )
                )

    @contextmanager
    def _connection(self) -> Iterator[psycopg.Connection[Any]]:
        """A pooled connection; psycopg and pool errors come out as the store's own."""
        try:
            with self._pool.connection() as conn:
                yield conn
        except psycopg_pool.PoolTimeout as exc:
            raise StoreUnavailableError(
                f"no PostgreSQL connection available at {self._where}: {exc}"
            ) from exc
        except psycopg.OperationalError as exc:
            # Connection lost, server shutting down... For an append the outcome is unknown:
            # retrying with the same event ids is safe, the append is idempotent.
            raise StoreUnavailableError(f"PostgreSQL at {self._where}: {exc}") from exc
        except psycopg.Error as exc:
            raise EventStoreError(f"PostgreSQL at {self._where}: {exc}") from exc

    def _append(self, stream: str, events: list[PreparedEvent], expected: int) -> int:
        with self._connection() as conn:
            try:
                # One statement on an autocommit connection: one round trip, one transaction.
                now_ms = int(time.time() * 1000)
                if len(events) == 1:
                    e = events[0]
                    params: tuple[Any, ...] = (
                        stream,
                        expected,
                        e.type,
                        e.data_json,
                        e.metadata_json,
                        e.event_id,
                        e.schema_version,
                        now_ms,
                    )
                    row = conn.execute(self._sql["append_one"], params).fetchone()
                else:
                    params = (
                        stream,
                        expected,
                        [e.type for e in events],
                        [e.data_json for e in events],
                        [e.metadata_json for e in events],
                        [e.event_id for e in events],
                        [e.schema_version for e in events],
                        now_ms,
                    )
                    row = conn.execute(self._sql["append"], params).fetchone()
                assert row is not None
                return int(row[0])
            except psycopg.errors.UniqueViolation:  # an event id is already stored
                conflict = ConcurrencyError(stream, expected, self._version_on(conn, stream))
            except psycopg.Error as exc:
                if exc.sqlstate != _VERSION_CONFLICT:
                    raise
                actual = int(exc.diag.message_detail or 0)
                conflict = ConcurrencyError(stream, expected, actual)
            rows = conn.execute(self._sql["existing"], ([e.event_id for e in events],)).fetchall()
        return self._resolve_retry(stream, events, [Existing(*r) for r in rows], conflict)

    def _copy_in(self, rows: list[Row]) -> None:
        with self._connection() as conn:
            try:
                with conn.transaction():
                    # The appends' own lock: positions follow commit order here too.
                    conn.execute(
                        "SELECT pg_advisory_xact_lock(%s, hashtext(%s))",
                        (_LOCK_CLASS, self._lock_name),
                    )
                    row = conn.execute(self._sql["last"]).fetchone()
                    head = 0 if row is None else int(row[0])
                    conn.execute("SELECT pg_notify(%s, '')", (self.channel,))
                    with conn.cursor() as cursor:
                        cursor.executemany(
                            self._sql["copy"],
                            [
                                (
                                    head + i,
                                    r.stream,
                                    r.version,
                                    r.type,
                                    r.data_json,
                                    r.metadata_json,
                                    r.event_id,
                                    r.schema_version,
                                    r.recorded_at_ms,
                                )
                                for i, r in enumerate(rows, start=1)
                            ],
                        )
            except psycopg.errors.UniqueViolation as exc:
                raise DuplicateEventError(
                    f"cannot copy into PostgreSQL at {self._where}: an event id or stream "
                    f"version of the batch is already stored ({exc.diag.message_detail})"
                ) from None

    def _version_on(self, conn: psycopg.Connection[Any], stream: str) -> int:
        row = conn.execute(self._sql["version"], (stream,)).fetchone()
        return 0 if row is None else int(row[0])

    def _read(self, stream: str, low: int, high: int | None) -> list[RowTuple]:
        with self._connection() as conn:
            rows = conn.execute(
                self._sql["read"], (stream, low, min(high or _MAX_VERSION, _MAX_VERSION))
            ).fetchall()
        return rows

    def _read_all(self, low: int, limit: int | None) -> list[RowTuple]:
        with self._connection() as conn:
            rows = conn.execute(self._sql["read_all"], (low, limit)).fetchall()
        return rows

    def _stream_version(self, stream: str) -> int:
        with self._connection() as conn:
            return self._version_on(conn, stream)

    def _list_streams(self, prefix: str) -> list[str]:
        with self._connection() as conn:
            rows = conn.execute(self._sql["streams"], (prefix, prefix)).fetchall()
        return [row[0] for row in rows]

    def _last_position(self) -> int:
        with self._connection() as conn:
            row = conn.execute(self._sql["last"]).fetchone()
        return 0 if row is None else int(row[0])

    def clear(self) -> None:
        """Delete every event and restart positions at 1 (for tests; refuses `public`)."""
        if self.schema == "public":
            raise EventStoreError("refusing to clear the public schema")
        schema = sql.Identifier(self.schema)
        with self._connection() as conn:
            conn.execute(sql.SQL("TRUNCATE {}.events").format(schema))

    def drop(self) -> None:
        """Delete this store's schema and everything in it (for tests and benchmarks)."""
        if self.schema == "public":
            raise EventStoreError("refusing to drop the public schema; drop the tables by hand")
        with self._connection() as conn:
            schema = sql.Identifier(self.schema)
            conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(schema))

    # -- learning of appends made elsewhere ----------------------------------------------------

    def subscribe(self, from_position: int = 1, *, batch_size: int = 500) -> Subscription:
        """As for every store, and more: the first subscription starts listening to the store's
        channel, which every append of every process notifies on commit, so a subscription
        learns of another process's append at once instead of by polling (it still re-reads
        every `wait_interval` in case a notification was lost with a connection)."""
        self._start_listening()
        return super().subscribe(from_position, batch_size=batch_size)

    @property
    def wait_interval(self) -> float:
        return max(self.poll_interval, _LISTEN_FALLBACK_S) if self.listening else self.poll_interval

    @property
    def listening(self) -> bool:
        return self._listener is not None and self._listener.is_alive()

    def _start_listening(self) -> None:
        with self._listen_lock:
            if self._listener is not None or self.closed:
                return
            ready = threading.Event()
            self._listener = threading.Thread(
                target=self._listen, args=(ready,), name=f"{self.channel}-listener", daemon=True
            )
            self._listener.start()
        # Appends committed before LISTEN took effect are found by the subscription's first
        # read; waiting here makes sure none falls between that read and the listening.
        ready.wait(self._connect_timeout)

    def _listen(self, ready: threading.Event) -> None:
        """The listener: a connection of its own in LISTEN, turning each notification into a
        wake-up of this store's waiting subscriptions. A thread, which under eventlet's monkey
        patching is a greenthread, and `notifies` then waits through the green `select` (the wait
        function the server installs, `server.runtime.patches`): it never blocks the other
        greenthreads."""
        while not self.closed:
            try:
                with psycopg.connect(
                    self._conninfo,
                    autocommit=True,
                    connect_timeout=max(1, round(self._connect_timeout)),
                ) as conn:
                    conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(self.channel)))
                    ready.set()
                    self._wake_subscribers()  # whatever committed while we were not listening
                    while not self.closed:
                        for _notify in conn.notifies(timeout=_LISTEN_FALLBACK_S, stop_after=1):
                            self._wake_subscribers()
            except psycopg.Error:
                # The connection was lost: subscriptions fall back to polling until it is back.
                ready.set()
                time.sleep(_LISTEN_FALLBACK_S)

    def _close(self) -> None:
        listener = self._listener
        if listener is not None and listener.is_alive():
            # Wake the listener so that it sees the store closed now, not a second later.
            with (
                contextlib.suppress(psycopg.Error, psycopg_pool.PoolTimeout),
                self._pool.connection(timeout=1.0) as conn,
            ):
                conn.execute("SELECT pg_notify(%s, '')", (self.channel,))
        self._pool.close()
        if listener is not None and listener is not threading.current_thread():
            listener.join(_LISTEN_FALLBACK_S * 2)
