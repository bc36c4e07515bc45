"""The contract on the SQLite backend: each handle is its own connection to one database file."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from eventstore import (
    ANY,
    NO_STREAM,
    ConcurrencyError,
    EventStore,
    EventStoreError,
    NewEvent,
    StoreUnavailableError,
    open_store,
)
from eventstore.sqlite import SQLiteStore
from tests.contract.store_contract import EventStoreContract, Handles


class TestSQLiteStore(EventStoreContract):
    @pytest.fixture
    def handles(self, tmp_path: Path) -> Iterator[Handles]:
        url = f"sqlite:///{tmp_path / 'events.db'}"
        opened: list[EventStore] = []

        def handle() -> EventStore:
            # Eight writers on separate connections contend for SQLite's one write lock: on a
            # loaded machine a waiter can lose that race past the 5 s default ("database is
            # locked"). The contract is about order and consistency, not about that timeout.
            store = open_store(url, busy_timeout=60.0)
            opened.append(store)
            return store

        yield handle
        for store in opened:
            store.close()


class TestSQLiteStoreWithGroupCommit(EventStoreContract):
    """The same contract with group commit on (as the server opens its store): appends of
    several threads share a transaction, on one handle and across handles."""

    @pytest.fixture
    def handles(self, tmp_path: Path) -> Iterator[Handles]:
        url = f"sqlite:///{tmp_path / 'events.db'}?group_commit=on"
        opened: list[SQLiteStore] = []

        def handle() -> EventStore:
            store = open_store(url, busy_timeout=60.0)
            assert isinstance(store, SQLiteStore) and store.group_commit
            opened.append(store)
            return store

        yield handle
        for store in opened:
            store.close()


class _Joining:
    """Makes a group-commit store's leader wait, before it commits, until `count` appends from
    other threads have joined its transaction (under eventlet they are the greenthreads that
    run during its pause)."""

    def __init__(self, store: SQLiteStore, count: int) -> None:
        self.store, self.count = store, count
        self.before = store.group_stats["joined"]
        store._let_others_join = self.wait  # type: ignore[method-assign]

    def wait(self) -> None:
        deadline = time.monotonic() + 10
        while self.store.group_stats["joined"] < self.before + self.count:
            assert time.monotonic() < deadline, "the other appends did not join"
            time.sleep(0.001)
        self.store._let_others_join = lambda: None  # type: ignore[method-assign]


def _in_one_group(store: SQLiteStore, *calls: Callable[[], object]) -> list[object]:
    """Run `calls` in threads of their own, the first append's group waiting until the others
    have joined it (`_Joining`), and return each one's result (or what it raised)."""
    _Joining(store, len(calls) - 1)
    results: list[object] = [None] * len(calls)

    def run(i: int) -> None:
        try:
            results[i] = calls[i]()
        except BaseException as exc:  # looked at by the test
            results[i] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(20)
    return results


def _group_store(tmp_path: Path) -> SQLiteStore:
    store = open_store(f"sqlite:///{tmp_path / 'g.db'}?synchronous=NORMAL&group_commit=on")
    assert isinstance(store, SQLiteStore)
    return store


def _new(n: int, prefix: str) -> list[NewEvent]:
    return [NewEvent("T", {"i": i}, event_id=f"{prefix}-{i}") for i in range(n)]


def test_appends_that_join_a_group_share_its_commit_and_a_refused_one_alone_fails(
    tmp_path: Path,
) -> None:
    store = _group_store(tmp_path)
    try:
        store.append("taken", _new(1, "t"), NO_STREAM)
        commits = store.group_stats["commits"]
        results = _in_one_group(
            store,
            lambda: store.append("a", _new(2, "a"), NO_STREAM),  # the leader
            lambda: store.append("b", _new(1, "b"), NO_STREAM),
            lambda: store.append("c", _new(3, "c"), NO_STREAM),
            lambda: store.append("taken", _new(2, "x"), NO_STREAM),  # a version conflict
            lambda: store.append("taken", _new(1, "t"), NO_STREAM),  # a retry of a stored one
        )
        assert results[:3] == [2, 1, 3]
        assert isinstance(results[3], ConcurrencyError) and results[3].actual_version == 1
        assert results[4] == 1
        assert store.group_stats["commits"] == commits + 1  # all five in one transaction
        stored = store.read_all()  # whoever led, each batch whole and the order gapless
        assert sorted(e.stream for e in stored) == sorted(["taken", "a", "a", "b", "c", "c", "c"])
        assert [e.position for e in stored] == list(range(1, 8))
        assert store.stream_version("c") == 3 and store.stream_version("taken") == 1
    finally:
        store.close()


