"""The contract on the PostgreSQL backend: the module gets its own schema, dropped afterwards, and
emptied before each test; each handle is its own connection pool."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator

import pytest

from eventstore import (
    NO_STREAM,
    EventStore,
    NewEvent,
    RecordedEvent,
    StoreUnavailableError,
    Subscription,
    open_store,
)
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


def _next_within(subscription: Subscription, seconds: float) -> RecordedEvent | None:
    """The subscription's next event if it comes within `seconds` (it may wait 30)."""
    got: list[RecordedEvent | None] = []
    waiter = threading.Thread(target=lambda: got.append(subscription.get(timeout=30)))
    waiter.start()
    waiter.join(seconds)
    assert not waiter.is_alive(), "no notification woke the subscription"
    return got[0]


def test_a_subscription_learns_of_another_processs_append_by_notification(
    postgres_url: str, postgres_schema: PostgresStore
) -> None:
    """Polling is made so slow here (60 s) that only the NOTIFY of the append, sent by another
    store object (another process as far as PostgreSQL knows), can wake the subscription."""
    separator = "&" if "?" in postgres_url else "?"
    url = f"{postgres_url}{separator}schema={postgres_schema.schema}"
    postgres_schema.clear()
    with open_store(url, poll_interval=60.0) as reader, open_store(url) as writer:
        subscription = reader.subscribe(reader.last_position() + 1)
        assert isinstance(reader, PostgresStore) and reader.listening
        assert subscription.get(timeout=0) is None
        threading.Timer(
            0.2, lambda: writer.append("elsewhere", [NewEvent("T", {"n": 1})], NO_STREAM)
        ).start()
        event = _next_within(subscription, 15)
        assert event is not None and event.stream == "elsewhere"
        threading.Timer(
            0.2, lambda: writer.copy_in([event._replace(stream="copied", event_id="copy-1")])
        ).start()
        copied = _next_within(subscription, 15)  # copy_in notifies too
        assert copied is not None and copied.stream == "copied"
