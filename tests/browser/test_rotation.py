"""A rotation table (docs/spec/rules.md §10, issue 17) in real Chromium against a real server: three
people in three browsers, two seated and one waiting in the queue, through two games. The waiting
person sees what a spectator sees and is told how many are ahead of him; after the won game the
seats change as the mode says (`loser_out` here: the loser gives up his seat), his page becomes a
seated player's page without a reload, and every page shows the same session totals, worked out
here from the games' own scores. A phone-size check: the queue and the totals stay on the screen.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.axe import serious_violations
from tests.browser.conftest import PHONE
from tests.browser.test_languages import OTHERS, assert_no_english
from tests.browser.ui import PILE_CODE, WAIT_MS, the_view
from tests.integration.harness import Client, ServerProcess

pytestmark = pytest.mark.browser


def wait_text(page: Any, testid: str, words: str) -> None:
    try:
        page.wait_for_function(
            "([id, w]) => document.querySelector(`[data-testid=${id}]`)?.textContent.includes(w)",
            arg=[testid, words],
            timeout=WAIT_MS,
        )
    except Exception as exc:  # the words the page shows instead, for the failure's message
        shown = page.evaluate(
            "id => document.querySelector(`[data-testid=${id}]`)?.textContent", testid
        )
        raise AssertionError(f"{testid}: {shown!r} does not say {words!r}") from exc


def text(page: Any, testid: str) -> str:
    found: str = page.inner_text(f"[data-testid={testid}]")
    return found


def people_rows(page: Any) -> dict[str, list[str]]:
    """The table of people as drawn: name → [place, points, games won]."""
    rows: dict[str, list[str]] = page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('#people-rows tr')].map(
             (tr) => [tr.dataset.name, [...tr.cells].slice(1).map((c) => c.textContent)]))"""
    )
    return rows


def queue_names(page: Any) -> list[str]:
    names: list[str] = page.evaluate(
        "() => [...document.querySelectorAll('#queue li[data-name]')].map((li) => li.dataset.name)"
    )
    return names


def standings(page: Any) -> list[list[str]]:
    """The end-of-game panel's standings: [rank, name, points, games won] per row."""
    rows: list[list[str]] = page.evaluate(
        """() => [...document.querySelectorAll('#end-games tbody tr')].map(
             (tr) => [...tr.cells].map((c) => c.textContent))"""
    )
    return rows


def seated_as(page: Any, seat: int | None) -> None:
    page.wait_for_function(
        "s => window.crapette && window.crapette.view && window.crapette.seat === s",
        arg=seat,
        timeout=WAIT_MS,
    )


def resign_game(page: Any) -> None:
    page.locator("#btn-resign").wait_for(state="visible", timeout=WAIT_MS)
    page.wait_for_function("!document.getElementById('btn-resign').disabled", timeout=WAIT_MS)
    page.click("#btn-resign")  # opens the choice: this game (a rotation table has no other)
    assert page.locator("#btn-abandon").is_hidden()  # a seated person resigns, then may leave
    page.click("#btn-resign-game")


def session_scores(server: ServerProcess, match_id: str) -> list[tuple[list[str], list[int]]]:
    """Each finished game's two players (seat 0, seat 1) and its score, from the event stream:
    the pair seated at its deal (SeatsRotated events move people between games)."""
    frames = server.get(f"/api/matches/{match_id}/replay").json()["frames"]
    pair: list[str] = []
    games = []
    for event in (f["event"] for f in frames if f.get("event")):
        if event["type"] in ("MatchStarted", "SeatsRotated"):
            pair = list(event["players"])
        elif event["type"] in ("GameWon", "GameResigned", "GameStalemated"):
            games.append((list(pair), list(event["score"])))
    return games


def expected_totals(games: list[tuple[list[str], list[int]]], names: list[str]) -> dict[str, int]:
    totals = dict.fromkeys(names, 0)
    for pair, score in games:
        for seat in (0, 1):
            totals[pair[seat]] += score[seat]
    return totals


