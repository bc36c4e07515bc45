"""Read a record file (JSON or text) and store a verified record as a match.

Importing never copies the record's stated decisions: the events stored are those the engine
produced while verifying, so an imported match is exactly what the server would have stored had
the game been played on it, and it replays like any other. The match stream is written in short
appends of STEP_EVENTS events, a pause between two (`store_record`), then the lobby stream
`table-<id>` (named seats without seat tokens, so nobody can act in it), after which the server
finds it like any other match: nothing reads a match without its table, so a match half written
is never seen, and an import stopped half-way is finished by importing the record again.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import domain
from domain.errors import QUOTE_CHARS, quote
from eventstore import (
    DEFAULT_MAX_EVENT_BYTES,
    ConcurrencyError,
    DuplicateEventError,
    EventStore,
    EventTooLargeError,
    NewEvent,
)
from eventstore.events import prepare
from eventstore.memory import MemoryStore
from records import identity
from records.errors import MatchExistsError, RecordFormatError
from records.schema import load_record
from records.streams import (
    MATCH_ID_PATTERN,
    RESERVED_FORMS,
    SERVER_MATCH_ID,
    match_stream,
    reserved_form,
    table_stream,
    unreserved_id,
)
from records.text import from_text
from records.verify import Verified, ruleset_of, verify_record

MAX_RECORD_CHARS = 50_000_000  # a very long match is a few MB; anything bigger is not a record
# The ids the server gives its own matches ("m-" + 10 hex digits, server.model.tables.new_match_id):
# an import under one could take the id of a match this server will open (records/streams.py
# names every reserved form).
SERVER_ID = SERVER_MATCH_ID
# How far ahead of this server's clock a record's times may be (another machine's clock).
CLOCK_SKEW_MS = 5 * 60 * 1000
# An import writes its match in appends of this many events, each its own transaction: SQLite
# has one writer, and one transaction of a whole long match (9,800 events: ~0.4 s) kept every
# table's move waiting that long (docs/benchmarks.md § crapette bench abuse). 250 events are a
# few milliseconds of writing.
STEP_EVENTS = 250
# The pause after each append, at least this long and at least as long as the append took: the
# other writers (a server's moves) take the store's writer lock in between.
STEP_PAUSE_S = 0.005


def parse_record_file(text: str) -> dict[str, Any]:
    """A record from the text of a file: JSON if it starts with `{`, the text form if with `[`,
    the JSON record a replay file embeds if it is HTML."""
    if len(text) > MAX_RECORD_CHARS:
        raise RecordFormatError(f"a record of {len(text)} characters is too large to be one")
    stripped = text.lstrip("\ufeff \t\r\n")
    if stripped.startswith("<"):  # a replay file (docs/records.md § HTML): its embedded record
        from records.embedded import record_text_of_html

        embedded = record_text_of_html(stripped)
        if embedded is None:
            raise RecordFormatError("this HTML page holds no match record (not a replay file)")
        stripped = embedded
    if stripped.startswith("{"):
        try:
            data = json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise RecordFormatError(
                f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
            ) from None
        except ValueError:  # int() refuses numbers of more than 4,300 digits
            raise RecordFormatError("not valid JSON: a number has too many digits") from None
        except RecursionError:
            raise RecordFormatError("not valid JSON: nested too deeply") from None
        return load_record(data)
    if stripped.startswith("["):
        return from_text(stripped)
    raise RecordFormatError(
        "this is not a match record: a record is JSON (starting with `{`) "
        'or the text form (starting with [Format "crapette-record/1"]), or a replay file (HTML)'
    )


@dataclass(frozen=True)
class Imported:
    """Where an import stored a record (`match_id`), the record's own id, and the summary line."""

    match_id: str
    record_id: str
    summary: str

    @property
    def renamed(self) -> bool:
        """Whether the record was stored under an id of its own choosing (a server's own id)."""
        return self.match_id != self.record_id


