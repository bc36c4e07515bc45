"""Run the store under eventlet the way the server does (`server.runtime.patches.eventlet_first()`:
monkey_patch first, psycopg made to wait greenly; the store called directly from greenthreads)
and print what happened as JSON. Used by test_eventlet.py in its own
process, because monkey patching changes the whole interpreter.
Usage: python -m tests.contract.eventlet_child STORE_URL"""

from server.runtime import patches

patches.eventlet_first()

import json  # noqa: E402
import sys  # noqa: E402

import eventlet  # noqa: E402
import psycopg  # noqa: E402

from eventstore import ANY, NewEvent, open_store  # noqa: E402

# Each end of a PostgreSQL listener's wait (`notifies`, up to 1 s without a notification),
# counted: the child measures the hub against it instead of against the wall clock.
listener_waits = [0]
_notifies = psycopg.Connection.notifies


def _counted_notifies(self: psycopg.Connection, *args: object, **kwargs: object) -> object:
    try:
        yield from _notifies(self, *args, **kwargs)  # type: ignore[arg-type]
    finally:
        listener_waits[0] += 1


psycopg.Connection.notifies = _counted_notifies  # type: ignore[assignment,method-assign]


def short_sleeps_until(waits: int, most: int = 1000) -> int:
    """Sleep 20 ms at a time until the listener has ended `waits` more waits; how many sleeps."""
    target, sleeps = listener_waits[0] + waits, 0
    while listener_waits[0] < target and sleeps < most:
        eventlet.sleep(0.02)
        sleeps += 1
    return sleeps


def main(url: str) -> None:
    store = open_store(url)
    report: dict[str, object] = {}
    try:
        subscription = store.subscribe()
        received: list[int] = []

        def consume() -> None:
            while len(received) < 100:
                event = subscription.get(timeout=10)
                if event is None:
                    return
                received.append(event.position)

        def write(writer: int) -> None:
            for i in range(10):
                store.append(f"green-{writer}", [NewEvent("T", {"i": i})], ANY)
                eventlet.sleep(0)  # as a request handler would, between two commands

        consumer = eventlet.spawn(consume)
        writers = [eventlet.spawn(write, w) for w in range(10)]
        for writer in writers:
            writer.wait()
        consumer.wait()
        report["received"] = received
        report["group_stats"] = getattr(store, "group_stats", None)

        # While one greenthread waits on a slow database call, the others must keep running.
        ticks = [0]

        def tick() -> None:
            while True:
                ticks[0] += 1
                eventlet.sleep(0.01)

        ticker = eventlet.spawn(tick)
        eventlet.sleep(0)
        if hasattr(store, "_connection"):  # PostgreSQL: a query that takes 0.3 s
            before = ticks[0]
            with store._connection() as conn:
                conn.execute("SELECT pg_sleep(0.3)")
            report["ticks_during_query"] = ticks[0] - before
            # The LISTEN connection's greenthread waits up to 1 s for a notification: greenly,
            # or each short sleep here would last until its wait ends (one sleep per wait).
            report["listening"] = getattr(store, "listening", False)
            short_sleeps_until(1)  # from the end of one wait
            report["short_sleeps_per_listener_wait"] = short_sleeps_until(2) / 2
        ticker.kill()
    finally:
        if hasattr(store, "drop"):
            store.drop()
        store.close()
    print(json.dumps(report))


if __name__ == "__main__":
    main(sys.argv[1])