def open_from_lobby(new_page: Any, server: ServerProcess) -> tuple[Any, str]:
    """Ann opens an Italian table of four from the lobby: the loser gives up the seat, first to
    two games won."""
    ann = new_page()
    ann.goto(server.url + "/")
    ann.wait_for_function("window.lobbyReady === true", timeout=WAIT_MS)
    ann.fill("#name", "Ann")
    ann.select_option("#preset", "italian-four")
    assert ann.locator("#rotation").is_visible()  # the mode is in the main form
    assert ann.eval_on_selector("#rotation", "s => s.value") == "winner_out"  # the preset's
    ann.select_option("#rotation", "loser_out")
    ann.select_option("#match", "wins:2")
    assert "queue" in text(ann, "opponent-desc")
    ann.click("#create-btn")
    ann.locator("[data-testid=go-table]").wait_for(timeout=WAIT_MS)
    assert "queue" in text(ann, "invite")
    ann.click("[data-testid=go-table]")
    ann.wait_for_url("**/table/m-*", timeout=WAIT_MS)
    match_id: str = ann.url.rsplit("/", 1)[1]
    table = server.get(f"/api/tables/{match_id}").json()
    assert table["rotation"]["mode"] == "loser_out" and table["ruleset"]["match"] == "wins:2"
    return ann, match_id


def lobby_entry(page: Any, match_id: str) -> Any:
    return page.locator(f"li[data-match='{match_id}']")


