"""A club evening in Chromium: a director creates a 6-player Swiss of two rounds from the
tournaments page (five people and a bot), one player claims her name on her own page and is
sent to her table, the other four play as scripted Socket.IO clients; every table's result
comes from its match (the loser resigns), and the standings page ends with the standings that
follow from those results; the players pages then rate those matches (leaderboard, graph).
Screenshots: test-artifacts/…/tournament-*.png, ratings-*.png."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.browser.axe import MODERATE, serious_violations
from tests.browser.ui import WAIT_MS
from tests.integration.harness import WAIT_S, Client, ServerProcess

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PEOPLE = ["Ann", "Bob", "Cid", "Dee", "Eve"]
BOT = "steady bot"


def _view(server: ServerProcess, tid: str) -> dict[str, Any]:
    response = server.get(f"/api/tournaments/{tid}")
    assert response.status_code == 200, response.text
    view: dict[str, Any] = response.json()
    return view


def _loser(players: list[str]) -> str:
    """Who resigns at a table: the person against the bot, else the later name."""
    if BOT in players:
        return next(name for name in players if name != BOT)
    return max(players)


def _create_from_the_page(page: Any, server: ServerProcess) -> str:
    page.goto(server.url + "/tournaments")
    page.wait_for_function("window.tournamentsReady === true")
    assert serious_violations(page, MODERATE) == []
    page.fill("[data-testid=t-name]", "Club night")
    page.select_option("[data-testid=t-format]", "swiss")
    page.fill("[data-testid=t-rounds]", "2")
    page.select_option("[data-testid=t-match]", "wins:1")
    rows = page.locator("[data-testid=entrants] li")
    for index, name in enumerate(PEOPLE):
        rows.nth(index).locator(".entrant-name").fill(name)
    rows.nth(5).locator(".entrant-who").select_option("steady")  # names the seat "steady bot"
    assert rows.nth(5).locator(".entrant-name").input_value() == BOT
    page.click("[data-testid=create-btn]")
    page.wait_for_url("**/tournament/*")
    page.wait_for_function("window.tournamentReady === true")
    return str(page.url.rsplit("/", 1)[1])


def _play_round(server: ServerProcess, tid: str, number: int, clients: dict[str, Client]) -> None:
    view = _view(server, tid)
    assert view["current_round"] == number
    for table in view["rounds"][number - 1]["tables"]:
        loser = _loser(table["players"])
        client = clients[loser]
        client.join(table["match_id"])
        seat = table["players"].index(loser)
        ack = client.send(table["match_id"], {"do": "resign", "seat": seat})
        assert ack["ok"], ack


def _wait(server: ServerProcess, tid: str, done: Any, what: str) -> dict[str, Any]:
    import time

    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        view = _view(server, tid)
        if done(view):
            return view
        time.sleep(0.2)
    raise AssertionError(f"gave up waiting for {what}: {view}")


def _expected(view: dict[str, Any]) -> dict[str, tuple[float, float]]:
    """Points and Buchholz, worked out here from the results alone."""
    points = {p["name"]: 0.0 for p in view["players"]}
    met: dict[str, list[str]] = {name: [] for name in points}
    for played in view["rounds"]:
        assert not played["byes"]
        for table in played["tables"]:
            a, b = table["players"]
            winner = table["players"][table["result"]["winner"]]
            assert winner != _loser([a, b])
            points[winner] += 1
            met[a].append(b)
            met[b].append(a)
    return {name: (points[name], sum(points[o] for o in met[name])) for name in points}


def test_a_six_player_swiss_of_two_rounds(
    server: ServerProcess, new_page: Any, artifact_dir: Path
) -> None:
    director = new_page()
    tid = _create_from_the_page(director, server)
    assert director.get_by_test_id("t-heading").inner_text() == "Club night"
    assert director.get_by_test_id("start").is_visible()

    # Ann claims her name on her own page (her own browser).
    ann_page = new_page()
    ann_page.goto(f"{server.url}/tournament/{tid}")
    ann_page.wait_for_function("window.tournamentReady === true")
    ann_page.select_option("[data-testid=claim-name]", "Ann")
    ann_page.click("[data-testid=claim]")
    ann_page.get_by_text("You are Ann").wait_for()
    ann_token = ann_page.evaluate(
        f"JSON.parse(localStorage.getItem('crapette:tournament:{tid}:player')).token"
    )
    # The others, scripted: each claims his name and plays from a Socket.IO client.
    tokens = {"Ann": ann_token}
    for name in PEOPLE[1:]:
        claimed = server.post(f"/api/tournaments/{tid}/claim", {"name": name})
        assert claimed.status_code == 200, claimed.text
        tokens[name] = claimed.json()["player_token"]
    clients = {name: Client(server, token).connect() for name, token in tokens.items()}
    try:
        director.click("[data-testid=start]")
        view = _wait(server, tid, lambda v: v["current_round"] == 1, "round 1")
        assert len(view["rounds"][0]["tables"]) == 3

        # Ann's page shows her next table, and its link seats her there.
        ann_page.get_by_test_id("next-table").get_by_text("Your next table").wait_for()
        ann_page.screenshot(path=str(artifact_dir / "tournament-player.png"), full_page=True)
        ann_table = next(t for t in view["rounds"][0]["tables"] if "Ann" in t["players"])
        ann_page.click("[data-testid=go-table]")
        ann_page.wait_for_url(f"**/table/{ann_table['match_id']}")
        ann_page.wait_for_function("window.crapette && window.crapette.view !== null")
        seat = ann_page.evaluate("window.crapette.seat")
        assert seat == ann_table["players"].index("Ann")
        back = ann_page.get_by_test_id("tournament-link")
        assert back.inner_text() == "Club night: round 1, table 1".replace(
            "table 1", f"table {ann_table['table']}"
        )
        assert back.get_attribute("href") == f"/tournament/{tid}"

        _play_round(server, tid, 1, clients)
        _wait(server, tid, lambda v: v["current_round"] == 2, "round 2 paired by itself")
        director.get_by_test_id("rounds").get_by_text("Round 2").wait_for()
        director.screenshot(path=str(artifact_dir / "tournament-round-2.png"), full_page=True)
        _play_round(server, tid, 2, clients)
        view = _wait(server, tid, lambda v: v["status"] == "finished", "the end")
    finally:
        for client in clients.values():
            client.close()

    # No pair met twice, and the standings page shows what the results imply.
    pairs = [frozenset(t["players"]) for r in view["rounds"] for t in r["tables"]]
    assert len(set(pairs)) == 6
    expected = _expected(view)
    director.wait_for_function("document.body.dataset.status === 'finished'", timeout=10_000)
    rows = director.locator("[data-testid=standings-table] tbody tr")
    shown = []
    for index in range(rows.count()):
        row = rows.nth(index)
        cells = row.locator("td").all_inner_texts()
        shown.append((row.locator("td a").first.inner_text(), float(cells[2]), float(cells[3])))
    assert sorted((name, pts, bh) for name, pts, bh in shown) == sorted(
        (name, *expected[name]) for name in expected
    )
    order = [(pts, bh) for _name, pts, bh in shown]
    assert order == sorted(order, reverse=True), shown
    assert shown[0][1] == 2.0  # two rounds: someone (the bot, or a person) won both
    director.screenshot(path=str(artifact_dir / "tournament-standings.png"), full_page=True)
    assert serious_violations(director, MODERATE) == []

    # A bot's seat is named in the page's language ("steady bot" is "robot régulier").
    here = director.url.split("#")[0].split("?")[0]
    for lang in ("fr", "en"):
        director.goto(f"{here}?lang={lang}")
        director.wait_for_function("document.body.dataset.status === 'finished'", timeout=10_000)
        names = director.locator("[data-testid=standings-table] tbody td a").all_inner_texts()
        assert (BOT in names) == (lang == "en") and ("robot régulier" in names) == (lang == "fr")

    # The players pages rate every one of these matches (people, and a person against a bot).
    director.goto(server.url + "/players")
    director.wait_for_function("window.playersReady === true")
    board = director.locator("[data-testid=leaderboard] tbody tr")
    assert sorted(board.nth(i).get_attribute("data-player") for i in range(6)) == sorted(expected)
    assert board.count() == 6
    top = board.first.get_attribute("data-player")
    assert expected[str(top)][0] == 2.0  # two wins: at the top of the ratings too
    director.screenshot(path=str(artifact_dir / "ratings-leaderboard.png"), full_page=True)
    director.goto(f"{server.url}/players/{top}")
    director.wait_for_function("window.playersReady === true")
    assert director.locator("[data-testid=rating-graph] circle").count() == 2
    assert "after 2 rated matches" in director.get_by_test_id("rating-line").inner_text()
    director.screenshot(path=str(artifact_dir / "ratings-player.png"), full_page=True)
    assert not director.errors and not ann_page.errors


def test_a_bot_is_marked_wherever_it_is_named_and_is_never_absent(
    server: ServerProcess, new_page: Any
) -> None:
    """Issue 39: a bot the director named "Stella" is "Stella (bot)" in the pairings and in
    "your next table … against Stella (bot)"; the director's "did not come" is offered for the
    people of a table, never for its bot; the nav says "Players" as it says "Tournaments"."""
    body = {
        "name": "Bots night",
        "format": "round-robin",
        "rounds": None,
        "preset": "classic",
        "match": "wins:1",
        "players": [{"name": "Ann"}, {"name": "Stella", "bot": "steady"}],
    }
    created = server.post("/api/tournaments", body)
    assert created.status_code == 201, created.text
    tid, director_token = created.json()["tournament_id"], created.json()["director_token"]
    started = server.post(
        f"/api/tournaments/{tid}/director", {"director_token": director_token, "action": "start"}
    )
    assert started.status_code == 200, started.text
    director = new_page()
    director.goto(f"{server.url}/tournament/{tid}#director={director_token}")
    director.wait_for_function("window.tournamentReady === true")
    pairing = director.locator("#rounds li[data-match]").first
    pairing.get_by_text("Stella (bot)").wait_for(timeout=WAIT_MS)
    director.get_by_test_id("no-show-Ann").wait_for(timeout=WAIT_MS)
    assert director.get_by_test_id("no-show-Stella").count() == 0
    assert director.locator("header a[href='/players']").inner_text() == "Players"

    ann = new_page()
    ann.goto(f"{server.url}/tournament/{tid}?lang=fr")
    ann.wait_for_function("window.tournamentReady === true")
    ann.select_option("[data-testid=claim-name]", "Ann")
    ann.click("[data-testid=claim]")
    line = ann.get_by_test_id("next-table")
    line.get_by_text("Stella (robot)").wait_for(timeout=WAIT_MS)
    assert ann.locator("header a[href='/players']").inner_text() == "Joueurs"
    assert director.errors == [] and ann.errors == []
