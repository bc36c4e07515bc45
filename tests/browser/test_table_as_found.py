"""The table as players found it (issue 31): what a person at the table met in a full game by
mouse, keyboard and touch, each held here as a player sees it, in Chromium."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import DESKTOP, PHONE
from tests.browser.ui import WAIT_MS, lobby_in, seated_page, settle, version, wait_idle
from tests.integration.harness import ServerProcess

pytestmark = pytest.mark.browser

LANDSCAPE = {"width": 844, "height": 390}  # a phone held sideways
DESKTOP_800 = {"width": 1280, "height": 800}  # a laptop


def bot_table(
    server: ServerProcess,
    new_page: Any,
    viewport: dict[str, int] | None = None,
    page: Any = None,
    **body: Any,
) -> Any:
    """A person seated at a new table against the steady bot, on his turn, the board settled
    (in `page` if given: a touch screen's)."""
    created = server.open_table(name="Ann", bot="steady", **body)
    page = page or new_page(viewport)
    seated_page(lambda: page, server, created["match_id"], created["seat"], created["seat_token"])
    page.wait_for_function(
        """() => { const c = window.crapette; return c.idle && !c.view.over
                   && c.view.to_move === c.seat && c.view.legal.length > 0; }""",
        timeout=WAIT_MS,
    )
    settle(page)
    return page


def test_enter_plays_the_chosen_move_whatever_has_the_focus(
    server: ServerProcess, new_page: Any, artifact_dir: Path
) -> None:
    """A click on an empty pile (the target of a click-then-click move) leaves the keyboard focus
    on that pile; ↓ then Enter must still play the move the status line names, not pick that
    pile up."""
    page = bot_table(server, new_page, DESKTOP)
    empty = page.evaluate(
        "Object.entries(window.crapette.view.piles).find(([p, c]) => p[0] === 'F' && !c.length)[0]"
    )
    page.locator(f'#board [data-pile="{empty}"] .slot').click()
    focused = page.evaluate("document.activeElement.closest('[data-pile]')?.dataset.pile ?? null")
    assert focused == empty, "the click should have left the focus on the empty pile"
    before = version(page)
    page.keyboard.press("ArrowDown")
    said = page.inner_text("[data-testid=message]")
    assert said.startswith("Enter plays: "), said
    chosen = page.evaluate("window.crapette.input.choices[window.crapette.input.cursor]")
    page.screenshot(path=str(artifact_dir / "enter-chosen.png"))
    page.keyboard.press("Enter")
    page.wait_for_function("v => window.crapette.version > v", arg=before, timeout=WAIT_MS)
    wait_idle(page)
    assert page.evaluate("window.crapette.input.selected") is None
    # The action right after `before` (the bot may already have answered: the newest view's
    # last action can be its own).
    match_id = page.evaluate("window.crapette.matchId")
    played = server.get(f"/api/matches/{match_id}/view?version={before + 1}").json()["view"][
        "last_action"
    ]
    if chosen["do"] == "move":
        assert (played["from"], played["to"]) == (chosen["from"], chosen["to"]), (played, chosen)
    else:
        assert played["do"] == chosen["do"], (played, chosen)
    assert not page.inner_text("[data-testid=message]").startswith("Enter plays")
    assert not page.errors


def test_a_call_s_verdict_goes_when_the_game_ends(
    server: ServerProcess, new_page: Any, artifact_dir: Path
) -> None:
    """A Crapette call, then a resignation: neither player's status line keeps the verdict beside
    "Game over.", nor after the other pressed "Next game" (the log keeps it)."""
    created = server.open_table(name="Ann", preset="classic", match="wins:2")
    match_id = created["match_id"]
    joined = server.join(match_id, "Bob")
    pages = [
        seated_page(new_page, server, match_id, s["seat"], s["seat_token"], name)
        for s, name in ((created, "Ann"), (joined, "Bob"))
    ]
    for page in pages:
        wait_idle(page)
    to_move = pages[0].evaluate("window.crapette.view.to_move")
    mover = next(p for p in pages if p.evaluate("window.crapette.seat") == to_move)
    caller = next(p for p in pages if p is not mover)
    legal = mover.evaluate(
        "window.crapette.view.legal.filter(a => ['move', 'turn'].includes(a.do))"
    )
    before = version(mover)
    mover.evaluate("a => window.crapette.act(a)", legal[0])
    caller.wait_for_function(
        "v => window.crapette.version > v && window.crapette.view.legal.some(a => a.do === 'call')",
        arg=before,
        timeout=WAIT_MS,
    )
    caller.keyboard.press("c")  # right or wrong, the verdict is said in the status line
    for page in pages:
        page.wait_for_function(
            "document.querySelector('[data-testid=message]').dataset.kind === 'verdict'",
            timeout=WAIT_MS,
        )
    verdict = caller.inner_text("[data-testid=message]")
    assert "Crapette" in verdict, verdict
    caller.click("#btn-resign")
    caller.click("#btn-resign-game")
    for page in pages:
        page.locator("[data-testid=game-end]").wait_for(state="visible", timeout=WAIT_MS)
        assert page.inner_text("[data-testid=turn]") == "Game over."
    mover.click("[data-testid=next-game]")  # the other player is ready
    caller.locator("[data-testid=next-wait]").filter(has_text="ready").wait_for(timeout=WAIT_MS)
    for i, page in enumerate(pages):
        page.screenshot(path=str(artifact_dir / f"after-resign-{i}.png"))
        message = page.locator("[data-testid=message]")
        assert message.get_attribute("data-kind") != "verdict"
        assert "Crapette" not in message.inner_text(), message.inner_text()
        assert page.locator("[data-testid=banner]").is_hidden()
        log = page.inner_text("[data-testid=log]")
        assert "Crapette" in log  # the verdict stays where the game's story is told
    assert not (pages[0].errors or pages[1].errors), pages[0].errors + pages[1].errors


# Each animation frame: does each seat panel's "reserve N … hand N · waste N" agree with the
# counts drawn on the board's piles? Records the frames where they differ, and how far behind the
# board was (queued views) at most.
WATCH_COUNTS = """() => {
  const page = window.crapette;
  const out = (window.countWatch = {frames: 0, wrong: [], behind: 0, stop: false});
  const drawn = (pile) => Number(document.querySelector(`#board [data-pile="${pile}"]`)
    ?.dataset.count ?? 0);
  const frame = () => {
    if (out.stop) return;
    out.frames++;
    out.behind = Math.max(out.behind, page.queue.length + (page.animating ? 1 : 0));
    for (const s of [0, 1]) {
      const text = document.querySelector(`.seat-info[data-seat="${s}"] .counts`).textContent;
      const m = /reserve (\\d+) .*hand (\\d+) · waste (\\d+)/.exec(text);
      if (!m) continue;
      const board = [drawn(`R${s}`) + drawn(`Q${s}`),
                     drawn(`H${s}`) + drawn(`I${s}`) + drawn(`J${s}`), drawn(`W${s}`)];
      if (board.join() !== m.slice(1).join()) out.wrong.push({seat: s, text, board});
    }
    requestAnimationFrame(frame);
  };
  frame();
}"""

# Every card flight of the board lasts ~0.7 s, as on a slow machine: the bot's burst of actions
# queues up behind the board, which shows them one at a time.
SLOW_FLIGHTS = """() => {
  const board = window.crapette.board, render = board.render.bind(board);
  board.render = (view) => {
    const flights = render(view);
    const slow = new Promise((resolve) => setTimeout(resolve, 700));
    return board.animate ? [...flights, {finished: slow}] : flights;
  };
}"""

# The person ends his turn at once: a discard, else a turn, else a pass, else any move.
END_TURN = """async () => {
  const page = window.crapette;
  const order = ["discard", "turn", "pass", "move"];
  for (let i = 0; i < 20 && page.view.to_move === page.seat && !page.view.over; i++) {
    const legal = page.view.legal.filter((a) => order.includes(a.do));
    legal.sort((a, b) => order.indexOf(a.do) - order.indexOf(b.do));
    if (!legal.length) break;
    const v = page.version;
    await page.act(legal[0]);
    for (let t = 0; t < 100 && page.version === v; t++) await new Promise((r) => setTimeout(r, 20));
  }
}"""


def test_the_seat_panels_count_what_the_board_shows(
    server: ServerProcess, new_page: Any, artifact_dir: Path
) -> None:
    """While the bot's actions still fly onto the board one at a time, each player's panel says
    the counts of the piles drawn, not those of the newest view."""
    page = bot_table(server, new_page, DESKTOP)
    page.evaluate(SLOW_FLIGHTS)
    page.evaluate(WATCH_COUNTS)
    page.evaluate(END_TURN)
    page.wait_for_timeout(900)  # mid-burst
    page.screenshot(path=str(artifact_dir / "counts-mid-burst.png"))
    page.wait_for_function(
        """() => { const c = window.crapette; return c.view.over ||
                   (c.idle && c.view.to_move === c.seat); }""",
        timeout=60_000,
    )
    watch = page.evaluate("window.countWatch.stop = true, window.countWatch")
    assert watch["behind"] >= 2, "the board never fell behind: nothing was checked"
    assert watch["frames"] > 10
    assert watch["wrong"] == [], watch["wrong"][:5]
    assert not page.errors


# Which of these name tags show, and whether anything drawn above covers their centre (the
# tags let clicks through, so they are made hit-testable for the question).
TAGS_SHOWN = """(selector) => {
  const out = {};
  for (const tag of document.querySelectorAll(selector)) {
    const pile = tag.closest('[data-pile]');
    if (pile.hidden) continue;
    const r = tag.getBoundingClientRect();
    tag.style.pointerEvents = 'auto';
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    tag.style.pointerEvents = '';
    const inView = r.width > 0 && r.left >= 0 && r.right <= innerWidth && r.top >= 0;
    out[pile.dataset.pile] = {text: tag.textContent, seen: inView && hit === tag};
  }
  return out;
}"""


@pytest.mark.parametrize(
    ("size", "viewport"), [("desktop", DESKTOP), ("phone", PHONE), ("landscape", LANDSCAPE)]
)
def test_the_board_names_the_piles_the_log_names(
    server: ServerProcess, new_page: Any, artifact_dir: Path, size: str, viewport: dict[str, int]
) -> None:
    """Every house shows its number, whatever lies on it, and each of three hands its letter
    H, I or J; the log says which hand a card was turned from, H included; a click on another
    hand while a card is turned says why nothing happens."""
    # Priorities as advice only: the turn below is never a fault the bot would call.
    options = {"enforcement": "lenient"}
    page = bot_table(server, new_page, viewport, preset="italian-three-hands", options=options)
    seat = page.evaluate("window.crapette.seat")
    houses = page.evaluate(TAGS_SHOWN, "#board .house-no")
    assert houses == {f"T{i}": {"text": str(i + 1), "seen": True} for i in range(8)}, houses
    hands = page.evaluate(TAGS_SHOWN, "#board .hand-letter")
    expected = {f"{k}{s}": {"text": k, "seen": True} for k in "HIJ" for s in (0, 1)}
    assert hands == expected, hands
    label = page.get_attribute(f'[data-pile="I{seat}"]', "aria-label")
    assert label == "your hand I", label

    # A click on hand I turns from it, and the log says so.
    box = page.locator(f'#board [data-pile="I{seat}"] .hand-letter').bounding_box()
    assert box is not None
    before = version(page)
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_function("v => window.crapette.version > v", arg=before, timeout=WAIT_MS)
    card = page.evaluate("window.crapette.view.last_action.card")
    assert page.evaluate("window.crapette.view.last_action.hand") == f"I{seat}"
    mine = page.locator("[data-testid=log] li.mine").last
    assert mine.inner_text().startswith("You turned ") and mine.inner_text().endswith(
        "from your hand I"
    ), mine.inner_text()
    assert card
    # Now a card is turned: a click on hand J does not turn, and says why.
    settle(page)
    box = page.locator(f'#board [data-pile="J{seat}"] .hand-letter').bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_function(
        "document.querySelector('[data-testid=message]').dataset.kind === 'refused'",
        timeout=WAIT_MS,
    )
    said = page.inner_text("[data-testid=message]")
    assert "play or discard your hand card first" in said.lower(), said
    page.screenshot(path=str(artifact_dir / f"pile-names-{size}.png"))
    assert not page.errors


def test_a_turn_from_hand_h_is_said_from_hand_h(server: ServerProcess, new_page: Any) -> None:
    """With three hands the log names hand H too (the event names only I and J); with one hand
    it says nothing of hands."""
    page, _ = lobby_in(new_page, server, "en")
    said = page.evaluate(
        """async () => {
          const w = await import("/static/js/words.js");
          const three = {H0: [null], I0: [null], J0: [null], H1: [null], I1: [], J1: []};
          const ev = {type: "HandCardTurned", seat: 0, card: "9S/0"};
          const out = [];
          for (const piles of [three, {H0: [null], H1: [null]}]) {
            for (const viewer of [0, 1]) {
              out.push(w.eventWords(ev, {viewer, players: ["Ann", "Bob"], piles}));
            }
          }
          out.push(w.eventWords({...ev, hand: "J0"}, {viewer: 1, players: ["Ann", "Bob"],
                                                    piles: three}));
          return out;
        }"""
    )
    assert said == [
        "You turned 9♠ from your hand H",
        "Ann turned 9♠ from their hand H",
        "You turned 9♠",
        "Ann turned 9♠",
        "Ann turned 9♠ from their hand J",
    ], said


# Whatever a player may press or read to play, and each pile: where it is drawn.
PLACES = """() => {
  const out = [];
  const add = (what, el) => {
    if (!el || el.closest('[hidden]') || !el.getClientRects().length) return;
    const r = el.getBoundingClientRect();
    out.push({what, left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width});
  };
  for (const el of document.querySelectorAll('#controls button')) add(el.id, el);
  for (const el of document.querySelectorAll('header.bar a, header.bar summary')) {
    add(el.textContent.trim(), el);
  }
  for (const el of document.querySelectorAll('#board [data-pile]')) add(el.dataset.pile, el);
  add('status', document.querySelector('[data-testid=turn]'));
  return out;
}"""

# Slot labels whose word is cut in two: more lines than words.
BROKEN_LABELS = r"""() => [...document.querySelectorAll('#board .slot-label')].filter((label) => {
  if (label.closest('[hidden]')) return false;
  const range = document.createRange();
  range.selectNodeContents(label);
  const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
  return lines.size > label.textContent.trim().split(/\s+/).length;
}).map((label) => label.textContent)"""


def touch_page(browser: Any, viewport: dict[str, int]) -> Any:
    """A phone's browser: a touch screen (coarse pointer), this window size."""
    context = browser.new_context(
        viewport=viewport,
        is_mobile=True,
        has_touch=True,
        bypass_csp=True,  # conftest.py
    )
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    return page


@pytest.mark.parametrize("preset", ["classic", "italian-three-hands"])
def test_a_phone_held_sideways_plays_without_scrolling(
    server: ServerProcess, new_page: Any, browser: Any, artifact_dir: Path, preset: str
) -> None:
    """At 844×390 every button, the header's links and every pile are on the screen at once,
    nothing scrolls sideways, cards are at least 40 px wide and no pile's name breaks a word
    ("TURNE/D"); the resign menu too."""
    page = bot_table(server, new_page, page=touch_page(browser, LANDSCAPE), preset=preset)
    try:
        assert page.evaluate("matchMedia('(pointer: coarse)').matches")
        page.screenshot(path=str(artifact_dir / f"landscape-{preset}.png"))
        places = page.evaluate(PLACES)
        off = [
            p
            for p in places
            if p["left"] < 0 or p["top"] < 0 or p["right"] > 844.5 or p["bottom"] > 390.5
        ]
        assert off == [], off
        drawn = {p["what"] for p in places}
        assert {"btn-turn", "btn-call", "btn-resign", "R0", "W1", "T7", "F7"} <= drawn, drawn
        assert page.evaluate("scrollY") == 0
        assert page.evaluate("document.documentElement.scrollWidth") <= 844
        width = page.evaluate("document.querySelector('#board .pile.reserve').offsetWidth")
        assert width >= 40, f"cards {width} px wide"
        assert page.evaluate(BROKEN_LABELS) == []
        assert page.locator(".keys-help").is_hidden()  # a touch screen has no keys
        page.click("#btn-resign")
        page.screenshot(path=str(artifact_dir / f"landscape-{preset}-resign.png"))
        menu = [p for p in page.evaluate(PLACES) if p["what"].startswith("btn-")]
        assert {"btn-resign-game", "btn-abandon", "btn-resign-cancel"} <= {p["what"] for p in menu}
        assert all(p["bottom"] <= 390.5 and p["right"] <= 844.5 for p in menu), menu
        assert not page.errors
    finally:
        page.context.close()


def test_a_phone_held_upright_has_a_short_header_and_no_key_help(
    server: ServerProcess, new_page: Any, browser: Any, artifact_dir: Path
) -> None:
    """At 390×844 on a touch screen the header takes at most three rows (it took four) and the
    keyboard's help and key caps are not shown."""
    page = bot_table(server, new_page, page=touch_page(browser, PHONE))
    try:
        page.screenshot(path=str(artifact_dir / "portrait-touch.png"))
        # Rows of the header: its items' middles, those less than 10 px apart on one row.
        middles = page.evaluate(
            """() => [...document.querySelectorAll('header.bar > *')]
                 .filter((el) => el.getClientRects().length)
                 .map((el) => el.getBoundingClientRect())
                 .map((r) => (r.top + r.bottom) / 2)
                 .sort((a, b) => a - b)"""
        )
        rows = 1 + sum(1 for a, b in zip(middles, middles[1:], strict=False) if b - a >= 10)
        assert rows <= 3, f"{rows} header rows"
        assert page.locator(".keys-help").is_hidden()
        caps = page.evaluate(
            "[...document.querySelectorAll('#controls kbd')].filter(k => k.offsetWidth).length"
        )
        assert caps == 0
        # The language links are codes to the eye, their names to a screen reader.
        french = page.locator("nav.languages a[data-lang=fr]")
        assert french.text_content() == "Français"
        assert not page.errors
    finally:
        page.context.close()


def ticket_page(new_page: Any, server: ServerProcess, match_id: str, ticket: dict[str, Any]) -> Any:
    """A browser holding a person's token for a rotation table (seated or waiting), on its page."""
    page = new_page(DESKTOP_800)
    page.goto(server.url + "/rules")  # the server's origin, to reach its storage
    saved = {"seat": ticket["seat"], "seat_token": ticket["seat_token"], "name": ticket["name"]}
    page.evaluate(
        "([k, v]) => localStorage.setItem(k, JSON.stringify(v))",
        [f"crapette:seat:{match_id}", saved],
    )
    page.goto(f"{server.url}/table/{match_id}")
    page.wait_for_function("window.crapette && window.crapette.view", timeout=WAIT_MS)
    return page


HEADER_AND_BOARD = """() => ({
  header: document.getElementById('match-score').textContent,
  board: [0, 1].map((s) => document.querySelector(`.seat-info[data-seat="${s}"] .name`)
    .textContent.replace(' (you)', '')),
  points: [0, 1].map((s) => document.querySelector(`.seat-info[data-seat="${s}"] .counts`)
    .textContent.split(' pts')[0]),
})"""


def test_a_table_of_four_keeps_the_board_in_view_and_names_one_pair(
    server: ServerProcess, new_page: Any, artifact_dir: Path
) -> None:
    """Four people: the two who wait see the whole board at 1280×800 beside their notice, and
    after the seat change the header names the pair the board names, with the same points."""
    opened = server.open_table(name="Ann", preset="italian-four", match="wins:3")
    match_id = opened["match_id"]
    tickets = [{**opened, "name": "Ann"}] + [
        server.join(match_id, n) for n in ("Bob", "Cid", "Dan")
    ]
    ann, bob, cid, dan = (ticket_page(new_page, server, match_id, t) for t in tickets)
    for page in (cid, dan):
        page.wait_for_function("window.crapette.waiting", timeout=WAIT_MS)
        page.locator("[data-testid=queue-you]").wait_for(state="visible", timeout=WAIT_MS)
        wait_idle(page)
        bottom = page.evaluate("document.getElementById('board').getBoundingClientRect().bottom")
        assert bottom <= 800, f"the board ends at {bottom} px, below the window"
        assert page.evaluate("scrollY") == 0
    dan.screenshot(path=str(artifact_dir / "four-waiting.png"))

    # Ann resigns game 1: Bob won it and gives up his seat (winner_out) to Cid.
    ann.wait_for_function("!document.getElementById('btn-resign').disabled", timeout=WAIT_MS)
    ann.click("#btn-resign")
    ann.click("#btn-resign-game")
    for page in (ann, bob, cid, dan):
        page.locator("[data-testid=game-end]").wait_for(state="visible", timeout=WAIT_MS)
        page.wait_for_function(
            "document.querySelector('[data-testid=seat-change]').textContent.includes('sit')",
            timeout=WAIT_MS,
        )
        wait_idle(page)
    shots = {"ann": ann, "cid": cid, "dan": dan}
    for who, page in shots.items():
        page.screenshot(path=str(artifact_dir / f"four-after-change-{who}.png"))
        seen = page.evaluate(HEADER_AND_BOARD)
        a, b = seen["board"]
        pa, pb = seen["points"]
        assert seen["header"].startswith(f"{a} {pa} – {pb} {b}"), (who, seen)
    assert not any(p.errors for p in (ann, bob, cid, dan))
