"""The round trip every record test leans on: events → record → text → record, losslessly,
and the record verifies back to the very events."""

from __future__ import annotations

from typing import Any

import domain
from records.export import record_from_events
from records.schema import dump_record
from records.text import from_text, to_text
from records.verify import Verified, verify_record


def round_trip(events: list[domain.Event]) -> tuple[dict[str, Any], Verified]:
    """The record of `events` and its verification, after asserting that its text form is under
    80 columns and reads back to the same record, and that verifying gives the same events."""
    record = record_from_events(events)
    text = to_text(record)
    assert max(len(line) for line in text.splitlines()) < 80
    back = from_text(text)
    assert dump_record(back) == record
    assert to_text(back) == text
    verified = verify_record(back)
    assert [e for batch in verified.batches for e in batch] == events
    return record, verified
