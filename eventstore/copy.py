"""Copy a whole store into another one (e.g. the SQLite default into PostgreSQL), and check it.

`copy_store` reads the source in global order and writes each page with `copy_in`, one
transaction per page, so the target always holds a prefix of the source: a copy stopped at any
moment resumes where it stopped, and a copy run again on a complete target writes nothing.
`compare_stores` then checks every stream by its event count and a digest of its events."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from eventstore.base import EventStore
from eventstore.errors import EventStoreError
from eventstore.events import RecordedEvent

DEFAULT_BATCH = 500

Progress = Callable[[int], None]


class CopyError(EventStoreError):
    """The target store is not empty and is not a (partial) copy of the source."""


@dataclass(frozen=True)
class CopyResult:
    """What a copy did: events written now, events found already copied, the source's total."""

    copied: int
    already: int
    total: int


@dataclass(frozen=True)
class StreamDifference:
    stream: str
    problem: str


@dataclass
class Comparison:
    streams: int = 0
    events: int = 0
    differences: list[StreamDifference] = field(default_factory=list)

    @property
    def identical(self) -> bool:
        return not self.differences


def copy_store(
    source: EventStore,
    target: EventStore,
    *,
    batch_size: int = DEFAULT_BATCH,
    progress: Progress | None = None,
) -> CopyResult:
    """Copy every event of `source` not yet in `target`, in global order; `progress(n)` is called
    with the number of events handled after each page (those found already copied first)."""
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    total = source.last_position()
    done = copied_prefix(source, target)
    if progress is not None and done:
        progress(done)
    position = done + 1
    copied = 0
    while position <= total:
        page = source.read_all(position, limit=min(batch_size, total - position + 1))
        if not page:
            break
        target.copy_in(page)
        copied += len(page)
        position = page[-1].position + 1
        if progress is not None:
            progress(len(page))
    return CopyResult(copied=copied, already=done, total=total)


def copied_prefix(source: EventStore, target: EventStore) -> int:
    """How many of the source's first events the target already holds (its last position),
    after checking that the target is a copy of the source so far and not another store."""
    done = target.last_position()
    if done == 0:
        return 0
    if done > source.last_position():
        raise CopyError(
            f"the target holds {done} events, more than the source's "
            f"{source.last_position()}: it is not a copy of this source"
        )
    for at in {1, done}:  # its first and its last event must be the source's
        mine = source.read_all(at, limit=1)
        theirs = target.read_all(at, limit=1)
        if not theirs or mine[0].event_id != theirs[0].event_id:
            raise CopyError(
                f"the target's event at position {at} is not the source's: copy into an "
                "empty store, or into one that an earlier copy of this source filled"
            )
    return done


def stream_digest(events: Iterable[RecordedEvent]) -> str:
    """A SHA-256 over everything a copy must keep of each event, its global position included,
    payloads compared as JSON values (key order and spacing aside), not as stored text."""
    digest = hashlib.sha256()
    for event in events:
        fields: list[Any] = [
            event.stream,
            event.version,
            event.position,
            event.type,
            event.data,
            event.metadata,
            event.event_id,
            event.schema_version,
            event.recorded_at_ms,
        ]
        digest.update(json.dumps(fields, sort_keys=True, separators=(",", ":")).encode())
        digest.update(b"\n")
    return digest.hexdigest()


def compare_stores(
    source: EventStore, target: EventStore, *, progress: Progress | None = None
) -> Comparison:
    """Every stream of either store, compared by event count and digest; `progress(1)` is
    called after each stream."""
    names = sorted(set(source.list_streams()) | set(target.list_streams()))
    result = Comparison(streams=len(names))
    for name in names:
        mine = source.read(name)
        theirs = target.read(name)
        result.events += len(mine)
        if len(mine) != len(theirs):
            result.differences.append(
                StreamDifference(name, f"{len(mine)} events in the source, {len(theirs)} copied")
            )
        elif stream_digest(mine) != stream_digest(theirs):
            result.differences.append(StreamDifference(name, "same count, different events"))
        if progress is not None:
            progress(1)
    return result