def test_three_people_two_games_seats_change_and_totals(
    server: ServerProcess, new_page: Any, artifact_dir: Path
) -> None:
    ann, match_id = open_from_lobby(new_page, server)

    # Bob takes the free seat through the lobby's Join and the table's join form.
    bob = new_page()
    bob.goto(server.url + "/")
    lobby_entry(bob, match_id).locator("a.join").click()
    bob.wait_for_url(f"**/table/{match_id}", timeout=WAIT_MS)
    bob.fill("#join-name", "Bob")
    bob.click("#join-btn")
    seated_as(bob, 1)
    seated_as(ann, 0)

    # Cid finds the running table in the lobby: seats and queue length, "Join the queue".
    cid = new_page()
    cid.goto(server.url + "/")
    entry = lobby_entry(cid, match_id)
    entry.wait_for(timeout=WAIT_MS)
    cid.wait_for_function(
        "id => document.querySelector(`#live-tables li[data-match='${id}']`)",
        arg=match_id,
        timeout=WAIT_MS,
    )
    assert "Ann v Bob" in entry.inner_text() and "0 waiting" in entry.inner_text()
    join = entry.locator("a.join")
    assert join.inner_text() == "Join the queue"
    join.click()
    cid.wait_for_url(f"**/table/{match_id}", timeout=WAIT_MS)
    cid.locator("#join").wait_for(state="visible", timeout=WAIT_MS)
    assert cid.inner_text("#join-btn") == "Join the queue"
    wait_text(cid, "join-people", "Ann, Bob playing")
    # italian-four is winner_out: Ann's loser_out is a change from the preset, said as one.
    wait_text(cid, "join-changed", "loser")
    # By keyboard: the name, then Tab to the button and Enter.
    cid.focus("#join-name")
    cid.keyboard.type("Cid")
    cid.keyboard.press("Tab")
    assert cid.evaluate("document.activeElement.id") == "join-btn"
    cid.keyboard.press("Enter")
    cid.wait_for_function(
        "window.crapette && window.crapette.waiting && window.crapette.view", timeout=WAIT_MS
    )
    cid.evaluate("window.noReload = true")  # gone if the page ever reloads

    # Waiting: a spectator's page, and a notice of his place.
    wait_text(cid, "queue-you-text", "you are next")
    assert cid.evaluate("window.crapette.seat") is None
    assert cid.locator("#join").is_hidden()
    assert cid.locator("#controls").is_hidden()
    assert the_view(cid)["viewer"] is None and the_view(cid)["legal"] == []
    # The status follows the join's answer, which may come a moment after the view.
    wait_text(cid, "conn", "waiting for a seat")
    assert text(cid, "conn") == "waiting for a seat"
    for page in (ann, bob, cid):
        page.wait_for_function(
            "() => [...document.querySelectorAll('#queue li')]"
            ".some((li) => li.dataset.name === 'Cid')",
            timeout=WAIT_MS,
        )
        assert queue_names(page) == ["Cid"]
        assert "next up" in page.inner_text("#queue li.next")
        rows = people_rows(page)
        assert list(rows) == ["Ann", "Bob", "Cid"]
        assert [rows[n][0] for n in rows] == ["seat 1", "seat 2", "next up"]
        assert [rows[n][1:] for n in rows] == [["0", "0"]] * 3
        assert "first to 2 games won" in text(page, "people-caption")
    assert ann.locator("#queue-you").is_hidden()
    lobby = new_page()
    lobby.goto(server.url + "/")
    lobby.wait_for_function(
        "id => document.querySelector(`#live-tables li[data-match='${id}']`)?.textContent"
        ".includes('1 waiting')",
        arg=match_id,
        timeout=WAIT_MS,
    )
    for page in (cid, ann):
        found = serious_violations(page)
        assert not found, "\n".join(found)
    cid.screenshot(path=str(artifact_dir / "rotation-waiting.png"))

    # Game 1: Ann resigns, so she lost it: the loser gives up the seat (seat 1) to Cid.
    resign_game(ann)
    wait_text(
        ann, "seat-change", "You lost game 1 and leave your seat for the queue; Cid sits down."
    )
    wait_text(bob, "seat-change", "Ann lost game 1 and leaves the seat; Cid sits down.")
    wait_text(cid, "seat-change", "Ann lost game 1 and leaves the seat; you sit down")
    assert cid.get_attribute("[data-testid=seat-change]", "role") == "status"
    # Cid's page is a seated player's now, on the same page (no reload): his seat, his view.
    seated_as(cid, 0)
    assert cid.evaluate("window.noReload") is True
    assert not cid.evaluate("window.crapette.waiting")
    assert cid.locator("#queue-you").is_hidden()
    assert cid.locator("#controls").is_visible()
    assert text(cid, "conn") == "playing"
    assert the_view(cid)["viewer"] == 0
    assert cid.locator("#next-game").is_visible()
    stored = json.loads(cid.evaluate(f"localStorage.getItem('crapette:seat:{match_id}')"))
    assert stored["seat"] == 0 and stored["name"] == "Cid"
    # Ann waits now, and sees the table as a spectator does.
    seated_as(ann, None)
    wait_text(ann, "queue-you-text", "you are next")
    assert ann.locator("#controls").is_hidden()
    # The game's end still names who played it.
    wait_text(cid, "end-title", "Bob wins — Ann resigned")
    wait_text(bob, "end-title", "You win")
    wait_text(ann, "end-title", "you resigned")
    first = session_scores(server, match_id)
    assert [pair for pair, _ in first] == [["Ann", "Bob"]]
    totals = expected_totals(first, ["Ann", "Bob", "Cid"])
    assert totals["Bob"] > 0
    # Until the next deal the board shows game 1's cards: its panels name who played them (Ann
    # and Bob, each with his own session total), not the pair seated now (Cid and Bob).
    for page, names in (
        (ann, ["Ann (you)", "Bob"]),
        (bob, ["Ann", "Bob (you)"]),
        (cid, ["Ann", "Bob"]),
    ):
        for seat in (0, 1):
            wait_text(page, f"name-{seat}", names[seat])
            assert page.inner_text(f"[data-testid=name-{seat}]") == names[seat], (seat, names)
        counts = page.inner_text(".seat-info[data-seat='0'] .counts")
        assert counts.startswith(f"{totals['Ann']} pts"), counts
        assert page.evaluate("window.crapette.access.people().names") == ["Ann", "Bob"]
    for page in (ann, bob, cid):
        page.wait_for_function(
            "() => document.querySelector('#queue li')?.dataset.name === 'Ann'", timeout=WAIT_MS
        )
        rows = people_rows(page)
        assert [rows[n][0] for n in ("Ann", "Bob", "Cid")] == ["next up", "seat 2", "seat 1"]
        assert {n: int(rows[n][1]) for n in rows} == totals
        assert {n: int(rows[n][2]) for n in rows} == {"Ann": 0, "Bob": 1, "Cid": 0}
        wait_text(page, "end-match", "Next game: Cid v Bob")
    cid.screenshot(path=str(artifact_dir / "rotation-seated.png"))
    # A reload after the seat change: Ann waits, and the game's end still says she played it.
    ann.reload()
    ann.wait_for_function(
        "window.crapette && window.crapette.view && window.crapette.waiting", timeout=WAIT_MS
    )
    wait_text(ann, "end-title", "Game 1: Bob wins — you resigned")
    wait_text(ann, "queue-you-text", "you are next")

    # Game 2: the two people now seated are ready; Cid plays, then resigns: Bob has two wins.
    for page in (cid, bob):
        page.click("#next-game")
    for page in (ann, bob, cid):
        page.wait_for_function(
            "() => { const v = window.crapette.view; return v && v.game_index === 1 && !v.over; }",
            timeout=WAIT_MS,
        )
    assert cid.locator("[data-testid=seat-change]").inner_text() == ""  # a new game, no news
    # The new deal, the new pair's names on its panels.
    for page, names in ((cid, ["Cid (you)", "Bob"]), (ann, ["Cid", "Bob"])):
        for seat in (0, 1):
            wait_text(page, f"name-{seat}", names[seat])
            assert page.inner_text(f"[data-testid=name-{seat}]") == names[seat], (seat, names)
    mover = cid if the_view(cid)["to_move"] == 0 else bob
    mover.wait_for_function("window.crapette.view.legal.length > 0", timeout=WAIT_MS)
    before = mover.evaluate("window.crapette.version")
    mover.evaluate("window.crapette.act(window.crapette.view.legal[0])")
    mover.wait_for_function("v => window.crapette.version > v", arg=before, timeout=WAIT_MS)
    resign_game(cid)
    games = session_scores(server, match_id)
    for page in (ann, bob, cid):
        page.locator("[data-testid=after-match]").wait_for(state="visible", timeout=WAIT_MS)
        games = session_scores(server, match_id)
        totals = expected_totals(games, ["Ann", "Bob", "Cid"])
        who = "you win" if page is bob else "Bob wins"
        wait_text(page, "end-match", f"Session over: {who} it with {totals['Bob']} points")
        ranked = standings(page)
        assert ranked[0][1].startswith("Bob") and ranked[0][2:] == [str(totals["Bob"]), "2"]
        assert {r[1].replace(" (you)", ""): int(r[2]) for r in ranked} == totals
        assert "Final standings" in page.inner_text("#end-games caption")
        people = people_rows(page)
        assert {n: int(people[n][1]) for n in people} == totals
        assert PILE_CODE.search(page.inner_text("[data-testid=seat-change]")) is None
        assert not page.errors
    assert [pair for pair, _ in games] == [["Ann", "Bob"], ["Cid", "Bob"]]
    assert cid.evaluate("window.noReload") is True
    table = server.get(f"/api/tables/{match_id}").json()
    assert table["status"] == "finished" and table["rotation"]["winner"] == "Bob"
    api = {p["name"]: p["total"] for p in table["rotation"]["people"]}
    assert api == totals
    for page in (bob, ann):
        found = serious_violations(page)
        assert not found, "\n".join(found)
    bob.screenshot(path=str(artifact_dir / "rotation-session-over.png"))


