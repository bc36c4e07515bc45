"""One player against a bot: the lobby, keys, reconnecting, watching, a phone-sized window."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import PHONE
from tests.browser.ui import (
    WAIT_MS,
    board_and_view,
    create_table,
    lobby_in,
    message,
    seated_page,
    the_view,
    version,
    wait_idle,
    wait_version_above,
)
from tests.integration.harness import ServerProcess

pytestmark = pytest.mark.browser

WEB = Path(__file__).resolve().parents[2] / "web"


def assert_board_is_view(page: Any) -> None:
    drawn, current = board_and_view(page)
    for pile, cards in current["piles"].items():
        assert drawn[pile]["count"] == len(cards), pile
        if pile.startswith("T"):
            assert drawn[pile]["cards"] == cards, pile
        elif cards:
            assert drawn[pile]["cards"][-1] == cards[-1], pile


def wait_my_turn(page: Any) -> None:
    page.wait_for_function(
        """() => { const c = window.crapette; return c && c.view && !c.view.over &&
                   c.view.to_move === c.seat && c.view.legal.length > 0; }""",
        timeout=WAIT_MS,
    )


def test_bot_game_keyboard_reconnect_and_spectator(
    server: ServerProcess, new_page: Any, artifact_dir: Path
) -> None:
    page = new_page()
    choices = {"opponent": "random", "bot-pace": "quick", "limit": "120"}
    match_id = create_table(page, server, "Cleo", choices)
    assert "bot" in page.inner_text(".tray.top .seat-info")
    assert page.evaluate("window.crapette.table.bot_pace") == "quick"  # the lobby's choice

    # Keyboard: ↑ from no choice starts at the last legal action, Esc forgets it; ↓ starts at
    # the first one, Enter plays it, and the "Enter plays" line goes with it.
    wait_my_turn(page)
    before = version(page)
    # The keys go in one synchronous script: an update arriving between two key presses (a new
    # view resets the choice) cannot make the test flaky.
    keys = page.evaluate(
        """() => {
          const input = window.crapette.input;
          const text = () => document.querySelector("[data-testid=message]").textContent;
          const press = (key) => window.dispatchEvent(new KeyboardEvent("keydown", {key}));
          const n = input.choices.length;
          press("ArrowUp");
          const up = [input.cursor, text()];
          press("Escape");
          const esc = [input.cursor, text()];
          press("ArrowDown");
          const down = [input.cursor, text()];
          press("Enter");
          return {n, up, esc, down, after: [input.cursor, text()]};
        }"""
    )
    assert keys["n"] >= 1
    assert keys["up"][0] == keys["n"] - 1 and keys["up"][1].startswith("Enter plays: ")
    assert keys["esc"] == [-1, ""]
    assert keys["down"][0] == 0 and keys["down"][1].startswith("Enter plays: ")
    assert keys["after"][0] == -1 and not keys["after"][1].startswith("Enter plays:")
    wait_version_above(page, before)
    assert not message(page).startswith("Enter plays:")
    assert_board_is_view(page)
    page.wait_for_function(
        "document.querySelector('.seat-info .clock').textContent !== ''"
        " || document.querySelectorAll('.seat-info .clock')[1].textContent !== ''",
        timeout=WAIT_MS,
    )

    # The connection drops: the page says so, comes back by itself and catches up.
    page.evaluate("window.crapette.socket.io.engine.close()")
    page.wait_for_function(
        "document.querySelector('[data-testid=message]').textContent.includes('Reconnected')",
        timeout=WAIT_MS,
    )
    assert "down" not in (page.get_attribute("[data-testid=conn]", "class") or "")
    wait_my_turn(page)
    assert_board_is_view(page)
    assert version(page) >= before + 1

    # A spectator (another browser, no seat) sees seat 0 at the bottom and the same piles.
    watcher = new_page()
    watcher.goto(f"{server.url}/table/{match_id}")
    watcher.wait_for_function("window.crapette && window.crapette.view", timeout=WAIT_MS)
    # The view may come before the join's answer, which is what names the page "watching".
    watcher.wait_for_function(
        "document.querySelector('[data-testid=conn]').textContent === 'watching'",
        timeout=WAIT_MS,
    )
    assert watcher.locator(".tray.bottom").get_attribute("data-seat") == "0"
    assert watcher.locator("#join").is_hidden()
    assert watcher.locator("#controls").is_hidden()  # nothing for a spectator to press
    assert_board_is_view(watcher)

    phone = new_page(PHONE)
    phone.goto(f"{server.url}/table/{match_id}")
    phone.wait_for_function("window.crapette && window.crapette.view", timeout=WAIT_MS)
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], "the table scrolls sideways on a phone"
    phone.screenshot(path=str(artifact_dir / "table-phone.png"), full_page=True)
    page.screenshot(path=str(artifact_dir / "table-bot-desktop.png"))

    # The lobby lists the game as live, with a way to watch it.
    lobby = new_page()
    lobby.goto(server.url + "/")
    lobby.wait_for_function("window.lobbyReady === true", timeout=WAIT_MS)
    live = lobby.locator(f'[data-testid=live-tables] li[data-match="{match_id}"]')
    assert "Cleo" in live.inner_text()
    assert live.locator("a").get_attribute("href") == f"/table/{match_id}"
    lobby.screenshot(path=str(artifact_dir / "lobby.png"))
    assert not (page.errors or watcher.errors or phone.errors or lobby.errors)


def test_resign_ends_the_match_then_replay_and_rematch(
    server: ServerProcess, new_page: Any, artifact_dir: Path
) -> None:
    page = new_page()
    match_id = create_table(page, server, "Dora", {"opponent": "steady", "match": "wins:1"})
    wait_my_turn(page)
    page.click("#btn-resign")
    # A stray tap does not resign: it opens the choice of this game or the whole match.
    assert page.locator("[data-testid=resign-menu]").is_visible()
    page.click("#btn-resign-game")
    page.locator("[data-testid=after-match]").wait_for(state="visible", timeout=WAIT_MS)
    assert page.inner_text("[data-testid=turn]") == "Match over."
    page.screenshot(path=str(artifact_dir / "match-over.png"))

    # The finished match's replay ends on the whole layout: every card face up.
    replay = new_page()
    replay.goto(f"{server.url}/replay/{match_id}")
    replay.wait_for_function("window.replayReady === true", timeout=WAIT_MS)
    assert "finished" in replay.inner_text("[data-testid=replay-title]")
    frames = replay.evaluate("window.replay.frames")
    last_game_view = next(f["view"] for f in reversed(frames) if f["view"] and f["view"]["over"])
    assert all(card is not None for cards in last_game_view["piles"].values() for card in cards)

    page.click("#rematch-btn")
    page.wait_for_function(
        "mid => location.pathname.startsWith('/table/') && !location.pathname.endsWith(mid)",
        arg=match_id,
        timeout=WAIT_MS,
    )
    page.wait_for_function("window.crapette && window.crapette.view", timeout=WAIT_MS)
    assert page.evaluate("window.crapette.seat") is not None
    assert not (page.errors or replay.errors), page.errors + replay.errors


def test_keyboard_choices_in_a_players_words(server: ServerProcess, new_page: Any) -> None:
    """The keyboard's list and wording, run in Chromium on a made-up position: an Ace that fits
    all eight empty foundations is offered once, and piles are named, not coded."""
    page = new_page()
    page.goto(server.url + "/")
    result = page.evaluate(
        """async () => {
          const m = await import("/static/js/table_input.js");
          const piles = {R0: ["AH/0"], X0: ["7S/0"], T1: ["8H/1"], W1: ["6S/1"]};
          piles.F0 = [];
          piles.F1 = ["AS/1"];
          for (let f = 2; f < 8; f++) piles[`F${f}`] = [];
          const legal = [
            ...[0, 2, 3, 4, 5, 6, 7].map((f) => ({do: "move", from: "R0", to: `F${f}`})),
            {do: "move", from: "X0", to: "T1"},
            {do: "move", from: "X0", to: "W1"},
            {do: "discard"},
          ];
          const view = {piles, players: ["Ann", "Bob"]};
          const choices = m.keyboardChoices(legal, view);
          return choices.map((a) => m.describeChoice(a, view, 0));
        }"""
    )
    assert result == [
        "A♥ from your reserve to the ♥ foundation",
        "7♠ from your turned card to house 2",
        "7♠ from your turned card to Bob's waste",
        "discard your turned card",
    ]


def test_a_resignation_right_after_a_call_replaces_the_verdict_banner(
    server: ServerProcess, new_page: Any
) -> None:
    """The call's verdict banner must not stay over the final position when the game ends
    (here by a resignation) before the banner's own few seconds are up."""
    created = server.open_table(name="Ann", preset="classic", match="wins:2")
    match_id = created["match_id"]
    joined = server.join(match_id, "Bob")
    pages = [
        seated_page(new_page, server, match_id, s["seat"], s["seat_token"], name)
        for s, name in ((created, "Ann"), (joined, "Bob"))
    ]
    for page in pages:
        wait_idle(page)
        # Slow the banner's own timer right down, as a loaded machine would: only the end of the
        # game may take it away.
        page.evaluate(
            """() => { const c = window.crapette, show = c.showBanner.bind(c);
                       c.showBanner = (title, text) => show(title, text, 600000); }"""
        )
    to_move = the_view(pages[0])["to_move"]
    mover = next(p for p in pages if p.evaluate("window.crapette.seat") == to_move)
    caller = next(p for p in pages if p is not mover)
    legal = [a for a in the_view(mover)["legal"] if a["do"] in ("move", "turn")]
    before = version(mover)
    mover.evaluate("a => window.crapette.act(a)", legal[0])
    wait_version_above(caller, before)
    caller.wait_for_function(
        "window.crapette.view.legal.some(a => a.do === 'call')", timeout=WAIT_MS
    )
    caller.keyboard.press("c")  # right or wrong, the verdict shows in the banner
    for page in pages:
        page.locator("[data-testid=banner]").wait_for(state="visible", timeout=WAIT_MS)
    caller.click("#btn-resign")
    caller.click("#btn-resign-game")
    for page in pages:
        page.locator("[data-testid=game-end]").wait_for(state="visible", timeout=WAIT_MS)
        assert "resign" in page.inner_text("[data-testid=end-title]")
        assert page.locator("[data-testid=banner]").is_hidden()
    assert not (pages[0].errors or pages[1].errors), pages[0].errors + pages[1].errors


