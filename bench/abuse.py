"""`crapette bench abuse`: what one visitor's heavy requests cost everyone else (issue 38).

One `crapette serve` (its defaults: SQLite, one read, one heavy and one analysis worker, the
default rate limits) on a store seeded with what the abuse needs. For each kind of abuse, two
phases in turn, the same length: without it (the baseline), then with it. In both, one table is
played by two Socket.IO clients as fast as the server answers (its command round trips: the
move p99), and a client of another address (127.0.0.2) asks for the replay of a small finished
match every 1.2 s, a new match each time, so each is a build (its latency). The abuse, from
127.0.0.1, in a process of its own (so its work never delays the measuring clients):

- `upload`: a record of ~9,000 actions padded to 20 MB, imported, then checked again and again
  (`POST /api/records`, then `/api/records/verify`), one request at a time;
- `imports`: that record imported again and again, each time as another match (its players
  renamed: another content hash), ~9,800 events written to the store each time;
- `gifs`: 6 clients at once, each asking for GIFs of long games (a new variant each time);
- `html`: the one-file replay of a 30,000-event match (a 3.5 MB record), again and again;
- `analysis`: an analysis of a finished match of ~4,000 actions, polled twice a second as the
  page does, and another depth once it is done;
- `readers`: 3 processes looping on a 3,000-event live match's replay while it is played on
  (bench/reader.py: each read a new build);
- `claims`: 32 claims of the 32 names of a tournament, one after the other.

Each kind has `--rounds` pairs of phases (baseline, abused), in turn (the abused first in
every second pair, so that a load drifting through the run favours neither). Reported per
kind: the move p99 with the abuse over the p99 of the baseline beside it, the median of the
rounds' ratios (target ≤ 2), and the small replay's worst latency with the abuse (target
≤ 2 s; one still unanswered at the end counts with the time it had waited). Each kind's abuse
comes from an address of its own (127.0.0.10 + its index), so that no kind spends another's
budget. The machine's load average is printed with them: other work on it moves every figure.

This module also makes the records it uploads (`finished_record`), which the integration tests
use too. The abusing and measuring clients are processes of their own (bench/abuser.py)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import click

import domain
from bench.procs import children_stat
from domain.commands import Act, StartGame, StartMatch
from domain.engine import decide_and_fold, legal_actions
from eventstore import EventStore, open_store

KINDS = ("upload", "imports", "gifs", "html", "analysis", "readers", "claims")
UPLOAD_BYTES = 20 * 1024 * 1024 - 64 * 1024  # under the 20 MB limit, with room for headers
SMALL_MATCHES = 400


# -- the matches and records ---------------------------------------------------------------------


def _finished_events(wins: int, seed: int, match_id: str) -> tuple[domain.Ruleset, list[Any]]:
    from bench.history import _NOT_PLAYED

    rng = random.Random(seed)
    ruleset = domain.Ruleset.from_json({"preset": "classic", "match": f"wins:{wins}"})
    made, state = decide_and_fold(None, StartMatch(match_id, ruleset, ("Ann", "Bob"), 0))
    while not state.finished:
        game = state.game
        if game is None or game.over:
            new, state = decide_and_fold(state, StartGame(f"{rng.getrandbits(256):064x}", None, 0))
        else:
            choices = [
                a for a in legal_actions(state, game.to_move) if not isinstance(a, _NOT_PLAYED)
            ]
            new, state = decide_and_fold(state, Act(rng.choice(choices), 0))
        made += new
    return ruleset, made


def finished_match(store: EventStore, match_id: str, wins: int = 1, seed: int = 3) -> None:
    """Write a finished match of random legal play (`wins` games to win) to `store`."""
    from bench.history import _append_match, _table

    ruleset, events = _finished_events(wins, seed, match_id)
    _table(store, match_id, ruleset, 0)
    _append_match(store, match_id, events)


def finished_record(wins: int = 1, seed: int = 3, match_id: str = "club-abuse") -> dict[str, Any]:
    """A finished match of random legal play (`wins` games to win), as its JSON record: every
    action real, so a server verifies each one (a few thousand actions per game)."""
    from records.export import export_match

    store = open_store("memory://")
    try:
        finished_match(store, match_id, wins, seed)
        record: dict[str, Any] = export_match(store, match_id)
    finally:
        store.close()
    return record


def record_bytes(record: dict[str, Any], size: int | None = None) -> bytes:
    """The record as an upload's body: JSON, padded with trailing blanks to `size` bytes (as
    large as the limits allow, for the same work)."""
    body = json.dumps(record, indent=1).encode()
    if size is not None and len(body) < size:
        body += b" " * (size - len(body))
    return body


def _live_match(store: EventStore, match_id: str, events: int, seed: int) -> None:
    from bench.history import _append_match, _played, _table

    ruleset = domain.Ruleset.from_json({"preset": "classic", "match": "points:100000"})
    _table(store, match_id, ruleset, int(time.time() * 1000))
    _append_match(store, match_id, _played(match_id, ruleset, events, random.Random(seed), False))


def _seed(store_url: str, tmp: Path, kinds: list[str]) -> dict[str, Any]:
    """The store's matches and the upload's body (what the chosen `kinds` need); what the
    abusers are given."""
    from bench.history import finished_matches, long_match_going_on

    seeded: dict[str, Any] = {}
    store = open_store(store_url)
    try:
        finished_matches(store, SMALL_MATCHES, 30)  # m-old000000…: the small replays
        if "readers" in kinds:  # the readers' live match
            seeded["long"], seeded["later"] = long_match_going_on(store, 3000, 2000)
        if "html" in kinds:
            _live_match(store, "m-benchhuge0", 30_000, 7)  # its record is ~3.5 MB
        if "gifs" in kinds:
            finished_match(store, "m-benchgif00", wins=2, seed=11)  # long games
        if "analysis" in kinds:
            finished_match(store, "m-benchanal0", wins=2, seed=5)
    finally:
        store.close()
    if "upload" in kinds or "imports" in kinds:
        record = finished_record(3, 3, "club-upload")
        upload = tmp / "upload.json"
        upload.write_bytes(record_bytes(record, UPLOAD_BYTES))
        seeded["upload"] = str(upload)
        imports = tmp / "imports.json"
        imports.write_bytes(record_bytes(record))
        seeded["imports"] = str(imports)
    return seeded


# -- the abusing and measuring processes ---------------------------------------------------------


def _spawn(kind: str, url: str, params: dict[str, Any], out: Path) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "bench.abuser", kind, url, json.dumps(params), str(out)]
    return subprocess.Popen(command)


def _wait_ready(outs: list[Path]) -> None:
    deadline = time.monotonic() + 60
    while not all(Path(f"{o}.ready").exists() for o in outs) and time.monotonic() < deadline:
        time.sleep(0.05)


def _collect(out: Path) -> dict[str, Any]:
    result: dict[str, Any] = {"statuses": {}, "latencies_s": []}
    if out.exists():
        result = json.loads(out.read_text())
        out.unlink()
    Path(f"{out}.ready").unlink(missing_ok=True)
    return result


# -- the benchmark -------------------------------------------------------------------------------


def _phase(
    url: str,
    pid: int,
    kind: str | None,
    seeded: dict[str, Any],
    tmp: Path,
    warmup_s: float,
    seconds: float,
    victim_ids: list[str],
) -> dict[str, Any]:
    """One phase: the table's moves and the victim's small replays, with `kind`'s abuse (None:
    without)."""
    from bench.players import _run_server_games, _summary
    from bench.procs import stop_process

    host, port = url.removeprefix("http://").split(":")
    victim_out = tmp / "victim.json"
    procs = [
        _spawn("victim", url, {"host": host, "port": int(port), "ids": victim_ids}, victim_out)
    ]
    outs = [tmp / f"abuse-{index}.json" for index in range(3 if kind == "readers" else 1)]
    mover = None
    if kind == "readers":
        for out in outs:
            command = [sys.executable, "-m", "bench.reader", url, seeded["long"], str(out)]
            procs.append(subprocess.Popen(command))
        mover = PlayingMover(seeded["store"], seeded["long"], 4.0)
    elif kind is not None:
        given = {k: v for k, v in seeded.items() if k != "later"}  # (the mover's events)
        given["address"] = f"127.0.0.{10 + KINDS.index(kind)}"  # its own budgets
        procs.append(_spawn(kind, url, given, outs[0]))
    try:
        _wait_ready([victim_out] + ([] if kind is None else outs))
        # A job the abuse left running (an analysis) is no baseline's.
        waited = _wait_workers_idle(pid) if kind is None else 0.0
        if mover is not None:
            mover.start()
        workers_cpu = _children_cpu_s(pid)
        stats = asyncio.run(_run_server_games(url, 1, warmup_s, seconds, 0.0, [pid]))
        workers_cpu = _children_cpu_s(pid) - workers_cpu
    finally:
        if mover is not None:
            mover.stop()
        for proc in procs:
            stop_process(proc)
    victim = _collect(victim_out)
    statuses: dict[str, int] = {}
    for out in outs if kind is not None else []:
        if kind == "readers":  # bench/reader.py writes its counts alone
            counts = json.loads(out.read_text()) if out.exists() else {}
            out.unlink(missing_ok=True)
            Path(f"{out}.ready").unlink(missing_ok=True)
        else:
            counts = _collect(out)["statuses"]
        for status, n in counts.items():
            statuses[status] = statuses.get(status, 0) + n
    # A small replay unanswered at the end counts with the time it had waited (at least).
    latencies = sorted(victim["latencies_s"] + victim.get("unanswered_s", []))
    moves = _summary(stats, seconds)
    return {
        "move_p99_ms": moves["p99_ms"],
        "move_p50_ms": moves["p50_ms"],
        # The longest round trip: one stall (an import's write holding the store) is one move
        # in thousands, under the p99.
        "move_max_ms": max(stats.rtts, default=float("nan")) * 1000,
        "moves_per_s": moves["moves_per_s"],
        # CPU seconds while measuring: the server's loop, and its workers (the abuse's work).
        "server_cpu_s": stats.cpu_s,
        "workers_cpu_s": workers_cpu,
        "waited_for_idle_workers_s": waited,
        # The readers' live match: events the mover appended in this phase.
        "mover_appended": None if mover is None else mover.appended,
        "small_replay_max_s": latencies[-1] if latencies else float("nan"),
        "small_replay_p50_s": statistics.median(latencies) if latencies else float("nan"),
        "small_replays": len(victim["latencies_s"]),
        "small_replay_unanswered_s": victim.get("unanswered_s", []),
        "small_replay_statuses": victim["statuses"],
        "abuse_statuses": statuses,
    }


class PlayingMover:
    """Plays the readers' live match on, `rate` events a second, as another writer would: a
    random legal action of the seat to move, from the match as the store holds it (the events
    of its own and the server's folded as they come), or the next game's deal once one is over
    (the server waits for its absent players). bench.server_bench.LongMatchMover replays events
    made in advance and stopped for good at the first game's end: from then on the readers read
    a cached replay, no build."""

    def __init__(self, store_url: str, match_id: str, rate: float) -> None:
        self.store_url, self.match_id, self.rate = store_url, match_id, rate
        self.appended = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _run(self) -> None:
        from bench.history import _NOT_PLAYED
        from domain.engine import legal_actions
        from eventstore import ConcurrencyError, NewEvent
        from records.streams import match_stream

        rng = random.Random(17)
        stream = match_stream(self.match_id)
        store = open_store(self.store_url)
        state: Any = None
        version = 0
        try:
            while not self._stop.wait(1 / self.rate):
                for record in store.read(stream, version + 1):  # ours and the server's
                    event = domain.event_from_payload(record.type, record.data)
                    state = domain.evolve(state, event)
                    version = record.version
                game = None if state is None else state.game
                if state is None or state.finished:
                    continue
                at_ms = int(time.time() * 1000)
                command: Any
                if game is None or game.over:  # the next game, dealt as the server would
                    command = StartGame(f"{rng.getrandbits(256):064x}", None, at_ms)
                else:
                    choices = [
                        a
                        for a in legal_actions(state, game.to_move)
                        if not isinstance(a, _NOT_PLAYED)
                    ]
                    command = Act(rng.choice(choices), at_ms)
                events, _ = domain.decide_and_fold(state, command)
                payloads = [domain.event_to_payload(e) for e in events]
                batch = [NewEvent(type=kind, data=data) for kind, data in payloads]
                with contextlib.suppress(ConcurrencyError):  # the server moved: read it first
                    store.append(stream, batch, version)
                    self.appended += len(batch)
        finally:
            store.close()


def _wait_workers_idle(pid: int, most_s: float = 60.0, stubborn_s: float = 5.0) -> float:
    """Wait until none of the server's workers is runnable for half a second: the job an abused
    phase started may run on after its client stopped, and would be the baseline's abuse. An
    analysis does (minutes of CPU for bench abuse's match): a worker runnable through
    `stubborn_s` is killed (the server's pool tries its job once more on a new worker, then
    fails it). Returns the seconds waited."""
    began = time.monotonic()
    quiet = samples = 0
    busy: dict[int, int] = {}
    since = began
    while quiet < 10 and time.monotonic() - began < most_s:
        time.sleep(0.05)
        running = _children_running(pid)
        quiet = 0 if running else quiet + 1
        samples += 1
        for child in running:
            busy[child] = busy.get(child, 0) + 1
        if time.monotonic() - since >= stubborn_s:
            for child in running:
                if busy.get(child, 0) >= 0.8 * samples:
                    with contextlib.suppress(OSError):
                        os.kill(child, signal.SIGKILL)  # the server's worker: ours to stop
            busy.clear()
            samples = 0
            since = time.monotonic()
    return time.monotonic() - began


def _children_running(pid: int) -> list[int]:
    """The processes whose parent is `pid` that are running or runnable (Linux /proc: R)."""
    return [child for child, fields in children_stat(pid) if fields[0] == "R"]


def _children_cpu_s(pid: int) -> float:
    """User + system CPU seconds so far of the processes whose parent is `pid` (the server's
    workers; Linux /proc)."""
    ticks = sum(int(fields[11]) + int(fields[12]) for _, fields in children_stat(pid))
    return ticks / os.sysconf("SC_CLK_TCK")


def _figure(pairs: list[list[dict[str, Any]]]) -> dict[str, Any]:
    """A kind's figures from its rounds (each a baseline then an abused phase): the median p99
    of each, their ratio, and the small replay's worst latency under the abuse."""
    ratios = [a["move_p99_ms"] / b["move_p99_ms"] for b, a in pairs]
    base = statistics.median(b["move_p99_ms"] for b, _ in pairs)
    under = statistics.median(a["move_p99_ms"] for _, a in pairs)
    statuses: dict[str, int] = {}
    for _, abused in pairs:
        for status, n in abused["abuse_statuses"].items():
            statuses[status] = statuses.get(status, 0) + n
    return {
        "move_p99_ms_alone": base,
        "move_p99_ms_abused": under,
        # Each round's abused phase against its own baseline (the phase beside it, under the
        # same load), the median of the rounds': the machine's drifting load cancels out.
        "move_p99_ratio": statistics.median(ratios),
        "move_p99_ratio_of_medians": under / base,
        "round_ratios": ratios,
        # The longest move of any phase, without and with the abuse.
        "move_max_ms_alone": max(b["move_max_ms"] for b, _ in pairs),
        "move_max_ms_abused": max(a["move_max_ms"] for _, a in pairs),
        "small_replay_max_s": max(a["small_replay_max_s"] for _, a in pairs),
        "small_replay_max_s_alone": max(b["small_replay_max_s"] for b, _ in pairs),
        "small_replay_p50_s": statistics.median(a["small_replay_p50_s"] for _, a in pairs),
        "workers_cpu_s_abused": sum(a["workers_cpu_s"] for _, a in pairs),
        "abuse_statuses": statuses,
        "rounds": pairs,
    }


def _tournament(url: str) -> dict[str, Any]:
    import requests

    names = [f"Player {index:02d}" for index in range(1, 33)]
    body: dict[str, Any] = {"name": "Abuse night", "format": "swiss", "rounds": 3}
    body["players"] = [{"name": name} for name in names]
    answer = requests.post(url + "/api/tournaments", json=body, timeout=30)
    answer.raise_for_status()
    return {"tournament": answer.json()["tournament_id"], "names": names}


@click.command()
@click.option("--seconds", default=8.0, show_default=True, help="Measured seconds per phase.")
@click.option("--warmup", "warmup_s", default=2.0, show_default=True, help="Seconds before.")
@click.option(
    "--kinds", default=",".join(KINDS), show_default=True, help="The abuses, comma-separated."
)
@click.option(
    "--rounds", default=2, show_default=True, help="Pairs of phases per kind (medians kept)."
)
@click.option(
    "--server-root",
    default=None,
    type=click.Path(exists=True, file_okay=False),
    help="Run the server of another checkout (a git worktree of an older commit): before/after.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def abuse(
    seconds: float, warmup_s: float, kinds: str, rounds: int, server_root: str | None, as_json: bool
) -> None:
    """What one visitor's heavy requests cost another table's moves (p99, against the same
    without them) and another address's small replay (latency), per kind of abuse."""
    from bench.players import _start
    from bench.procs import free_port, stop_process

    chosen = [k.strip() for k in kinds.split(",") if k.strip()]
    unknown = set(chosen) - set(KINDS)
    if unknown:
        raise click.UsageError(f"no abuse {', '.join(sorted(unknown))}: one of {', '.join(KINDS)}")
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="crapette-abuse-") as name:
        tmp = Path(name)
        store_url = f"sqlite:///{tmp / 'bench.sqlite3'}?synchronous=NORMAL"
        seeded = {**_seed(store_url, tmp, chosen), "store": store_url}
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        command = [
            sys.executable, "-m", "server", "serve", "--host", "127.0.0.1", "--port", str(port),
            "--store", store_url, "--data-dir", str(tmp), "--quiet", "--no-announce",
        ]  # fmt: skip
        env = None
        if server_root is not None:  # that checkout's server, on this one's packages
            env = {**os.environ, "PYTHONPATH": os.path.abspath(server_root)}
            command[1:1] = ["-P"] if sys.version_info >= (3, 11) else []
        # Started from that checkout: its workers (`python -m server.readmodels.builds`, the
        # working directory first on their path) are that checkout's too, not this one's.
        here = os.getcwd()
        os.chdir(server_root or here)
        try:
            server = _start(command, url + "/api/server-info", tmp / "server.log", env)
        finally:
            os.chdir(here)
        try:
            if "claims" in chosen:
                seeded.update(_tournament(url))
            victim_ids = [f"m-old{index:06d}" for index in range(SMALL_MATCHES)]
            figures: dict[str, Any] = {}
            for kind in chosen:
                pairs = []
                for index in range(rounds):
                    # In turn, first one then the other: a load that drifts through the run
                    # then favours neither.
                    order: tuple[str | None, ...] = (None, kind) if index % 2 == 0 else (kind, None)
                    done: dict[str | None, dict[str, Any]] = {}
                    for abused in order:
                        ids, victim_ids = victim_ids[:40], victim_ids[40:] + victim_ids[:40]
                        phase = (url, server.pid, abused, seeded, tmp, warmup_s, seconds, ids)
                        done[abused] = _phase(*phase)
                    pairs.append([done[None], done[kind]])
                figures[kind] = _figure(pairs)
            alive = server.poll() is None
        finally:
            stop_process(server)
    load_after = os.getloadavg()
    result = {
        "server_root": server_root,
        "seconds": seconds,
        "rounds": rounds,
        "warmup_s": warmup_s,
        "load_average_before": load_before,
        "load_average_after": load_after,
        "server_alive": alive,
        "figures": figures,
    }
    if as_json:
        click.echo(json.dumps(result))
        return
    click.echo(
        f"{seconds:g} s per phase, {rounds} round(s) per kind; load average "
        f"{load_before[0]:.1f} before, {load_after[0]:.1f} after (2 cores)"
    )
    click.echo(
        f"{'abuse':<9} {'move p99 alone':>15} {'with abuse':>11} {'ratio':>6} "
        f"{'small replay worst':>19} {'p50':>7} {'workers CPU':>12}  abuse answered"
    )
    for kind, f in figures.items():
        click.echo(
            f"{kind:<9} {f['move_p99_ms_alone']:>12.1f} ms {f['move_p99_ms_abused']:>8.1f} ms "
            f"{f['move_p99_ratio']:>6.2f} {f['small_replay_max_s']:>17.2f} s "
            f"{f['small_replay_p50_s']:>5.2f} s {f['workers_cpu_s_abused']:>10.1f} s  "
            f"{f['abuse_statuses']}"
        )
