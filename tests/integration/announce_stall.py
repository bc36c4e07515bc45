"""How long starting and running the announcer stops an eventlet loop (run inside a network
namespace of its own, as tests/integration/announce_netns.py is; `python -m
tests.integration.announce_stall`). Monkey-patched first, as `crapette serve` is, a greenthread
asks to wake every millisecond: for a second with nothing else (the baseline), then while the
announcer process starts and announces, re-announcing every 0.2 s. Prints the longest wait of
each, in ms, and the announcer's pid, as JSON."""

from __future__ import annotations

import eventlet

eventlet.monkey_patch()

import json  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402
from typing import Any  # noqa: E402

from server.adapters.announce import AnnounceConfig, AnnouncerProcess  # noqa: E402


def longest_gap(seconds: float, during: Any = None) -> dict[str, float]:
    state = {"running": True, "gap": 0.0, "ticks": 0}

    def tick() -> None:
        last = time.perf_counter()
        while state["running"]:
            eventlet.sleep(0.001)
            now = time.perf_counter()
            state["gap"] = max(state["gap"], now - last)
            state["ticks"] += 1
            last = now

    ticker = eventlet.spawn(tick)
    eventlet.sleep(0.05)
    state["gap"] = 0.0
    if during is not None:
        during()
    eventlet.sleep(seconds)
    state["running"] = False
    ticker.wait()
    rate = state["ticks"] / seconds
    return {"longest_ms": round(state["gap"] * 1000, 2), "ticks_per_s": round(rate)}


def main() -> None:
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    subprocess.run(["ip", "link", "set", "lo", "multicast", "on"], check=True)
    config = AnnounceConfig("crapette", 8000, "0.0.0.0", interfaces=("lo",), poll_s=0.2)
    announcer = AnnouncerProcess(config)
    idle = longest_gap(1.0)
    running = longest_gap(3.0, announcer.start)
    alive = announcer.proc is not None and announcer.proc.poll() is None
    stopping = longest_gap(0.5, announcer.stop)
    print(json.dumps({"idle": idle, "announcing": running, "stopping": stopping, "alive": alive}))


if __name__ == "__main__":
    main()
