"""Two players in two browsers: open a table in the lobby, join by the invite link, play moves by
drag and by click, break a priority and get caught by a "Crapette!" call, then scrub the replay."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.browser.ui import (
    WAIT_MS,
    board_piles,
    click_move,
    create_table,
    drag,
    message,
    the_view,
    version,
    view,
    wait_idle,
    wait_version_above,
)
from tests.integration.harness import ServerProcess

pytestmark = pytest.mark.browser

MAX_ACTIONS = 120  # bound on the search for a priority fault to call


def open_table_in_lobby(page: Any, server: ServerProcess, name: str) -> str:
    match_id = create_table(page, server, name, {"preset": "classic"})
    assert "Crapette" in page.inner_text("[data-testid=preset-desc]")
    assert page.locator("#invite .qr svg").count() == 1
    page.click("[data-testid=go-table]")
    return match_id


def join_by_link(page: Any, server: ServerProcess, match_id: str, name: str) -> None:
    page.goto(f"{server.url}/table/{match_id}")
    page.locator("#join-btn").wait_for(state="visible", timeout=WAIT_MS)
    page.fill("#join-name", name)
    page.click("#join-btn")


def wait_playing(page: Any) -> None:
    page.wait_for_function(
        "window.crapette && window.crapette.view && window.crapette.seat !== null",
        timeout=WAIT_MS,
    )


def mover(pages: list[Any]) -> tuple[Any, Any]:
    v = view(pages[0])
    assert v is not None
    me = pages[0].evaluate("window.crapette.seat")
    return (pages[0], pages[1]) if v["to_move"] == me else (pages[1], pages[0])


def sync(pages: list[Any], v: int) -> None:
    for page in pages:
        page.wait_for_function(
            "v => window.crapette && window.crapette.version >= v", arg=v, timeout=WAIT_MS
        )


def act_through_ui(page: Any, action: dict[str, Any], use_drag: bool) -> None:
    before = version(page)
    if action["do"] == "move":
        if use_drag:
            drag(page, action["from"], action["to"])
        else:
            click_move(page, action["from"], action["to"])
    elif action["do"] in ("turn", "discard", "pass"):
        page.click(f"#btn-{action['do']}")
    else:
        raise AssertionError(f"unexpected action {action}")
    wait_version_above(page, before)


def priority_fault(v: dict[str, Any]) -> dict[str, Any] | None:
    """A legal action that breaks the classic priorities (docs/spec/rules.md §6), read from the
    view alone."""
    legal = [a for a in v["legal"] if a["do"] != "call"]
    to_foundation = [a for a in legal if a["do"] == "move" and a["to"].startswith("F")]
    if to_foundation:
        others = [a for a in legal if a["do"] == "move" and not a["to"].startswith("F")]
        others += [a for a in legal if a["do"] in ("turn", "discard")]
        return others[0] if others else None
    me = v["viewer"]
    empty_house = any(not cards for p, cards in v["piles"].items() if p.startswith("T"))
    if empty_house and v["piles"][f"R{me}"]:
        return next((a for a in legal if a["do"] == "turn"), None)
    return None


def harmless(v: dict[str, Any]) -> dict[str, Any]:
    """An action that keeps the game going: a move that empties a house first (to set up a
    fault), else any move, else turn/discard/pass."""
    legal = [a for a in v["legal"] if a["do"] not in ("call", "resign", "offer-draw")]
    piles = v["piles"]
    moves = [a for a in legal if a["do"] == "move"]
    emptying = [a for a in moves if a["from"].startswith("T") and len(piles[a["from"]]) == 1]
    for choice in (emptying, moves, [a for a in legal if a["do"] in ("turn", "discard", "pass")]):
        if choice:
            chosen: dict[str, Any] = choice[0]
            return chosen
    raise AssertionError(f"nothing to do in {legal}")


def test_two_browsers_play_and_call_crapette(
    server: ServerProcess, new_page: Any, artifact_dir: Path
) -> None:
    ann = new_page()
    bob = new_page()
    match_id = open_table_in_lobby(ann, server, "Ann")
    ann.locator("#waiting").wait_for(state="visible", timeout=WAIT_MS)
    join_by_link(bob, server, match_id, "Bob")
    wait_playing(ann)
    wait_playing(bob)
    pages = [ann, bob]
    assert ann.evaluate("window.crapette.seat") != bob.evaluate("window.crapette.seat")
    # Each player sees his own side at the bottom.
    for page in pages:
        seat = page.evaluate("window.crapette.seat")
        assert page.locator(".tray.bottom").get_attribute("data-seat") == str(seat)
    ann.screenshot(path=str(artifact_dir / "table-start-ann.png"))

    # An illegal drop comes back with the server's reason.
    playing, waiting = mover(pages)
    seat = playing.evaluate("window.crapette.seat")
    drag(playing, f"R{seat}", f"H{seat}")
    playing.wait_for_function(
        "document.querySelector('[data-testid=message]').dataset.kind === 'refused'",
        timeout=WAIT_MS,
    )
    assert "Refused" in message(playing)

    # Play until the player to move has a priority-breaking action; alternate drag and click.
    called = False
    for step in range(MAX_ACTIONS):
        playing, waiting = mover(pages)
        v = view(playing)
        assert v is not None and not v["over"]
        fault = priority_fault(v)
        if fault is None:
            act_through_ui(playing, harmless(v), use_drag=step % 2 == 0)
            sync(pages, version(playing))
            continue
        # Count card animations from here on: the voided card must fly back.
        for page in pages:
            page.evaluate(
                """() => { window.flights = 0; const animate = Element.prototype.animate;
                    Element.prototype.animate = function (...args) {
                      window.flights++; return animate.apply(this, args); }; }"""
            )
        act_through_ui(playing, fault, use_drag=True)
        flights_before_call = playing.evaluate("window.flights")
        sync(pages, version(playing))
        waiting.wait_for_function(
            "window.crapette.view.legal.some(a => a.do === 'call')", timeout=WAIT_MS
        )
        # Enabled while a call can be made, naming what it would call (issue 39).
        assert waiting.is_enabled("#btn-call")
        assert waiting.inner_text("#btn-call").startswith("Crapette! on ")
        before = version(waiting)
        waiting.keyboard.press("c")  # the "Crapette!" key
        wait_version_above(waiting, before)
        called = True
        break
    assert called, f"no priority fault came up in {MAX_ACTIONS} actions"
    for page in pages:
        page.wait_for_function(
            "document.querySelector('[data-testid=message]').textContent.includes('Crapette')",
            timeout=WAIT_MS,
        )
        assert "right" in message(page)
    sync(pages, version(waiting))
    # The offender's page animated the voided card (and the compulsory move) after the call.
    assert playing.evaluate("window.flights") > flights_before_call
    ann.screenshot(path=str(artifact_dir / "table-after-call-ann.png"))
    bob.screenshot(path=str(artifact_dir / "table-after-call-bob.png"))
    assert not ann.errors and not bob.errors, ann.errors + bob.errors

    # The board drawn on each page is the server's view for that seat.
    for page in pages:
        wait_idle(page)
        drawn = board_piles(page)
        for pile, cards in the_view(page)["piles"].items():
            assert drawn[pile]["count"] == len(cards), pile
            if pile.startswith("T"):
                assert drawn[pile]["cards"] == cards, pile
            elif cards:
                assert drawn[pile]["cards"][-1] == cards[-1], pile

    check_replay(server, new_page, match_id, artifact_dir)


def check_replay(server: ServerProcess, new_page: Any, match_id: str, artifact_dir: Path) -> None:
    page = new_page()
    page.goto(f"{server.url}/replay/{match_id}")
    page.wait_for_function("window.replayReady === true", timeout=WAIT_MS)
    frames = page.evaluate("window.replay.frames.length")
    assert frames > 5
    pos = page.locator("[data-testid=pos]")
    assert pos.inner_text() == f"{frames} / {frames}"
    page.keyboard.press("Home")
    assert pos.inner_text() == f"1 / {frames}"
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    assert pos.inner_text() == f"4 / {frames}"
    page.keyboard.press("ArrowLeft")
    assert pos.inner_text() == f"3 / {frames}"
    page.keyboard.press("Shift+ArrowRight")
    after_turn = int(pos.inner_text().split(" / ")[0])
    assert after_turn > 3
    page.keyboard.press("End")
    assert pos.inner_text() == f"{frames} / {frames}"
    page.keyboard.press("BracketLeft")  # back to the last marked event (the call or its fault)
    marked = page.evaluate("window.replay.frames[window.replay.pos].event")
    assert marked["type"] in (
        "CrapetteCalled",
        "ActionVoided",
        "CompulsoryMovePlayed",
    ) or marked.get("fault")
    # Autoplay at the fastest speed moves on by itself; space again stops it.
    page.select_option("[data-testid=speed]", "15")
    page.keyboard.press("Home")
    page.keyboard.press("Space")
    page.wait_for_function(
        "document.querySelector('[data-testid=pos]').textContent.startsWith('3 /')",
        timeout=WAIT_MS,
    )
    page.keyboard.press("Space")
    stopped = pos.inner_text()
    page.wait_for_timeout(300)  # not a speed check: nothing may move once stopped
    assert pos.inner_text() == stopped
    # The slider: move it to the middle.
    middle = frames // 2
    page.locator("[data-testid=slider]").fill(str(middle))
    assert pos.inner_text() == f"{middle + 1} / {frames}"
    page.wait_for_function("location.search.includes('v=')", timeout=WAIT_MS)
    shown_version = page.evaluate("window.replay.frames[window.replay.pos].version")
    # The board at this position is the server's spectator view at that version.
    response = server.get(f"/api/matches/{match_id}/view?version={shown_version}")
    assert response.ok, response.text
    expected = response.json()["view"]
    drawn = board_piles(page)
    for pile, cards in expected["piles"].items():
        assert drawn[pile]["count"] == len(cards), pile
        if pile.startswith("T"):
            assert drawn[pile]["cards"] == cards, pile
        elif cards:
            assert drawn[pile]["cards"][-1] == cards[-1], pile
    # A click in the move list jumps there; the URL links back to the same position.
    page.locator("#moves .ev").nth(2).click()
    assert pos.inner_text() == f"3 / {frames}"
    page.wait_for_function(
        "v => location.search.includes('v=' + v)",
        arg=page.evaluate("window.replay.frames[2].version"),
        timeout=WAIT_MS,
    )
    linked = new_page()
    linked.goto(page.url)
    linked.wait_for_function("window.replayReady === true", timeout=WAIT_MS)
    assert linked.locator("[data-testid=pos]").inner_text() == f"3 / {frames}"
    # The record downloads linked from the page.
    record = server.get(page.get_attribute("#dl-json", "href") or "")
    assert record.ok, record.text
    assert "crapette-record/1" in record.text
    text = server.get(page.get_attribute("#dl-text", "href") or "")
    assert text.ok and text.text.startswith("["), text.text[:200]
    page.keyboard.press("End")
    page.screenshot(path=str(artifact_dir / "replay-desktop.png"))
    phone = new_page({"width": 390, "height": 844})
    phone.goto(f"{server.url}/replay/{match_id}")
    phone.wait_for_function("window.replayReady === true", timeout=WAIT_MS)
    phone.screenshot(path=str(artifact_dir / "replay-phone.png"), full_page=True)
    assert not page.errors and not phone.errors, page.errors + phone.errors