def test_a_failed_group_commit_fails_every_append_of_the_group_and_keeps_nothing(
    tmp_path: Path,
) -> None:
    store = _group_store(tmp_path)
    try:
        store.append("before", _new(1, "p"), NO_STREAM)
        real = store._db

        class FailingCommit:
            def __getattr__(self, name: str) -> Any:
                return getattr(real, name)

            def execute(self, sql: str, *args: Any) -> Any:
                if sql == "COMMIT":
                    raise sqlite3.OperationalError("disk I/O error")
                return real.execute(sql, *args)

        store._db = FailingCommit()  # type: ignore[assignment]
        results = _in_one_group(
            store,
            lambda: store.append("a", _new(1, "a"), NO_STREAM),
            lambda: store.append("b", _new(2, "b"), NO_STREAM),
        )
        store._db = real
        for result in results:
            assert isinstance(result, StoreUnavailableError) and "commit failed" in str(result)
        assert [e.stream for e in store.read_all()] == ["before"]
        # The store goes on: the next append is its own group.
        assert store.append("a", _new(1, "a"), NO_STREAM) == 1
    finally:
        store.close()


def test_a_read_during_an_open_group_waits_for_its_commit(tmp_path: Path) -> None:
    store = _group_store(tmp_path)
    try:
        seen: list[int] = []
        reader: list[threading.Thread] = []

        def pause() -> None:
            # The leader's rows are written but not committed: a read now waits for them.
            thread = threading.Thread(target=lambda: seen.append(len(store.read_all())))
            thread.start()
            reader.append(thread)
            time.sleep(0.2)
            assert seen == []  # still waiting
            store._let_others_join = lambda: None  # type: ignore[method-assign]

        store._let_others_join = pause  # type: ignore[method-assign]
        assert store.append("a", _new(3, "a"), NO_STREAM) == 3
        reader[0].join(10)
        assert seen == [3]
    finally:
        store.close()


def test_the_group_commit_option_is_on_or_off(tmp_path: Path) -> None:
    for word, on in (("on", True), ("1", True), ("off", False), ("false", False)):
        store = open_store(f"sqlite:///{tmp_path / 'o.db'}?group_commit={word}")
        assert isinstance(store, SQLiteStore) and store.group_commit is on
        store.close()
    with pytest.raises(EventStoreError, match="on or off"):
        open_store(f"sqlite:///{tmp_path / 'o.db'}?group_commit=maybe")


def test_a_file_that_cannot_be_opened_is_a_store_error(tmp_path: Path) -> None:
    with pytest.raises(StoreUnavailableError, match="cannot open SQLite store"):
        open_store(f"sqlite:///{tmp_path / 'no' / 'such' / 'folder.db'}")


def test_a_database_that_is_not_sqlite_is_a_store_error(tmp_path: Path) -> None:
    path = tmp_path / "garbage.db"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(EventStoreError):
        open_store(f"sqlite:///{path}")