def import_record(
    store: EventStore,
    record: dict[str, Any],
    match_id: str | None = None,
    now_ms: int | None = None,
    *,
    tournament_table: bool = False,
) -> str:
    """Verify `record`, store it as match `match_id` (default: the record's id); a summary line
    (`store_record` tells the id it was stored under too)."""
    return store_record(store, record, match_id, now_ms, tournament_table=tournament_table).summary


def store_record(
    store: EventStore,
    record: dict[str, Any],
    match_id: str | None = None,
    now_ms: int | None = None,
    *,
    tournament_table: bool = False,
    pause_s: float | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Imported:
    """Verify `record` and store it as match `match_id`; default: the record's own id, or, when
    that is of this server's own form (`m-` and 10 hex digits: a match exported from a server),
    a free `x-…` id derived from it, which the summary names.

    The same record is stored once: its content hash (records.identity) names the match that
    holds it, and importing it again under any id is a MatchExistsError naming that match. An
    import that stopped half-way (its match written, or part of it, not its table) holds nothing:
    importing the record again under that id finishes it.

    The match is written in appends of STEP_EVENTS events with a pause between two (`pause_s`:
    STEP_PAUSE_S, none for a store in memory, which has no other writer to let in).
    `progress(done, total)`: told how many of the record's actions are checked so far."""
    record = load_record(record)
    own_id = record["match_id"]
    given = match_id is not None
    hint = "" if given else " (import it under another id)"
    if match_id is not None:
        record = {**record, "match_id": match_id}
    match_id = record["match_id"]
    # The id the server reads from URLs and messages (else the store refuses the stream's name,
    # or the match is stored where no request can reach it).
    if not MATCH_ID_PATTERN.match(match_id):
        raise RecordFormatError(
            f"{quote(match_id)} cannot name a match: 1 to 80 letters, digits and _ . : -, "
            f"starting with a letter or digit{hint}"
        )
    if reserved_form(match_id) == "tournament" and not tournament_table:
        raise _reserved(match_id, "tournament")
    _check_times(record, int(time.time() * 1000) if now_ms is None else now_ms)
    verified = verify_record(record, progress)
    payloads = [domain.event_to_payload(event) for events in verified.batches for event in events]
    pairs: list[tuple[str, dict[str, Any]]] = json.loads(json.dumps(payloads))
    content_hash = identity.events_hash(pairs)
    if not given and SERVER_ID.match(match_id):  # exported from a server: stored as x-…
        match_id = _derived_id(store, match_id, pairs)
    written = _written(store, match_id, pairs)
    resume = written is not None
    if _taken(store, match_id) and not resume:
        if _same_match(store, match_id, content_hash):  # under another id it would count twice
            raise MatchExistsError(
                f"there is already a match {quote(match_id)} here, and it is this very record",
                match_id=match_id,
                same_record=True,
            )
        free = free_match_id(store, match_id)
        raise MatchExistsError(
            f"there is already a match {quote(match_id)} here, and it is another match "
            f"(import it under another id, such as {free!r})",
            match_id=match_id,
            free_id=free,
        )
    index_version, first = identity.holder(store, content_hash)
    # A record of a match stored here (played here, say) brought back under another id.
    if (
        first is None
        and own_id != match_id
        and MATCH_ID_PATTERN.match(own_id)
        and _taken(store, own_id)
        and identity.stored_hash(store, own_id) == content_hash
    ):
        first = own_id
    if first is not None:
        raise MatchExistsError(
            f"this record is already here as match {first!r}: a record is imported once",
            match_id=first,
            same_record=True,
        )
    if SERVER_ID.match(match_id):
        raise _reserved(match_id, "server")
    match_events = _match_events(match_id, verified)
    table_events = _table_events(record, match_id, content_hash)
    limit = getattr(store, "max_event_bytes", DEFAULT_MAX_EVENT_BYTES)
    try:  # checked before anything is written: a refused record leaves no trace
        for event in (*match_events, *table_events):
            prepare(event, limit)
    except EventTooLargeError as exc:
        raise RecordFormatError(
            f"this record holds a value too large to store: {exc}"[:300],
            details={"_schema": ["An event over the store's size limit."]},
        ) from None
    claim = NewEvent(
        type=identity.RECORD_IMPORTED,
        data={"match_id": match_id, "at_ms": int(time.time() * 1000)},
    )
    try:
        # The claim first: of two imports of one record at once, one wins, the other is refused.
        store.append(identity.imported_stream(content_hash), [claim], index_version)
    except ConcurrencyError:
        _, first = identity.holder(store, content_hash)
        raise _exists_now(first) from None
    if pause_s is None:
        pause_s = 0.0 if isinstance(store, MemoryStore) else STEP_PAUSE_S
    try:
        _append_in_steps(store, match_id, match_events, written or 0, pause_s)
        store.append(table_stream(match_id), table_events, expected_version=0)
    except (ConcurrencyError, DuplicateEventError):  # another import took this id meanwhile
        if identity.holder(store, content_hash)[1] is None and _taken(store, match_id):
            free = free_match_id(store, match_id)
            raise MatchExistsError(
                f"there is already a match {quote(match_id)} here, stored just now "
                f"(import it under another id, such as {free!r})",
                match_id=match_id,
                free_id=free,
            ) from None
        raise _exists_now(identity.holder(store, content_hash)[1]) from None
    told = verified.summary.removeprefix(f"ok: {record['match_id']} ")
    if match_id != record["match_id"]:  # the derived id, and why
        told = f"(the record's id {quote(own_id)} is of a server's own form) {told}"
    summary = f"imported {match_id}: {told}"
    return Imported(match_id=match_id, record_id=own_id, summary=summary)


def _reserved(match_id: str, form: str) -> RecordFormatError:
    """The refusal of an id of a form this server mints for itself (records/streams.py)."""
    if form == "server":
        what = "this server's own match ids (m- and 10 hex digits)"
    else:
        what = (
            "a tournament's table ids (<tournament id>-r<round>-t<table>), "
            "which only that tournament's desk opens"
        )
    instead = unreserved_id(match_id)
    such_as = f", such as {instead!r}" if len(instead) <= QUOTE_CHARS else ""
    return RecordFormatError(
        f"{quote(match_id)} is in the form of {what}: import it under another id{such_as}",
        details={"match_id": [f"Reserved for {RESERVED_FORMS[form]}."]},
    )


def _exists_now(first: str | None) -> MatchExistsError:
    """The answer to the loser of two imports of one record at the same moment."""
    if first is None:  # the other one has not finished yet
        return MatchExistsError(
            "this record is being imported right now: try again in a moment",
            same_record=True,
        )
    return MatchExistsError(
        f"this record is already here as match {first!r}: a record is imported once",
        match_id=first,
        same_record=True,
    )


def _append_in_steps(
    store: EventStore, match_id: str, events: list[NewEvent], start: int, pause_s: float
) -> None:
    """Append `events[start:]` to the match's stream (which holds `start` of them), STEP_EVENTS
    at a time, each at its expected version; after each but the last a pause of `pause_s`, or as
    long as that append held the store if longer. ConcurrencyError if another writer came in."""
    stream = match_stream(match_id)
    for begin in range(start, len(events), STEP_EVENTS):
        began = time.monotonic()
        store.append(stream, events[begin : begin + STEP_EVENTS], expected_version=begin)
        if pause_s and begin + STEP_EVENTS < len(events):
            time.sleep(max(pause_s, time.monotonic() - began))


def _derived_id(store: EventStore, server_id: str, pairs: list[tuple[str, dict[str, Any]]]) -> str:
    """The id a record exported from a server is stored under: `x-` and its hex digits, or the
    first free one after it (`x-…-2`, …); one that holds this record's unfinished import is
    taken again, to finish it."""
    candidate = "x-" + server_id[2:]
    if not _taken(store, candidate) or _written(store, candidate, pairs) is not None:
        return candidate
    # Taken: by this record, imported before (then the import names it), or by another match.
    return free_match_id(store, candidate)


def _written(
    store: EventStore, match_id: str, pairs: list[tuple[str, dict[str, Any]]]
) -> int | None:
    """How many of this record's events (`pairs`: type and data) an import that stopped
    half-way left under `match_id`: its match stream holds the first ones of them, written by an
    import, and it has no table stream. None when it holds no such import (nothing written, a
    table, another match's events)."""
    if store.stream_version(table_stream(match_id)):
        return None
    version = store.stream_version(match_stream(match_id))
    if not version or version > len(pairs):
        return None
    stored = list(store.read(match_stream(match_id)))
    if not all((r.metadata or {}).get("imported") for r in stored):
        return None
    ours = identity.events_hash(pairs[: len(stored)])
    return len(stored) if identity.events_hash((r.type, r.data) for r in stored) == ours else None


def _check_times(record: dict[str, Any], now_ms: int) -> None:
    """A record's times are in the past (give or take another clock's skew)."""
    latest = now_ms + CLOCK_SKEW_MS
    times = [("started_at_ms", record["started_at_ms"])]
    times += [(f"games.{g['index']}.started_at_ms", g["started_at_ms"]) for g in record["games"]]
    for field, at_ms in times:
        if at_ms > latest:
            raise RecordFormatError(
                f"{field}: {at_ms} is in the future (this server's clock says {now_ms})",
                details={field: ["A time in the future."]},
            )


def _taken(store: EventStore, match_id: str) -> bool:
    return bool(
        store.stream_version(match_stream(match_id)) or store.stream_version(table_stream(match_id))
    )


def _same_match(store: EventStore, match_id: str, content_hash: str) -> bool:
    """Whether the stored match is the one this record describes: the same events, in order (a
    record downloaded from this server and uploaded again), whatever its file form and id."""
    stored = store.read(match_stream(match_id))
    return identity.events_hash((r.type, r.data) for r in stored) == content_hash


def free_match_id(store: EventStore, match_id: str) -> str:
    """The first of `<id>-2`, `<id>-3`, … that names no match here (cut to stay a valid id)."""
    number = 2
    while True:
        suffix = f"-{number}"
        candidate = match_id[: 80 - len(suffix)] + suffix
        if not _taken(store, candidate):
            return candidate
        number += 1


def _match_events(match_id: str, verified: Verified) -> list[NewEvent]:
    """The engine's events as the store keeps them, naming `match_id` (it may not be the id the
    record was verified under: a derived one)."""
    batch = []
    for number, events in enumerate(verified.batches):
        metadata = {"command_id": f"import-{number}", "imported": True}
        for index, event in enumerate(events):
            kind, data = domain.event_to_payload(event)
            if "match_id" in data:
                data = {**data, "match_id": match_id}
            event_id = f"{match_id}/import-{number}/{index}"
            batch.append(NewEvent(type=kind, data=data, metadata=metadata, event_id=event_id))
    return batch


def _table_events(record: dict[str, Any], match_id: str, content_hash: str) -> list[NewEvent]:
    """The lobby facts the server folds into a `Table` (server/model/tables.py): opened, two seats,
    and at a rotation table everyone who joined its queue."""
    ruleset = ruleset_of(record).to_json()
    opened = {
        "match_id": match_id,
        "ruleset": ruleset,
        "preset": ruleset["preset"],
        "at_ms": record["started_at_ms"],
        "rematch_of": None,
        "imported": True,  # for the lobby: a match that was played elsewhere
        "content_hash": content_hash,  # what makes it one match (records.identity)
    }
    events = [NewEvent(type="TableOpened", data=opened)]
    for seat, name in enumerate(record["players"]):
        # No token hash: nobody can act in an imported match, it is there to be replayed.
        taken = {"seat": seat, "name": name, "token_hash": None, "at_ms": record["started_at_ms"]}
        events.append(NewEvent(type="SeatTaken", data=taken))
    joined = [entry for entry in record.get("queue") or [] if entry["do"] == "join"]
    for place, entry in enumerate(joined, start=2):  # a rotation table's people who waited
        queued = {"place": place, "name": entry["name"], "token_hash": None, "bot": None}
        events.append(NewEvent(type="PersonQueued", data={**queued, "at_ms": entry["at_ms"]}))
    return events
