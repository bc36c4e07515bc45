"""The lobby and the end panel as players found them (issue 31, point 10): "Live games" leaves
out tables nobody is at and matches that are over, `/players` is linked from the lobby and the
end panel, the score's "30 +" is explained, the rematch sits in the end panel, a long fault list
folds and the panel keeps the log in view, and the keyboard focus ring is not the last move's
gold mark."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from domain.engine_match import random_match
from records.export import record_from_events
from tests.browser.conftest import DESKTOP
from tests.browser.ui import WAIT_MS, seated_page, settle, wait_idle, wait_my_move
from tests.integration.harness import ServerProcess

pytestmark = pytest.mark.browser

IDLE_S = 3.0  # the server's --idle-after here (0.05 min); production: 10 min
LAPTOP = {"width": 1280, "height": 800}


@pytest.fixture(scope="module")
def idle_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    process = ServerProcess(
        tmp_path_factory.mktemp("idle"), extra_args=("--idle-after", str(IDLE_S / 60))
    )
    process.start()
    try:
        yield process
    finally:
        process.stop()


def bot_table(server: ServerProcess, new_page: Any, name: str = "Ann", **body: Any) -> Any:
    """A person seated at a new table against the steady bot, on his turn, the board settled."""
    created = server.open_table(name=name, bot="steady", **body)
    page = seated_page(
        lambda: new_page(LAPTOP),
        server,
        created["match_id"],
        created["seat"],
        created["seat_token"],
        name,
    )
    page.wait_for_function(
        """() => { const c = window.crapette; return c.idle && !c.view.over
                   && c.view.to_move === c.seat && c.view.legal.length > 0; }""",
        timeout=WAIT_MS,
    )
    settle(page)
    page.match_id = created["match_id"]
    return page


def lobby_ids(page: Any, list_id: str) -> list[str]:
    ids: list[str] = page.evaluate(
        "id => [...document.querySelectorAll(`#${id} li[data-match]`)].map(li => li.dataset.match)",
        list_id,
    )
    return ids


def test_live_games_leave_out_idle_tables_and_finished_matches(
    idle_server: ServerProcess, new_page: Any, artifact_dir: Path
) -> None:
    server = idle_server
    # Nobody ever comes to Zed's table: once quiet for IDLE_S it is idle.
    zed = server.open_table(name="Zed", bot="steady")
    # Ann is at hers: it stays live however quiet.
    ann = bot_table(server, new_page, "Ann")
    # Eve abandons hers: the match is over at once, so it is finished, not live.
    eve = bot_table(server, new_page, "Eve")
    eve.click("#btn-resign")
    eve.click("#btn-abandon")
    eve.wait_for_function("window.crapette.view.match_over === true", timeout=WAIT_MS)
    ann.wait_for_timeout(IDLE_S * 1000 + 1500)

    tables = {t["match_id"]: t for t in server.get("/api/tables").json()["tables"]}
    assert server.get("/api/tables").json()["idle_after_s"] == pytest.approx(IDLE_S)
    assert tables[zed["match_id"]]["status"] == "playing" and tables[zed["match_id"]]["idle"]
    assert tables[ann.match_id]["idle"] is False
    assert tables[eve.match_id]["status"] == "finished" and tables[eve.match_id]["idle"] is False

    lobby = new_page(LAPTOP)
    lobby.goto(server.url + "/")
    lobby.wait_for_function("window.lobbyReady === true", timeout=WAIT_MS)
    lobby.wait_for_function(
        "document.querySelectorAll('#live-tables li[data-match]').length > 0", timeout=WAIT_MS
    )
    live = lobby_ids(lobby, "live-tables")
    assert ann.match_id in live and zed["match_id"] not in live and eve.match_id not in live
    assert eve.match_id in lobby_ids(lobby, "finished-tables")
    note = lobby.locator("[data-testid=idle-hidden]")
    assert note.is_visible() and "idle table" in note.inner_text(), note.inner_text()
    assert "0.1 min" in note.inner_text()  # the server's own threshold, in minutes
    lobby.screenshot(path=str(artifact_dir / "lobby-live-games.png"), full_page=True)
    french = new_page(LAPTOP)  # the number in the page's language
    french.goto(server.url + "/?lang=fr")
    french.wait_for_function("window.lobbyReady === true", timeout=WAIT_MS)
    french_note = french.locator("[data-testid=idle-hidden]")
    french_note.wait_for(timeout=WAIT_MS)
    assert "0,1 min" in french_note.inner_text(), french_note.inner_text()

    # Zed's own browser still finds his table, idle or not: it is his to go back to.
    saved = json.dumps({"seat": zed["seat"], "seat_token": zed["seat_token"], "name": "Zed"})
    lobby.evaluate(
        "([k, v]) => localStorage.setItem(k, v)", [f"crapette:seat:{zed['match_id']}", saved]
    )
    lobby.reload()
    lobby.wait_for_function(
        "id => document.querySelector(`#live-tables li[data-match='${id}']`)",
        arg=zed["match_id"],
        timeout=WAIT_MS,
    )
    assert "Your table" in lobby.inner_text(f"#live-tables li[data-match='{zed['match_id']}']")

    # /players is linked from the lobby's header.
    link = lobby.locator("header [data-testid=players-link]")
    assert link.is_visible() and link.get_attribute("href") == "/players"
    link.click()
    lobby.wait_for_url("**/players", timeout=WAIT_MS)

    # Eve's abandoned match, replayed from the lobby's Finished list: the one game she played,
    # its resign, and the abandon that ended the match.
    lobby.goto(f"{server.url}/replay/{eve.match_id}")
    lobby.wait_for_function("window.replayReady === true", timeout=WAIT_MS)
    games = lobby.evaluate(
        "[...new Set(window.replay.frames.map(f => f.game_index).filter(g => g !== null))]"
    )
    assert games == [0]
    last = lobby.locator(".ev").last
    assert "Eve abandoned the match: steady bot wins it" in last.inner_text()
    assert last.get_attribute("title") == "match abandoned"
    lobby.screenshot(path=str(artifact_dir / "replay-abandoned.png"))
    assert not (ann.errors or eve.errors or lobby.errors)


def test_the_end_panel_explains_the_score_and_holds_the_rematch(
    idle_server: ServerProcess, new_page: Any, artifact_dir: Path
) -> None:
    page = bot_table(idle_server, new_page, "Ann", match="wins:1")
    page.click("#btn-resign")
    page.click("#btn-resign-game")
    page.wait_for_function("window.crapette.view.match_over === true", timeout=WAIT_MS)
    wait_idle(page)
    panel = page.locator("[data-testid=game-end]")
    panel.wait_for(state="visible", timeout=WAIT_MS)
    assert "30 + 2 ×" in page.inner_text("[data-testid=end-score]")
    # "Why 30?" sits right under the sum and opens on the rules' reason.
    help_ = page.locator("[data-testid=score-help]")
    assert help_.is_visible() and help_.inner_text().strip() == "Why 30?"
    score_box = page.locator("[data-testid=end-score]").bounding_box()
    help_box = help_.bounding_box()
    assert score_box and help_box
    assert 0 <= help_box["y"] - (score_box["y"] + score_box["height"]) < 12  # right under it
    help_.locator("summary").click()
    assert "30 is the bonus for winning the game" in help_.inner_text()
    # The rematch and the replay are in the end panel, no longer in the status line.
    assert page.locator("#game-end #after-match").is_visible()
    assert page.locator("#game-end #rematch-btn").is_visible()
    assert page.locator(".status-line #rematch-btn").count() == 0
    rematch = page.locator("#rematch-btn").bounding_box()
    box = panel.bounding_box()
    assert rematch and box and box["y"] <= rematch["y"] <= box["y"] + box["height"]
    players = page.locator("#game-end [data-testid=end-players-link]")
    assert players.is_visible() and players.get_attribute("href") == "/players"
    page.screenshot(path=str(artifact_dir / "end-panel-en.png"))

    # The same in French: the explanation is the catalogue's, not English.
    page.goto(page.url + "?lang=fr")
    page.wait_for_function("window.crapette && window.crapette.view", timeout=WAIT_MS)
    page.locator("[data-testid=score-help]").wait_for(state="visible", timeout=WAIT_MS)
    assert page.inner_text("[data-testid=score-help] summary").strip() == "Pourquoi 30 ?"
    page.click("[data-testid=score-help] summary")
    assert "30 est le bonus" in page.inner_text("[data-testid=score-help]")
    assert page.inner_text("#game-end [data-testid=end-players-link]") == "Statistiques des joueurs"
    page.screenshot(path=str(artifact_dir / "end-panel-fr.png"))
    assert not page.errors


def _faulty_record(least: int = 15) -> dict[str, Any]:
    """A self-played classic game whose faults nobody calls (at least `least` of them), ended by
    a resignation: a record to import."""
    for seed in range(40):
        events = random_match(random.Random(seed), "classic", 1, 160, call_rate=0.0)
        record = record_from_events(events, public=False)
        faults = sum(bool(a.get("fault")) for a in record["games"][0]["actions"])
        if faults >= least and record["games"][0]["result"] is not None:
            record["match_id"] = f"m-faults-{seed}"
            return record
    raise AssertionError("no self-played game with enough faults")


def test_a_long_fault_list_folds_and_the_log_stays_in_view(
    idle_server: ServerProcess, new_page: Any, artifact_dir: Path
) -> None:
    record = _faulty_record()
    faults = sum(bool(a.get("fault")) for a in record["games"][0]["actions"])
    response = idle_server.post("/api/records", record)
    assert response.status_code == 201, response.text
    match_id = response.json()["match_id"]
    page = new_page(LAPTOP)
    page.goto(f"{idle_server.url}/table/{match_id}")
    page.wait_for_function("window.crapette && window.crapette.view", timeout=WAIT_MS)
    items = page.locator("[data-testid=end-faults] li")
    items.first.wait_for(state="attached", timeout=WAIT_MS)
    assert items.count() == faults
    assert page.locator("[data-testid=end-faults] li:visible").count() == 4
    more = page.locator("[data-testid=faults-show-all]")
    assert more.inner_text() == f"Show all {faults} faults"
    panel = page.locator("[data-testid=game-end]")
    folded = panel.bounding_box()
    assert folded and folded["height"] <= 440
    log = page.locator("[data-testid=log]").bounding_box()
    assert log and log["y"] + 60 <= LAPTOP["height"], log  # the log is there, below the panel
    page.screenshot(path=str(artifact_dir / "faults-folded.png"))

    more.click()
    assert page.locator("[data-testid=end-faults] li:visible").count() == faults
    assert more.get_attribute("aria-expanded") == "true"
    opened = panel.bounding_box()
    assert opened and opened["height"] <= 440  # its own scroll, the page's layout unchanged
    assert page.evaluate(
        "(() => { const p = document.getElementById('game-end');"
        " return p.scrollHeight > p.clientHeight; })()"
    )
    log = page.locator("[data-testid=log]").bounding_box()
    assert log and log["y"] + 60 <= LAPTOP["height"], log
    page.screenshot(path=str(artifact_dir / "faults-opened.png"))
    more.click()
    assert page.locator("[data-testid=end-faults] li:visible").count() == 4
    assert not page.errors


def test_the_focus_ring_is_not_the_last_move_mark(
    idle_server: ServerProcess, new_page: Any, artifact_dir: Path
) -> None:
    page = bot_table(idle_server, new_page, "Ann")
    # Ann moves a card: the gold last-move mark is on the board. A deal may open with nothing to
    # move but the hand's card: she turns and discards until she can.
    wait_my_move(page)
    settle(page)
    move = page.evaluate("window.crapette.view.legal.find(a => a.do === 'move') ?? null")
    assert move is not None, "wait_my_move returned without a move"
    page.evaluate("a => window.crapette.act(a)", move)
    page.wait_for_function("document.querySelector('.pile.last-to') !== null", timeout=WAIT_MS)
    wait_idle(page)
    marked = page.evaluate(
        """() => { const card = document.querySelector('.pile.last-to > .card:last-of-type');
                   return card ? getComputedStyle(card).boxShadow : ''; }"""
    )
    page.locator("#board .focus-target").first.wait_for(state="attached", timeout=WAIT_MS)
    for _ in range(40):  # Tab into the board, as a keyboard player does
        page.keyboard.press("Tab")
        # On a pile other than the one the last move marks, so that both show side by side.
        if page.evaluate(
            """() => { const el = document.activeElement;
                       return el.classList.contains('focus-target')
                              && !el.closest('.pile.last-to, .pile.last-from'); }"""
        ):
            break
    ring = page.evaluate(
        """() => { const s = getComputedStyle(document.activeElement);
                   return {style: s.outlineStyle, color: s.outlineColor, width: s.outlineWidth,
                           focused: document.activeElement.matches(':focus-visible')}; }"""
    )
    assert ring["focused"], ring
    assert ring["style"] == "double" and ring["color"] == "rgb(43, 127, 255)", ring
    assert "243, 194, 74" not in ring["color"]  # never the last move's gold
    assert "rgb(243, 194, 74)" in marked  # the mark itself stays gold
    page.screenshot(path=str(artifact_dir / "focus-ring.png"))
    # A button's focus ring is the same blue double line.
    page.locator("#btn-hint").focus()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")
    button = page.evaluate(
        "(() => { const s = getComputedStyle(document.activeElement);"
        " return [document.activeElement.id, s.outlineStyle, s.outlineColor]; })()"
    )
    assert button[1] == "double" and button[2] == "rgb(43, 127, 255)", button
    assert not page.errors


def test_the_lobby_header_links_players_in_finnish(
    idle_server: ServerProcess, new_page: Any, artifact_dir: Path
) -> None:
    page = new_page(DESKTOP)
    page.goto(idle_server.url + "/?lang=fi")
    page.wait_for_function("window.lobbyReady === true", timeout=WAIT_MS)
    link = page.locator("header [data-testid=players-link]")
    assert link.is_visible() and link.inner_text() == "Pelaajat"
    assert not page.errors
