"""The `EventStore` interface and what every backend shares: argument checks, idempotency
resolution, upcasting on read, and waking live subscribers. A backend implements the few
`_`-methods that touch its database; it returns raw rows and this class builds the events."""

from __future__ import annotations

import json
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple, NoReturn

from eventstore.errors import (
    ConcurrencyError,
    DuplicateEventError,
    EventStoreError,
    InvalidEventError,
    SerializationError,
    UpcasterError,
)
from eventstore.events import (
    ANY,
    DEFAULT_MAX_EVENT_BYTES,
    NO_STREAM,
    NewEvent,
    PreparedEvent,
    RecordedEvent,
    check_expected_version,
    check_stream_name,
    prepare,
)
from eventstore.subscription import Subscription

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]


# One stored event as a backend reads it, in this column order, payloads still JSON text:
# stream, version, position, type, data, metadata, event_id, schema_version, recorded_at_ms.
RowTuple = tuple[str, int, int, str, str, str, str, int, int]
_DECODER = json.JSONDecoder()


class Row(NamedTuple):
    """One stored event as a backend reads it, payloads still JSON text."""

    stream: str
    version: int
    position: int
    type: str
    data_json: str
    metadata_json: str
    event_id: str
    schema_version: int
    recorded_at_ms: int


class Existing(NamedTuple):
    """Where an already stored event id lives (used to recognise an idempotent retry)."""

    event_id: str
    stream: str
    version: int


