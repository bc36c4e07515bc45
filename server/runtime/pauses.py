"""Long work on the server's one event loop, cut into slices: `pause_point` gives a function to
call between two units of work, which lets the other greenthreads run once a slice is used up.

Under eventlet every greenthread shares one OS thread, so a replay build, a catch-up of the lobby
or a clock tick over every table would otherwise stop every table's moves while it runs."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

# How long a replay build (or other long work) keeps the event loop before it lets it go.
SLICE_S = 0.003
# The same for the server's own housekeeping beside the moves (the clock's tick over every
# table, the lobby's save): at human pace a stop of a few milliseconds, ten times a second,
# showed in the moves' slowest round trips (docs/benchmarks.md, figure (b)).
HOUSEKEEPING_SLICE_S = 0.001


def pause_point(slice_s: float = SLICE_S) -> Callable[[], None]:
    """A function to call between two units of work: every `slice_s` of work it yields the
    processor (a greenthread switch under eventlet, the GIL under threads), so a long read
    never blocks the loop longer than one slice. Measured against running the build in
    eventlet's tpool (docs/benchmarks.md): the GIL then blocks the loop just the same."""
    sleep = _cooperative_sleep()
    last = [time.perf_counter()]

    def pause() -> None:
        now = time.perf_counter()
        if now - last[0] >= slice_s:
            sleep(0)
            last[0] = time.perf_counter()

    return pause


def _cooperative_sleep() -> Callable[[float], None]:
    eventlet = sys.modules.get("eventlet")  # never imported here: that alone would warn
    if eventlet is not None and eventlet.patcher.is_monkey_patched("thread"):
        return eventlet.sleep  # type: ignore[no-any-return]
    return time.sleep
