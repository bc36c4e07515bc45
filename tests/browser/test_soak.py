"""The soak: players and spectators idle for three minutes on the default heartbeat (25 s + 20 s),
then play. Marked `soak`: scripts/test.sh (the README's test command, CI) runs it; a quick run
skips it with `-m "not soak"`. The same regression in seconds: tests/integration/
test_connections.py.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.ui import seated_page
from tests.integration.harness import Client, ServerProcess, choose
from tests.integration.test_connections import Watched

IDLE_SOAK_S = 180.0


@pytest.fixture
def clients() -> Iterator[list[Client]]:
    made: list[Client] = []
    yield made
    for client in made:
        client.close()


# -- the soak: three minutes idle on the default heartbeat -------------------------------------

# Counts the times the page's connection badge turns to "reconnecting" and the messages that say
# the connection was lost, from the moment it is installed.
_WATCH_PAGE = """() => {
  window.__drops = 0;
  window.__lostSaid = 0;
  const conn = document.getElementById("conn");
  let down = conn.classList.contains("down");
  new MutationObserver(() => {
    const now = conn.classList.contains("down");
    if (now && !down) window.__drops += 1;
    down = now;
  }).observe(conn, { attributes: true, attributeFilter: ["class"] });
  const message = document.querySelector("[data-testid=message]");
  new MutationObserver(() => {
    if (message.classList.contains("lost")) window.__lostSaid += 1;
  }).observe(message, { attributes: true, childList: true, subtree: true, characterData: true });
}"""


@pytest.mark.soak
@pytest.mark.browser
@pytest.mark.timeout(IDLE_SOAK_S + 180)
def test_players_and_a_spectator_stay_connected_for_three_idle_minutes(
    tmp_path: Path, clients: list[Client], new_page: Any
) -> None:
    server = ServerProcess(tmp_path).start()  # the default heartbeat: 25 s + 20 s
    try:
        opened = server.open_table(preset="beginner")
        joined = server.join(opened["match_id"])
        match_id = opened["match_id"]
        ann = Client(server, opened["seat_token"]).connect()  # python-socketio, seat 0
        clients.append(ann)
        ann.join(match_id, last_version=0)
        bob_page = seated_page(new_page, server, match_id, 1, joined["seat_token"])
        watcher_page = new_page()
        watcher_page.goto(f"{server.url}/table/{match_id}")
        watcher_page.wait_for_function("window.crapette && window.crapette.view")
        watcher = Client(server).connect()  # and a python-socketio spectator
        clients.append(watcher)
        watcher.join(match_id)
        pages = (bob_page, watcher_page)
        for page in pages:
            page.evaluate(_WATCH_PAGE)
        watched = [Watched(c) for c in (ann, watcher)]

        time.sleep(IDLE_SOAK_S)

        assert [w.disconnects for w in watched] == [[], []]
        assert [p.evaluate("[window.__drops, window.__lostSaid]") for p in pages] == [[0, 0]] * 2
        # Then the game goes on: a move by whoever is to move reaches everybody.
        view = ann.view or {}
        if view["to_move"] == 0:
            ack = ann.send(match_id, choose(view) or {})
            assert ack["ok"], ack
            version = int(ack["version"])
        else:
            before = int(bob_page.evaluate("window.crapette.version"))
            bob_page.keyboard.press("ArrowDown")
            bob_page.keyboard.press("Enter")
            bob_page.wait_for_function(f"window.crapette.version > {before}")
            version = int(bob_page.evaluate("window.crapette.version"))
        ann.wait_version(version)
        watcher.wait_version(version)
        for page in pages:
            page.wait_for_function(f"window.crapette.version >= {version}")
        assert [p.evaluate("[window.__drops, window.__lostSaid]") for p in pages] == [[0, 0]] * 2
        assert [w.disconnects for w in watched] == [[], []]
        for page in pages:
            assert page.errors == []
    finally:
        server.stop()
