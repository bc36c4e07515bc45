"""A claimed win ends the match (issue 39): Bob leaves a 300-point match; once the grace period
is over Ann claims the win, and the match is over at once — one `MatchWon` saying it was claimed,
no game dealt and resigned after it — and her page says so in words."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.browser.ui import WAIT_MS, seated_page
from tests.integration.harness import ServerProcess


def test_claiming_the_win_ends_the_match_at_once(
    server: ServerProcess, new_page: Any, artifact_dir: Path
) -> None:
    ann_ticket = server.open_table(name="Ann", preset="classic")
    match_id = ann_ticket["match_id"]
    bob_ticket = server.join(match_id, "Bob")
    ann = seated_page(new_page, server, match_id, 0, ann_ticket["seat_token"], "Ann")
    bob = seated_page(new_page, server, match_id, 1, bob_ticket["seat_token"], "Bob")
    bob.close()  # Bob walks away; the test server's grace is a second
    claim = ann.locator("#claim-resign")
    # As a person would: click, and click again while the server still says Bob is not away
    # long enough (the button can show a moment before the server's grace has run out).
    over = "window.crapette.view && window.crapette.view.match_over"
    for _ in range(5):
        if ann.evaluate(over):
            break
        claim.wait_for(state="visible", timeout=WAIT_MS)
        claim.click()
        try:
            ann.wait_for_function(over, timeout=4000)
            break
        except Exception:
            continue
    ann.wait_for_function(over, timeout=WAIT_MS)
    end = ann.locator("#end-match")
    end.wait_for(state="visible", timeout=WAIT_MS)
    assert "Bob was away, and you claimed the match" in end.inner_text(), end.inner_text()
    log = ann.inner_text("#log")
    assert "Bob was away: you claimed the match" in log, log
    ann.screenshot(path=str(artifact_dir / "claimed.png"))
    replay = server.get(f"/api/matches/{match_id}/replay").json()
    kinds = [f["event"]["type"] for f in replay["frames"] if f.get("event")]
    assert kinds.count("GameStarted") == 1 and kinds[-1] == "MatchWon", kinds
    won = [f["event"] for f in replay["frames"] if f.get("event")][-1]
    assert won["abandoned_by"] == 1 and won["claimed"] is True
    assert not ann.errors
