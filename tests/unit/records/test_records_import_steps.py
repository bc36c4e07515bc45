"""An import writes its match in short appends (issue 38): the store's one writer is never held
for the whole match, another writer gets in between two appends, a match half written is never
visible (no table), and an import stopped between two appends is finished by the next."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import records.importer as importer
from eventstore import EventStore, NewEvent, open_store
from records.importer import import_record, store_record
from tests.unit.records.test_records_identity import _golden, _interrupting

STEP = 10  # events per append here
RECORD = "classic-stalemate.json"  # 140 actions


@pytest.fixture(autouse=True)
def _small_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importer, "STEP_EVENTS", STEP)


class _Counting:
    """Counts the appends to the match stream and their sizes."""

    def __init__(self) -> None:
        self.sizes: list[int] = []

    def __call__(self, stream: str, events: Any = None) -> None:
        if stream.startswith("match-"):
            self.sizes.append(len(events))


def _recording(store: EventStore, before: Any) -> EventStore:
    """A store that calls `before(stream, events)` before each append."""

    class Recording:
        def append(self, stream: str, events: Any, expected_version: int) -> Any:
            before(stream, events)
            return store.append(stream, events, expected_version)

        def __getattr__(self, name: str) -> Any:
            return getattr(store, name)

    recording: Any = Recording()
    return recording  # type: ignore[no-any-return]


def test_the_match_is_written_in_appends_of_step_events() -> None:
    store = open_store("memory://")
    counting = _Counting()
    import_record(_recording(store, counting), _golden(RECORD), match_id="one")
    total = store.stream_version("match-one")
    assert total > 3 * STEP
    assert sum(counting.sizes) == total and max(counting.sizes) == STEP
    assert len(counting.sizes) == -(-total // STEP)


class _Stopped(Exception):
    pass


def test_an_import_stopped_between_two_appends_is_invisible_then_finished() -> None:
    store = open_store("memory://")
    appended = [0]

    def stop_at_third(stream: str) -> None:
        if stream.startswith("match-"):
            appended[0] += 1
            if appended[0] == 3:
                raise _Stopped(stream)

    with pytest.raises(_Stopped):
        import_record(_interrupting(store, stop_at_third), _golden(RECORD), match_id="one")
    assert store.stream_version("match-one") == 2 * STEP
    assert not store.stream_version("table-one")  # nothing reads a match without its table
    # Imported again, it goes on where the first stopped, and gives the same match.
    assert import_record(store, _golden(RECORD), match_id="one").startswith("imported one")
    whole = open_store("memory://")
    import_record(whole, _golden(RECORD), match_id="one")
    ours = [(r.type, r.data, r.event_id) for r in store.read("match-one")]
    assert ours == [(r.type, r.data, r.event_id) for r in whole.read("match-one")]


def test_a_half_written_match_of_another_record_is_not_taken_for_ours() -> None:
    store = open_store("memory://")
    other = NewEvent(type="MatchStarted", data={"at_ms": 1}, metadata={"imported": True})
    store.append("match-one", [other], 0)
    with pytest.raises(Exception, match="already a match 'one'"):
        import_record(store, _golden(RECORD), match_id="one")


def test_another_writer_gets_the_store_between_two_appends(tmp_path: Path) -> None:
    """On SQLite, with the pause: a writer of another connection appends while the import runs,
    and its events land between the match's (one transaction would have kept them out)."""
    url = f"sqlite:///{tmp_path / 'steps.sqlite3'}"
    importing = open_store(url)
    other = open_store(url)
    done = threading.Event()

    def write_meanwhile() -> None:
        version = 0
        while not done.is_set():
            other.append("notes-1", [NewEvent(type="Noted", data={"n": version})], version)
            version += 1
            time.sleep(0.001)

    writer = threading.Thread(target=write_meanwhile)
    writer.start()
    try:
        time.sleep(0.01)
        store_record(importing, _golden(RECORD), match_id="one", pause_s=0.01)
    finally:
        done.set()
        writer.join(10)
    rows = importing.read_all(1, limit=100_000)
    match = [r.position for r in rows if r.stream == "match-one"]
    between = [r for r in rows if r.stream == "notes-1" and match[0] < r.position < match[-1]]
    assert len(match) > 3 * STEP and len(between) >= 3, (len(match), len(between))
    assert json.loads(json.dumps(importing.read("table-one", 1, 1)[0].data))["imported"]
    importing.close()
    other.close()
