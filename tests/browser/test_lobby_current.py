"""A lobby that is current, and play on from here under the viewer's own name (issue 39).

- Play on from here fills "Your name" with the name this browser remembers, else leaves it
  empty (it once filled in the name of the seat to move: "steady bot"); the bot sits under its
  own name; the practice table is private: never in the lobby's lists, reached by its link.
- Live games lists each live table once, with the game in play (game N, turn T, each player's
  cards left) rather than match points; a table leaves it once its last person has been gone
  for the server's `--idle-after` (a minute by default), and so does an open table its host left.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.ui import WAIT_MS, create_table, the_view
from tests.integration.harness import ServerProcess

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "records"
IDLE_S = 3.0  # this module's --idle-after (0.05 min); the default is a minute
LAPTOP = {"width": 1280, "height": 800}


@pytest.fixture(scope="module")
def quick_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    process = ServerProcess(
        tmp_path_factory.mktemp("current"), extra_args=("--idle-after", str(IDLE_S / 60))
    ).start()
    try:
        yield process
    finally:
        process.stop()


def finished_match(server: ServerProcess) -> str:
    body = (GOLDEN / "classic-win-recycle.json").read_text(encoding="utf-8")
    answer = server.post("/api/records", json.loads(body))
    assert answer.status_code == 201, answer.text
    match_id: str = answer.json()["match_id"]
    return match_id


def open_play_on(page: Any, server: ServerProcess, match_id: str) -> dict[str, Any]:
    page.goto(f"{server.url}/replay/{match_id}?v=40")
    page.wait_for_function("window.replayReady === true", timeout=WAIT_MS)
    position: dict[str, Any] = page.evaluate("window.replay.frames[window.replay.pos].view")
    page.click("[data-testid=play-on]")
    page.locator("[data-testid=play-on-form]").wait_for(timeout=WAIT_MS)
    return position


def listed(server: ServerProcess) -> set[str]:
    return {t["match_id"] for t in server.get("/api/tables").json()["tables"]}


def test_play_on_under_your_own_name_at_a_private_table(
    server: ServerProcess, new_page: Any, artifact_dir: Path
) -> None:
    assert server.get("/api/tables").json()["idle_after_s"] == 60  # the default: a minute
    source = finished_match(server)
    # A browser that never gave a name: the field is empty, never a player's of the replay.
    page = new_page(LAPTOP)
    position = open_play_on(page, server, source)
    assert page.input_value("[data-testid=play-on-name]") == ""
    page.fill("[data-testid=play-on-name]", "Nina")
    page.select_option("[data-testid=play-on-seat]", str(position["to_move"]))
    page.select_option("[data-testid=play-on-bot]", "steady")
    page.click("[data-testid=play-on-start]")
    page.wait_for_url("**/table/*", timeout=WAIT_MS)
    page.wait_for_function("window.crapette && window.crapette.view", timeout=WAIT_MS)
    practice_id = page.url.rsplit("/", 1)[1]
    seat = position["to_move"]
    players = the_view(page)["players"]
    assert players[seat] == "Nina" and players[1 - seat] == "steady bot", players
    header = page.inner_text("header")
    assert "Nina" in header and "steady bot" in header and "steady bot (you)" not in header
    page.screenshot(path=str(artifact_dir / "practice-table.png"))

    # Private: in no list of the lobby, yet anyone with the link may watch it.
    assert practice_id not in listed(server)
    lobby = new_page(LAPTOP)
    lobby.goto(server.url + "/")
    lobby.wait_for_function("window.lobbyReady === true", timeout=WAIT_MS)
    assert lobby.locator(f"li[data-match='{practice_id}']").count() == 0
    watcher = new_page(LAPTOP)
    watcher.goto(f"{server.url}/table/{practice_id}")
    watcher.wait_for_function("window.crapette && window.crapette.view", timeout=WAIT_MS)
    assert the_view(watcher)["players"] == players

    # A browser that remembers its name ("Olga") offers it.
    other = new_page(LAPTOP)
    other.goto(server.url + "/rules")
    other.evaluate("localStorage.setItem('crapette:name', 'Olga')")
    open_play_on(other, server, source)
    assert other.input_value("[data-testid=play-on-name]") == "Olga"
    assert not page.errors and not other.errors and not watcher.errors


def row(lobby: Any, match_id: str) -> Any:
    return lobby.locator(f"li[data-match='{match_id}']")


def cards_left(view: dict[str, Any], seat: int) -> int:
    return sum(
        len(cards)
        for name, cards in view["piles"].items()
        if name[0] in "RQHIJXW" and name[1] == str(seat)
    )


def test_live_games_show_the_game_in_play_and_drop_a_table_once_left(
    quick_server: ServerProcess, new_page: Any, artifact_dir: Path
) -> None:
    server = quick_server
    bob = new_page(LAPTOP)
    bob_id = create_table(bob, server, "Bob", {"opponent": "steady"})
    hugo = new_page(LAPTOP)
    # An open table: Hugo waits for a guest on the lobby's invite, which keeps him at his table.
    hugo_id = create_table(hugo, server, "Hugo")
    lobby = new_page(LAPTOP)
    lobby.goto(server.url + "/")
    lobby.wait_for_function("window.lobbyReady === true", timeout=WAIT_MS)
    # Bob's game, as his page shows it once the bot waits for him: game 1, its turn, the
    # cards each of them has left; not the match points.
    bob.wait_for_function(
        """() => { const c = window.crapette; return c && c.idle && c.view &&
             c.view.to_move === c.seat && c.view.legal.length > 0; }""",
        timeout=WAIT_MS,
    )
    view = the_view(bob)
    # The score's dash held by word joiners: it never breaks over two lines (issue 39).
    left = f"{cards_left(view, 0)}\u2060–\u2060{cards_left(view, 1)}"
    wanted = f"game 1, turn {view['turn_number']} · cards left {left}"
    lobby.wait_for_function(
        "([id, text]) => document.querySelector(`#live-tables li[data-match='${id}']`)"
        "?.textContent.includes(text)",
        arg=[bob_id, wanted],
        timeout=WAIT_MS,
    )
    lobby.wait_for_timeout(IDLE_S * 1000 + 3500)  # past the idle delay and a refresh
    assert row(lobby, hugo_id).count() == 1, "Hugo waits on the invite: his table stays listed"
    assert row(lobby, bob_id).count() == 1  # once
    assert "0–0" not in row(lobby, bob_id).inner_text().replace("\u2060", "")
    assert row(lobby, hugo_id).count() == 1 and lobby.locator("#open-tables").inner_text()
    lobby.screenshot(path=str(artifact_dir / "lobby-live.png"), full_page=True)

    # Both leave: within the idle delay (and the lobby's 3 s refresh) neither is listed.
    bob.close()
    hugo.close()
    lobby.wait_for_function(
        "ids => ids.every((id) => !document.querySelector(`li[data-match='${id}']`))",
        arg=[bob_id, hugo_id],
        timeout=int((IDLE_S + 3 + 5) * 1000),
    )
    tables = {t["match_id"]: t for t in server.get("/api/tables").json()["tables"]}
    assert tables[bob_id]["idle"] and tables[hugo_id]["idle"]
    assert tables[hugo_id]["status"] == "open"
    assert "idle table" in lobby.inner_text("#live-tables")
    lobby.screenshot(path=str(artifact_dir / "lobby-after-leaving.png"), full_page=True)
    assert not lobby.errors