FILL_RULE = "priority: fill the empty house from your reserve first"  # domain/priority.py
FILL_KEY = "rule.priority_fill_the_empty_house_from_your_reserve_first"


@pytest.mark.parametrize("lang", ["en", "fr", "da", "it", "fi"])
def test_a_fault_s_rule_is_worded_from_the_reader_s_side(
    server: ServerProcess, new_page: Any, lang: str
) -> None:
    """The end-of-game list says the broken rule to the offender as his own ("your reserve"),
    to his opponent and a spectator in the third person; a right call names the offender."""
    page, words = lobby_in(new_page, server, lang)
    said = page.evaluate(
        """async (rule) => {
          const w = await import("/static/js/words.js");
          const fault = {seat: 0, rule, missed: true};
          const ev = {type: "HandCardTurned", seat: 0, card: "7S/0"};
          const call = {type: "CrapetteCalled", caller: 1, verdict: "right", rule};
          const out = {};
          for (const [who, viewer] of [["ann", 0], ["bob", 1], ["watcher", null]]) {
            const ctx = {viewer, players: ["Ann", "Bob"], piles: {}};
            out[who] = {
              line: w.faultLineWords(fault, ev, ctx),
              unknown: w.faultLineWords(fault, null, ctx),
              call: w.eventWords(call, ctx),
            };
          }
          return out;
        }""",
        FILL_RULE,
    )
    yours, theirs = words[FILL_KEY], words[f"{FILL_KEY}.theirs"]
    named = words[f"{FILL_KEY}.players"].replace("{player}", "Ann")
    assert yours in said["ann"]["line"] and yours in said["ann"]["call"]
    for reader in ("bob", "watcher"):
        assert theirs in said[reader]["line"], said[reader]
        assert named in said[reader]["unknown"], said[reader]  # the line does not name her
        assert named in said[reader]["call"], said[reader]  # the caller is named, not her
    if lang == "en":
        assert "your" not in said["bob"]["line"] + said["watcher"]["line"]
        assert said["bob"]["call"].endswith("(fill the empty house from Ann's reserve first)")


