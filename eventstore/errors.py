"""The store's own errors. Driver errors (sqlite3, psycopg) never leak out of eventstore/: each
backend translates them into one of these, so the server handles one family of exceptions."""

from __future__ import annotations

from eventstore.versions import ANY, NO_STREAM


class EventStoreError(Exception):
    """Base class of every error the event store raises."""


class ConcurrencyError(EventStoreError):
    """The stream is not at the version the writer expected: someone else appended first."""

    def __init__(self, stream: str, expected_version: int, actual_version: int) -> None:
        self.stream = stream
        self.expected_version = expected_version
        self.actual_version = actual_version
        super().__init__(
            f"stream {stream!r} is at version {actual_version}, "
            f"but the append expected {_describe_expected(expected_version)}"
        )


class DuplicateEventError(EventStoreError):
    """An event id is already stored, but not as this same batch in this same stream, so the
    append is neither new nor an idempotent retry."""


class StreamNameError(EventStoreError, ValueError):
    """A stream name the store refuses (empty, too long, or with forbidden characters)."""


class EventTooLargeError(EventStoreError, ValueError):
    """One event's serialized data and metadata exceed the store's size limit."""


class SerializationError(EventStoreError, ValueError):
    """An event's data or metadata cannot be stored as JSON (or a stored payload cannot be read)."""


class InvalidEventError(EventStoreError, ValueError):
    """An event or an argument is malformed (empty type, bad id, negative version...)."""


class StoreUnavailableError(EventStoreError):
    """The database cannot be reached or refused the operation for a reason outside the caller's
    control (connection lost, disk full, database locked for too long)."""


class UpcasterError(EventStoreError):
    """An upcaster failed or returned something that is not a JSON object."""


def _describe_expected(expected_version: int) -> str:
    if expected_version == NO_STREAM:
        return "no stream yet"
    if expected_version == ANY:
        return "any version"
    return f"version {expected_version}"
