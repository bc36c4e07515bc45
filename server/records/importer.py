"""Read a record file (JSON or text) and store a verified record as a match.

Importing never copies the record's stated decisions: the events stored are those the engine
produced while verifying, so an imported match is exactly what the server would have stored had
the game been played on it, and it replays like any other. The match stream is written in one
atomic append, then the lobby stream `table-<id>` (named seats without seat tokens, so nobody can
act in it), after which the server finds it like any other match.
"""

from __future__ import annotations

import json
from typing import Any

import domain
from eventstore import EventStore
from server.records.errors import MatchExistsError, RecordFormatError
from server.records.schema import load_record
from server.records.text import from_text
from server.records.verify import Verified, ruleset_of, verify_record
from server.schemas import MATCH_ID_PATTERN
from server.tables import match_stream, table_stream

MAX_RECORD_CHARS = 50_000_000  # a very long match is a few MB; anything bigger is not a record


def parse_record_file(text: str) -> dict[str, Any]:
    """A record from the text of a file: JSON if it starts with `{`, the text form if with `[`,
    the JSON record a replay file embeds if it is HTML."""
    if len(text) > MAX_RECORD_CHARS:
        raise RecordFormatError(f"a record of {len(text)} characters is too large to be one")
    stripped = text.lstrip("\ufeff \t\r\n")
    if stripped.startswith("<"):  # a replay file (docs/records.md § HTML): its embedded record
        from server.share.html import record_text_of_html

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


def import_record(store: EventStore, record: dict[str, Any], match_id: str | None = None) -> str:
    """Verify `record`, store it as match `match_id` (default: the record's id); a summary line."""
    record = load_record(record)
    hint = " (import it under another id)" if match_id is None else ""
    if match_id is not None:
        record = {**record, "match_id": match_id}
    match_id = record["match_id"]
    # The id the server reads from URLs and messages (else the store refuses the stream's name,
    # or the match is stored where no request can reach it).
    if not MATCH_ID_PATTERN.match(match_id):
        raise RecordFormatError(
            f"{match_id[:100]!r} cannot name a match: 1 to 80 letters, digits and _ . : -, "
            f"starting with a letter or digit{hint}"
        )
    verified = verify_record(record)
    if _taken(store, match_id):
        same = _same_match(store, match_id, verified)
        free = free_match_id(store, match_id)
        what = "this very record" if same else "another match"
        raise MatchExistsError(
            f"there is already a match {match_id!r} here, and it is {what} "
            f"(import it under another id, such as {free!r})",
            match_id=match_id,
            same_record=same,
            free_id=free,
        )
    _append_match(store, match_id, verified)
    _append_table(store, record)
    return f"imported {match_id}: {verified.summary.removeprefix('ok: ')}"


def _taken(store: EventStore, match_id: str) -> bool:
    return bool(
        store.stream_version(match_stream(match_id)) or store.stream_version(table_stream(match_id))
    )


def _same_match(store: EventStore, match_id: str, verified: Verified) -> bool:
    """Whether the stored match is the one this record describes: the same events, in order (a
    record downloaded from this server and uploaded again), whatever its file form."""
    stored = [(e.type, e.data) for e in store.read(match_stream(match_id))]
    mine = [domain.event_to_payload(event) for events in verified.batches for event in events]
    # Stored data went through JSON (tuples came back as lists): compare in that form.
    same: bool = json.loads(json.dumps(stored)) == json.loads(json.dumps(mine))
    return same


def free_match_id(store: EventStore, match_id: str) -> str:
    """The first of `<id>-2`, `<id>-3`, … that names no match here (cut to stay a valid id)."""
    number = 2
    while True:
        suffix = f"-{number}"
        candidate = match_id[: 80 - len(suffix)] + suffix
        if not _taken(store, candidate):
            return candidate
        number += 1


def _append_match(store: EventStore, match_id: str, verified: Verified) -> None:
    from eventstore import NewEvent

    batch = []
    for number, events in enumerate(verified.batches):
        metadata = {"command_id": f"import-{number}", "imported": True}
        for index, event in enumerate(events):
            kind, data = domain.event_to_payload(event)
            event_id = f"{match_id}/import-{number}/{index}"
            batch.append(NewEvent(type=kind, data=data, metadata=metadata, event_id=event_id))
    store.append(match_stream(match_id), batch, expected_version=0)


def _append_table(store: EventStore, record: dict[str, Any]) -> None:
    """The lobby facts the server folds into a `Table` (server/tables.py): opened, two seats,
    and at a rotation table everyone who joined its queue."""
    from eventstore import NewEvent

    match_id = record["match_id"]
    ruleset = ruleset_of(record).to_json()
    opened = {
        "match_id": match_id,
        "ruleset": ruleset,
        "preset": ruleset["preset"],
        "at_ms": record["started_at_ms"],
        "rematch_of": None,
        "imported": True,  # for the lobby: a match that was played elsewhere
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
    store.append(table_stream(match_id), events, expected_version=0)
