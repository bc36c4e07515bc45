"""The server's SQLite checkpoint thread (server/adapters/checkpoint.py) and its collector pacing
(server/runtime/collector.py)."""

from __future__ import annotations

import gc
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from eventstore import ANY, NewEvent, open_store
from eventstore.sqlite import SQLiteStore
from server.adapters import checkpoint
from server.adapters.checkpoint import Checkpointer, start_checkpointer
from server.runtime.collector import CollectorPacer


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SQLiteStore]:
    opened = open_store(f"sqlite:///{tmp_path / 'k.db'}?synchronous=NORMAL", wal_autocheckpoint=0)
    assert isinstance(opened, SQLiteStore)
    yield opened
    opened.close()


def test_the_thread_checkpoints_while_the_store_is_written(store: SQLiteStore) -> None:
    running = start_checkpointer(store, "threading")
    running.every_s = 0.01
    for i in range(200):
        store.append("s", [NewEvent("T", {"i": i})], ANY)
    deadline = time.monotonic() + 10
    while running.runs < 3:
        assert time.monotonic() < deadline, running.last_error
        time.sleep(0.01)
    assert running.failures == 0 and not running.gave_up
    assert len(store.read_all()) == 200


def test_after_ten_failures_in_a_row_the_store_checkpoints_itself(
    store: SQLiteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken() -> tuple[int, int, int]:
        raise OSError("disk gone")

    monkeypatch.setattr(store, "checkpoint", broken)
    keeper = Checkpointer(store)
    steps = [keeper.step() for _ in range(checkpoint.GIVE_UP_AFTER)]
    assert steps == [True] * (checkpoint.GIVE_UP_AFTER - 1) + [False]
    assert keeper.gave_up and keeper.last_error == "disk gone"
    store.append("s", [NewEvent("T", {})], ANY)  # the store's connection takes it back
    assert store._db.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 1000
    assert not keeper.step()


def test_a_success_resets_the_count_and_a_closed_store_ends_the_thread(
    store: SQLiteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    keeper = Checkpointer(store)
    real = store.checkpoint
    monkeypatch.setattr(store, "checkpoint", lambda: (_ for _ in ()).throw(OSError("busy")))
    for _ in range(checkpoint.GIVE_UP_AFTER - 1):
        assert keeper.step()
    monkeypatch.setattr(store, "checkpoint", real)
    assert keeper.step() and keeper.failures == 0 and keeper.runs == 1
    store.close()
    assert not keeper.step()


def test_the_pacer_freezes_at_each_step_and_thaws_now_and_then() -> None:
    now = [0.0]
    pacer = CollectorPacer(thaw_s=60, clock=lambda: now[0])
    try:
        garbage_free = [object() for _ in range(10)]
        assert pacer.step() == "froze" and gc.get_freeze_count() > len(garbage_free)
        assert pacer.step() == "froze"
        now[0] = 61.0
        assert pacer.step() == "thawed" and gc.get_freeze_count() == 0
        assert pacer.step() is None  # thawed until the full collection that follows
        assert pacer.step() is None and gc.get_freeze_count() == 0
        gc.collect()  # that collection walked everything: freezing again from here
        assert pacer.step() == "froze" and gc.get_freeze_count() > 0
        now[0] = 100.0
        assert pacer.step() == "froze"  # the next thaw is thaw_s after the last one
        now[0] = 122.0
        assert pacer.step() == "thawed"
    finally:
        gc.unfreeze()
