"""The Italian variants at the table (docs/spec/rules.md §10), at desktop and phone sizes, named in
words, and drawn only when the ruleset has them: the second reserves Q0 and Q1 beside R; the three
hands H, I and J, each of which the player may turn from by clicking it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import DESKTOP, PHONE
from tests.browser.ui import (
    WAIT_MS,
    board_piles,
    create_table,
    pile_box,
    settle,
    view,
    wait_idle,
)
from tests.integration.harness import ServerProcess

pytestmark = pytest.mark.browser


def start(new_page: Any, server: ServerProcess, preset: str, viewport: dict[str, int]) -> Any:
    page = new_page(viewport)
    create_table(page, server, "Cleo", {"preset": preset, "opponent": "random"})
    page.wait_for_function(
        "window.crapette && window.crapette.view && Object.keys(window.crapette.view.piles).length",
        timeout=WAIT_MS,
    )
    # The bot may move first: wait for the person's turn, so the board and the view read next are
    # of one position (a bot's move between the two reads would make them disagree).
    page.wait_for_function(
        "() => { const c = window.crapette; return c.idle && c.view.to_move === c.seat; }",
        timeout=WAIT_MS,
    )
    wait_idle(page)
    return page


@pytest.mark.parametrize(("size", "viewport"), [("desktop", DESKTOP), ("phone", PHONE)])
def test_two_reserves_are_drawn_at_both_sizes(
    server: ServerProcess, new_page: Any, artifact_dir: Path, size: str, viewport: dict[str, int]
) -> None:
    page = start(new_page, server, "italian-two-reserves", viewport)
    current = view(page)
    assert current is not None
    drawn = board_piles(page)
    for seat in (0, 1):
        for name in (f"R{seat}", f"Q{seat}"):
            # Drawn with its count and top; the bot's first turn may have emptied its own.
            assert name in drawn and drawn[name]["count"] == len(current["piles"][name]), name
            if current["piles"][name]:
                assert drawn[name]["cards"][-1] == current["piles"][name][-1], name
    width = page.evaluate("document.documentElement.clientWidth")
    for name in ("R0", "Q0", "W0", "R1", "Q1", "W1"):
        box = pile_box(page, name)
        assert box["x"] >= 0 and box["x"] + box["width"] <= width + 1, (name, box)
    # Beside each other, not on top of each other.
    r0, q0 = pile_box(page, "R0"), pile_box(page, "Q0")
    assert abs(r0["x"] - q0["x"]) >= r0["width"] * 0.9
    # The seat panel counts both reserves together, the two tops face up.
    seat = page.evaluate("window.crapette.seat")
    panel = page.evaluate(
        "(s) => document.querySelector(`.seat-info[data-seat='${s}']`).textContent", seat
    )
    now = view(page)
    assert now is not None
    cards = [now["piles"][f"{kind}{seat}"] for kind in "RQ"]
    total, down = sum(map(len, cards)), sum(c.count(None) for c in cards)
    assert f"reserve {total} ({down} down)" in panel and down == total - 2, panel
    label = page.get_attribute('[data-pile="Q0"]', "aria-label")
    assert label and "Q0" not in label
    page.screenshot(path=str(artifact_dir / f"italian-two-reserves-{size}.png"))
    assert not page.errors


def test_one_reserve_draws_no_q(server: ServerProcess, new_page: Any) -> None:
    page = start(new_page, server, "classic", DESKTOP)
    drawn = board_piles(page)
    assert "Q0" not in drawn and "Q1" not in drawn and "R0" in drawn


@pytest.mark.parametrize(("size", "viewport"), [("desktop", DESKTOP), ("phone", PHONE)])
def test_three_hands_are_drawn_and_turned_from_at_both_sizes(
    server: ServerProcess, new_page: Any, artifact_dir: Path, size: str, viewport: dict[str, int]
) -> None:
    page = start(new_page, server, "italian-three-hands", viewport)
    current = view(page)
    assert current is not None
    drawn = board_piles(page)
    mine = page.evaluate("window.crapette.seat")
    for seat in (0, 1):
        for kind, dealt in zip("HIJ", (12, 12, 11), strict=True):
            name = f"{kind}{seat}"
            # Face down, drawn with the view's counts. The person's own hands are as dealt (this is
            # their first turn); the random bot may have turned any number from its own already.
            assert drawn[name]["count"] == len(current["piles"][name]), name
            if seat == mine:
                assert drawn[name]["count"] == dealt, name
            if drawn[name]["count"]:
                assert drawn[name]["cards"][-1] is None, name
    width = page.evaluate("document.documentElement.clientWidth")
    for name in ("R0", "H0", "I0", "J0", "W0", "R1", "H1", "I1", "J1", "W1"):
        box = pile_box(page, name)
        assert box["x"] >= 0 and box["x"] + box["width"] <= width + 1, (name, box)
    # Side by side (on a phone they overlap like a fan, each showing a part to click).
    h0, i0, j0 = (pile_box(page, f"{kind}0") for kind in "HIJ")
    apart = 0.9 if size == "desktop" else 0.25
    assert abs(i0["x"] - h0["x"]) >= h0["width"] * apart
    assert abs(j0["x"] - i0["x"]) >= h0["width"] * apart
    # Named in words: no pile code in a label.
    seat = page.evaluate("window.crapette.seat")
    assert page.get_attribute(f'[data-pile="I{seat}"]', "aria-label") == "your hand I"
    theirs = page.get_attribute(f'[data-pile="J{1 - seat}"]', "aria-label")
    assert theirs and "hand J" in theirs and f"J{1 - seat}" not in theirs

    # On his turn, a click on his hand J turns its top card.
    page.wait_for_function(
        """(s) => { const c = window.crapette; return c.idle && !c.view.over && c.view.to_move === s
                    && c.view.legal.some((a) => a.do === 'turn' && a.hand === `J${s}`); }""",
        arg=seat,
        timeout=WAIT_MS,
    )
    settle(page)
    before = view(page)
    assert before is not None
    in_j = len(before["piles"][f"J{seat}"])
    box = pile_box(page, f"J{seat}")
    page.mouse.click(box["x"] + box["width"] * 0.25, box["y"] + box["height"] / 2)
    # The view of the turn itself, read in the script that saw it: a move may follow at once (the
    # bot's, or the turned card's) and a second read would see that one.
    after: dict[str, Any] | None = page.wait_for_function(
        """(s) => { const v = window.crapette.view;
                    return v.last_action?.hand === `J${s}` ? structuredClone(v) : null; }""",
        arg=seat,
        timeout=WAIT_MS,
    ).json_value()
    assert after is not None and after["last_action"]["do"] == "turn"
    turned = after["last_action"]["card"]
    assert len(after["piles"][f"J{seat}"]) == in_j - 1
    assert len(after["piles"][f"H{seat}"]) == len(before["piles"][f"H{seat}"])
    log = page.locator("[data-testid=log]")
    log.filter(has_text="from your hand J").wait_for(timeout=WAIT_MS)
    assert turned and f"J{seat}" not in log.inner_text()
    # The seat panel counts the three hands together.
    wait_idle(page)
    now = view(page)
    assert now is not None
    panel = page.evaluate(
        "(s) => document.querySelector(`.seat-info[data-seat='${s}']`).textContent", seat
    )
    hands = sum(len(now["piles"][f"{kind}{seat}"]) for kind in "HIJ")
    assert f"hand {hands} " in panel, panel
    page.screenshot(path=str(artifact_dir / f"italian-three-hands-{size}.png"))
    assert not page.errors


def test_one_hand_draws_no_i_or_j(server: ServerProcess, new_page: Any) -> None:
    page = start(new_page, server, "classic", DESKTOP)
    drawn = board_piles(page)
    assert not {"I0", "I1", "J0", "J1"} & set(drawn) and "H0" in drawn


@pytest.mark.parametrize("lang", ["fr", "fi"])
def test_a_long_pile_name_stays_inside_its_slot(
    server: ServerProcess, new_page: Any, artifact_dir: Path, lang: str
) -> None:
    """The empty-slot names are wider than a card in some languages ("RETOURNÉE",
    "KÄSIPAKKA 2"): each fits inside its slot, so no letter shows beside the card lying on it,
    and a long word is set smaller rather than cut in two."""
    page = new_page(PHONE)
    create_table(
        page, server, "Cleo", {"preset": "italian-three-hands", "opponent": "random"}, lang
    )
    wait_idle(page)
    outside = page.evaluate(
        """() => [...document.querySelectorAll('#board .slot-label')].filter((label) => {
             const a = label.getBoundingClientRect();
             const slot = label.parentElement.getBoundingClientRect();
             return a.left < slot.left - 0.5 || a.right > slot.right + 0.5;
           }).map((label) => label.textContent)"""
    )
    # …and no word is cut in two: a name takes at most one line per word.
    broken = page.evaluate(
        """() => [...document.querySelectorAll('#board .slot-label')].filter((label) => {
             const range = document.createRange();
             range.selectNodeContents(label);
             const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
             return lines.size > label.textContent.trim().split(/\\s+/).length;
           }).map((label) => label.textContent)"""
    )
    page.screenshot(path=str(artifact_dir / f"italian-three-hands-slots-{lang}.png"))
    assert outside == [], outside
    assert broken == [], broken
