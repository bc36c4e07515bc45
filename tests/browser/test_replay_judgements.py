"""How well a finished match was played, in Chromium (web/js/judgements.js, learn.js, playon.js):
the analysis asked for from the replay page with its progress, the win-chance graph (a click
jumps), the judgements in the move list, the best move's arrow, the accuracy table, the M and
Shift+M keys, the learning mode (a try judged by the server, then the best move shown) and
playing on from a position at a practice table against a bot. The judgements come from the
fixture analyser (tests/analysis_fixture.py): these tests are about the page."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.ui import PILE_CODE, WAIT_MS
from tests.integration.harness import ServerProcess

pytestmark = pytest.mark.browser

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "records"
FIXTURE = "tests.analysis_fixture"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CRAPETTE_FIXTURE_DELAY_S", "0.01")  # a progress bar to see
        args = (
            "--analyser", f"{FIXTURE}:analyse_record", "--try-judge", f"{FIXTURE}:judge_try",
        )  # fmt: skip
        process = ServerProcess(tmp_path_factory.mktemp("judge"), extra_args=args).start()
    try:
        yield process
    finally:
        process.stop()


@pytest.fixture(scope="module")
def finished(server: ServerProcess) -> str:
    body = (GOLDEN / "classic-win-recycle.json").read_text(encoding="utf-8")
    answer = server.post("/api/records", json.loads(body))
    assert answer.status_code == 201, answer.text
    match_id: str = answer.json()["match_id"]
    return match_id


def _open(page: Any, server: ServerProcess, match_id: str, query: str = "") -> None:
    page.goto(f"{server.url}/replay/{match_id}{query}")
    page.wait_for_function("window.replayReady === true", timeout=WAIT_MS)


def _analysed(page: Any) -> None:
    """Ask for the analysis if nobody has yet, and wait for the graph."""
    ask = page.locator("[data-testid=analyse]")
    page.wait_for_selector("[data-testid=analyse], [data-testid=accuracy]", timeout=WAIT_MS)
    if ask.count():
        ask.click()
    page.wait_for_selector("[data-testid=accuracy]", timeout=WAIT_MS)


def _version(page: Any) -> int:
    version: int = page.evaluate("window.replay.frames[window.replay.pos].version")
    return version


def _analysis(server: ServerProcess, match_id: str) -> dict[str, Any]:
    answer = server.get(f"/api/matches/{match_id}/analysis")
    assert answer.status_code == 200, answer.text
    result: dict[str, Any] = answer.json()["analysis"]
    return result


def test_the_graph_the_judgements_and_the_mistake_keys(
    server: ServerProcess, new_page: Any, finished: str, artifact_dir: Path
) -> None:
    page = new_page()
    _open(page, server, finished, "?v=30")
    page.locator("[data-testid=analyse]").click()
    bar = page.locator("[data-testid=analysis-progress]")
    bar.wait_for(timeout=WAIT_MS)  # a worker builds it meanwhile, and the page says how far
    page.screenshot(path=str(artifact_dir / "replay-analysing.png"))
    _analysed(page)
    decisions = _analysis(server, finished)["games"][0]["decisions"]
    mistakes = [d for d in decisions if d["judgement"] in ("mistake", "blunder")]
    assert len(mistakes) >= 3
    # Each decision's judgement beside its action (the frame after its position).
    marks = page.locator(".move-list .ev .judgement")
    assert marks.count() == len(decisions)
    assert page.locator(".move-list .ev .judgement.blunder").count() == sum(
        d["judgement"] == "blunder" for d in decisions
    )
    row = page.locator(f'.move-list .ev[data-k="{mistakes[0]["version"]}"] .judgement')
    assert row.get_attribute("data-judgement") == mistakes[0]["judgement"]
    # The mark stands after the row's number, never over it (the row's hanging indent).
    # The sign's own glyphs are measured (an inline-block's box stays put while an inherited
    # text-indent moves what it draws).
    number_end, sign_start = page.evaluate(
        """(k) => {
            const row = document.querySelector(`.move-list .ev[data-k="${k}"]`);
            const glyphs = document.createRange();
            glyphs.selectNodeContents(row.querySelector(".judgement"));
            return [row.querySelector(".n").getBoundingClientRect().right,
                    glyphs.getBoundingClientRect().left];
        }""",
        mistakes[0]["version"],
    )
    assert sign_start >= number_end - 1, (number_end, sign_start)
    # The accuracy table: the server's figures.
    seats = _analysis(server, finished)["games"][0]["seats"]
    assert page.inner_text("[data-testid=accuracy-0]") == f"{seats[0]['accuracy']:.1f}"
    assert page.inner_text("[data-testid=count-mistake-1]") == str(seats[1]["counts"]["mistake"])
    # M: the next mistake, its action shown with the best move's arrow and in words.
    page.keyboard.press("Home")
    page.keyboard.press("m")
    assert _version(page) == mistakes[0]["version"] + 1
    caption = page.inner_text("[data-testid=caption]")
    assert "mistake" in caption or "blunder" in caption
    assert "best:" in caption and not PILE_CODE.search(caption)
    # The label shows how the playouts checked it (issue 37).
    check = mistakes[0]["check"]
    said = (
        f"checked on 32 deals: best wins {math.floor(100 * check['best'] + 0.5)}%, "
        f"played {math.floor(100 * check['played'] + 0.5)}%"
    )
    assert said in caption, caption
    assert said in (page.locator(".move-list .judgement.mistake, .move-list .judgement.blunder")
                    .first.get_attribute("title") or "")  # fmt: skip
    best = page.locator(".best-layer")
    if mistakes[0]["best"]["do"] == "move":
        assert best.is_visible()
        move = mistakes[0]["best"]
        assert best.get_attribute("data-move") == f"{move['from']}-{move['to']}"
    page.screenshot(path=str(artifact_dir / "replay-mistake.png"))
    page.keyboard.press("m")
    assert _version(page) == mistakes[1]["version"] + 1
    page.keyboard.press("Shift+M")
    assert _version(page) == mistakes[0]["version"] + 1
    page.keyboard.press("End")
    page.keyboard.press("Shift+M")
    assert _version(page) == mistakes[-1]["version"] + 1
    # The graph: a click near its middle goes to the decision nearest there.
    chart = page.locator("[data-testid=win-chart]")
    box = chart.bounding_box()
    assert box is not None and box["width"] > 300
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    first, last = decisions[0]["version"], decisions[-1]["version"]
    middle = (first + last) / 2
    nearest = min(decisions, key=lambda d: abs(d["version"] - middle))["version"]
    assert abs(_version(page) - nearest) <= 2, (_version(page), nearest)
    help_text = page.inner_text(".keys-help")
    assert "next/previous mistake" in help_text
    page.screenshot(path=str(artifact_dir / "replay-graph.png"))
    assert not page.errors


def test_learn_from_the_mistakes(
    server: ServerProcess, new_page: Any, finished: str, artifact_dir: Path
) -> None:
    page = new_page()
    _open(page, server, finished)
    _analysed(page)
    decisions = _analysis(server, finished)["games"][0]["decisions"]
    ann = [d for d in decisions if d["seat"] == 0 and d["judgement"] in ("mistake", "blunder")]
    start = page.locator("[data-testid=learn-0]")
    assert f"({len(ann)})" in start.inner_text()
    start.click()
    panel = page.locator("[data-testid=learn]")
    panel.wait_for(timeout=WAIT_MS)
    first = ann[0]
    assert _version(page) == first["version"]  # the position before the mistake
    # As Ann saw it: her knowledge view, the hand face down, no arrow before any try.
    checked = "[data-testid=view-switch] [aria-checked=true]"
    assert page.get_attribute(checked, "data-view") == "seat0"
    assert page.locator(".best-layer").is_hidden()
    tries = page.locator("[data-testid=learn-tries] button")
    tries.first.wait_for(timeout=WAIT_MS)
    text = panel.inner_text()
    assert "Mistake 1 of" in text and "Find a better move" in text
    assert not PILE_CODE.search(text)
    page.screenshot(path=str(artifact_dir / "learn-ask.png"))
    # What was played is not as good; the server says so.
    played = (
        f"{first['played']['from']}-{first['played']['to']}"
        if first["played"]["do"] == "move"
        else first["played"]["do"]
    )
    page.locator(f'[data-testid=learn-tries] button[data-action="{played}"]').click()
    verdict = page.locator("[data-testid=learn-verdict]")
    page.wait_for_function(
        "document.querySelector('[data-testid=learn-verdict]').dataset.verdict === 'worse'",
        timeout=WAIT_MS,
    )
    assert "Not as good" in verdict.inner_text()
    # The best move: the server agrees, and the page shows it.
    best = first["best"]
    best_text = f"{best['from']}-{best['to']}" if best["do"] == "move" else best["do"]
    page.locator(f'[data-testid=learn-tries] button[data-action="{best_text}"]').click()
    page.wait_for_function(
        "document.querySelector('[data-testid=learn-verdict]').dataset.verdict === 'best'",
        timeout=WAIT_MS,
    )
    assert "best move found" in page.inner_text("[data-testid=learn-best]")
    if best["do"] == "move":
        arrow = page.locator(".best-layer")
        assert arrow.is_visible() and arrow.get_attribute("data-move") == best_text
    page.screenshot(path=str(artifact_dir / "learn-best.png"))
    page.locator("[data-testid=learn-next]").click()
    shown = "window.replay.frames[window.replay.pos].version"
    page.wait_for_function(f"{shown} === {ann[1]['version']}", timeout=WAIT_MS)
    assert "Mistake 2 of" in panel.inner_text()
    page.locator("[data-testid=learn-reveal]").click()
    assert "best move found" in page.inner_text("[data-testid=learn-best]")
    page.keyboard.press("Escape")
    assert panel.is_hidden()
    assert page.get_attribute(checked, "data-view") == "all"
    assert not page.errors


def test_play_on_from_here_at_a_practice_table(
    server: ServerProcess, new_page: Any, finished: str, artifact_dir: Path
) -> None:
    page = new_page()
    _open(page, server, finished, "?v=40")
    position = page.evaluate("window.replay.frames[window.replay.pos].view")
    button = page.locator("[data-testid=play-on]")
    assert button.is_enabled()
    button.click()
    page.locator("[data-testid=play-on-form]").wait_for(timeout=WAIT_MS)
    page.fill("[data-testid=play-on-name]", "Cleo")
    page.select_option("[data-testid=play-on-seat]", str(position["to_move"]))
    page.select_option("[data-testid=play-on-bot]", "steady")
    page.screenshot(path=str(artifact_dir / "play-on-form.png"))
    page.click("[data-testid=play-on-start]")
    page.wait_for_url("**/table/*", timeout=WAIT_MS)
    note = page.locator("[data-testid=practice-note]")
    note.wait_for(timeout=WAIT_MS)
    assert "Practice game" in note.inner_text()
    assert note.locator("a").get_attribute("href") == f"/replay/{finished}?v=40"
    page.wait_for_function("window.crapette && window.crapette.view", timeout=WAIT_MS)
    view = page.evaluate("window.crapette.view")
    # The very position: the houses and foundations as they lay, Cleo to move in her seat.
    for pile, cards in position["piles"].items():
        if pile[0] in "TF":
            assert view["piles"].get(pile, []) == cards, pile
    assert view["viewer"] == position["to_move"] and view["to_move"] == position["to_move"]
    assert view["legal"], "Cleo may play on at once"
    page.screenshot(path=str(artifact_dir / "practice-table.png"))
    # The end of a game: nothing to play on from.
    replay = new_page()
    _open(replay, server, finished)
    assert replay.locator("[data-testid=play-on]").is_disabled()
    assert not page.errors and not replay.errors


def test_a_missed_call_s_judgement_beside_the_fault(
    server: ServerProcess, new_page: Any, artifact_dir: Path
) -> None:
    """A fault nobody called keeps its own mark, and the caption also says what the call
    would have been worth (docs/records.md § How well it was played)."""
    import math
    import random

    from domain.engine_match import random_match
    from records.export import record_from_events

    events = random_match(random.Random(3), max_games=1, max_actions=60, call_rate=0.0)
    record = record_from_events(events)
    answer = server.post("/api/records?match_id=m-missed-calls", record)
    assert answer.status_code == 201, answer.text
    match_id = answer.json()["match_id"]
    page = new_page()
    _open(page, server, match_id)
    _analysed(page)
    [game] = _analysis(server, match_id)["games"]
    missed = game["missed_calls"][0]
    page.evaluate(f"window.replay.go(window.replay.indexOfVersion({missed['fault']['version']}))")
    caption = page.inner_text("[data-testid=caption]")
    assert "could have called Crapette!" in caption  # the fault's own mark
    chance = missed["win_chance"]

    def pct(p: float) -> str:  # as Math.round does it (half up)
        return f"{math.floor(100 * p + 0.5)}%"

    said = (
        f"did not call Crapette! — a mistake (win chance {pct(chance['after'])}; "
        f"{pct(chance['best'])} with the call)"
    )
    assert said in caption, caption
    page.screenshot(path=str(artifact_dir / "replay-missed-call.png"))
    assert not page.errors