LONG = "Maximiliana Kristiina Lindqvist-Kaarlonen"[:40]


def test_queue_and_totals_fit_a_phone(
    server: ServerProcess, new_page: Any, artifact_dir: Path
) -> None:
    opened = server.open_table(name="Ann", preset="italian-four")
    match_id = opened["match_id"]
    bob_token = server.join(match_id, "Bob")["seat_token"]
    server.join(match_id, LONG)
    dan = server.join(match_id, "Dan")
    assert dan["waiting"] is True and dan["seat"] is None
    page = new_page(PHONE)
    page.goto(server.url + "/rules")  # the server's origin, to reach its storage
    saved = json.dumps({"seat": None, "seat_token": dan["seat_token"], "name": "Dan"})
    page.evaluate("([k, v]) => localStorage.setItem(k, v)", [f"crapette:seat:{match_id}", saved])
    page.goto(f"{server.url}/table/{match_id}")
    page.wait_for_function(
        "window.crapette && window.crapette.view && window.crapette.waiting", timeout=WAIT_MS
    )
    wait_text(page, "queue-you-text", "1 person ahead of you")
    assert queue_names(page) == [LONG, "Dan"]
    page.locator("#rotation").scroll_into_view_if_needed()
    width = page.evaluate("document.documentElement.clientWidth")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    for selector in ("#rotation", "#people", "#queue", "#queue-you"):
        box = page.locator(selector).bounding_box()
        assert box is not None, selector
        assert box["x"] >= 0 and box["x"] + box["width"] <= width + 1, (selector, box, width)
    # Nothing inside the table is cut off: each cell fits within the table's box.
    clipped = page.evaluate(
        """() => [...document.querySelectorAll('#people th, #people td, #queue li')]
             .filter((el) => el.scrollWidth > el.clientWidth + 1).map((el) => el.textContent)"""
    )
    assert clipped == []
    assert people_rows(page)["Dan"][0] == "waiting, 2 in line"
    page.screenshot(path=str(artifact_dir / "rotation-phone.png"), full_page=True)
    found = serious_violations(page)
    assert not found, "\n".join(found)

    # italian-four is `winner_out`: Bob resigns, so Ann won and gives up her seat to the first
    # of the queue; Dan is next now.
    bob = Client(server, bob_token).connect()
    try:
        bob.join(match_id)
        assert bob.send(match_id, {"do": "resign", "seat": 1})["ok"]
    finally:
        bob.close()
    wait_text(page, "seat-change", f"Ann won game 1 and leaves the seat; {LONG} sits down.")
    wait_text(page, "queue-you-text", "you are next")
    assert queue_names(page) == ["Dan", "Ann"]
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    box = page.locator("[data-testid=seat-change]").bounding_box()
    assert box is not None and box["x"] + box["width"] <= width + 1, box
    page.screenshot(path=str(artifact_dir / "rotation-phone-change.png"), full_page=True)

    # Dan leaves for good (two steps, by keyboard): out of the queue, his total stays, and this
    # browser watches from now on.
    page.focus("[data-testid=leave-queue]")
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "leave-confirm"
    page.keyboard.press("Enter")
    wait_text(page, "message", "You left the table")
    page.wait_for_function(
        "() => [...document.querySelectorAll('#queue li[data-name]')].length === 1",
        timeout=WAIT_MS,
    )
    assert queue_names(page) == ["Ann"]
    assert people_rows(page)["Dan"] == ["left the table", "0", "0"]
    assert page.locator("#queue-you").is_hidden()
    assert page.evaluate("window.crapette.token") is None
    assert page.evaluate(f"localStorage.getItem('crapette:seat:{match_id}')") is None
    table = server.get(f"/api/tables/{match_id}").json()
    assert [p["name"] for p in table["rotation"]["people"]][-1] == "Dan"
    assert table["rotation"]["queue"] == ["Ann"]
    assert not page.errors


