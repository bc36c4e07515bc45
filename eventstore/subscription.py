"""A catch-up subscription: reads stored events in pages, then waits for new ones. It only uses
the store's public reads, so it works the same on every backend and across processes (appends
made by another process are picked up by polling every `store.poll_interval` seconds, or at
once on PostgreSQL, which notifies listeners of every append)."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Iterator
from typing import Protocol

from eventstore.errors import EventStoreError
from eventstore.events import RecordedEvent


class Source(Protocol):
    """What a subscription reads from: the part of `eventstore.base.EventStore` it uses. (Named
    here rather than imported, so that base.py, which makes subscriptions, and this module do not
    import each other.)"""

    @property
    def closed(self) -> bool: ...

    @property
    def generation(self) -> int: ...

    @property
    def wait_interval(self) -> float: ...

    def read_all(self, from_position: int = 1, limit: int | None = None) -> list[RecordedEvent]: ...

    def _wait_for_append(self, generation: int, timeout: float) -> None: ...


class Subscription(Iterator[RecordedEvent]):
    """Iterate to block for each next event (iteration ends when the subscription or the store is
    closed), or call `get(timeout)` which returns None if nothing arrived in time."""

    def __init__(self, store: Source, from_position: int, *, batch_size: int = 500) -> None:
        self._store = store
        self._next_position = from_position
        self._batch_size = batch_size
        self._buffer: deque[RecordedEvent] = deque()
        self._closed = False

    @property
    def position(self) -> int:
        """The position of the last event handed out (0 if none yet)."""
        if self._buffer:
            return self._buffer[0].position - 1
        return self._next_position - 1

    @property
    def closed(self) -> bool:
        return self._closed or self._store.closed

    def get(self, timeout: float | None = None) -> RecordedEvent | None:
        """The next event; waits up to `timeout` seconds (forever if None, not at all if 0)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            if self._buffer:
                return self._buffer.popleft()
            if self.closed:
                return None
            # Read the generation before reading the store: an append committing in between
            # changes it, so the wait below returns at once instead of missing that append.
            generation = self._store.generation
            try:
                batch = self._store.read_all(self._next_position, limit=self._batch_size)
            except EventStoreError:
                if self.closed:  # the store was closed under us: end quietly
                    return None
                raise
            if batch:
                self._buffer.extend(batch)
                self._next_position = batch[-1].position + 1
                continue
            wait = self._store.wait_interval
            if deadline is not None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                wait = min(wait, remaining)
            self._store._wait_for_append(generation, wait)

    def __iter__(self) -> Subscription:
        return self

    def __next__(self) -> RecordedEvent:
        event = self.get(None)
        if event is None:
            raise StopIteration
        return event

    def close(self) -> None:
        self._closed = True

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
