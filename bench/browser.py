"""`crapette bench browser`: how fast the replay viewer redraws, measured inside Chromium.

A real server is started on a free port with a temporary SQLite store; a scripted client plays
seat 0 against the `random` bot until the match has about `--events` events; then the replay page
is opened in headless Chromium and, in the page, every single step (event k → k+1) and a few hundred
jumps to random positions are timed, each including the style and layout work it causes. The
scripted player resigns at the end of a one-win match, so the replay is of a finished match: every
card shown, with its analysis (charts, missed calls, arrows) drawn at each position. The
baseline, measured in the same run, is a naive redraw: the board rebuilt from nothing at the same
positions. Targets (printed, not asserted): one step < 16 ms (a frame), a jump < 50 ms.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from bench.procs import free_port, stop_process
from server.entrypoints.protocol import CURRENT as PROTOCOL

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
STEP_TARGET_MS = 16.0
JUMP_TARGET_MS = 50.0
WAIT_S = 30.0
PLAY_LIMIT_S = 240.0  # the scripted game gives up after this long, with whatever it has

# Runs in the page: times replay.go() for steps, jumps and the naive full redraw.
MEASURE_JS = """
([jumps, seed]) => {
  const r = window.replay;
  const n = r.frames.length;
  let x = seed;
  const rand = () => { x = (x * 1103515245 + 12345) % 2147483648; return x / 2147483648; };
  const time = (fn) => { const t0 = performance.now(); fn(); document.body.offsetHeight;
                         return performance.now() - t0; };
  r.go(0);
  const steps = [];
  for (let k = 1; k < n; k++) steps.push(time(() => r.go(k)));
  const targets = Array.from({length: jumps}, () => Math.floor(rand() * n));
  const jumpTimes = targets.map((k) => time(() => r.go(k)));
  const naive = targets.map((k) => time(() => {
    r.board.build();
    r.board.render(r.frames[k].view || {piles: {}});
  }));
  // The same steps and jumps with the analysis taken away: what showing it costs.
  const analysis = r.analysis;
  r.analysis = new analysis.constructor(null, r.players, () => {});
  r.go(0);
  const plainSteps = [];
  for (let k = 1; k < n; k++) plainSteps.push(time(() => r.go(k)));
  const plainJumps = targets.map((k) => time(() => r.go(k)));
  r.analysis = analysis;
  r.analysis.shownGame = undefined;
  r.go(0);
  return {frames: n, steps, jumps: jumpTimes, naive, plainSteps, plainJumps,
          analysis: analysis.any, faults: analysis.faultAt.size};
}
"""


def _version_moved(latest: dict[str, Any], seen: int) -> Callable[[], bool]:
    """A predicate for Condition.wait_for: an update newer than `seen` has come in."""
    return lambda: bool(latest["version"] != seen)


class _Server:
    """The real server process, stopped by its PID."""

    def __init__(self, data_dir: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = data_dir / "server.log"
        store = f"sqlite:///{data_dir / 'store.sqlite3'}"
        command = [
            sys.executable, "-m", "server", "serve", "--host", "127.0.0.1",
            "--port", str(self.port), "--store", store, "--bot-delay", "0", "--quiet",
        ]  # fmt: skip
        repo = Path(__file__).resolve().parents[1]
        self.log = open(self.log_path, "ab")  # noqa: SIM115 - the child writes until stopped
        self.proc = subprocess.Popen(command, cwd=repo, stdout=self.log, stderr=self.log)

    def wait_ready(self) -> None:
        import requests

        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise click.ClickException(f"server exited: {self.log_path.read_text()[-2000:]}")
            try:
                if requests.get(self.url + "/api/server-info", timeout=1).ok:
                    return
            except requests.RequestException:
                time.sleep(0.1)
        raise click.ClickException("server did not start")

    def stop(self) -> None:
        stop_process(self.proc)
        self.log.close()


def _choose(legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any] | None:
    """A lively random player: foundations first, then any move most of the time."""
    usable = [a for a in legal if a["do"] not in ("resign", "offer-draw", "accept-draw", "call")]
    if not usable:
        return None
    moves = [a for a in usable if a["do"] == "move"]
    up = [a for a in moves if a["to"].startswith("F")]
    if up:
        return rng.choice(up)
    if moves and rng.random() < 0.6:
        return rng.choice(moves)
    rest = [a for a in usable if a["do"] != "move"] or moves
    return rng.choice(rest)


def _play_match(url: str, events: int, seed: int) -> str:
    """Seat 0 played from here against the random bot until the stream has `events` events,
    then resigned: the match of one win is over, and its replay shows every card and the
    analysis of its game."""
    match_id, token = open_bot_match(url, match="wins:1")
    play_until(url, match_id, token, events, random.Random(seed))
    resign(url, match_id, token)
    return match_id


def resign(url: str, match_id: str, token: str) -> None:
    """Seat 0 resigns (refused, harmlessly, when the match is over already)."""
    import socketio

    sio = socketio.Client(reconnection=False)
    sio.connect(url, transports=["websocket"], auth={"protocol": PROTOCOL})
    try:
        sio.call("join_table", {"match_id": match_id, "seat_token": token, "last_version": None})
        command = {"match_id": match_id, "seat_token": token, "command_id": "bench-resign"}
        sio.call("command", {**command, "action": {"do": "resign", "seat": 0}}, timeout=10)
    finally:
        sio.disconnect()


def open_bot_match(url: str, match: str = "points:300") -> tuple[str, str]:
    """A table where the random bot sits opposite seat 0: (match id, seat 0's token)."""
    import requests

    opened = requests.post(
        url + "/api/tables",
        json={"name": "Bench", "bot": "random", "match": match},
        timeout=10,
    ).json()
    return opened["match_id"], opened["seat_token"]


def play_until(url: str, match_id: str, token: str, events: int, rng: random.Random) -> int:
    """Play seat 0 until the match stream has `events` events (or PLAY_LIMIT_S passed); the
    version reached."""
    import socketio

    latest: dict[str, Any] = {"version": 0, "view": None}
    changed = threading.Condition()
    sio = socketio.Client(reconnection=False)

    def on_view(msg: dict[str, Any]) -> None:
        with changed:
            if msg.get("version", 0) >= latest["version"]:
                latest.update(version=msg["version"], view=msg.get("view"))
            changed.notify_all()

    sio.on("updates", lambda msg: on_view(msg["updates"][-1]))  # a batch's last: the position
    sio.on("snapshot", on_view)
    sio.connect(url, transports=["websocket"], auth={"protocol": PROTOCOL})
    sio.call("join_table", {"match_id": match_id, "seat_token": token, "last_version": None})
    deadline = time.monotonic() + PLAY_LIMIT_S
    seen = -1
    try:
        while latest["version"] < events and time.monotonic() < deadline:
            with changed:  # act once per new version; an update may have come in already
                changed.wait_for(_version_moved(latest, seen), timeout=0.5)
                view = latest["view"]
                seen = latest["version"]
            if view and view.get("over") and not view.get("match_over"):
                # The next game is dealt once both seats are ready (the bot always is).
                seat = {"match_id": match_id, "seat_token": token}
                sio.call("next_game", seat, timeout=10)
                continue
            if not view or view.get("over") or view.get("to_move") != 0:
                continue
            action = _choose(view.get("legal", []), rng)
            if action is None:
                continue
            action = {k: v for k, v in action.items() if k != "text"}
            ack = sio.call(
                "command",
                {
                    "match_id": match_id,
                    "seat_token": token,
                    "command_id": f"bench-{uuid.uuid4().hex[:16]}",
                    "action": action,
                },
                timeout=10,
            )
            if not ack.get("ok"):
                with changed:  # wait for the next update before choosing again
                    changed.wait_for(_version_moved(latest, seen), timeout=2)
    finally:
        sio.disconnect()
    return int(latest["version"])


def _stats(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    if not ordered:
        return {"median": 0.0, "p95": 0.0, "max": 0.0}

    def at(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    return {"median": at(0.5), "p95": at(0.95), "max": ordered[-1]}


def _measure(url: str, match_id: str, chromium: str, jumps: int) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser_ = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            # bypass_csp: wait_for_function evaluates with eval(), which the page's policy
            # refuses (server/entrypoints/security.py).
            page = browser_.new_page(viewport={"width": 1280, "height": 860}, bypass_csp=True)
            page.goto(f"{url}/replay/{match_id}")
            page.wait_for_function("window.replayReady === true", timeout=WAIT_S * 1000)
            page.evaluate(MEASURE_JS, [jumps, 7])  # warm-up: JIT and style caches
            result: dict[str, Any] = page.evaluate(MEASURE_JS, [jumps, 12345])
        finally:
            browser_.close()
    return result


@click.command("browser")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--events", default=600, show_default=True, help="Events in the replayed match.")
@click.option("--jumps", default=300, show_default=True, help="Random jumps timed.")
@click.option("--seed", default=1, show_default=True, help="Seed of the scripted player.")
@click.option("--chromium", default="/usr/bin/chromium", show_default=True)
def browser(as_json: bool, events: int, jumps: int, seed: int, chromium: str) -> None:
    """Replay viewer in Chromium: one step and a jump, against a naive full redraw."""
    with tempfile.TemporaryDirectory(prefix="crapette-bench-") as tmp:
        server = _Server(Path(tmp))
        try:
            server.wait_ready()
            started = time.monotonic()
            match_id = _play_match(server.url, events, seed)
            played_s = time.monotonic() - started
            click.echo(f"(a {events}-event match played in {played_s:.0f} s)", err=True)
            raw = _measure(server.url, match_id, chromium, jumps)
        finally:
            server.stop()
    step, jump, naive = _stats(raw["steps"]), _stats(raw["jumps"]), _stats(raw["naive"])
    plain_step, plain_jump = _stats(raw["plainSteps"]), _stats(raw["plainJumps"])
    base = naive["median"] or 1e-9
    report = {
        "frames": raw["frames"],
        "step_ms": step,
        "jump_ms": jump,
        "naive_redraw_ms": naive,
        "step_vs_naive": step["median"] / base,
        "jump_vs_naive": jump["median"] / base,
        "targets_ms": {"step": STEP_TARGET_MS, "jump": JUMP_TARGET_MS},
        "step_within_target": step["p95"] < STEP_TARGET_MS,
        "jump_within_target": jump["p95"] < JUMP_TARGET_MS,
        "step_without_analysis_ms": plain_step,
        "jump_without_analysis_ms": plain_jump,
        "analysis_shown": raw["analysis"],
        "faults": raw["faults"],
    }
    if as_json:
        click.echo(json.dumps(report))
        return
    click.echo(
        f"replay of {raw['frames']} events of a finished match, analysis shown "
        f"({raw['faults']} faults), timed in Chromium (script + style + layout)"
    )
    for label, s, target in (
        ("one step", step, STEP_TARGET_MS),
        ("jump", jump, JUMP_TARGET_MS),
        ("naive full redraw (baseline)", naive, None),
        ("one step, analysis hidden", plain_step, None),
        ("jump, analysis hidden", plain_jump, None),
    ):
        verdict = "met" if target and s["p95"] < target else "MISSED"
        goal = f"  target < {target:g} ms (p95): {verdict}" if target else ""
        click.echo(
            f"  {label:30s} median {s['median']:6.2f} ms  p95 {s['p95']:6.2f} ms  "
            f"max {s['max']:6.2f} ms{goal}"
        )
    click.echo(
        f"  ratios to the baseline (medians): step {report['step_vs_naive']:.2f}x, "
        f"jump {report['jump_vs_naive']:.2f}x"
    )