@pytest.fixture(scope="module")
def patient_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server whose grace period outlasts a test: a seated person who never came is not
    counted ready, so the next game waits and the seat change stays on the page."""
    process = ServerProcess(tmp_path_factory.mktemp("patient"), grace_s=600.0).start()
    try:
        yield process
    finally:
        process.stop()


@pytest.mark.parametrize("lang", OTHERS)
def test_a_waiting_person_reads_the_table_in_his_language(
    patient_server: ServerProcess, new_page: Any, lang: str
) -> None:
    server = patient_server
    opened = server.open_table(name="Ann", preset="italian-four", options={"rotation": "loser_out"})
    match_id = opened["match_id"]
    server.join(match_id, "Bob")
    server.join(match_id, "Cid")
    dan = server.join(match_id, "Dan")
    page = new_page()
    page.goto(f"{server.url}/rules?lang={lang}")
    saved = json.dumps({"seat": None, "seat_token": dan["seat_token"], "name": "Dan"})
    page.evaluate("([k, v]) => localStorage.setItem(k, v)", [f"crapette:seat:{match_id}", saved])
    page.goto(f"{server.url}/table/{match_id}")
    page.wait_for_function(
        "window.crapette && window.crapette.view && window.crapette.waiting", timeout=WAIT_MS
    )
    ann = Client(server, opened["seat_token"]).connect()
    try:
        ann.join(match_id)
        assert ann.send(match_id, {"do": "resign", "seat": 0})["ok"]
    finally:
        ann.close()
    # The seat change (notice and log), the queue notice, the people and the game's end.
    page.wait_for_function(
        "() => document.querySelector('#log li[data-type=SeatsRotated]')"
        " && document.querySelector('#queue li')?.dataset.name === 'Dan'"
        " && document.querySelector('[data-testid=seat-change]').textContent",
        timeout=WAIT_MS,
    )
    assert page.locator("#queue-you").is_visible() and page.locator("#game-end").is_visible()
    assert_no_english(page, lang, "a rotation table", frozenset({"ann", "bob", "cid", "dan"}))
    assert not page.errors


def test_a_bot_of_each_strength_joins_the_queue_from_the_table(
    server: ServerProcess, new_page: Any
) -> None:
    """The table offers "a bot for the queue" to a person at it while both seats are taken and
    no other bot waits (docs/spec/rules.md §10): the three strengths of /api/presets; a press
    puts one at the back of the queue, named by the server; then the choice goes away, and a
    spectator never has it."""
    opened = server.open_table(name="Ann", preset="italian-four")
    match_id = opened["match_id"]
    page = new_page()
    page.goto(server.url + "/rules")  # the server's origin, to reach its storage
    saved = json.dumps({"seat": 0, "seat_token": opened["seat_token"], "name": "Ann"})
    page.evaluate("([k, v]) => localStorage.setItem(k, v)", [f"crapette:seat:{match_id}", saved])
    page.goto(f"{server.url}/table/{match_id}")
    page.wait_for_function("window.crapette && window.crapette.table", timeout=WAIT_MS)
    assert page.locator("[data-testid=add-bot]").is_hidden()  # a seat is free: no queue yet
    server.join(match_id, "Bob")
    box = page.locator("[data-testid=add-bot]")
    box.wait_for(state="visible", timeout=WAIT_MS)
    spectator = new_page()
    spectator.goto(f"{server.url}/table/{match_id}")
    spectator.locator("#join").wait_for(state="visible", timeout=WAIT_MS)
    assert spectator.locator("[data-testid=add-bot]").is_hidden()  # not at the table
    strengths = page.eval_on_selector_all(
        "[data-testid=add-bot-strength] option", "os => os.map((o) => o.value)"
    )
    bots = [b["name"] for b in server.get("/api/presets").json()["bots"]]
    assert sorted(strengths) == sorted(bots) == ["expert", "random", "sharp", "steady"]
    assert "A bot for the queue" in box.inner_text()
    # By keyboard: the strength, then Tab to the button and Enter.
    page.focus("[data-testid=add-bot-strength]")
    page.select_option("[data-testid=add-bot-strength]", "sharp")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "add-bot-btn"
    page.keyboard.press("Enter")
    wait_text(page, "message", "sharp bot joined the queue.")
    page.wait_for_function(
        "() => document.querySelectorAll('#queue li[data-name]').length === 1", timeout=WAIT_MS
    )
    assert queue_names(page) == ["sharp bot"]
    box.wait_for(state="hidden", timeout=WAIT_MS)  # one bot waits: no second one
    # Asked anyway (a page drawn before the table changed), the server's refusal in words.
    page.evaluate("window.crapette.queueBot('random')")
    wait_text(page, "message", "Sharp bot already waits in the queue: one bot at a time")
    server.join(match_id, "Cid")  # people still come in
    page.wait_for_function(
        "() => document.querySelectorAll('#queue li[data-name]').length === 2", timeout=WAIT_MS
    )
    assert queue_names(page) == ["sharp bot", "Cid"]
    table = server.get(f"/api/tables/{match_id}").json()
    people = {p["name"]: p["bot"] for p in table["rotation"]["people"]}
    assert people == {"Ann": None, "Bob": None, "sharp bot": "sharp", "Cid": None}
    assert people_rows(page)["Cid"][0] == "waiting, 2 in line"
    assert box.is_hidden()
    found = serious_violations(page)
    assert not found, "\n".join(found)
    assert not page.errors


def seated_page(new_page: Any, server: ServerProcess, match_id: str, ticket: dict[str, Any]) -> Any:
    """A browser that holds a person's token for a table (as after joining), on its page."""
    page = new_page()
    page.goto(server.url + "/rules")  # the server's origin, to reach its storage
    saved = json.dumps(
        {"seat": ticket["seat"], "seat_token": ticket["seat_token"], "name": ticket["name"]}
    )
    page.evaluate("([k, v]) => localStorage.setItem(k, v)", [f"crapette:seat:{match_id}", saved])
    page.goto(f"{server.url}/table/{match_id}")
    page.wait_for_function("window.crapette && window.crapette.view", timeout=WAIT_MS)
    return page