class EventStore(ABC):
    """An append-only store of opaque JSON events in named streams (see docs/eventstore.md)."""

    def __init__(
        self, *, max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES, poll_interval: float = 0.05
    ) -> None:
        self.max_event_bytes = max_event_bytes
        # How often a waiting subscription re-reads even without a local wake-up: appends from
        # other processes (or a missed wake-up) are seen within this delay.
        self.poll_interval = poll_interval
        self._upcasters: dict[tuple[str, int], Upcaster] = {}
        self._appended = threading.Condition()
        self._generation = 0
        self._closed = False

    # -- writing ---------------------------------------------------------------------------

    def append(
        self,
        stream: str,
        events: Sequence[NewEvent],
        expected_version: int,
        *,
        retry: bool = True,
    ) -> int:
        """Append a batch atomically; return the stream's new version. `expected_version` is the
        version the writer last saw (0 or NO_STREAM for a new stream) or ANY. Raises
        ConcurrencyError (with `.actual_version`) on a mismatch. Appending a batch whose event ids
        are already stored as that same batch returns the original version and writes nothing;
        with `retry=False` it raises DuplicateEventError instead, for a writer that must know
        whether its own events were written (two processes deciding the same command id may
        decide different events, and only the stored ones may be folded)."""
        self._check_open()
        check_stream_name(stream)
        expected = check_expected_version(expected_version)
        if isinstance(events, NewEvent):
            raise InvalidEventError("append takes a list of events, not a single event")
        prepared = [prepare(event, self.max_event_bytes) for event in events]
        ids = [event.event_id for event in prepared]
        if len(set(ids)) != len(ids):
            raise InvalidEventError("the same event id appears twice in one batch")
        if not prepared:
            actual = self.stream_version(stream)
            if not version_matches(expected, actual):
                raise ConcurrencyError(stream, expected, actual)
            return actual
        try:
            version = self._append(stream, prepared, expected)
        except _Retried as retried:
            if not retry:
                raise DuplicateEventError(
                    f"event id {ids[0]!r} is already stored as version "
                    f"{retried.version - len(ids) + 1} of stream {stream!r}: this batch was "
                    "written before"
                ) from None
            return retried.version
        self._wake_subscribers()
        return version

    @abstractmethod
    def _append(self, stream: str, events: list[PreparedEvent], expected: int) -> int:
        """Write the batch in one transaction, or resolve it as an idempotent retry."""

    def _resolve_retry(
        self,
        stream: str,
        events: list[PreparedEvent],
        existing: Iterable[Existing],
        conflict: EventStoreError,
    ) -> NoReturn:
        """Called by a backend when an append failed (version conflict or a duplicate id): if the
        batch is already stored exactly, it is a retry and we return its original version;
        otherwise re-raise the conflict, or explain the clash of ids. (The retry's version
        travels as the `_Retried` exception, so that `append` alone decides what it means.)"""
        found = {row.event_id: row for row in existing}
        if not found:
            raise conflict
        rows = [found.get(event.event_id) for event in events]
        first = rows[0]
        if first is not None and all(
            row is not None and row.stream == stream and row.version == first.version + i
            for i, row in enumerate(rows)
        ):
            raise _Retried(first.version + len(rows) - 1)
        clash = next(row for row in found.values())
        raise DuplicateEventError(
            f"event id {clash.event_id!r} is already stored as version {clash.version} of "
            f"stream {clash.stream!r}, and this batch is not the same batch"
        )

    def copy_in(self, events: Sequence[RecordedEvent]) -> None:
        """Store events recorded in another store exactly as they were: same stream, version,
        event id, schema version, payloads and recorded time, after everything already here and
        in the order given (their global order, when copied in position order). For moving a
        store to another backend (`eventstore.copy`). Each event must take the next version of
        its stream; the whole batch is one transaction: a gap, or an id or version already
        stored, raises and writes nothing. Upcasted events are stored as read, so copy from a
        store without upcasters registered."""
        self._check_open()
        if isinstance(events, RecordedEvent):
            raise InvalidEventError("copy_in takes a list of events, not a single event")
        rows: list[Row] = []
        next_version: dict[str, int] = {}
        for event in events:
            if not isinstance(event, RecordedEvent):
                raise InvalidEventError(
                    f"copy_in takes RecordedEvent objects, not {type(event).__name__}"
                )
            stream = check_stream_name(event.stream)
            prepared = prepare(
                NewEvent(
                    event.type, event.data, event.metadata, event.event_id, event.schema_version
                ),
                self.max_event_bytes,
            )
            expected = next_version.get(stream)
            if expected is None:
                expected = self._stream_version(stream) + 1
            if event.version != expected:
                raise ConcurrencyError(stream, event.version - 1, expected - 1)
            next_version[stream] = expected + 1
            rows.append(
                Row(
                    stream,
                    event.version,
                    0,  # assigned by the backend: after everything already stored
                    prepared.type,
                    prepared.data_json,
                    prepared.metadata_json,
                    prepared.event_id,
                    prepared.schema_version,
                    event.recorded_at_ms,
                )
            )
        if rows:
            self._copy_in(rows)
            self._wake_subscribers()

    @abstractmethod
    def _copy_in(self, rows: list[Row]) -> None:
        """Insert the rows (their `position` ignored) in one transaction, positions following
        the store's last one in the given order; a clash raises DuplicateEventError."""

    # -- reading ---------------------------------------------------------------------------

    def read(
        self, stream: str, from_version: int = 1, to_version: int | None = None
    ) -> list[RecordedEvent]:
        """The stream's events with from_version <= version <= to_version (both inclusive;
        from_version 0 is read as 1). An unknown stream reads as empty."""
        self._check_open()
        check_stream_name(stream)
        low = _non_negative("from_version", from_version)
        high = None if to_version is None else _non_negative("to_version", to_version)
        if high is not None and high < max(low, 1):
            return []
        return self._events(self._read(stream, max(low, 1), high))

    def read_all(self, from_position: int = 1, limit: int | None = None) -> list[RecordedEvent]:
        """Every event from `from_position` on, in global commit order: positions are assigned
        in commit order without gaps, so a reader that saw position p has seen all before it."""
        self._check_open()
        low = _non_negative("from_position", from_position)
        if limit is not None and _non_negative("limit", limit) == 0:
            return []
        return self._events(self._read_all(max(low, 1), limit))

    def stream_version(self, stream: str) -> int:
        """The stream's current version: the number of events in it (0 if it does not exist)."""
        self._check_open()
        check_stream_name(stream)
        return self._stream_version(stream)

    def list_streams(self, prefix: str = "") -> list[str]:
        """Names of the streams that start with `prefix`, sorted."""
        self._check_open()
        if not isinstance(prefix, str):
            raise InvalidEventError("prefix must be a string")
        return self._list_streams(prefix)

    def last_position(self) -> int:
        """The global position of the last committed event (0 for an empty store)."""
        self._check_open()
        return self._last_position()

    def subscribe(self, from_position: int = 1, *, batch_size: int = 500) -> Subscription:
        """An iterator over every event from `from_position` on: it catches up from storage and
        then waits for new events. `get(timeout)` returns None when nothing came in time."""
        self._check_open()
        _non_negative("from_position", from_position)
        return Subscription(self, max(from_position, 1), batch_size=batch_size)

    @abstractmethod
    def _read(self, stream: str, low: int, high: int | None) -> Sequence[RowTuple]: ...

    @abstractmethod
    def _read_all(self, low: int, limit: int | None) -> Sequence[RowTuple]: ...

    @abstractmethod
    def _stream_version(self, stream: str) -> int: ...

    @abstractmethod
    def _list_streams(self, prefix: str) -> list[str]: ...

    @abstractmethod
    def _last_position(self) -> int: ...

    # -- schema versions -------------------------------------------------------------------

    def register_upcaster(self, event_type: str, from_schema_version: int, fn: Upcaster) -> None:
        """Read stored `event_type` payloads of `from_schema_version` as `fn(data)`, of version
        from_schema_version + 1. Upcasters chain, so old events reach the newest form."""
        if isinstance(from_schema_version, bool) or not isinstance(from_schema_version, int):
            raise InvalidEventError("from_schema_version must be an int")
        if from_schema_version < 1:
            raise InvalidEventError("schema versions start at 1")
        key = (event_type, from_schema_version)
        if key in self._upcasters:
            raise InvalidEventError(
                f"an upcaster from {event_type} v{from_schema_version} is already registered"
            )
        self._upcasters[key] = fn

    def _events(self, rows: Iterable[RowTuple]) -> list[RecordedEvent]:
        """Build RecordedEvents from raw rows. This loop is the cost of every rebuild (read and
        fold a stream), so it avoids per-event overhead: one C-level JSON decode per payload,
        empty metadata not decoded at all, upcasters looked up only when any are registered."""
        decode = _DECODER.raw_decode
        new = tuple.__new__  # RecordedEvent is a NamedTuple: skip its Python-level __new__
        upcasters = self._upcasters
        events = []
        for stream, version, pos, type_, data_json, meta_json, event_id, schema, at in rows:
            try:
                data = decode(data_json)[0]
                metadata = {} if meta_json == "{}" else decode(meta_json)[0]
            except ValueError as exc:
                raise SerializationError(
                    f"stored payload of {stream}@{version} is not valid JSON: {exc}"
                ) from None
            if type(data) is not dict or type(metadata) is not dict:
                raise SerializationError(f"stored payload of {stream}@{version} is not an object")
            if upcasters:
                data, schema = self._upcast(stream, version, type_, data, schema)
            events.append(
                new(
                    RecordedEvent,
                    (stream, version, pos, type_, data, metadata, event_id, schema, at),
                )
            )
        return events

    def _upcast(
        self, stream: str, version: int, type_: str, data: dict[str, Any], schema: int
    ) -> tuple[dict[str, Any], int]:
        while (upcaster := self._upcasters.get((type_, schema))) is not None:
            try:
                data = upcaster(data)
            except Exception as exc:
                raise UpcasterError(
                    f"upcaster of {type_} v{schema} failed on {stream}@{version}: {exc!r}"
                ) from exc
            if not isinstance(data, dict):
                raise UpcasterError(
                    f"upcaster of {type_} v{schema} returned {type(data).__name__}, not a dict"
                )
            schema += 1
        return data, schema

    # -- live subscribers ------------------------------------------------------------------

    def _wake_subscribers(self) -> None:
        # Never block here: under eventlet the store may be called from a tpool OS thread while
        # a greenthread holds the (green) lock, and a blocking acquire across OS threads is
        # unsafe. A missed wake-up only delays a subscriber by `poll_interval`.
        if self._appended.acquire(blocking=False):
            try:
                self._generation += 1
                self._appended.notify_all()
            finally:
                self._appended.release()
        else:
            self._generation += 1

    def _wait_for_append(self, generation: int, timeout: float) -> None:
        with self._appended:
            if self._generation == generation and not self._closed:
                self._appended.wait(timeout)

    @property
    def wait_interval(self) -> float:
        """How long a caught-up subscription waits before reading again when nothing woke it:
        `poll_interval`, unless the backend is told of other processes' appends."""
        return self.poll_interval

    @property
    def generation(self) -> int:
        """Changes each time an append commits through this store object."""
        return self._generation

    # -- lifetime --------------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Release the database resources; waiting subscriptions end."""
        if self._closed:
            return
        self._closed = True
        self._wake_subscribers()
        self._close()

    @abstractmethod
    def _close(self) -> None: ...

    def _check_open(self) -> None:
        if self._closed:
            raise EventStoreError("the event store is closed")

    def __enter__(self) -> EventStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class _Retried(Exception):
    """A backend's `_append` found the batch already stored: the stream's version after it."""

    def __init__(self, version: int) -> None:
        super().__init__(version)
        self.version = version


def version_matches(expected: int, actual: int) -> bool:
    if expected == ANY:
        return True
    if expected == NO_STREAM:
        return actual == 0
    return expected == actual


def _non_negative(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidEventError(f"{name} must be an int >= 0, not {value!r}")
    return value