def test_the_match_s_winner_is_said_with_his_total_first(
    server: ServerProcess, new_page: Any
) -> None:
    """'Bob wins the match 182–0', not '0–182': the log gives the winner's total first, whichever
    seat he had."""
    page, _ = lobby_in(new_page, server, "en")
    said = page.evaluate(
        """async () => {
          const w = await import("/static/js/words.js");
          const ctx = {viewer: null, players: ["Ann", "Bob"], piles: {}};
          return [0, 1].map((winner) => w.eventWords(
            {type: "MatchWon", winner, totals: winner ? [0, 182] : [182, 0]}, ctx));
        }"""
    )
    assert said == ["Ann wins the match 182–0", "Bob wins the match 182–0"], said


def test_the_keyboard_cursor_marks_a_turn_s_hand(server: ServerProcess, new_page: Any) -> None:
    """H (hint) or an arrow on a turn marks the hand it turns from, on a discard the turned card,
    as a move marks its source: a position whose only action was a turn showed no mark at all."""
    page = new_page()
    page.goto(server.url + "/")
    marked = page.evaluate(
        """async () => {
          const m = await import("/static/js/table_input.js");
          const out = [];
          const board = {mark: (cls, piles) => { if (cls === "cursor-from") out.push(piles); }};
          const controls = Object.create(m.Controls.prototype, {
            seat: {value: 1}, board: {value: board},
          });
          controls.markCursor({do: "turn", seat: 1});
          controls.markCursor({do: "turn", seat: 1, hand: "J1"});
          controls.markCursor({do: "move", from: "R1", to: "F0"});
          controls.markCursor({do: "discard", seat: 1});
          controls.markCursor({do: "pass", seat: 1});
          controls.markCursor(null);
          return out;
        }"""
    )
    assert marked == [["H1"], ["J1"], ["R1"], ["X1"], [], []]


