"""A live replay follows its match over Socket.IO: after loading, what the page receives grows
with the new events, not with the size of the match (it used to download the whole replay again
every 3 s); a finished match's replay comes with a strong ETag and is not sent twice."""

from __future__ import annotations

import random
import time
from typing import Any

import requests
import socketio

from bench.browser import open_bot_match, play_until
from tests.browser.ui import WAIT_MS
from tests.integration.harness import PROTOCOL, ServerProcess

NEW_EVENTS = 40


def _follow(server: ServerProcess, new_page: Any, size: int, seed: int) -> dict[str, Any]:
    """Play a match to `size` events, open its live replay, play NEW_EVENTS more; what the page
    received meanwhile."""
    match_id, token = open_bot_match(server.url)
    rng = random.Random(seed)
    at_open = play_until(server.url, match_id, token, size, rng)
    page = new_page()
    received = {"socket": 0, "http": 0, "replay_fetches": 0}
    counting = [False]

    def on_socket(ws: Any) -> None:
        def frame(payload: str | bytes) -> None:
            if counting[0]:
                received["socket"] += len(payload.encode() if isinstance(payload, str) else payload)

        ws.on("framereceived", frame)

    def on_response(response: Any) -> None:
        if counting[0] and "/socket.io/" not in response.url:
            received["http"] += len(response.body())
            received["replay_fetches"] += "/replay" in response.url

    page.on("websocket", on_socket)
    page.on("response", on_response)
    page.goto(f"{server.url}/replay/{match_id}")
    page.wait_for_function("window.replayReady === true", timeout=WAIT_MS)
    assert "live" in page.inner_text("[data-testid=replay-title]")
    loaded = page.evaluate("window.replay.frames.length")
    assert loaded >= at_open
    # The spectator's join is answered (the page is in the room) before we count.
    page.wait_for_function("window.replay.socket?.connected === true", timeout=WAIT_MS)
    page.wait_for_timeout(300)
    counting[0] = True
    target = play_until(server.url, match_id, token, loaded + NEW_EVENTS, rng)
    page.wait_for_function(f"window.replay.frames.length >= {target}", timeout=WAIT_MS)
    page.wait_for_timeout(300)
    counting[0] = False
    shown = page.evaluate(
        "[window.replay.pos, window.replay.frames.length,"
        " window.replay.frames.map((f) => f.version)]"
    )
    assert shown[0] == shown[1] - 1  # it follows the end
    assert shown[2] == list(range(1, shown[1] + 1))  # every event once, in order
    replay_bytes = len(requests.get(f"{server.url}/api/matches/{match_id}/replay").content)
    return {**received, "events": target - loaded, "replay_bytes": replay_bytes}


def test_live_replay_traffic_grows_with_new_events_not_the_match(
    server: ServerProcess, new_page: Any
) -> None:
    small = _follow(server, new_page, 30, seed=1)
    big = _follow(server, new_page, 300, seed=2)
    for seen in (small, big):
        assert seen["replay_fetches"] == 0 and seen["http"] == 0, seen
        assert seen["events"] >= NEW_EVENTS
    per_event = [seen["socket"] / seen["events"] for seen in (small, big)]
    # One update (event + spectator view) is a few KB whatever came before it ...
    assert max(per_event) < 8_000, per_event
    # ... so a match ten times longer costs about the same per new event (views vary a little).
    assert per_event[1] < 1.6 * per_event[0], per_event
    assert big["replay_bytes"] > 5 * small["replay_bytes"] / 2  # while the whole replay grew


def test_a_finished_replay_has_a_strong_etag(server: ServerProcess) -> None:
    match_id, token = open_bot_match(server.url, match="wins:1")
    play_until(server.url, match_id, token, 12, random.Random(3))
    url = f"{server.url}/api/matches/{match_id}/replay"
    for _ in range(100):  # the bot may still be playing its turn: until the match rests
        live = requests.get(url, timeout=10)
        etag = live.headers["ETag"]
        if requests.get(url, headers={"If-None-Match": etag}, timeout=10).status_code == 304:
            break
        time.sleep(0.1)
    else:
        raise AssertionError("a live replay never answered 304 to its own ETag")
    assert live.headers["Cache-Control"] == "no-cache" and live.json()["live"] is True
    assert etag.startswith('"') and not etag.startswith("W/")
    sio = socketio.Client(reconnection=False)
    sio.connect(server.url, transports=["websocket"], auth={"protocol": PROTOCOL})
    try:  # one game to win the match: a resignation ends it
        resign = {"do": "resign", "seat": 0}
        command = {"match_id": match_id, "seat_token": token, "command_id": "resign-0001"}
        assert sio.call("command", {**command, "action": resign}, timeout=10)["ok"]
    finally:
        sio.disconnect()
    finished = requests.get(url, timeout=10)
    assert finished.json()["live"] is False
    assert finished.headers["Cache-Control"].startswith("public, max-age=")
    assert finished.headers["ETag"] != etag
    again = requests.get(url, headers={"If-None-Match": finished.headers["ETag"]}, timeout=10)
    assert again.status_code == 304 and again.content == b""
    assert requests.get(url, timeout=10).content == finished.content  # built once, the same
