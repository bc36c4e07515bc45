"""The contract on the PostgreSQL backend: the module gets its own schema, dropped afterwards, and
emptied before each test; each handle is its own connection pool."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from eventstore import EventStore, StoreUnavailableError, open_store
from eventstore.postgres import PostgresStore
from tests.contract.store_contract import EventStoreContract, Handles


@pytest.fixture(scope="module")
def postgres_schema(postgres_url: str) -> Iterator[PostgresStore]:
    """One schema for the module, dropped at the end; each test starts from an empty store."""
    schema = f"es_test_{uuid.uuid4().hex[:12]}"
    separator = "&" if "?" in postgres_url else "?"
    admin = PostgresStore(f"{postgres_url}{separator}schema={schema}", pool_size=1)
    yield admin
    admin.drop()
    admin.close()


class TestPostgresStore(EventStoreContract):
    @pytest.fixture
    def handles(self, postgres_url: str, postgres_schema: PostgresStore) -> Iterator[Handles]:
        separator = "&" if "?" in postgres_url else "?"
        url = f"{postgres_url}{separator}schema={postgres_schema.schema}"
        postgres_schema.clear()
        opened: list[EventStore] = []

        def handle() -> EventStore:
            store = open_store(url, pool_size=4)
            opened.append(store)
            return store

        yield handle
        for store in opened:
            store.close()


def test_an_unreachable_server_is_a_store_error() -> None:
    # Port 1 on the loopback refuses connections at once: no PostgreSQL needed for this test.
    with pytest.raises(StoreUnavailableError, match="cannot reach PostgreSQL at 127.0.0.1:1/test"):
        open_store("postgresql://postgres@127.0.0.1:1/test", connect_timeout=1)
