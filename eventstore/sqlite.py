"""The SQLite backend (`sqlite:///abs/path.db`), the default store.

Durability: WAL journal with `synchronous=FULL`, so the WAL is fsynced at every commit and an
acknowledged append survives a process crash *and* a power cut (NORMAL would survive a crash but
could lose the last commits on power loss). Global order: SQLite has one writer at a time; each
append is one short `BEGIN IMMEDIATE` transaction and positions are `INTEGER PRIMARY KEY` values
assigned inside it, so positions follow commit order without gaps. One connection per store
object, guarded by a lock; other processes open their own store and wait on SQLite's busy lock."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from eventstore.base import EventStore, Existing, Row, RowTuple
from eventstore.errors import (
    ConcurrencyError,
    DuplicateEventError,
    EventStoreError,
    StoreUnavailableError,
)
from eventstore.events import ANY, NO_STREAM, PreparedEvent

SCHEMA_VERSION = 1
SYNCHRONOUS_MODES = ("OFF", "NORMAL", "FULL", "EXTRA")

SCHEMA_SQL = """
CREATE TABLE IF NOT EXISTS events (
    position INTEGER PRIMARY KEY,
    stream TEXT NOT NULL,
    version INTEGER NOT NULL,
    type TEXT NOT NULL,
    data TEXT NOT NULL,
    metadata TEXT NOT NULL,
    event_id TEXT NOT NULL UNIQUE,
    schema_version INTEGER NOT NULL,
    recorded_at_ms INTEGER NOT NULL,
    UNIQUE (stream, version)
)
"""
_COLUMNS = (
    "stream, version, position, type, data, metadata, event_id, schema_version, recorded_at_ms"
)
INSERT_SQL = (
    "INSERT INTO events (stream, version, type, data, metadata, event_id, schema_version,"
    " recorded_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)
# Inserts the first event of an append only if the stream is at the expected version
# (?8: no check, for ANY); returns the version it wrote, or no row on a mismatch.
_INSERT_CHECKED = (
    "INSERT INTO events (stream, version, type, data, metadata, event_id, schema_version,"
    " recorded_at_ms)"
    " SELECT ?1, v + 1, ?2, ?3, ?4, ?5, ?6, ?7 FROM (SELECT coalesce((SELECT version FROM events"
    " WHERE stream = ?1 ORDER BY version DESC LIMIT 1), 0) AS v) WHERE ?8 OR v = ?9"
    " RETURNING version"
)
_VERSION = "SELECT version FROM events WHERE stream = ? ORDER BY version DESC LIMIT 1"


class SQLiteStore(EventStore):
    def __init__(
        self,
        path: str,
        *,
        synchronous: str = "FULL",
        busy_timeout: float = 5.0,
        **options: Any,
    ) -> None:
        super().__init__(**options)
        mode = synchronous.upper()
        if mode not in SYNCHRONOUS_MODES:
            raise EventStoreError(f"synchronous must be one of {', '.join(SYNCHRONOUS_MODES)}")
        self.path = path
        self._busy_timeout = busy_timeout
        self._lock = threading.Lock()
        try:
            # isolation_level=None: we issue BEGIN/COMMIT ourselves, so a transaction is exactly
            # as long as one append. check_same_thread=False: the lock serialises access.
            self._db = sqlite3.connect(
                path, timeout=busy_timeout, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as exc:
            raise StoreUnavailableError(f"cannot open SQLite store {path!r}: {exc}") from exc
        try:
            with self._translate():
                self._create_schema(mode)
        except BaseException:
            self._db.close()  # not a store we can use: release the file at once
            raise

    def _create_schema(self, mode: str) -> None:
        db = self._db
        self._enter_wal()
        db.execute(f"PRAGMA synchronous={mode}")
        db.execute("BEGIN IMMEDIATE")
        try:
            found = db.execute("PRAGMA user_version").fetchone()[0]
            if found not in (0, SCHEMA_VERSION):
                raise EventStoreError(
                    f"{self.path} has event store schema v{found}; "
                    f"this code knows v{SCHEMA_VERSION}"
                )
            db.execute(SCHEMA_SQL)
            db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise

    def _enter_wal(self) -> None:
        """Switch the file to WAL, waiting like any other lock. Connections that open a new file
        at the same moment race to convert it, and the loser gets "database is locked" at once:
        SQLite does not call the busy handler for that switch (3 opens in 10 failed in the
        concurrent-writers contract test on a quiet machine)."""
        deadline = time.monotonic() + self._busy_timeout
        pause = 0.001
        while True:
            try:
                self._db.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() >= deadline:
                    raise
            time.sleep(pause)
            pause = min(pause * 2, 0.05)

    @contextmanager
    def _translate(self) -> Iterator[None]:
        """Re-raise sqlite3 errors as the store's own."""
        try:
            yield
        except sqlite3.Error as exc:
            raise self._translated(exc) from exc

    def _translated(self, exc: sqlite3.Error) -> EventStoreError:
        if isinstance(exc, sqlite3.OperationalError):
            # "database is locked" (busy timeout ran out), "disk I/O error", "unable to open"...
            return StoreUnavailableError(f"SQLite store {self.path!r}: {exc}")
        return EventStoreError(f"SQLite store {self.path!r}: {exc}")

    def _append(self, stream: str, events: list[PreparedEvent], expected: int) -> int:
        # The hot path. The first event goes in with one INSERT that checks the expected version
        # itself, so a one-event append is a single statement: its own short transaction, as
        # durable as any (SQLite takes the write lock before that statement reads anything).
        # A batch wraps the same statement and the rest of the batch in BEGIN IMMEDIATE.
        db = self._db
        now_ms = int(time.time() * 1000)
        first = events[0]
        checked = (
            stream,
            first.type,
            first.data_json,
            first.metadata_json,
            first.event_id,
            first.schema_version,
            now_ms,
            expected == ANY,
            0 if expected == NO_STREAM else expected,
        )
        with self._lock:
            try:
                if len(events) == 1:
                    try:
                        inserted = db.execute(_INSERT_CHECKED, checked).fetchall()
                    except sqlite3.IntegrityError:  # the event id is already stored
                        inserted = []
                    if inserted:
                        return int(inserted[0][0])
                else:
                    db.execute("BEGIN IMMEDIATE")
                    try:
                        inserted = db.execute(_INSERT_CHECKED, checked).fetchall()
                        if inserted:
                            version = int(inserted[0][0])
                            db.executemany(
                                INSERT_SQL,
                                [
                                    (
                                        stream,
                                        version + i,
                                        e.type,
                                        e.data_json,
                                        e.metadata_json,
                                        e.event_id,
                                        e.schema_version,
                                        now_ms,
                                    )
                                    for i, e in enumerate(events[1:], 1)
                                ],
                            )
                            db.execute("COMMIT")
                            return version + len(events) - 1
                        db.execute("ROLLBACK")
                    except sqlite3.IntegrityError:  # an event id is already stored
                        db.execute("ROLLBACK")
                    except BaseException:
                        if db.in_transaction:
                            db.execute("ROLLBACK")
                        raise
                # Refused: a version conflict or an id already stored. Find out which.
                row = db.execute(_VERSION, (stream,)).fetchone()
                actual = 0 if row is None else int(row[0])
                existing = self._existing([e.event_id for e in events])
            except sqlite3.Error as exc:
                raise self._translated(exc) from exc
        conflict = ConcurrencyError(stream, expected, actual)
        return self._resolve_retry(stream, events, existing, conflict)

    def _copy_in(self, rows: list[Row]) -> None:
        db = self._db
        values = [
            (
                r.stream,
                r.version,
                r.type,
                r.data_json,
                r.metadata_json,
                r.event_id,
                r.schema_version,
                r.recorded_at_ms,
            )
            for r in rows
        ]
        with self._lock, self._translate():
            db.execute("BEGIN IMMEDIATE")
            try:
                db.executemany(INSERT_SQL, values)
                db.execute("COMMIT")
            except sqlite3.IntegrityError as exc:
                db.execute("ROLLBACK")
                raise DuplicateEventError(
                    f"cannot copy into {self.path!r}: an event id or stream version of the "
                    f"batch is already stored ({exc})"
                ) from None
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise

    def _existing(self, event_ids: list[str]) -> list[Existing]:
        marks = ",".join("?" * len(event_ids))
        rows = self._db.execute(
            f"SELECT event_id, stream, version FROM events WHERE event_id IN ({marks})", event_ids
        ).fetchall()
        return [Existing(*row) for row in rows]

    def _read(self, stream: str, low: int, high: int | None) -> list[RowTuple]:
        with self._lock, self._translate():
            rows = self._db.execute(
                f"SELECT {_COLUMNS} FROM events WHERE stream = ? AND version BETWEEN ? AND ?"
                " ORDER BY version",
                (stream, low, 2**62 if high is None else high),
            ).fetchall()
        return rows

    def _read_all(self, low: int, limit: int | None) -> list[RowTuple]:
        with self._lock, self._translate():
            rows = self._db.execute(
                f"SELECT {_COLUMNS} FROM events WHERE position >= ? ORDER BY position LIMIT ?",
                (low, -1 if limit is None else limit),
            ).fetchall()
        return rows

    def _stream_version(self, stream: str) -> int:
        with self._lock, self._translate():
            row = self._db.execute(_VERSION, (stream,)).fetchone()
        return 0 if row is None else int(row[0])

    def _list_streams(self, prefix: str) -> list[str]:
        # Hop from one stream name to the next along the (stream, version) index: one seek per
        # stream instead of scanning every event.
        names: list[str] = []
        with self._lock, self._translate():
            query = "SELECT stream FROM events WHERE stream >= ? ORDER BY stream LIMIT 1"
            row = self._db.execute(query, (prefix,)).fetchone()
            while row is not None and row[0].startswith(prefix):
                names.append(row[0])
                row = self._db.execute(
                    "SELECT stream FROM events WHERE stream > ? ORDER BY stream LIMIT 1", (row[0],)
                ).fetchone()
        return names

    def _last_position(self) -> int:
        with self._lock, self._translate():
            row = self._db.execute("SELECT max(position) FROM events").fetchone()
        return 0 if row[0] is None else int(row[0])

    def _close(self) -> None:
        with self._lock:
            self._db.close()
