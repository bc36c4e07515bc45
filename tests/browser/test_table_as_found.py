"""The table as players found it (issue 31): what a person at the table met in a full game by
mouse, keyboard and touch, each held here as a player sees it, in Chromium."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import DESKTOP
from tests.browser.ui import WAIT_MS, seated_page, settle, version, wait_idle
from tests.integration.harness import ServerProcess

pytestmark = pytest.mark.browser


def bot_table(
    server: ServerProcess, new_page: Any, viewport: dict[str, int] | None = None, **body: Any
) -> Any:
    """A person seated at a new table against the steady bot, on his turn, the board settled."""
    created = server.open_table(name="Ann", bot="steady", **body)
    page = seated_page(
        new_page, server, created["match_id"], created["seat"], created["seat_token"]
    )
    if viewport:
        page.set_viewport_size(viewport)
    page.wait_for_function(
        """() => { const c = window.crapette; return c.idle && !c.view.over
                   && c.view.to_move === c.seat && c.view.legal.length > 0; }""",
        timeout=WAIT_MS,
    )
    settle(page)
    return page


def test_enter_plays_the_chosen_move_whatever_has_the_focus(
    server: ServerProcess, new_page: Any, artifact_dir: Path
) -> None:
    """A click on an empty pile (the target of a click-then-click move) leaves the keyboard focus
    on that pile; ↓ then Enter must still play the move the status line names, not pick that
    pile up."""
    page = bot_table(server, new_page, DESKTOP)
    empty = page.evaluate(
        "Object.entries(window.crapette.view.piles).find(([p, c]) => p[0] === 'F' && !c.length)[0]"
    )
    page.locator(f'#board [data-pile="{empty}"] .slot').click()
    focused = page.evaluate("document.activeElement.closest('[data-pile]')?.dataset.pile ?? null")
    assert focused == empty, "the click should have left the focus on the empty pile"
    before = version(page)
    page.keyboard.press("ArrowDown")
    said = page.inner_text("[data-testid=message]")
    assert said.startswith("Enter plays: "), said
    chosen = page.evaluate("window.crapette.input.choices[window.crapette.input.cursor]")
    page.screenshot(path=str(artifact_dir / "enter-chosen.png"))
    page.keyboard.press("Enter")
    page.wait_for_function("v => window.crapette.version > v", arg=before, timeout=WAIT_MS)
    wait_idle(page)
    assert page.evaluate("window.crapette.input.selected") is None
    played = page.evaluate("window.crapette.view.last_action")
    if chosen["do"] == "move":
        assert (played["from"], played["to"]) == (chosen["from"], chosen["to"]), (played, chosen)
    else:
        assert played["do"] == chosen["do"], (played, chosen)
    assert not page.inner_text("[data-testid=message]").startswith("Enter plays")
    assert not page.errors  # type: ignore[attr-defined]


def test_a_call_s_verdict_goes_when_the_game_ends(
    server: ServerProcess, new_page: Any, artifact_dir: Path
) -> None:
    """A Crapette call, then a resignation: neither player's status line keeps the verdict beside
    "Game over.", nor after the other pressed "Next game" (the log keeps it)."""
    created = server.open_table(name="Ann", preset="classic", match="wins:2")
    match_id = created["match_id"]
    joined = server.join(match_id, "Bob")
    pages = [
        seated_page(new_page, server, match_id, s["seat"], s["seat_token"], name)
        for s, name in ((created, "Ann"), (joined, "Bob"))
    ]
    for page in pages:
        wait_idle(page)
    to_move = pages[0].evaluate("window.crapette.view.to_move")
    mover = next(p for p in pages if p.evaluate("window.crapette.seat") == to_move)
    caller = next(p for p in pages if p is not mover)
    legal = mover.evaluate(
        "window.crapette.view.legal.filter(a => ['move', 'turn'].includes(a.do))"
    )
    before = version(mover)
    mover.evaluate("a => window.crapette.act(a)", legal[0])
    caller.wait_for_function(
        "v => window.crapette.version > v && window.crapette.view.legal.some(a => a.do === 'call')",
        arg=before,
        timeout=WAIT_MS,
    )
    caller.keyboard.press("c")  # right or wrong, the verdict is said in the status line
    for page in pages:
        page.wait_for_function(
            "document.querySelector('[data-testid=message]').dataset.kind === 'verdict'",
            timeout=WAIT_MS,
        )
    verdict = caller.inner_text("[data-testid=message]")
    assert "Crapette" in verdict, verdict
    caller.click("#btn-resign")
    caller.click("#btn-resign-game")
    for page in pages:
        page.locator("[data-testid=game-end]").wait_for(state="visible", timeout=WAIT_MS)
        assert page.inner_text("[data-testid=turn]") == "Game over."
    mover.click("[data-testid=next-game]")  # the other player is ready
    caller.locator("[data-testid=next-wait]").filter(has_text="ready").wait_for(timeout=WAIT_MS)
    for i, page in enumerate(pages):
        page.screenshot(path=str(artifact_dir / f"after-resign-{i}.png"))
        message = page.locator("[data-testid=message]")
        assert message.get_attribute("data-kind") != "verdict"
        assert "Crapette" not in message.inner_text(), message.inner_text()
        assert page.locator("[data-testid=banner]").is_hidden()
        log = page.inner_text("[data-testid=log]")
        assert "Crapette" in log  # the verdict stays where the game's story is told
    assert not (pages[0].errors or pages[1].errors), pages[0].errors + pages[1].errors
