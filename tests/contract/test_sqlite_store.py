"""The contract on the SQLite backend: each handle is its own connection to one database file."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from eventstore import EventStore, open_store
from tests.contract.store_contract import EventStoreContract, Handles


class TestSQLiteStore(EventStoreContract):
    @pytest.fixture
    def handles(self, tmp_path: Path) -> Iterator[Handles]:
        url = f"sqlite:///{tmp_path / 'events.db'}"
        opened: list[EventStore] = []

        def handle() -> EventStore:
            store = open_store(url)
            opened.append(store)
            return store

        yield handle
        for store in opened:
            store.close()
