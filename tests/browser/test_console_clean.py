"""No console error in normal use (issue 39, point 8): a person opens a table against a bot in
the lobby, plays a whole game through the page's own controls to its end, opens its replay,
has it analysed and walks through it, then looks at his own players page (a name with no
rated match: a bot's opponent is not rated). Not one console error or warning, no request
answered with an error status and no uncaught exception on any of those pages: a match not
analysed yet and a name without a rating are states the server answers with 200
(docs/protocol.md § analysis, § ratings), not 404s."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser.conftest import DESKTOP
from tests.browser.ui import WAIT_MS, create_table
from tests.integration.harness import ServerProcess

pytestmark = pytest.mark.browser

GAME_WAIT_MS = 240_000  # upper bound for a whole game through the page; never a speed check
MY_ACTIONS = 150  # past this many of his own actions the player resigns the game: it ends

# The person's own turns through the page's input (as test_table_people.py's player): a card
# to a foundation first, then turn, discard, any move, pass.
PLAY = """(max) => {
  const page = window.crapette;
  const state = (window.playing = {actions: 0, busy: false});
  const rank = (a) => a.do === "move" && a.to.startsWith("F") ? 0 : a.do === "turn" ? 1
    : a.do === "discard" ? 2 : a.do === "move" ? 3 : a.do === "pass" ? 4 : 9;
  const tick = async () => {
    const v = page.view;
    if (!v || v.over) return;
    if (page.idle && v.to_move === page.seat && !state.busy && state.actions < max) {
      const legal = v.legal.filter((a) => rank(a) < 9).sort((a, b) => rank(a) - rank(b));
      if (legal.length) {
        state.busy = true;
        const a = legal[0];
        try {
          if (a.do === "move") await page.input.tryMove(a.from, a.to);
          else await page.input.doAction(a.do);
          state.actions++;
        } finally {
          state.busy = false;
        }
      }
    }
    setTimeout(tick, 40);
  };
  tick();
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """The server with the stand-in analyser (tests/analysis_fixture.py): the page's requests
    and states are what is tested here, not the evaluator's seconds."""
    fixture = "tests.analysis_fixture"
    args = ("--analyser", f"{fixture}:analyse_record", "--try-judge", f"{fixture}:judge_try")
    process = ServerProcess(tmp_path_factory.mktemp("console"), extra_args=args).start()
    try:
        yield process
    finally:
        process.stop()


def watch(page: Any) -> list[str]:
    """Everything a developer's console would show in red or yellow on this page."""
    said: list[str] = []
    page.on(
        "console",
        lambda msg: (
            said.append(f"{msg.type}: {msg.text}") if msg.type in ("error", "warning") else None
        ),
    )
    page.on(
        "response",
        lambda res: said.append(f"HTTP {res.status} {res.url}") if res.status >= 400 else None,
    )
    # A request the page's own navigation cut short (ERR_ABORTED: leaving the table while it
    # fetches) is no error; any other failure is.
    page.on(
        "requestfailed",
        lambda req: (
            None
            if "ERR_ABORTED" in (req.failure or "")
            else said.append(f"failed {req.url}: {req.failure}")
        ),
    )
    return said


@pytest.mark.timeout(600)  # a whole game at a person's pace, then its analysis; no speed check
def test_the_console_stays_clean_through_a_game_and_its_replay(server: Any, new_page: Any) -> None:
    page = new_page(DESKTOP)
    said = watch(page)
    create_table(page, server, "Ann", {"opponent": "steady", "match": "wins:1"})
    page.evaluate(PLAY, MY_ACTIONS)
    page.wait_for_function(
        "max => window.crapette.view.over || window.playing.actions >= max",
        arg=MY_ACTIONS,
        timeout=GAME_WAIT_MS,
    )
    if not page.evaluate("window.crapette.view.over"):
        page.click("#btn-resign")
        page.click("#btn-resign-game")
    page.locator("[data-testid=game-end]").wait_for(state="visible", timeout=WAIT_MS)
    assert page.locator("#after-match").is_visible()

    # The replay of the finished match, from the end panel's link.
    page.click("#replay-link")
    page.wait_for_url("**/replay/m-*", timeout=WAIT_MS)
    page.wait_for_function("window.replay && window.replay.frames.length > 0", timeout=WAIT_MS)
    page.locator("[data-testid=analyse]").wait_for(timeout=WAIT_MS)  # not analysed: offered
    page.click("[data-testid=analyse]")
    page.locator("[data-testid=analysis-progress]").wait_for(state="detached", timeout=60_000)
    for key in ("Home", "ArrowRight", "ArrowRight", "End", "ArrowLeft", "Shift+ArrowLeft"):
        page.keyboard.press(key)
    page.reload()  # analysed now: the status says so at once
    page.wait_for_function("window.replay && window.replay.frames.length > 0", timeout=WAIT_MS)
    page.locator("[data-testid=analyse]").wait_for(state="detached", timeout=WAIT_MS)

    # Ann's players page: she played only a bot, so she has no rating.
    page.goto(f"{server.url}/players/Ann")
    page.wait_for_function("window.playersReady === true", timeout=WAIT_MS)
    assert page.locator("#ratings").inner_text().strip()
    assert not said, said
    assert not page.errors, page.errors