def _open_at_once(url: str, count: int) -> list[BaseException]:
    """`count` threads open `url` at the same moment and read it; the errors they got."""
    barrier = threading.Barrier(count)
    opened: list[EventStore] = []
    errors: list[BaseException] = []

    def open_one() -> None:
        barrier.wait()
        try:
            store = open_store(url)
            opened.append(store)
            for _ in range(50):  # readers of the file while the others still open it
                store.read_all()
        except BaseException as exc:  # reported by the caller
            errors.append(exc)

    threads = [threading.Thread(target=open_one) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for store in opened:
        store.close()
    return errors


def test_connections_that_open_a_new_file_at_once_all_get_a_store(tmp_path: Path) -> None:
    """The first opens of a new file race to switch it to WAL while others already read it;
    none may fail for it."""
    for attempt in range(15):
        errors = _open_at_once(f"sqlite:///{tmp_path / f'new-{attempt}.db'}", 8)
        assert not errors, [repr(e) for e in errors]


def test_with_autocheckpoint_off_only_checkpoint_copies_the_wal_back(tmp_path: Path) -> None:
    """`wal_autocheckpoint=0`: the WAL keeps what the appends wrote until `checkpoint()` (on
    its own connection) copies it all back; `restore_autocheckpoint` gives the job back to
    the store's connection at its next append."""
    store = open_store(f"sqlite:///{tmp_path / 'c.db'}?synchronous=NORMAL", wal_autocheckpoint=0)
    assert isinstance(store, SQLiteStore)
    try:
        big = {"pad": "x" * 3000}
        for i in range(600):  # ~2 MB: past the 1,000 pages SQLite would checkpoint at
            store.append(f"s{i % 7}", [NewEvent("T", big)], ANY)
        wal = Path(f"{tmp_path / 'c.db'}-wal")
        busy, pages, done = store.checkpoint()
        assert busy == 0 and pages > 1000 and done == pages
        assert wal.stat().st_size > 1000 * 4096  # no commit checkpointed (and reset) it
        assert store._db.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0
        store.restore_autocheckpoint(1000)
        store.append("s0", [NewEvent("T", {})], ANY)
        assert store._db.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 1000
        assert len(store.read_all()) == 601
    finally:
        store.close()
        store.end_checkpoints()
    with pytest.raises(EventStoreError):
        store.checkpoint()  # closed


def test_a_lone_writer_stops_waiting_for_company_and_probes_now_and_then(
    tmp_path: Path,
) -> None:
    """After ALONE_BEFORE_SKIP groups nobody joined, a group waits for others only every
    PROBE_EVERY-th time; one that finds company makes the next ones wait again."""
    from eventstore import sqlite as backend

    store = _group_store(tmp_path)
    waits: list[int] = []
    try:
        store._let_others_join = lambda: waits.append(1)  # type: ignore[method-assign]
        for i in range(40):
            store.append("s", _new(1, f"a{i}"), ANY)
        skip, probe = backend.ALONE_BEFORE_SKIP, backend.PROBE_EVERY
        expected = skip + len([a for a in range(skip, 40) if a % probe == 0])
        assert len(waits) == expected < 40
        # A probe that finds company: waiting goes on for every group after it.
        store._alone = probe * 10
        results = _in_one_group(
            store,
            lambda: store.append("x", _new(1, "x"), NO_STREAM),
            lambda: store.append("y", _new(1, "y"), NO_STREAM),
        )
        assert results == [1, 1] and store._alone == 0
        waits.clear()
        store._let_others_join = lambda: waits.append(1)  # type: ignore[method-assign]
        store.append("s", _new(1, "b"), ANY)
        assert waits == [1]
    finally:
        store.close()


def test_a_lone_append_that_expects_no_company_is_one_statement_refused_as_any(
    tmp_path: Path,
) -> None:
    """When no group is open and none is expected to form, a one-event append is the single
    checked INSERT, with no transaction around it: it writes, refuses a version conflict with
    the stream's actual version, and answers a retry of a stored event with its version, like
    any append; a batch still goes through a group."""
    from eventstore import sqlite as backend

    store = _group_store(tmp_path)
    try:
        store._alone = backend.PROBE_EVERY * 10 + 1  # a long quiet spell, not a probe
        commits = store.group_stats["commits"]
        statements: list[str] = []
        store._db.set_trace_callback(statements.append)
        assert store.append("s", _new(1, "a"), NO_STREAM) == 1
        assert not any(s.startswith(("BEGIN", "COMMIT")) for s in statements)
        assert store.append("s", _new(1, "a"), NO_STREAM) == 1  # the same event again: a retry
        with pytest.raises(ConcurrencyError) as refused:
            store.append("s", _new(1, "b"), NO_STREAM)
        assert refused.value.actual_version == 1
        assert not store._db.in_transaction and store._group is None
        assert store.group_stats["commits"] == commits + 3
        statements.clear()
        assert store.append("s", _new(2, "c"), 1) == 3  # a batch: a transaction of its own
        assert any(s.startswith("BEGIN") for s in statements)
        store._db.set_trace_callback(None)
        assert [e.event_id for e in store.read("s")] == ["a-0", "c-0", "c-1"]
    finally:
        store.close()
