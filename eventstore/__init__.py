"""An append-only store of opaque JSON events in named streams. Knows nothing of cards.

    store = open_store("sqlite:///var/crapette/events.db")
    version = store.append("match-1f3a", [NewEvent("MatchStarted", {...})], NO_STREAM)

See docs/eventstore.md for the guarantees, the limits and how to call it under eventlet."""

from __future__ import annotations

import urllib.parse
from typing import Any

from eventstore.base import EventStore, Upcaster
from eventstore.errors import (
    ConcurrencyError,
    DuplicateEventError,
    EventStoreError,
    EventTooLargeError,
    InvalidEventError,
    SerializationError,
    StoreUnavailableError,
    StreamNameError,
    UpcasterError,
)
from eventstore.events import (
    ANY,
    DEFAULT_MAX_EVENT_BYTES,
    NO_STREAM,
    NewEvent,
    RecordedEvent,
)
from eventstore.subscription import Subscription

__all__ = [
    "ANY",
    "DEFAULT_MAX_EVENT_BYTES",
    "NO_STREAM",
    "ConcurrencyError",
    "DuplicateEventError",
    "EventStore",
    "EventStoreError",
    "EventTooLargeError",
    "InvalidEventError",
    "NewEvent",
    "RecordedEvent",
    "SerializationError",
    "StoreUnavailableError",
    "StreamNameError",
    "Subscription",
    "Upcaster",
    "UpcasterError",
    "open_store",
]


def open_store(url: str, **options: Any) -> EventStore:
    """Open the store a URL names:
    `memory://` - in memory, new and empty each time (tests);
    `sqlite:///abs/path.db` (or `sqlite://relative/path.db`), optional `?synchronous=NORMAL`
    and `group_commit=on` (docs/eventstore.md);
    `postgresql://user@host:port/db`, optional `?schema=name` (default `public`).
    Keyword options: `max_event_bytes`, `poll_interval`; SQLite: `synchronous`, `busy_timeout`,
    `group_commit`, `wal_autocheckpoint` (pages; 0: only `checkpoint()` does it);
    PostgreSQL: `pool_size`, `connect_timeout`."""
    scheme, separator, rest = url.partition("://")
    scheme = scheme.lower() if separator else ""
    if scheme == "memory":
        from eventstore.memory import MemoryStore

        return MemoryStore(**options)
    if scheme == "sqlite":
        from eventstore.sqlite import SQLiteStore

        path, _, query = rest.partition("?")
        if not path:
            raise EventStoreError("a SQLite store URL needs a path: sqlite:///abs/path.db")
        for key, value in urllib.parse.parse_qsl(query):
            if key == "synchronous":
                options.setdefault("synchronous", value)
            elif key == "group_commit":
                options.setdefault("group_commit", _flag(key, value))
            else:
                raise EventStoreError(f"unknown SQLite store option {key!r} in the URL")
        return SQLiteStore(path, **options)
    if scheme in ("postgresql", "postgres"):
        from eventstore.postgres import PostgresStore

        return PostgresStore(url, **options)
    raise EventStoreError(
        f"unknown event store URL {url!r}: use memory://, sqlite:///path or postgresql://..."
    )


def _flag(key: str, value: str) -> bool:
    word = value.strip().lower()
    if word in ("1", "on", "true", "yes"):
        return True
    if word in ("0", "off", "false", "no"):
        return False
    raise EventStoreError(f"store option {key!r} is on or off, not {value!r}")