def test_another_session_takes_the_waiting_person_along(
    server: ServerProcess, new_page: Any, artifact_dir: Path
) -> None:
    """At a finished rotation table the seated pair offer and accept "another session"; the
    person waiting is told he would come along, and all three pages move to the new table: the
    pair in their seats, he in the queue, nobody typing his name again."""
    opened = server.open_table(name="Ann", preset="italian-four", match="wins:1")
    match_id = opened["match_id"]
    bob_ticket = server.join(match_id, "Bob")
    cid_ticket = server.join(match_id, "Cid")
    ann = seated_page(new_page, server, match_id, {**opened, "name": "Ann"})
    bob = seated_page(new_page, server, match_id, bob_ticket)
    cid = seated_page(new_page, server, match_id, cid_ticket)
    cid.wait_for_function("window.crapette.waiting", timeout=WAIT_MS)

    resign_game(bob)  # Ann has the one win the session needs
    for page in (ann, bob, cid):
        page.locator("[data-testid=after-match]").wait_for(state="visible", timeout=WAIT_MS)
    wait_text(cid, "rematch-text", "Ann or Bob may start another session")
    assert cid.locator("#rematch-btn").is_hidden()  # the seated pair decide
    ann.locator("#rematch-btn").wait_for(state="visible", timeout=WAIT_MS)
    assert ann.inner_text("#rematch-btn") == "Offer another session"
    ann.click("#rematch-btn")
    wait_text(bob, "rematch-text", "Ann offers another session: the same seats, the same queue.")
    wait_text(cid, "rematch-text", "Ann offers another session")
    bob.click("#rematch-accept")

    table = server.get(f"/api/tables/{match_id}").json()
    new_id = table["rematch"]
    assert new_id
    for page in (ann, bob, cid):
        # The page moves by itself; a navigation superseded by the next one (the new table's
        # page settling) aborts Playwright's wait, so the address is polled instead.
        page.wait_for_function(
            """(id) => location.pathname === `/table/${id}`
                       && window.crapette && window.crapette.view""",
            arg=new_id,
            timeout=WAIT_MS,
        )
    seated_as(ann, 0)
    seated_as(bob, 1)
    cid.wait_for_function("window.crapette.waiting", timeout=WAIT_MS)
    assert cid.evaluate("window.crapette.seat") is None
    assert cid.locator("#join").is_hidden()  # no name to type again
    wait_text(cid, "queue-you-text", "you are next")
    rows = people_rows(cid)
    assert list(rows) == ["Ann", "Bob", "Cid"]
    assert [rows[n] for n in rows] == [
        ["seat 1", "0", "0"],
        ["seat 2", "0", "0"],
        ["next up", "0", "0"],
    ]
    stored = json.loads(cid.evaluate(f"localStorage.getItem('crapette:seat:{new_id}')"))
    assert stored == {**stored, "seat": None, "seat_token": cid_ticket["seat_token"], "name": "Cid"}
    cid.screenshot(path=str(artifact_dir / "rotation-another-session.png"))
    for page in (ann, bob, cid):
        assert not page.errors


