"""The in-memory backend (`memory://`), for unit tests and fakes. Payloads are kept as JSON text,
like the durable backends, so a caller mutating a dict after append or read changes nothing."""

from __future__ import annotations

import threading
import time
from typing import Any

from eventstore.base import EventStore, Existing, Row, version_matches
from eventstore.errors import ConcurrencyError, DuplicateEventError
from eventstore.events import PreparedEvent


class MemoryStore(EventStore):
    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._lock = threading.Lock()
        self._rows: list[Row] = []  # index = position - 1
        self._streams: dict[str, list[Row]] = {}
        self._ids: dict[str, Existing] = {}

    def _append(self, stream: str, events: list[PreparedEvent], expected: int) -> int:
        with self._lock:
            rows = self._streams.get(stream, [])
            actual = len(rows)
            existing = [self._ids[e.event_id] for e in events if e.event_id in self._ids]
            if existing or not version_matches(expected, actual):
                return self._resolve_retry(
                    stream, events, existing, ConcurrencyError(stream, expected, actual)
                )
            now_ms = int(time.time() * 1000)
            new_rows = [
                Row(
                    stream,
                    actual + i + 1,
                    len(self._rows) + i + 1,
                    e.type,
                    e.data_json,
                    e.metadata_json,
                    e.event_id,
                    e.schema_version,
                    now_ms,
                )
                for i, e in enumerate(events)
            ]
            self._rows.extend(new_rows)
            self._streams.setdefault(stream, []).extend(new_rows)
            for row in new_rows:
                self._ids[row.event_id] = Existing(row.event_id, row.stream, row.version)
            return actual + len(events)

    def _copy_in(self, rows: list[Row]) -> None:
        with self._lock:
            heads: dict[str, int] = {}
            ids: set[str] = set()
            for row in rows:
                head = heads.get(row.stream, len(self._streams.get(row.stream, ())))
                heads[row.stream] = row.version
                clash = row.event_id in self._ids or row.event_id in ids
                ids.add(row.event_id)
                if clash or head != row.version - 1:
                    raise DuplicateEventError(
                        f"cannot copy {row.stream}@{row.version} ({row.event_id}): "
                        "that version or event id is already stored"
                    )
            for row in rows:
                stored = row._replace(position=len(self._rows) + 1)
                self._rows.append(stored)
                self._streams.setdefault(row.stream, []).append(stored)
                self._ids[row.event_id] = Existing(row.event_id, row.stream, row.version)

    def _read(self, stream: str, low: int, high: int | None) -> list[Row]:
        with self._lock:
            rows = self._streams.get(stream, [])
            return rows[low - 1 : high]

    def _read_all(self, low: int, limit: int | None) -> list[Row]:
        with self._lock:
            return self._rows[low - 1 : None if limit is None else low - 1 + limit]

    def _stream_version(self, stream: str) -> int:
        with self._lock:
            return len(self._streams.get(stream, ()))

    def _list_streams(self, prefix: str) -> list[str]:
        with self._lock:
            return sorted(name for name in self._streams if name.startswith(prefix))

    def _last_position(self) -> int:
        with self._lock:
            return len(self._rows)

    def _close(self) -> None:
        pass
