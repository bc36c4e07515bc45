"""Short pauses of Python's cyclic garbage collector in a long-running server.

A full collection (generation 2) walks every object the process holds, and stops the event
loop while it does: in the server that is the modules, and every live table's events and
snapshots, so the pause grows with the tables in memory (measured at 70-190 ms here with a few
hundred tables: docs/benchmarks.md, figure (b)). At human pace such a pause is what decides a
table's slowest round trips.

Nearly all of those objects live as long as their table and die by reference counting alone
(events, states and snapshots hold no reference cycles). So after each full collection the
survivors are frozen (`gc.freeze()`: moved to a generation the collector does not walk), and the
next full collection walks only what is newer. Reference counting still frees frozen objects; only
a reference cycle among them that dies would stay until they are walked again. For that, every
`thaw_s` the frozen objects are given back (`gc.unfreeze()`) for one full collection, the only
long pause left, and frozen again after it.
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
        """Called every second or so: "froze" after a full collection, "thawed" when the frozen
        objects go back for one, else None."""
        full = _full_collections()
        if full != self._full:
            self._full = full
            if self._thawed:
                log.debug("full collection after a thaw: %d objects frozen", gc.get_freeze_count())
            self._thawed = False
            gc.freeze()
            return "froze"
        if not self._thawed and self.clock() - self._thawed_at >= self.thaw_s:
            self._thawed = True
            self._thawed_at = self.clock()
            gc.unfreeze()
            return "thawed"
        return None

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
