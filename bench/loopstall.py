"""`crapette bench replay`: how long a replay build stops the server's event loop.

An eventlet process (`python -m bench.loopstall STORE MATCH_ID ROUNDS`, monkey-patched
first, like `crapette serve`) runs a greenthread that asks to wake every millisecond while a
replay of a long match is built, in each of the ways the server could build it:

- `idle`: no build at all, for as long as the slowest build took (the baseline: what the
  machine's load alone does to a 1 ms tick);
- `inline`: in one go on the loop; `tpool`: in eventlet's pool of OS threads; `sliced`: on
  the loop, yielding every 3 ms (server/readmodels/replays.py; the server before read workers);
- `worker`: in a read worker process (server/adapters/workers.py), the loop waiting on its socket;
  `worker-cold` is the first such build, which also starts the process.

For each it reports the longest time the ticking greenthread did not get back (the longest
stop of the loop), how many ticks ran during the build, the build's wall time, and the CPU time
the measuring process spent meanwhile (what the server process would spend instead of serving
moves); the benchmark prints the median round's, against the idle baseline's."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

MODES = ("inline", "tpool", "sliced", "worker-cold", "worker")


def _measure(rounds: int, store_url: str, match_id: str, heap: int) -> dict[str, Any]:
    import eventlet
    from eventlet import tpool

    from eventstore import open_store
    from server.adapters.matches import MatchRepository
    from server.adapters.workers import ReadWorkers
    from server.readmodels.replays import build

    store = open_store(store_url)
    entry = MatchRepository(store, lambda _m, _a: None).get(match_id)
    assert entry is not None, f"no match {match_id} in {store_url}"
    # What a busy server holds besides: `heap` more long matches in memory, which the
    # collector's full passes walk (a build that allocates on the loop triggers them).
    held = [MatchRepository(store, lambda _m, _a: None).get(match_id) for _ in range(heap)]
    version, now = entry.version, entry.state
    live = now is not None and not now.finished
    players = [seat.name for seat in entry.table.seats]
    ruleset = entry.table.ruleset
    workers = ReadWorkers(store_url, size=1)
    job = {"kind": "replay", "match_id": match_id, "version": version}

    def one_go() -> Any:
        return build(entry, version, now, live, players, ruleset, pause=lambda: None)

    builds: dict[str, Callable[[], Any]] = {
        "inline": one_go,
        "tpool": lambda: tpool.execute(one_go),
        "sliced": lambda: build(entry, version, now, live, players, ruleset),
        "worker-cold": lambda: workers.run(job),
        "worker": lambda: workers.run(job),
    }

    def timed(work: Any) -> dict[str, Any]:
        state = {"running": True, "gap": 0.0, "ticks": 0, "last": time.perf_counter()}

        def tick() -> None:
            while state["running"]:
                eventlet.sleep(0.001)
                now_s = time.perf_counter()
                state["gap"] = max(state["gap"], now_s - state["last"])
                state["ticks"] += 1
                state["last"] = now_s

        ticker = eventlet.spawn(tick)
        eventlet.sleep(0.05)  # the ticker is under way
        start, cpu = time.perf_counter(), time.process_time()
        state.update(gap=0.0, ticks=0, last=start)
        size = work()
        end, cpu = time.perf_counter(), time.process_time() - cpu
        # A stop still going on when the build ended counts too.
        gap, ticks = max(state["gap"], end - state["last"]), state["ticks"]
        state["running"] = False
        ticker.wait()
        wall = end - start
        return {
            "longest_stop_ms": gap * 1000,
            "ticks": ticks,
            "build_ms": wall * 1000,
            "cpu_ms": cpu * 1000,  # of this process (every thread): what the server would spend
            **size,
        }

    results: dict[str, list[dict[str, Any]]] = {mode: [] for mode in ("idle", *MODES)}
    try:
        for round_index in range(rounds):
            slowest = 0.0
            for mode in MODES:
                if mode == "worker-cold" and round_index:
                    continue

                def work(mode: str = mode) -> dict[str, Any]:
                    return {"bytes": len(builds[mode]().body)}

                figure = timed(work)
                slowest = max(slowest, figure["build_ms"] / 1000)
                results[mode].append(figure)

            def idle(seconds: float = slowest) -> dict[str, Any]:
                eventlet.sleep(seconds)
                return {"bytes": 0}

            results["idle"].append(timed(idle))
    finally:
        workers.close()
        store.close()
    return {"version": version, "held": len(held), "rounds": results}


@click.command()
@click.option("--events", default=3000, show_default=True, help="Events of the long live match.")
@click.option("--rounds", default=5, show_default=True, help="Builds of each kind (median kept).")
@click.option(
    "--heap-matches",
    default=10,
    show_default=True,
    help="Copies of the long match the measuring process holds besides (a busy server's heap).",
)
@click.option("--store", "store_url", default=None, help="Store URL (default: a temp SQLite).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def replay(
    events: int, rounds: int, heap_matches: int, store_url: str | None, as_json: bool
) -> None:
    """How long building a long match's replay stops the server's event loop: in one go, in a
    thread, in slices, in a read worker process; against a loop that builds nothing."""
    import os

    from bench.history import long_live_match
    from eventstore import open_store

    with tempfile.TemporaryDirectory(prefix="crapette-bench-") as tmp:
        store_url = store_url or f"sqlite:///{Path(tmp) / 'bench.sqlite3'}?synchronous=NORMAL"
        seeding = open_store(store_url)
        try:
            match_id = long_live_match(seeding, events)
        finally:
            seeding.close()
        command = [sys.executable, "-m", "bench.loopstall", store_url, match_id]
        command += [str(rounds), str(heap_matches)]
        done = subprocess.run(command, capture_output=True, check=True, text=True)
        result = json.loads(done.stdout)
    figures: dict[str, dict[str, float]] = {}
    for mode, runs in result["rounds"].items():
        figures[mode] = {
            # The median round's: the machine's own load makes the worst one noise.
            key: statistics.median(r[key] for r in runs)
            for key in ("longest_stop_ms", "build_ms", "ticks", "cpu_ms", "bytes")
        }
        figures[mode]["worst_stop_ms"] = max(r["longest_stop_ms"] for r in runs)
    idle = figures["idle"]
    idle_rate = idle["ticks"] / idle["build_ms"]
    for figure in figures.values():
        figure["ratio_to_idle"] = figure["longest_stop_ms"] / idle["longest_stop_ms"]
        # How often the loop came round during the build, against while idle (1: as free).
        figure["tick_rate_to_idle"] = figure["ticks"] / figure["build_ms"] / idle_rate
    load = os.getloadavg()
    summary = {
        "events": result["version"],
        "rounds": rounds,
        "heap_matches": heap_matches,
        "load_average": load,
    }
    if as_json:
        click.echo(json.dumps({**summary, "figures": figures, "raw": result["rounds"]}))
        return
    click.echo(
        f"replay of a {result['version']}-event live match ({figures['worker']['bytes']:,} "
        f"bytes), {heap_matches} more held in memory, median of {rounds} round(s); "
        f"load average {load[0]:.1f}"
    )
    click.echo(
        f"{'build':<12} {'longest stop':>13} {'/ idle':>7} {'(worst)':>10} {'tick rate / idle':>17}"
        f" {'build time':>11} {'loop CPU':>9}"
    )
    for mode, f in figures.items():
        click.echo(
            f"{mode:<12} {f['longest_stop_ms']:>10.1f} ms {f['ratio_to_idle']:>7.1f} "
            f"{f['worst_stop_ms']:>7.1f} ms {f['tick_rate_to_idle']:>17.2f} "
            f"{f['build_ms']:>8.0f} ms {f['cpu_ms']:>6.0f} ms"
        )


def main(store_url: str, match_id: str, rounds: str, heap: str) -> None:
    from server.runtime import patches

    patches.eventlet_first()
    json.dump(_measure(int(rounds), store_url, match_id, int(heap)), sys.stdout)


if __name__ == "__main__":
    main(*sys.argv[1:5])
