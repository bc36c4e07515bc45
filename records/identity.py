"""What makes two matches one: the content hash of their events (docs/records.md § Imported once).

A match's identity is the SHA-256 of its events, in order, each as its type and data in
canonical JSON (sorted keys, no spaces), with the `match_id` a data field may carry left out: the
same record imported under two ids has one hash, and so has a match played here and its record
imported again. An import stores the hash in its table's `TableOpened` (`content_hash`) and in the
index stream `imported-<hash>`, whose last event names the match that holds it; statistics and
ratings count one match per hash (`dedup_key`). (Not the analysis cache's `record_hash`,
server.readmodels.analysis_build, which hashes a record's JSON.) Only a `TableOpened` carrying the
hash makes a match its holder: the table is written last, so an import that stopped before it holds
nothing.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from eventstore import EventStore
from records.streams import match_stream, table_stream

IMPORTED_PREFIX = "imported-"
RECORD_IMPORTED = "RecordImported"


def events_hash(events: Iterable[tuple[str, Mapping[str, Any]]]) -> str:
    """The content hash of a match's events, given as (type, data) pairs."""
    digest = hashlib.sha256()
    for kind, data in events:
        shown = {key: value for key, value in data.items() if key != "match_id"}
        line = json.dumps([kind, shown], sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        digest.update(line.encode("utf-8", "surrogatepass"))
        digest.update(b"\n")
    return digest.hexdigest()


def stored_hash(store: EventStore, match_id: str) -> str:
    """The content hash of a stored match: the one its import stored, else read from its events."""
    try:
        opened = store.read(table_stream(match_id), 1, 1)
    except ValueError:  # an id no table stream can have
        opened = []
    if opened and isinstance(opened[0].data.get("content_hash"), str):
        known: str = opened[0].data["content_hash"]
        return known
    return events_hash((r.type, r.data) for r in store.read(match_stream(match_id)))


def imported_stream(content_hash: str) -> str:
    return IMPORTED_PREFIX + content_hash


def holder(store: EventStore, content_hash: str) -> tuple[int, str | None]:
    """The index stream's version and the match that holds `content_hash` now: the one its
    last claim names, if that match's `TableOpened` carries this hash (None: no claim, or an
    import that did not finish - its table is not written - or a claim of another record's)."""
    stream = imported_stream(content_hash)
    version = store.stream_version(stream)
    if not version:
        return 0, None
    last = store.read(stream, version, version)[0]
    match_id = last.data.get("match_id")
    if not isinstance(match_id, str):
        return version, None
    try:
        opened = store.read(table_stream(match_id), 1, 1)
    except ValueError:  # an id no table stream can have
        return version, None
    if not opened or opened[0].type != "TableOpened":
        return version, None
    if opened[0].data.get("content_hash") != content_hash:
        return version, None
    return version, match_id


def dedup_key(
    store: EventStore, match_id: str, events: list[tuple[str, Mapping[str, Any]]]
) -> tuple[str, bool]:
    """What statistics count a match by, its content hash (docs/records.md), and whether it was
    imported (of one match stored twice, the one played here is the one counted)."""
    try:
        opened = store.read(table_stream(match_id), 1, 1)
    except ValueError:
        opened = []
    imported = bool(opened and opened[0].data.get("imported"))
    if opened and isinstance(opened[0].data.get("content_hash"), str):
        return opened[0].data["content_hash"], imported
    return events_hash(events), imported
