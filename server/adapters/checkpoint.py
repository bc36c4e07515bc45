"""The SQLite store's WAL checkpoints, in an OS thread of their own.

SQLite copies the WAL back into the database file (a checkpoint) inside whichever commit takes
the WAL past 1,000 pages, fsyncs included: measured at 15-40 ms, during which the event loop,
and every table, waits (docs/benchmarks.md, figure (b)). The server's store connection has
automatic checkpoints off (`wal_autocheckpoint=0`); this thread checkpoints instead, every
second, on a connection of its own (`SQLiteStore.checkpoint`, PASSIVE: it waits for nobody).
The thread is a real one even under eventlet: sqlite3 lets go of the GIL while it copies and
syncs, so the loop goes on meanwhile.

Should the thread fail again and again, the store connection takes the checkpoints back
(`wal_autocheckpoint` restored), so the WAL never grows without bound."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from eventstore.sqlite import SQLiteStore

EVERY_S = 1.0
GIVE_UP_AFTER = 10  # failures in a row
DEFAULT_AUTOCHECKPOINT = 1000  # SQLite's own default, in pages


class Checkpointer:
    def __init__(self, store: SQLiteStore, *, every_s: float = EVERY_S) -> None:
        self.store = store
        self.every_s = every_s
        self.runs = 0
        self.failures = 0  # in a row
        self.last_error: str | None = None
        self.gave_up = False

    def step(self) -> bool:
        """One checkpoint; False once the store is closed or this has given up."""
        if self.store.closed or self.gave_up:
            return False
        try:
            self.store.checkpoint()
        except Exception as exc:  # a locked or vanished file: try again, then hand it back
            self.failures += 1
            self.last_error = str(exc)
            if self.failures >= GIVE_UP_AFTER:
                self.gave_up = True
                self._hand_back()
                return False
            return True
        self.runs += 1
        self.failures = 0
        return True

    def _hand_back(self) -> None:
        """Let the store's own connection checkpoint again, as SQLite does by default (it sets
        that on its connection at its next append, from the loop's side)."""
        self.store.restore_autocheckpoint(DEFAULT_AUTOCHECKPOINT)

    def run(self, sleep: Callable[[float], Any]) -> None:
        try:
            while self.step():
                sleep(self.every_s)
        finally:  # its connection is closed by this thread, never by the store's `close`
            self.store.end_checkpoints()


def start_checkpointer(store: SQLiteStore, async_mode: str) -> Checkpointer:
    """Start the thread (a real OS thread under eventlet) and return what it counts."""
    if async_mode == "eventlet":
        from eventlet import patcher

        threading_: Any = patcher.original("threading")
        time_: Any = patcher.original("time")
    else:
        import threading as threading_
        import time as time_
    checkpointer = Checkpointer(store)
    thread = threading_.Thread(
        target=checkpointer.run, args=(time_.sleep,), name="sqlite-checkpoint", daemon=True
    )
    thread.start()
    return checkpointer
