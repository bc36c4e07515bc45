"""The contract on the in-memory backend."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from eventstore import EventStore, open_store
from tests.contract.store_contract import EventStoreContract, Handles


class TestMemoryStore(EventStoreContract):
    durable = False

    @pytest.fixture
    def handles(self) -> Iterator[Handles]:
        store = open_store("memory://")

        def handle() -> EventStore:
            # memory:// has no connections: every "handle" is the one store object, except
            # after it was closed (the close test), when a fresh one stands in.
            nonlocal store
            if store.closed:
                store = open_store("memory://")
            return store

        yield handle
        store.close()
