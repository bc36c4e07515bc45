"""`crapette bench analysis`: what an analysis costs the tables being played (issue 26).

One `crapette serve` (eventlet, SQLite, its default single analysis worker) holds a few finished
classic matches of about 450 events (some 400 decisions each, random legal play, written
straight to the store). One table is played by two Socket.IO clients, each move a think of
`--think-ms` on average after the last (a Poisson stream, as people at a table), and the
command round trip of every move is timed (command sent → the sender's `updates`), in turn:

- `alone`: no analysis;
- `analysing`: meanwhile a client asks for the analysis of one finished match after another
  (each a new record: a real build in the worker, never the cache) and polls its progress as
  the replay page does.

Each phase runs twice, the worse p99 of each kept; the figure is p99(analysing) / p99(alone)
(target ≤ 2), with each analysis's wall time (issue 37's targets for a 400-decision game in one
worker: ≤ 60 s at `normal`, ≤ 10 s at `quick`: `bench.judge_bench.TARGET_S`). Everything it
starts, it stops by PID. Run heavy measurements under `nice -n 10`."""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import click

from bench.judge_bench import target_text
from bench.procs import free_port, stop_process


class Analyser:
    """Asks the server for the analyses of `matches`, one after another, until stopped; each
    one's wall time and decision count."""

    def __init__(self, url: str, matches: list[str], depth: str) -> None:
        self.url, self.matches, self.depth = url, list(matches), depth
        self.done: list[dict[str, Any]] = []
        self.errors: list[str] = []
        self._stop = threading.Event()
        self._deadline = float("inf")
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self, finish_s: float = 120.0) -> None:
        """Ask for no more analyses; the one under way is waited for (at most `finish_s`), so
        that every analysis started is measured whole, however loaded the machine is."""
        self._deadline = time.monotonic() + finish_s
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        import requests

        while self.matches and not self._stop.is_set():
            match_id = self.matches.pop(0)
            path = f"{self.url}/api/matches/{match_id}/analysis?depth={self.depth}"
            started = time.monotonic()
            answer = requests.post(path, timeout=30)
            # The address's fair share (one analysis at a time): wait as the browser does.
            while answer.status_code == 429 and not self._stop.is_set():
                time.sleep(float(answer.headers.get("Retry-After", "1")))
                answer = requests.post(path, timeout=30)
            while answer.status_code == 202:
                if self._stop.is_set() and time.monotonic() > self._deadline:
                    break
                time.sleep(0.5)
                answer = requests.get(path, timeout=30)
            if answer.status_code != 200:
                if not self._stop.is_set():
                    self.errors.append(f"{answer.status_code} {answer.text[:200]}")
                return
            body = answer.json()
            self.done.append(
                {
                    "match_id": match_id,
                    "wall_s": round(time.monotonic() - started, 2),
                    "decisions": body["progress"]["total"],
                }
            )


def _table(url: str, warmup_s: float, seconds: float, think_s: float, pid: int) -> Any:
    from bench.players import _run_server_games

    return asyncio.run(_run_server_games(url, 1, warmup_s, seconds, think_s, [pid]))


def measure(
    matches: int, events: int, seconds: float, warmup_s: float, think_ms: float, depth: str,
    analyser: str | None,
) -> dict[str, Any]:  # fmt: skip
    from bench.history import finished_matches
    from bench.players import _start, _summary
    from eventstore import open_store

    with tempfile.TemporaryDirectory(prefix="crapette-bench-analysis-") as tmp:
        tmp_path = Path(tmp)
        url_store = f"sqlite:///{tmp_path / 'store.sqlite3'}"
        store = open_store(url_store)
        try:
            finished_matches(store, matches, events)
        finally:
            store.close()
        ids = [f"m-old{index:06d}" for index in range(matches)]
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        command = [
            sys.executable, "-m", "server", "serve", "--host", "127.0.0.1", "--port", str(port),
            "--store", url_store, "--quiet", "--rate-limit", "all=off", "--data-dir", tmp,
        ]  # fmt: skip
        if analyser:
            command += ["--analyser", analyser]
        proc = _start(command, f"{url}/api/server-info", tmp_path / "server.log")
        try:
            think_s = think_ms / 1000
            alone, busy, analyses, errors = [], [], [], []
            for _ in range(2):
                alone.append(_table(url, warmup_s, seconds, think_s, proc.pid))
                worker = Analyser(url, ids, depth)
                worker.start()
                try:
                    busy.append(_table(url, warmup_s, seconds, think_s, proc.pid))
                finally:
                    worker.stop()
                ids = worker.matches or ids  # the next round analyses the ones left, if any
                analyses += worker.done
                errors += worker.errors
        finally:
            stop_process(proc)
    quiet = [_summary(stats, seconds) for stats in alone]
    loaded = [_summary(stats, seconds) for stats in busy]
    p99_alone = max(s["p99_ms"] for s in quiet)
    p99_busy = max(s["p99_ms"] for s in loaded)
    walls = [a["wall_s"] for a in analyses]
    return {
        "think_ms": think_ms,
        "depth": depth,
        "p99_ms_alone": round(p99_alone, 2),
        "p99_ms_analysing": round(p99_busy, 2),
        "p50_ms_alone": round(max(s["p50_ms"] for s in quiet), 2),
        "p50_ms_analysing": round(max(s["p50_ms"] for s in loaded), 2),
        "moves_alone": sum(round(s["moves_per_s"] * seconds) for s in quiet),
        "moves_analysing": sum(round(s["moves_per_s"] * seconds) for s in loaded),
        "ratio": round(p99_busy / p99_alone, 3) if p99_alone else float("nan"),
        "analyses": analyses,
        "analysis_wall_s_max": max(walls) if walls else None,
        "errors": errors,
    }


@click.command("analysis")
@click.option("--matches", default=4, show_default=True, help="Finished matches to analyse.")
@click.option("--events", default=450, show_default=True, help="Events per finished match.")
@click.option("--seconds", default=15.0, show_default=True, help="Measured seconds per phase.")
@click.option("--warmup", "warmup_s", default=2.0, show_default=True, help="Warm-up seconds.")
@click.option("--think-ms", default=50.0, show_default=True, help="Mean pause between moves.")
@click.option("--depth", default="normal", show_default=True, help="quick, normal or deep.")
@click.option("--analyser", default=None, hidden=True, help="module:function (tests).")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
def analysis(
    matches: int, events: int, seconds: float, warmup_s: float, think_ms: float, depth: str,
    analyser: str | None, as_json: bool,
) -> None:  # fmt: skip
    """Another table's move p99 while a worker analyses finished matches, against without."""
    result = measure(matches, events, seconds, warmup_s, think_ms, depth, analyser)
    if as_json:
        click.echo(json.dumps(result, indent=1))
        return
    click.echo(
        f"one table, a move every ~{think_ms:.0f} ms: p99 {result['p99_ms_alone']:.1f} ms alone, "
        f"{result['p99_ms_analysing']:.1f} ms while analysing: ratio {result['ratio']:.2f} "
        f"(target <= 2)"
    )
    for done in result["analyses"]:
        click.echo(f"  analysis of {done['match_id']}: {done['decisions']} decisions, "
                   f"{done['wall_s']:.1f} s ({target_text(depth)})")  # fmt: skip
    for error in result["errors"]:
        click.echo(f"  error: {error}")