def test_a_page_of_an_old_protocol_is_told_to_reload(server: ServerProcess, new_page: Any) -> None:
    """Issue 28: the table page sends its protocol version in the handshake; a page cached from
    before an upgrade (here: net.js rewritten to speak version 1) is refused by the server and
    says so, in the page's language, instead of waiting for messages that never come."""
    opened = server.open_table(name="Ann", bot="random")
    page = new_page()

    def old_net(route: Any) -> None:
        response = route.fetch()
        body = response.text().replace("export const PROTOCOL = 2;", "export const PROTOCOL = 1;")
        assert "PROTOCOL = 1;" in body
        route.fulfill(response=response, body=body)

    page.route("**/js/net.js", old_net)
    page.goto(f"{server.url}/table/{opened['match_id']}?lang=fr")
    page.locator("#conn").filter(has_text="rechargez-la").wait_for(timeout=WAIT_MS)
    assert (
        page.inner_text("#conn")
        == "cette page est plus ancienne que le serveur\u00a0: rechargez-la"
    )
    assert "rechargez-la" in message(page)
    # The same page as served speaks the current version and plays.
    page.unroute("**/js/net.js")
    fresh = seated_page(new_page, server, opened["match_id"], 0, opened["seat_token"])
    assert fresh.inner_text("#conn") != page.inner_text("#conn")
    refused = fresh.evaluate(
        """async (url) => {
            const { io } = await import(url);
            const s = io({ auth: { protocol: 1 }, reconnection: false });
            return await new Promise((done) => s.on("connect_error", (err) => done(err.data)));
        }""",
        "/static/vendor/socket.io-client-4.8.4/socket.io.esm.min.js",
    )
    assert refused["code"] == "unsupported_protocol" and refused["supported"] == [2]
    assert not page.errors and not fresh.errors, (page.errors, fresh.errors)
