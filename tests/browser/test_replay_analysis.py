"""The replay's analysis in Chromium: a missed call in the move list and on the timeline, `]`
stopping on it, the skipped move's arrow, the knowledge view switch (button and key), a chart
click that jumps, the game summary; and the player statistics pages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import domain
from domain import Act, Resign, Ruleset, StartGame, StartMatch, Turn
from domain.engine_match import obedient_action
from records.export import record_from_events
from tests.browser.ui import PILE_CODE, WAIT_MS
from tests.integration.harness import ServerProcess

pytestmark = pytest.mark.browser

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "records"


def _missed_call_record() -> dict[str, Any]:
    """The deal of the golden classic-calls-resign: Ann turns a card with A♠ on her reserve (a
    fault Bob never calls), then both play sound actions, then Ann resigns (the match of one
    win ends)."""
    golden = json.loads((GOLDEN / "classic-calls-resign.json").read_text(encoding="utf-8"))
    ruleset = Ruleset.from_json({**golden["ruleset"], "match": "wins:1", "preset": "classic"})
    packs = tuple(
        [domain.Card.parse(code, owner=seat) for code in pack]
        for seat, pack in enumerate(golden["games"][0]["deal"]["packs"])
    )
    at = 1_764_435_721_000
    events, state = domain.decide_and_fold(
        None, StartMatch("m-missed", ruleset, ("Ann", "Bob"), at)
    )
    for command in (StartGame(None, (packs[0], packs[1]), at + 1000), Act(Turn(0), at + 2500)):
        more, state = domain.decide_and_fold(state, command)
        events += more
    for step in range(60):
        assert state.game is not None
        action = obedient_action(state, state.game.to_move)
        if action is None or state.game.over:
            break
        more, state = domain.decide_and_fold(
            state, Act(action, at + 4000 + 900 * step + 50 * (step % 7))
        )
        events += more
    more, state = domain.decide_and_fold(state, Act(Resign(0), at + 90_000))
    record: dict[str, Any] = record_from_events(events + more, public=False)
    return record


@pytest.fixture(scope="module")
def missed_match(server: ServerProcess) -> str:
    response = server.post("/api/records", _missed_call_record())
    assert response.status_code == 201, response.text
    match_id: str = response.json()["match_id"]
    return match_id


def _open(page: Any, server: ServerProcess, match_id: str) -> None:
    page.goto(f"{server.url}/replay/{match_id}")
    page.wait_for_function("window.replayReady === true", timeout=WAIT_MS)


def _shown_version(page: Any) -> int:
    version: int = page.evaluate("window.replay.frames[window.replay.pos].version")
    return version


def test_a_missed_call_is_marked_and_its_skipped_move_drawn(
    server: ServerProcess, new_page: Any, missed_match: str, artifact_dir: Path
) -> None:
    page = new_page()
    _open(page, server, missed_match)
    row = page.locator(".move-list .ev.mark-missed")
    assert row.count() == 1
    assert "missed: Bob could have called Crapette!" in row.inner_text()
    assert page.locator(".timeline .tick.missed").count() == 1
    page.keyboard.press("Home")
    page.keyboard.press("]")  # the first mark: the missed fault
    fault = page.evaluate("[...window.replay.analysis.missedAt.values()][0]")
    assert _shown_version(page) == fault["fault_version"]
    caption = page.inner_text("[data-testid=caption]")
    assert "missed: Bob could have called Crapette!" in caption
    assert "A♠ from Ann's reserve to the ♠ foundation came first" in caption
    arrow = page.locator(".arrow-layer")
    assert arrow.is_visible() and arrow.get_attribute("data-move") == "R0-F0"
    page.screenshot(path=str(artifact_dir / "replay-missed-call.png"))
    page.keyboard.press("ArrowRight")
    assert not arrow.is_visible()
    summary = page.locator("[data-testid=summary]")
    assert "missed calls" in summary.inner_text()
    cells = summary.locator("tr", has_text="missed calls").locator("td").all_inner_texts()
    assert cells == ["0", "1"]  # Bob missed Ann's one fault
    assert not page.errors


def test_the_view_switch_shows_what_each_seat_and_a_spectator_saw(
    server: ServerProcess, new_page: Any, missed_match: str, artifact_dir: Path
) -> None:
    page = new_page()
    _open(page, server, missed_match)
    page.keyboard.press("Home")
    switch = page.locator("[data-testid=view-switch]")
    assert switch.is_hidden()  # before the deal: no game, no knowledge views
    page.keyboard.press("]")
    assert switch.is_visible()
    checked = "[data-testid=view-switch] [aria-checked=true]"
    assert page.get_attribute(checked, "data-view") == "all"
    hand = page.locator('[data-pile="H0"] > .card:not(.under)')
    assert "back" not in (hand.get_attribute("class") or "")  # every card: the hand face up
    page.keyboard.press("v")
    assert page.get_attribute(checked, "data-view") == "seat0"
    page.wait_for_selector("[data-testid=options]:not([hidden])", timeout=WAIT_MS)
    # Right after Ann's faulty turn she may still play: A♠ up is still compulsory, so that is
    # what she had to play (issue 31: only the compulsory move is listed), in words.
    options = page.inner_text("[data-testid=options]")
    assert options.startswith("Ann had to play: ") and "foundation" in options
    assert not PILE_CODE.search(options)
    assert "back" in (hand.get_attribute("class") or "")  # a seat saw the hand face down
    assert page.get_attribute(".tray.bottom", "data-seat") == "0"
    page.keyboard.press("ArrowLeft")  # before the fault: A♠ up was compulsory, the turn a fault
    page.wait_for_function(
        "document.querySelector('[data-testid=options]').dataset.compulsory === 'true'",
        timeout=WAIT_MS,
    )
    said = page.inner_text("[data-testid=options]")
    assert said == "Ann had to play: A♠ from Ann's reserve to the ♠ foundation", said
    assert page.locator("[data-testid=options] .option.fault").count() == 0
    assert page.locator('[data-pile="R0"].could').count() == 1
    page.screenshot(path=str(artifact_dir / "replay-seat-view.png"))
    page.keyboard.press("ArrowRight")
    page.locator(checked).page.click('[data-view="seat1"]')
    assert page.get_attribute(checked, "data-view") == "seat1"
    assert page.get_attribute(".tray.bottom", "data-seat") == "1"
    page.wait_for_function(
        "document.querySelector('[data-testid=options]').textContent.includes('Crapette')",
        timeout=WAIT_MS,
    )
    assert page.inner_text("[data-testid=options]").startswith("Bob could: ")
    page.keyboard.press("v")
    assert page.get_attribute(checked, "data-view") == "spectator"
    assert page.get_attribute(".tray.bottom", "data-seat") == "0"
    assert page.locator("[data-testid=options]").is_hidden()
    assert "back" in (hand.get_attribute("class") or "")
    page.keyboard.press("v")
    assert page.get_attribute(checked, "data-view") == "all"
    assert "back" not in (hand.get_attribute("class") or "")
    assert not page.errors


def test_a_click_on_a_chart_jumps_there(
    server: ServerProcess, new_page: Any, missed_match: str
) -> None:
    page = new_page()
    _open(page, server, missed_match)
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")  # into the game: its charts appear
    chart = page.locator("[data-testid=chart-left]")
    chart.wait_for(timeout=WAIT_MS)
    game = page.evaluate("[...window.replay.analysis.games.values()][0]")
    box = chart.bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + box["width"] * 0.5, box["y"] + box["height"] / 2)
    middle = (game["start_version"] + game["end_version"]) / 2
    shown = _shown_version(page)
    assert abs(shown - middle) <= 3, (shown, middle)
    page.wait_for_function(  # the address bar follows (it is updated a moment later)
        "v => new URLSearchParams(location.search).get('v') === String(v)",
        arg=shown,
        timeout=WAIT_MS,
    )
    page.locator("[data-testid=chart-thinking]").click(position={"x": 2, "y": 20})
    assert _shown_version(page) <= game["start_version"] + 3
    page.keyboard.press("t")  # thinking time per turn
    assert "per turn" in page.inner_text("[data-testid=chart-thinking]")
    assert not page.errors


def test_the_players_pages(
    server: ServerProcess, new_page: Any, missed_match: str, artifact_dir: Path
) -> None:
    page = new_page()
    page.goto(f"{server.url}/players")
    page.wait_for_function("window.playersReady === true", timeout=WAIT_MS)
    table = page.locator("[data-testid=players-table]")
    names = table.locator("tbody td:first-child").all_inner_texts()
    assert "Ann" in names and "Bob" in names
    assert "same name counts as one player" in page.inner_text("main")
    table.locator("a", has_text="Bob").first.click()
    page.wait_for_function("window.playersReady === true", timeout=WAIT_MS)
    assert page.url.endswith("/players/Bob")
    figures = page.inner_text("[data-testid=player-figures]")
    assert "missed calls" in figures and "call accuracy" in figures
    bob = server.get("/api/players/Bob").json()
    assert bob["missed_calls"] >= 1
    assert page.locator(f'a[href="/replay/{missed_match}"]').count() == 1
    page.screenshot(path=str(artifact_dir / "player-page.png"))
    page.goto(f"{server.url}/players/Nobody%20at%20all")
    page.wait_for_function("window.playersReady === true", timeout=WAIT_MS)
    assert "Nobody" in page.inner_text("[data-testid=players-status]")
    assert not page.errors


def test_a_running_game_shows_only_the_public_view(server: ServerProcess, new_page: Any) -> None:
    import random

    from bench.browser import open_bot_match, play_until

    match_id, token = open_bot_match(server.url)
    play_until(server.url, match_id, token, 12, random.Random(5))
    page = new_page()
    _open(page, server, match_id)
    page.keyboard.press("End")
    assert page.evaluate("window.replay.analysis.any") is False
    assert page.locator("[data-testid=view-switch]").is_hidden()
    assert page.locator("[data-testid=charts]").is_hidden()
    assert page.locator(".arrow-layer").is_hidden()
    page.keyboard.press("v")  # no knowledge view while the game runs
    hands = page.evaluate("window.replay.board.lastView.piles.H0")
    assert hands and all(card is None for card in hands)
    assert not page.errors
