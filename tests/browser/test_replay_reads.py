"""The replay reads whole (issue 31 point 4), at 1280×800 in Chromium: the fault caption and the
move list wrap instead of cutting what they teach, the timeline's legend is on screen, the charts
have a scale, event numbers and a key naming each player in his colour (the match score only from
a second game on), the fault's arrow stops short of its target, `]` works from the position the
replay opens at (its end), and a seat's view shows only the compulsory move when priority
demands one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import domain
from domain import Act, Resign, StartGame
from records.export import record_from_events
from tests.browser.test_replay_analysis import _missed_call_record
from tests.browser.ui import WAIT_MS
from tests.integration.harness import ServerProcess

pytestmark = pytest.mark.browser

LAPTOP = {"width": 1280, "height": 800}
SEAT_COLOURS = ("rgb(29, 78, 158)", "rgb(142, 27, 44)")  # --pack0, --pack1 (web/css/crapette.css)


def _two_games_record() -> dict[str, Any]:
    """Two games of the missed-call deal in a match of two wins: Ann resigns each at once."""
    one = _missed_call_record()
    ruleset = domain.Ruleset.from_json({**one["ruleset"], "match": "wins:2"})
    packs = tuple(
        [domain.Card.parse(code, owner=seat) for code in pack]
        for seat, pack in enumerate(one["games"][0]["deal"]["packs"])
    )
    at = 1_764_435_721_000
    events, state = domain.decide_and_fold(
        None, domain.StartMatch("m-two", ruleset, ("Ann", "Bob"), at)
    )
    for game in range(2):
        start = at + 200_000 * game
        for command in (
            StartGame(None, (packs[0], packs[1]), start + 1000),
            Act(Resign(0), start + 5000),
        ):
            more, state = domain.decide_and_fold(state, command)
            events += more
    record: dict[str, Any] = record_from_events(events, public=False)
    return record


@pytest.fixture(scope="module")
def missed_match(server: ServerProcess) -> str:
    # Under an id of its own: test_replay_analysis.py stores the same record as "m-missed".
    response = server.post("/api/records?match_id=m-missed-reads", _missed_call_record())
    assert response.status_code == 201, response.text
    match_id: str = response.json()["match_id"]
    return match_id


def _open(new_page: Any, server: ServerProcess, match_id: str) -> Any:
    page = new_page(LAPTOP)
    page.goto(f"{server.url}/replay/{match_id}")
    page.wait_for_function("window.replayReady === true", timeout=WAIT_MS)
    return page


def _fault(page: Any) -> dict[str, Any]:
    fault: dict[str, Any] = page.evaluate("[...window.replay.analysis.missedAt.values()][0]")
    return fault


def _shown_version(page: Any) -> int:
    version: int = page.evaluate("window.replay.frames[window.replay.pos].version")
    return version


FITS = """(el) => {
  const style = getComputedStyle(el);
  return {scroll: el.scrollWidth, client: el.clientWidth, overflow: style.textOverflow,
          space: style.whiteSpace, height: el.getBoundingClientRect().height,
          line: parseFloat(style.lineHeight)};
}"""


def test_bracket_from_the_opening_position_goes_to_the_first_fault(
    server: ServerProcess, new_page: Any, missed_match: str
) -> None:
    page = _open(new_page, server, missed_match)
    frames = page.evaluate("window.replay.frames.length")
    assert page.evaluate("window.replay.pos") == frames - 1  # a finished replay opens at its end
    page.keyboard.press("]")  # past the last mark: round to the first
    assert _shown_version(page) == _fault(page)["fault_version"]
    page.keyboard.press("[")  # before the first: round to the last
    marks = page.evaluate("window.replay.marks")
    assert page.evaluate("window.replay.pos") == marks[-1]
    assert not page.errors


def test_the_caption_and_the_move_list_wrap(
    server: ServerProcess, new_page: Any, missed_match: str, artifact_dir: Path
) -> None:
    page = _open(new_page, server, missed_match)
    page.keyboard.press("]")
    caption = page.locator("[data-testid=caption]")
    text = caption.inner_text()
    # The whole of it: the missed call and the move that came first, to its end.
    assert "missed: Bob could have called Crapette!" in text
    assert "A♠ from Ann's reserve to the ♠ foundation came first" in text
    assert text.rstrip().endswith("match 0\u2060–\u20600"), text  # a score never breaks
    fits = caption.evaluate(FITS)
    assert fits["scroll"] <= fits["client"], fits
    assert fits["overflow"] != "ellipsis" and fits["space"] != "nowrap", fits
    assert fits["height"] > 1.5 * fits["line"], fits  # it took two lines at 1280 px
    # Every row of the move list shows its whole event; the missed call's row wraps.
    rows = page.eval_on_selector_all(".move-list .ev", f"rows => rows.map({FITS})")
    assert rows and all(r["scroll"] <= r["client"] for r in rows), rows
    assert all(r["overflow"] != "ellipsis" and r["space"] != "nowrap" for r in rows)
    current = page.locator(".move-list .ev.current")
    assert "missed: Bob could have called Crapette!" in current.inner_text()
    assert "a fault (reserve to foundation first)" in current.inner_text()
    assert current.evaluate(FITS)["height"] > 30  # more than one line of 19 px
    # Its number still leads it, inside the list.
    number = current.locator(".n").bounding_box()
    listing = page.locator("[data-testid=moves]").bounding_box()
    assert number and listing and number["x"] >= listing["x"]
    assert current.locator(".n").inner_text() == str(_shown_version(page))
    page.screenshot(path=str(artifact_dir / "replay-wraps.png"))
    assert not page.errors


def test_the_legend_is_on_screen_at_1280x800(
    server: ServerProcess, new_page: Any, missed_match: str, artifact_dir: Path
) -> None:
    page = _open(new_page, server, missed_match)
    page.keyboard.press("]")
    legend = page.locator("[data-testid=tick-legend]")
    assert "missed call" in legend.inner_text() and "fault" in legend.inner_text()
    box = legend.bounding_box()
    assert box is not None
    assert box["y"] >= 0 and box["y"] + box["height"] <= LAPTOP["height"], box
    assert box["x"] + box["width"] <= LAPTOP["width"], box
    assert page.evaluate("window.scrollY") == 0
    # Beside the timeline it explains, under the board.
    timeline = page.locator("[data-testid=timeline]").bounding_box()
    assert timeline and box["y"] - (timeline["y"] + timeline["height"]) < 80
    page.screenshot(path=str(artifact_dir / "replay-legend.png"))


def _axes(page: Any, testid: str) -> dict[str, Any]:
    chart = page.locator(f"[data-testid={testid}]")
    chart.wait_for(timeout=WAIT_MS)
    result: dict[str, Any] = chart.evaluate(
        """(c) => ({
          y: [...c.querySelectorAll("[data-testid=y-axis] .tick-label")].map((e) => e.textContent),
          x: [...c.querySelectorAll("[data-testid=x-axis] .tick-label")].map((e) => e.textContent),
          key: [...c.querySelectorAll("[data-testid=chart-key] .key")].map((k) => ({
            name: k.textContent,
            colour: getComputedStyle(k.querySelector(".swatch")).backgroundColor,
            seat: k.classList.contains("seat1") ? 1 : 0,
          })),
          grid: c.querySelectorAll("svg line.grid").length,
          inView: c.getBoundingClientRect().bottom <= innerHeight,
        })"""
    )
    return result


def test_the_charts_have_axes_and_a_key(
    server: ServerProcess, new_page: Any, missed_match: str, artifact_dir: Path
) -> None:
    page = _open(new_page, server, missed_match)
    page.keyboard.press("]")
    game = page.evaluate("[...window.replay.analysis.games.values()][0]")
    for testid in ("chart-left", "chart-thinking"):
        axes = _axes(page, testid)
        # A scale from 0 up, one gridline a value; the event numbers from the game's first to last.
        assert len(axes["y"]) >= 2 and axes["y"][0].startswith("0"), axes
        assert axes["grid"] == len(axes["y"]), axes
        assert axes["x"][0] == str(game["start_version"]), axes
        assert axes["x"][-1] == str(game["end_version"]), axes
        assert len(axes["x"]) >= 3, axes
        # The key: each player by name, in his colour.
        assert [(k["name"], k["colour"]) for k in axes["key"]] == [
            ("Ann", SEAT_COLOURS[0]),
            ("Bob", SEAT_COLOURS[1]),
        ], axes
        assert axes["inView"], testid
    # Cards left: 52 at most for a pack, the scale's top at least the most any player held.
    left = _axes(page, "chart-left")
    most = max(max(a, b) for _, a, b in game["cards_left"])
    assert int(left["y"][-1]) >= most
    assert _axes(page, "chart-thinking")["y"][-1].endswith(" s")
    # One game: no match-score chart (a flat line said nothing).
    assert page.locator("[data-testid=chart-score]").count() == 0
    page.screenshot(path=str(artifact_dir / "replay-charts.png"))
    assert not page.errors


def test_the_match_score_chart_shows_from_a_second_game(
    server: ServerProcess, new_page: Any, artifact_dir: Path
) -> None:
    response = server.post("/api/records", _two_games_record())
    assert response.status_code == 201, response.text
    page = _open(new_page, server, response.json()["match_id"])
    axes = _axes(page, "chart-score")
    assert [k["name"] for k in axes["key"]] == ["Ann", "Bob"]
    scores = page.evaluate("window.replay.analysis.scores")
    assert len(scores) == 2
    top = max(max(a, b) for _, a, b in scores)
    assert axes["y"][0] == "0" and int(axes["y"][-1].replace(",", "")) >= top, axes
    page.screenshot(path=str(artifact_dir / "replay-score-chart.png"))
    assert not page.errors


def test_the_fault_arrow_stops_short_of_its_target(
    server: ServerProcess, new_page: Any, missed_match: str, artifact_dir: Path
) -> None:
    page = _open(new_page, server, missed_match)
    page.keyboard.press("]")
    arrow = page.locator(".arrow-layer")
    assert arrow.is_visible()
    skipped = _fault(page)["skipped"]
    geometry = page.evaluate(
        """(to) => {
          const layer = document.querySelector(".arrow-layer").getBoundingClientRect();
          const line = document.querySelector(".arrow-layer line.skipped");
          const pile = document.querySelector(`#board [data-pile="${to}"]`);
          const slot = (pile.querySelector(".slot") ?? pile).getBoundingClientRect();
          const n = (a) => Number(line.getAttribute(a));
          return {x1: n("x1") + layer.left, y1: n("y1") + layer.top,
                  x2: n("x2") + layer.left, y2: n("y2") + layer.top,
                  left: slot.left, right: slot.right, top: slot.top, bottom: slot.bottom};
        }""",
        skipped["to"],
    )
    g = geometry
    dx, dy = g["x2"] - g["x1"], g["y2"] - g["y1"]
    length = (dx * dx + dy * dy) ** 0.5
    # The head's tip lies 5 px past the line's end (a marker of 5 × the 5 px stroke, its
    # reference 2/10 short of the tip): outside the target's slot, and close to its edge.
    tip = (g["x2"] + 5 * dx / length, g["y2"] + 5 * dy / length)
    inside = g["left"] < tip[0] < g["right"] and g["top"] < tip[1] < g["bottom"]
    assert not inside, (tip, geometry)
    gap_x = max(g["left"] - tip[0], tip[0] - g["right"], 0)
    gap_y = max(g["top"] - tip[1], tip[1] - g["bottom"], 0)
    assert (gap_x**2 + gap_y**2) ** 0.5 < 12, (tip, geometry)
    page.screenshot(path=str(artifact_dir / "replay-arrow.png"))


def test_a_seat_s_view_shows_only_the_compulsory_move(
    server: ServerProcess, new_page: Any, missed_match: str, artifact_dir: Path
) -> None:
    page = _open(new_page, server, missed_match)
    page.keyboard.press("]")  # the fault: Ann turned a card with A♠ on her reserve
    page.keyboard.press("ArrowLeft")  # before it: A♠ to a foundation was compulsory
    page.click('[data-view="seat0"]')
    page.wait_for_selector("[data-testid=options]:not([hidden])", timeout=WAIT_MS)
    options = page.locator("[data-testid=options]")
    assert options.get_attribute("data-compulsory") == "true"
    assert options.inner_text() == "Ann had to play: A♠ from Ann's reserve to the ♠ foundation"
    # Lit: the reserve and one foundation, nothing else (no house, no other move).
    lit = page.eval_on_selector_all("#board .pile.could", "ps => ps.map((p) => p.dataset.pile)")
    assert sorted(lit) == sorted(["R0", "F0"]), lit
    page.screenshot(path=str(artifact_dir / "replay-compulsory.png"))
    # The server says which moves priority demanded (docs/protocol.md).
    data = server.get(f"/api/matches/{missed_match}/options?seat=0").json()
    version = _shown_version(page)
    compulsory = dict(data["compulsory"])
    assert "R0-F0" in compulsory[version]
    assert all(m.startswith("R0-F") for m in compulsory[version])
    # Where nothing is compulsory the seat could do several things, each listed.
    free = next(v for v, _ in data["options"] if v not in compulsory and v > version)
    page.evaluate("(v) => window.replay.go(window.replay.indexOfVersion(v))", free)
    page.wait_for_selector("[data-testid=options]:not([hidden])", timeout=WAIT_MS)
    assert options.get_attribute("data-compulsory") == "false"
    assert options.inner_text().startswith("Ann could: ") or options.inner_text().startswith(
        "Bob could: "
    )
    assert not page.errors
