"""Issue 38: an error quotes at most 40 characters of what it refuses, records' included (a
mismatch error's `stated` once quoted ~400 characters of a record's pack)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from eventstore import open_store
from records.errors import RecordError, RecordMismatchError, error_reply
from records.importer import parse_record_file, store_record

GOLDEN = Path(__file__).resolve().parents[2] / "data" / "records" / "classic-calls-resign.json"
LONG = "Z" * 500


def test_a_mismatch_quotes_40_characters_of_each_side() -> None:
    exc = RecordMismatchError(1, None, "pack 0 does not come from the seed", "9H " * 100, "x" * 90)
    body, status = error_reply(exc)
    assert status == 422 and body["code"] == "mismatch"
    assert body["stated"] == ("9H " * 100)[:40] + "…" and len(body["engine"]) == 41
    assert len(exc.message) < 200 and exc.stated == "9H " * 100  # the value itself is kept


def _record(**changes: Any) -> dict[str, Any]:
    record: dict[str, Any] = json.loads(GOLDEN.read_text())
    record.update(changes)
    return record


@pytest.mark.parametrize(
    "record",
    [
        _record(result={"finished": False, "winner": None, "totals": [0, int("9" * 300)]}),
        _record(ruleset={**_record()["ruleset"], LONG: LONG}),
        _record(ruleset={**_record()["ruleset"], "reserve_size": LONG}),
        _record(match_id=LONG[:70] + "!"),
        _record(match_id=f"{LONG[:40]}-r1-t1"),
    ],
    ids=["stated", "option name", "option value", "id", "tournament id"],
)
def test_record_errors_quote_at_most_40_characters(record: dict[str, Any]) -> None:
    with pytest.raises(RecordError) as refused:
        store_record(open_store("memory://"), record)
    body, _status = error_reply(refused.value)
    assert "Z" * 41 not in json.dumps(body) and "9" * 41 not in json.dumps(body), body


@pytest.mark.parametrize(
    "text",
    [
        f'[Format "{LONG}"]\n',
        f"[{LONG}\n",
        '[Format "crapette-record/1"]\n[Match "m"]\n[Started "' + "1" * 300 + '"]\n',
    ],
)
def test_text_form_errors_quote_at_most_40_characters(text: str) -> None:
    with pytest.raises(RecordError) as refused:
        parse_record_file(text)
    shown = json.dumps(error_reply(refused.value)[0])
    assert "Z" * 41 not in shown and "1" * 41 not in shown, shown
