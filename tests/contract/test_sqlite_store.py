"""The contract on the SQLite backend: each handle is its own connection to one database file."""

from __future__ import annotations

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
