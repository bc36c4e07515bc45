"""The SQLite backend (`sqlite:///abs/path.db`), the default store.

Durability: WAL journal with `synchronous=FULL`, so the WAL is fsynced at every commit and an
acknowledged append survives a process crash *and* a power cut (NORMAL would survive a crash but
could lose the last commits on power loss). Global order: SQLite has one writer at a time; each
append is one short `BEGIN IMMEDIATE` transaction and positions are `INTEGER PRIMARY KEY` values
assigned inside it, so positions follow commit order without gaps. One connection per store
object, guarded by a lock; other processes open their own store and wait on SQLite's busy lock.

Group commit (`group_commit=True`, what the server uses): the first of several appends arriving
together opens the transaction, writes, and lets the other ready threads (greenthreads under
eventlet) run once before it commits; an append that comes meanwhile writes into the same open
transaction (in a savepoint of its own, so a refused one leaves the others' rows) and waits for
that commit. Every append still returns only after the commit that holds it, and a failed commit
fails every append of the group. Reads wait until no group is open, so nothing reads what a
commit may still lose. One commit for a whole group costs less than one per append."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
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
# Group commit: after this many groups in a row that nobody joined, a new group waits for
# company only every PROBE_EVERY-th time (SQLiteStore._company_expected).
ALONE_BEFORE_SKIP = 4
PROBE_EVERY = 8
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


def _insert_one(db: sqlite3.Connection, checked: tuple[Any, ...]) -> int | None:
    """The checked INSERT of one event: the version it wrote, or None if refused (the stream
    is not at the expected version, or the event id is already stored)."""
    try:
        inserted = db.execute(_INSERT_CHECKED, checked).fetchall()
    except sqlite3.IntegrityError:  # the event id is already stored
        return None
    return int(inserted[0][0]) if inserted else None


class SQLiteStore(EventStore):
    def __init__(
        self,
        path: str,
        *,
        synchronous: str = "FULL",
        busy_timeout: float = 5.0,
        group_commit: bool = False,
        wal_autocheckpoint: int | None = None,
        **options: Any,
    ) -> None:
        super().__init__(**options)
        self.group_commit = group_commit
        self._checkpoint_db: sqlite3.Connection | None = None  # `checkpoint`'s own connection
        self._autocheckpoint_next: int | None = None  # set on the connection at the next append
        self._group: _Group | None = None  # the transaction that appends are joining now
        # What an append did in group mode: its own commits and its joins of another's, counted.
        self.group_stats = {"commits": 0, "joined": 0}
        self._alone = 0  # groups in a row that nobody joined
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
                if wal_autocheckpoint is not None:
                    self._db.execute(f"PRAGMA wal_autocheckpoint={int(wal_autocheckpoint)}")
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
        if self._autocheckpoint_next is not None:
            with self._settled(), self._translate():
                self._db.execute(f"PRAGMA wal_autocheckpoint={self._autocheckpoint_next}")
                self._autocheckpoint_next = None
        if self.group_commit:
            return self._append_grouped(stream, events, expected)
        return self._append_alone(stream, events, expected)

    def _append_grouped(self, stream: str, events: list[PreparedEvent], expected: int) -> int:
        db = self._db
        now_ms = int(time.time() * 1000)
        version: int | None = None
        refusal: tuple[list[Existing], ConcurrencyError] | None = None
        with self._lock:
            group = self._group
            leader = group is None
            if leader and len(events) == 1 and not self._company_expected():
                # Nobody is expected to join: the one-statement append, its own transaction
                # (BEGIN and COMMIT cost a third of a lone append's CPU).
                self._alone += 1
                self.group_stats["commits"] += 1
                try:
                    version = _insert_one(db, _checked(stream, events[0], expected, now_ms))
                    if version is not None:
                        return version
                    refusal = self._refusal(stream, events, expected)
                except sqlite3.Error as exc:
                    raise self._translated(exc) from exc
                return self._resolve_retry(stream, events, *refusal)
            try:
                if group is None:
                    db.execute("BEGIN IMMEDIATE")
                    group = self._group = _Group()
                    self.group_stats["commits"] += 1
                else:
                    self.group_stats["joined"] += 1
                    group.joined += 1
                version = self._insert_in_transaction(db, stream, events, expected, now_ms)
                if version is None:  # refused: a version conflict or an id already stored
                    refusal = self._refusal(stream, events, expected)
            except sqlite3.Error as exc:
                if leader and group is not None:  # its own, and nobody has joined yet
                    self._group = None
                    self._end(group, None)
                raise self._translated(exc) from exc
        if leader:
            try:
                if self._company_expected():
                    self._let_others_join()
            finally:  # whatever happens to this thread, the others' appends are not left waiting
                with self._lock:
                    self._group = None
                    self._end(group, "COMMIT")
                    self._alone = 0 if group.joined else self._alone + 1
        else:
            group.done.wait()
        if group.error is not None:
            raise StoreUnavailableError(group.error)
        if refusal is not None:
            return self._resolve_retry(stream, events, *refusal)
        assert version is not None
        return version

    def _refusal(
        self, stream: str, events: list[PreparedEvent], expected: int
    ) -> tuple[list[Existing], ConcurrencyError]:
        """After a refused insert, under the lock: which of the batch's ids are stored already,
        and the conflict with the stream's actual version (`_resolve_retry` tells a retry of a
        stored batch from a real conflict with these)."""
        row = self._db.execute(_VERSION, (stream,)).fetchone()
        actual = 0 if row is None else int(row[0])
        existing = self._existing([e.event_id for e in events])
        return existing, ConcurrencyError(stream, expected, actual)

    def _company_expected(self) -> bool:
        """Whether a new group waits for others: unless the last ALONE_BEFORE_SKIP groups had
        nobody join, then only every PROBE_EVERY-th (one that finds company starts waiting
        again). Waiting costs the first append the time the other ready threads take to run;
        at a quiet moment nobody comes, and commands would wait for nothing (at 100 tables
        and human pace it doubled the server's p99: docs/benchmarks.md)."""
        alone = self._alone
        return alone < ALONE_BEFORE_SKIP or alone % PROBE_EVERY == 0

    def _let_others_join(self) -> None:
        """The other ready writers run now (eventlet: every greenthread ready in this turn of
        the hub) and write into the open transaction."""
        time.sleep(0)

    def _end(self, group: _Group, statement: str | None) -> None:
        """Commit (or, with None, roll back) the group's transaction and wake its appends."""
        db = self._db
        try:
            if statement is not None:
                db.execute(statement)
        except sqlite3.Error as exc:
            group.error = f"SQLite store {self.path!r}: the commit failed: {exc}"
        finally:
            if db.in_transaction:
                with suppress(sqlite3.Error):  # the connection is gone: nothing to undo
                    db.execute("ROLLBACK")
            group.done.set()

    def _insert_in_transaction(
        self,
        db: sqlite3.Connection,
        stream: str,
        events: list[PreparedEvent],
        expected: int,
        now_ms: int,
    ) -> int | None:
        """Write the batch inside the open transaction; the stream's new version, or None if
        refused (and nothing of it written: a refused statement, or the batch's savepoint, is
        undone alone)."""
        checked = _checked(stream, events[0], expected, now_ms)
        if len(events) == 1:
            return _insert_one(db, checked)
        db.execute("SAVEPOINT batch")
        written: int | None = None
        try:
            inserted = db.execute(_INSERT_CHECKED, checked).fetchall()
            if inserted:
                first = int(inserted[0][0])
                db.executemany(INSERT_SQL, _rows(stream, first, events[1:], now_ms))
                written = first + len(events) - 1
        except sqlite3.IntegrityError:  # an event id is already stored
            pass
        finally:  # refused, or failed: the batch's rows go, the others' stay
            if written is None:
                db.execute("ROLLBACK TO batch")
            db.execute("RELEASE batch")
        return written

    def _append_alone(self, stream: str, events: list[PreparedEvent], expected: int) -> int:
        # The hot path. The first event goes in with one INSERT that checks the expected version
        # itself, so a one-event append is a single statement: its own short transaction, as
        # durable as any (SQLite takes the write lock before that statement reads anything).
        # A batch wraps the same statement and the rest of the batch in BEGIN IMMEDIATE.
        db = self._db
        now_ms = int(time.time() * 1000)
        checked = _checked(stream, events[0], expected, now_ms)
        with self._lock:
            try:
                if len(events) == 1:
                    version = _insert_one(db, checked)
                    if version is not None:
                        return version
                else:
                    db.execute("BEGIN IMMEDIATE")
                    try:
                        inserted = db.execute(_INSERT_CHECKED, checked).fetchall()
                        if inserted:
                            version = int(inserted[0][0])
                            db.executemany(INSERT_SQL, _rows(stream, version, events[1:], now_ms))
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
                refusal = self._refusal(stream, events, expected)
            except sqlite3.Error as exc:
                raise self._translated(exc) from exc
        return self._resolve_retry(stream, events, *refusal)

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
        with self._settled(), self._translate():
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
        with self._settled(), self._translate():
            rows = self._db.execute(
                f"SELECT {_COLUMNS} FROM events WHERE stream = ? AND version BETWEEN ? AND ?"
                " ORDER BY version",
                (stream, low, 2**62 if high is None else high),
            ).fetchall()
        return rows

    def _read_all(self, low: int, limit: int | None) -> list[RowTuple]:
        with self._settled(), self._translate():
            rows = self._db.execute(
                f"SELECT {_COLUMNS} FROM events WHERE position >= ? ORDER BY position LIMIT ?",
                (low, -1 if limit is None else limit),
            ).fetchall()
        return rows

    def _stream_version(self, stream: str) -> int:
        with self._settled(), self._translate():
            row = self._db.execute(_VERSION, (stream,)).fetchone()
        return 0 if row is None else int(row[0])

    def _list_streams(self, prefix: str) -> list[str]:
        # Hop from one stream name to the next along the (stream, version) index: one seek per
        # stream instead of scanning every event.
        names: list[str] = []
        with self._settled(), self._translate():
            query = "SELECT stream FROM events WHERE stream >= ? ORDER BY stream LIMIT 1"
            row = self._db.execute(query, (prefix,)).fetchone()
            while row is not None and row[0].startswith(prefix):
                names.append(row[0])
                row = self._db.execute(
                    "SELECT stream FROM events WHERE stream > ? ORDER BY stream LIMIT 1", (row[0],)
                ).fetchone()
        return names

    def _last_position(self) -> int:
        with self._settled(), self._translate():
            row = self._db.execute("SELECT max(position) FROM events").fetchone()
        return 0 if row[0] is None else int(row[0])

    def checkpoint(self) -> tuple[int, int, int]:
        """Copy the WAL's committed pages into the database file (`PRAGMA
        wal_checkpoint(PASSIVE)`: it waits for no reader or writer) on a connection of its own,
        for a thread that does this beside the writers. With `wal_autocheckpoint=0` the store's
        own connection then never checkpoints inside a commit, where the copy and its fsync
        would stop an event loop for tens of milliseconds. Returns SQLite's (busy, pages in
        the WAL, pages checkpointed). Call it from one thread only, which ends with
        `end_checkpoints()` (closing a connection another thread is using can crash sqlite3)."""
        self._check_open()
        db = self._checkpoint_db
        if db is None:
            try:
                db = self._checkpoint_db = sqlite3.connect(
                    self.path,
                    timeout=self._busy_timeout,
                    isolation_level=None,
                    check_same_thread=False,
                )
            except sqlite3.Error as exc:
                raise self._translated(exc) from exc
        with self._translate():
            busy, pages, done = db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        return int(busy), int(pages), int(done)

    def restore_autocheckpoint(self, pages: int) -> None:
        """From the thread that called `checkpoint` and cannot go on: the store's own
        connection checkpoints again every `pages` pages, from its next append on."""
        self._autocheckpoint_next = int(pages)

    def end_checkpoints(self) -> None:
        """Close `checkpoint`'s connection, from the thread that used it (`close` leaves it to
        that thread)."""
        db, self._checkpoint_db = self._checkpoint_db, None
        if db is not None:
            with suppress(sqlite3.Error):
                db.close()

    def _close(self) -> None:
        with self._settled():
            self._db.close()

    @contextmanager
    def _settled(self) -> Iterator[None]:
        """Hold the lock while no group's transaction is open: a read must not see appends
        whose commit has not happened (it may still fail), nor may anything else begin one."""
        self._lock.acquire()
        try:
            while self._group is not None:
                group = self._group
                self._lock.release()
                try:
                    group.done.wait()
                finally:
                    self._lock.acquire()
            yield
        finally:
            self._lock.release()


class _Group:
    """One transaction shared by the appends that came while it was open (group commit)."""

    __slots__ = ("done", "error", "joined")

    def __init__(self) -> None:
        self.done = threading.Event()
        self.error: str | None = None  # why its commit failed
        self.joined = 0  # appends that came while it was open


def _checked(
    stream: str, first: PreparedEvent, expected: int, now_ms: int
) -> tuple[str, str, str, str, str, int, int, bool, int]:
    """_INSERT_CHECKED's parameters for the first event of a batch."""
    return (
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


def _rows(stream: str, version: int, events: list[PreparedEvent], now_ms: int) -> list[RowTuple8]:
    """INSERT_SQL's rows for `events`, the first at `version + 1`."""
    return [
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
        for i, e in enumerate(events, 1)
    ]


RowTuple8 = tuple[str, int, str, str, str, str, int, int]
