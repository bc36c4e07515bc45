"""A fair-share refusal is a wait, not an error, for a person (issue 38, docs/protocol.md § Heavy
reads): the server lets one address have one heavy job of a kind at a time, so a second tab that
opens a replay while the first is still loading it is answered 429 `rate_limited`. The page must
wait the `Retry-After` and ask again, and show the replay. Chromium, against a real server; the
first answer to the replay read is made a 429 by Playwright's router, exactly as the server
words it, since a real clash of two tabs depends on the machine's timing."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.browser.test_replay_analysis import _missed_call_record
from tests.browser.ui import WAIT_MS
from tests.integration.harness import ServerProcess

pytestmark = pytest.mark.browser

REFUSAL = {
    "code": "rate_limited",
    "kind": "replay",
    "message": "Your address has a job of this kind (replay) under way already: one at a time; "
    "try again once it is done.",
    "retry_after_s": 1,
}


@pytest.fixture(scope="module")
def match_id(server: ServerProcess) -> str:
    response = server.post("/api/records?match_id=m-fair-wait", _missed_call_record())
    assert response.status_code == 201, response.text
    stored: str = response.json()["match_id"]
    return stored


def test_a_replay_refused_for_its_fair_share_loads_after_the_wait(
    new_page: Any, server: ServerProcess, match_id: str
) -> None:
    page = new_page()
    asked: list[int] = []

    def refuse_first(route: Any) -> None:
        asked.append(1)
        if len(asked) == 1:
            route.fulfill(
                status=429,
                headers={"Retry-After": "1", "Content-Type": "application/json"},
                body=json.dumps(REFUSAL),
            )
        else:
            route.continue_()

    page.route(f"**/api/matches/{match_id}/replay", refuse_first)
    page.goto(f"{server.url}/replay/{match_id}")
    page.wait_for_function("window.replayReady === true", timeout=WAIT_MS)
    assert len(asked) == 2, asked
    assert "one at a time" not in page.inner_text("#caption")
    assert page.errors == []


def test_a_refusal_of_another_kind_is_shown_at_once(
    new_page: Any, server: ServerProcess, match_id: str
) -> None:
    page = new_page()
    asked: list[int] = []

    def refuse(route: Any) -> None:
        asked.append(1)
        route.fulfill(
            status=404,
            headers={"Content-Type": "application/json"},
            body=json.dumps({"code": "not_found", "message": "No such match here."}),
        )

    page.route(f"**/api/matches/{match_id}/replay", refuse)
    page.goto(f"{server.url}/replay/{match_id}")
    page.locator("#caption").filter(has_text="No such match here").wait_for(timeout=WAIT_MS)
    assert len(asked) == 1
