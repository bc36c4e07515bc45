"""The Italian two-reserve variant at the table (docs/spec/rules.md §10): the second reserves Q0
and Q1 are drawn beside R, at desktop and phone sizes, named in words, and only when the
ruleset has them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import DESKTOP, PHONE
from tests.browser.ui import WAIT_MS, board_piles, create_table, pile_box, view, wait_idle
from tests.integration.harness import ServerProcess

pytestmark = pytest.mark.browser


def start(new_page: Any, server: ServerProcess, preset: str, viewport: dict[str, int]) -> Any:
    page = new_page(viewport)
    create_table(page, server, "Cleo", {"preset": preset, "opponent": "random"})
    page.wait_for_function(
        "window.crapette && window.crapette.view && Object.keys(window.crapette.view.piles).length",
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
            assert drawn[name]["count"] == len(current["piles"][name]) > 0, name
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
    assert not page.errors  # type: ignore[attr-defined]


def test_one_reserve_draws_no_q(server: ServerProcess, new_page: Any) -> None:
    page = start(new_page, server, "classic", DESKTOP)
    drawn = board_piles(page)
    assert "Q0" not in drawn and "Q1" not in drawn and "R0" in drawn
