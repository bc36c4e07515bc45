"""Short pauses of Python's cyclic garbage collector in a long-running server.

A full collection (generation 2) walks every object the process holds, and stops the event
loop while it does: in the server that is the modules, and every live table's events and
snapshots, so the pause grows with the tables in memory (measured at 70-190 ms here with a few
hundred tables: docs/benchmarks.md, figure (b)). At human pace such a pause is what decides a
table's slowest round trips.

Nearly all of those objects live as long as their table and die by reference counting alone
(events, states and snapshots hold no reference cycles). So every second what exists is frozen
(`gc.freeze()`: moved to a generation the collector does not walk), and a collection of any
generation walks only what is newer than that. Reference counting still frees frozen objects;
only a reference cycle that dies among them (rare here: a full collection of the unfrozen heap
found 0 to a few dozen such objects) would stay until they are walked again. For that, every
`thaw_s` the frozen objects are given back (`gc.unfreeze()`) for one full collection, the only
long pause left, and freezing goes on after it. Measured at human pace (100 tables): the
server's collections over 8 ms went from several a minute (up to 190 ms) to none.
"""

from __future__ import annotations

import gc
import logging
import time
from collections.abc import Callable

log = logging.getLogger(__name__)


class CollectorPacer:
    def __init__(self, *, thaw_s: float = 600.0, clock: Callable[[], float] = time.monotonic):
        self.thaw_s = thaw_s
        self.clock = clock
        self._full = _full_collections()
        self._thawed_at = clock()
        self._thawed = False

    def start(self) -> None:
        """Freeze what the process holds at start (the modules, the tables loaded)."""
        gc.collect()
        gc.freeze()
        self._full = _full_collections()

    def step(self) -> str | None:
        """Called every second or so: freezes what is older than a step ("froze"), except from
        a thaw until the full collection that follows it ("thawed" when the frozen objects go
        back, None while waiting for that collection)."""
        full = _full_collections()
        if self._thawed and full == self._full:
            return None  # the thaw's full collection has not happened yet
        self._full = full
        self._thawed = False
        if self.clock() - self._thawed_at >= self.thaw_s:
            self._thawed = True
            self._thawed_at = self.clock()
            gc.unfreeze()
            return "thawed"
        gc.freeze()
        return "froze"

    def run(self, sleep: Callable[[float], object], every_s: float = 1.0) -> None:
        """The background task (`socketio.sleep` as `sleep`)."""
        while True:
            sleep(every_s)
            try:
                self.step()
            except Exception:  # pragma: no cover - gc calls do not fail; the server goes on
                log.exception("collector pacing failed")


def _full_collections() -> int:
    return int(gc.get_stats()[2]["collections"])