def test_at_the_session_s_end_nobody_is_offered_a_place_in_the_queue(
    server: ServerProcess, new_page: Any
) -> None:
    """The session ends with the game that reaches the target: the waiting person's "you are
    next" notice goes, and nobody is offered to join the queue or to add a bot to it any more,
    though no new table object reaches the pages (the view says the match is over)."""
    opened = server.open_table(name="Ann", preset="italian-four", match="wins:1")
    match_id = opened["match_id"]
    bob_token = server.join(match_id, "Bob")["seat_token"]
    cid = server.join(match_id, "Cid")
    waiting = new_page()
    waiting.goto(server.url + "/rules")  # the server's origin, to reach its storage
    saved = json.dumps({"seat": None, "seat_token": cid["seat_token"], "name": "Cid"})
    waiting.evaluate("([k, v]) => localStorage.setItem(k, v)", [f"crapette:seat:{match_id}", saved])
    waiting.goto(f"{server.url}/table/{match_id}")
    wait_text(waiting, "queue-you-text", "you are next")
    watcher = new_page()
    watcher.goto(f"{server.url}/table/{match_id}")
    watcher.locator("#join").wait_for(state="visible", timeout=WAIT_MS)
    waiting.locator("[data-testid=add-bot]").wait_for(state="visible", timeout=WAIT_MS)
    assert watcher.locator("[data-testid=add-bot]").is_hidden()  # a spectator adds no bot

    # Bob resigns: Ann has the one game won needed. He stays connected meanwhile (his going
    # would send everyone a new table object).
    bob = Client(server, bob_token).connect()
    try:
        bob.join(match_id)
        assert bob.send(match_id, {"do": "resign", "seat": 1})["ok"]
        for page in (waiting, watcher):
            page.wait_for_function(
                "window.crapette.view && window.crapette.view.match_over", timeout=WAIT_MS
            )
            page.locator("[data-testid=game-end]").wait_for(state="visible", timeout=WAIT_MS)
            assert page.locator("[data-testid=add-bot]").is_hidden()
        assert waiting.locator("#queue-you").is_hidden()
        assert watcher.locator("#join").is_hidden()
    finally:
        bob.close()
    assert not (waiting.errors or watcher.errors)
