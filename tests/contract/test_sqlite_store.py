"""The contract on the SQLite backend: each handle is its own connection to one database file."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from eventstore import EventStore, EventStoreError, StoreUnavailableError, open_store
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
