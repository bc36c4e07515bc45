"""A rematch between two people, as offer and answer: declined, accepted (both keep their seats,
a spectator follows as a spectator), and unanswered (the opponent left, or time ran out)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.browser.ui import WAIT_MS, seated_page
from tests.integration.harness import ServerProcess

pytestmark = pytest.mark.browser


def rematch_text(page: Any) -> str:
    text: str = page.inner_text("[data-testid=rematch-text]")
    return text


def wait_text(page: Any, words: str) -> None:
    page.wait_for_function(
        "w => document.querySelector('[data-testid=rematch-text]').textContent.includes(w)",
        arg=words,
        timeout=WAIT_MS,
    )


def resign_match(server: ServerProcess, new_page: Any, match_id: str, ann: Any) -> None:
    ann.click("#btn-resign")  # opens the choice: this game, or the whole match
    ann.click("#btn-resign-game")
    ann.locator("[data-testid=after-match]").wait_for(state="visible", timeout=WAIT_MS)


def test_rematch_offer_decline_accept_and_a_spectator(
    server: ServerProcess, new_page: Any, artifact_dir: Path
) -> None:
    opened = server.open_table(name="Ann", preset="beginner", match="wins:1")
    match_id = opened["match_id"]
    joined = server.join(match_id, "Bob")
    ann = seated_page(new_page, server, match_id, 0, opened["seat_token"])
    bob = seated_page(new_page, server, match_id, 1, joined["seat_token"])
    watcher = new_page()
    watcher.goto(f"{server.url}/table/{match_id}")
    watcher.wait_for_function("window.crapette && window.crapette.view", timeout=WAIT_MS)

    resign_match(server, new_page, match_id, ann)
    for page in (bob, watcher):
        page.locator("[data-testid=after-match]").wait_for(state="visible", timeout=WAIT_MS)
    assert watcher.locator("#rematch-btn").is_hidden()  # no seat, no offer

    ann.click("#rematch-btn")
    wait_text(ann, "waiting for Bob")
    wait_text(bob, "Ann offers a rematch, in the same seats")
    wait_text(watcher, "Ann offers a rematch")
    assert bob.locator("#rematch-accept").is_visible() and bob.locator("#rematch-btn").is_hidden()
    assert watcher.locator("#rematch-accept").is_hidden()
    bob.screenshot(path=str(artifact_dir / "rematch-offered.png"))

    bob.click("#rematch-decline")
    wait_text(ann, "Bob declined the rematch")
    wait_text(bob, "You declined the rematch")
    assert ann.locator("#rematch-btn").is_visible()

    # Bob thinks again and offers; Ann accepts: both sit in the seats they had.
    bob.click("#rematch-btn")
    wait_text(ann, "Bob offers a rematch")
    ann.click("#rematch-accept")
    for page, seat in ((ann, 0), (bob, 1)):
        page.wait_for_function(
            "mid => location.pathname.startsWith('/table/') && !location.pathname.endsWith(mid)",
            arg=match_id,
            timeout=WAIT_MS,
        )
        page.wait_for_function(
            "s => window.crapette && window.crapette.view && window.crapette.seat === s",
            arg=seat,
            timeout=WAIT_MS,
        )
    new_id = ann.url.rsplit("/", 1)[1]
    assert bob.url.rsplit("/", 1)[1] == new_id
    table = server.get(f"/api/tables/{new_id}").json()
    assert [s["name"] for s in table["seats"]] == ["Ann", "Bob"]

    # The spectator follows the link as a spectator: no seat to take there.
    link = watcher.locator("[data-testid=rematch-link]")
    link.wait_for(timeout=WAIT_MS)
    assert "started a rematch" in rematch_text(watcher)
    link.click()
    watcher.wait_for_url(f"**/table/{new_id}", timeout=WAIT_MS)
    watcher.wait_for_function("window.crapette && window.crapette.view", timeout=WAIT_MS)
    assert watcher.evaluate("window.crapette.seat") is None
    assert watcher.locator("#join").is_hidden()

    # Ann looks back at the old table later: a link, and she is seated when she follows it.
    ann.goto(f"{server.url}/table/{match_id}")
    back = ann.locator("[data-testid=rematch-link]")
    back.wait_for(timeout=WAIT_MS)
    assert "Your rematch has started" in rematch_text(ann)
    # (as if she had never been there: the seat is saved again from the old table's)
    ann.evaluate("(id) => localStorage.removeItem('crapette:seat:' + id)", new_id)
    ann.reload()
    back.wait_for(timeout=WAIT_MS)
    back.click()
    ann.wait_for_url(f"**/table/{new_id}", timeout=WAIT_MS)
    ann.wait_for_function(
        "window.crapette && window.crapette.view && window.crapette.seat === 0", timeout=WAIT_MS
    )
    assert server.post(f"/api/tables/{new_id}/join", {"name": "Eve"}).status_code == 409
    assert not (ann.errors or bob.errors or watcher.errors)


def finished_pair(server: ServerProcess, new_page: Any) -> tuple[Any, Any]:
    opened = server.open_table(name="Ann", preset="beginner", match="wins:1")
    match_id = opened["match_id"]
    joined = server.join(match_id, "Bob")
    ann = seated_page(new_page, server, match_id, 0, opened["seat_token"])
    bob = seated_page(new_page, server, match_id, 1, joined["seat_token"])
    resign_match(server, new_page, match_id, ann)
    bob.locator("[data-testid=after-match]").wait_for(state="visible", timeout=WAIT_MS)
    return ann, bob


def test_an_unanswered_offer_says_so(server: ServerProcess, new_page: Any) -> None:
    ann, bob = finished_pair(server, new_page)
    bob.click("#rematch-btn")
    wait_text(ann, "Bob offers a rematch")
    # A minute on (the pages' estimate of the server's clock moves on by 61 s): it lapsed.
    for page in (ann, bob):
        page.evaluate("window.crapette.seats.skewMs -= 61_000")
    wait_text(ann, "Bob's rematch offer lapsed unanswered")
    wait_text(bob, "Ann did not answer your rematch offer")
    assert ann.locator("#rematch-accept").is_hidden()
    assert bob.locator("#rematch-btn").is_visible()  # he may offer again

    # At another table Ann offers and Bob leaves: she is told that no answer will come.
    ann, bob = finished_pair(server, new_page)
    ann.click("#rematch-btn")
    wait_text(bob, "Ann offers a rematch")
    bob.context.close()
    wait_text(ann, "Bob has left the table: no answer will come")
    assert not ann.errors
