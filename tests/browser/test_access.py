"""Accessibility: axe-core finds nothing serious on the lobby, the table (seated and watching) and
the replay; cards take the keyboard focus and say what they are; all text has a contrast of at
least 4.5:1; motion follows the system and a setting; "your turn" shows in the tab's title and,
when asked for, as a chime."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.browser.axe import MODERATE, serious_violations
from tests.browser.ui import NEXT_ACTION, WAIT_MS, act, create_table, my_turn, wait_my_move
from tests.integration.harness import ServerProcess

pytestmark = pytest.mark.browser

LAPTOP = {"width": 1280, "height": 800}
CARD_NAME = r"(ace|[2-9]|10|jack|queen|king) of (spades|hearts|diamonds|clubs)"

# Every element with text of its own: its colour against what is behind it, as a ratio. A
# gradient behind counts by its worst stop; disabled controls are exempt (WCAG 1.4.3).
CONTRASTS = """() => {
  const parse = (c) => {
    const m = c.match(/rgba?\\(([^)]+)\\)/);
    if (!m) return null;
    const p = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
    return {r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1};
  };
  const over = (top, under) => ({
    r: top.r * top.a + under.r * (1 - top.a), g: top.g * top.a + under.g * (1 - top.a),
    b: top.b * top.a + under.b * (1 - top.a), a: 1,
  });
  const lum = (c) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b);
  };
  const ratio = (a, b) => {
    const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05);
  };
  // What may be behind an element: its colour, else its ancestors' (a gradient: each stop).
  const backgrounds = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const s = getComputedStyle(e);
      const stops = (s.backgroundImage.match(/rgba?\\([^)]+\\)/g) ?? []).map(parse);
      const colour = parse(s.backgroundColor);
      if (stops.length) { layers.push(stops); break; }
      if (colour && colour.a > 0) { layers.push([colour]); if (colour.a >= 1) break; }
    }
    let options = [{r: 255, g: 255, b: 255, a: 1}];
    for (const stops of layers.reverse()) {
      options = stops.flatMap((stop) => options.map((under) => over(stop, under)));
    }
    return options;
  };
  const out = [];
  for (const el of document.querySelectorAll("body *")) {
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own || !el.getClientRects().length) continue;
    const s = getComputedStyle(el);
    if (s.visibility === "hidden" || el.closest(":disabled, [hidden], svg, option")) continue;
    if (el.closest("details:not([open]) > :not(summary)")) continue;
    const fg = parse(s.color);
    const worst = Math.min(...backgrounds(el).map((bg) => ratio(over(fg, bg), bg)));
    // A colour swatch ("■" beside its meaning) is a mark, not text: 3:1 (WCAG 1.4.11).
    const mark = /^[■●▲]+$/.test(el.textContent.trim());
    const text = el.textContent.trim().slice(0, 30);
    out.push({text, cls: el.className, ratio: worst, needed: mark ? 3 : 4.5});
  }
  return out;
}"""


def low_contrast(page: Any) -> list[str]:
    found = page.evaluate(CONTRASTS)
    assert len(found) > 10  # the check saw the page's text
    return [
        f"{t['ratio']:.2f} {t['cls']!r}: {t['text']!r}" for t in found if t["ratio"] < t["needed"]
    ]


def open_bot_table(page: Any, server: ServerProcess, **choices: str) -> str:
    return create_table(page, server, "Ann", {"opponent": "random", **choices})


def settle_labels(page: Any) -> None:
    """Labels follow the board a microtask after it changes: wait one frame (at a table, once
    the board shows the newest view: it shows actions one at a time)."""
    if page.evaluate("Boolean(window.crapette)"):
        page.wait_for_function("window.crapette.idle", timeout=WAIT_MS)
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => done()))")


def test_axe_finds_nothing_serious_and_all_text_has_contrast(
    server: ServerProcess, new_page: Any, artifact_dir: Path
) -> None:
    page = new_page(LAPTOP)
    page.goto(server.url + "/")
    page.wait_for_function("window.lobbyReady === true", timeout=WAIT_MS)
    page.click("#advanced summary")
    assert serious_violations(page) == []
    assert low_contrast(page) == []
    page.fill("#name", "Ann")
    page.click("#create-btn")
    page.locator("[data-testid=invite-url]").wait_for(timeout=WAIT_MS)
    assert serious_violations(page) == []  # the invite, with its QR code

    match_id = open_bot_table(page, server, match="wins:1", limit="none")
    wait_my_move(page)
    settle_labels(page)
    assert serious_violations(page, MODERATE) == [], "seated"
    assert low_contrast(page) == [], "seated"
    page.focus("#board .pile.playable .focus-target")
    page.keyboard.press("Enter")  # a card picked up, its targets lit
    page.locator("#board .pile.selected").wait_for(timeout=WAIT_MS)
    settle_labels(page)
    assert serious_violations(page) == [], "a card picked up"
    page.screenshot(path=str(artifact_dir / "table-keyboard.png"))

    watcher = new_page(LAPTOP)
    watcher.goto(f"{server.url}/table/{match_id}")
    watcher.wait_for_function("window.crapette && window.crapette.view", timeout=WAIT_MS)
    settle_labels(watcher)
    assert serious_violations(watcher, MODERATE) == [], "spectating"
    assert low_contrast(watcher) == [], "spectating"

    page.keyboard.press("Escape")
    page.click("#btn-resign")  # opens the choice: this game, or the whole match
    assert serious_violations(page) == [], "the resign choice"
    page.click("#btn-resign-game")
    page.locator("[data-testid=after-match]").wait_for(state="visible", timeout=WAIT_MS)
    assert serious_violations(page, MODERATE) == [], "match over"
    replay = new_page(LAPTOP)
    replay.goto(f"{server.url}/replay/{match_id}")
    replay.wait_for_function("window.replayReady === true", timeout=WAIT_MS)
    replay.keyboard.press("End")
    settle_labels(replay)
    assert serious_violations(replay, MODERATE) == [], "replay"
    assert low_contrast(replay) == [], "replay"
    assert not (page.errors or watcher.errors or replay.errors)


def test_the_page_headings_are_read_not_drawn_at_every_width(
    server: ServerProcess, new_page: Any
) -> None:
    """The table's and the replay's <h1> are for screen readers: at a laptop's width as on a
    phone, they take no room above the board (a style rule once sat inside the narrow screens'
    @media block, so wide screens drew a large title and lost the focus outlines)."""
    for size in (LAPTOP, {"width": 390, "height": 844}):
        page = new_page(size)
        match_id = open_bot_table(page, server, limit="none")
        for url in (f"/table/{match_id}", f"/replay/{match_id}"):
            page.goto(server.url + url)
            page.wait_for_selector("main h1", state="attached", timeout=WAIT_MS)
            box = page.locator("main h1").bounding_box()
            assert box is not None and box["height"] <= 1 and box["width"] <= 1, (size, url, box)
        # The settings' drop-down floats over the page rather than pushing it down.
        page.goto(f"{server.url}/table/{match_id}")
        page.wait_for_selector(".prefs-body", state="attached", timeout=WAIT_MS)
        position = page.evaluate("getComputedStyle(document.querySelector('.prefs-body')).position")
        assert position == "absolute", (size, position)


def test_cards_take_the_focus_and_say_what_they_are(server: ServerProcess, new_page: Any) -> None:
    page = new_page(LAPTOP)
    match_id = open_bot_table(page, server, limit="none")
    wait_my_move(page)
    settle_labels(page)
    # The board's parts have roles and names.
    assert page.get_attribute("#board", "aria-label") == "card table"
    assert page.get_attribute(".tray.bottom", "role") == "group"
    assert page.get_attribute(".tray.bottom", "aria-label") == "your cards"
    assert page.get_attribute(".tray.top", "aria-label") == "random bot's cards"
    assert page.get_attribute(".field", "aria-label") == "houses and foundations"

    # Every pile has one focus target: its top card in words (else "empty"), and whether the
    # player can move it; the corners' "7♠ 7♠" are hidden from screen readers.
    piles = page.evaluate(
        """() => [...document.querySelectorAll('#board [data-pile]')].filter((p) => !p.hidden)
             .map((p) => { const t = p.querySelectorAll('.focus-target');
               return {pile: p.dataset.pile, n: t.length, top: p.dataset.top,
                       count: Number(p.dataset.count),
                       playable: p.classList.contains('playable'),
                       label: t[0]?.getAttribute('aria-label'), role: t[0]?.getAttribute('role'),
                       tab: t[0]?.tabIndex}; })"""
    )
    assert len(piles) == 24
    for pile in piles:
        assert pile["n"] == 1 and pile["role"] == "button" and pile["tab"] == 0, pile
        label = pile["label"]
        if pile["count"] == 0:
            # An empty pile the player can fill (a legal destination) is marked playable too.
            assert re.search(r", empty(, playable)?$", label), pile
        elif not pile["top"]:
            assert label.startswith("face-down card, "), pile
        else:
            assert re.match(CARD_NAME, label), pile
        assert ("playable" in label) == pile["playable"], pile
    reserve = next(p for p in piles if p["pile"] == "R0")
    assert re.fullmatch(CARD_NAME + r", your reserve(, playable)?; \d+ cards", reserve["label"])
    bots_reserve = next(p for p in piles if p["pile"] == "R1")["label"]
    assert re.fullmatch(CARD_NAME + r", random bot's reserve; \d+ cards", bots_reserve)

    # Tab goes from card to card; Enter picks the focused card up, Space on a target plays it.
    page.focus('#board [data-pile="R1"] .focus-target')
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.closest('[data-pile]').dataset.pile") == "H1"
    legal = page.evaluate("window.crapette.view.legal.find((a) => a.do === 'move')")
    before = page.evaluate("window.crapette.version")
    page.focus(f'#board [data-pile="{legal["from"]}"] .focus-target')
    page.keyboard.press("Enter")
    assert "picked up" in page.get_attribute(
        f'#board [data-pile="{legal["from"]}"] .focus-target', "aria-label"
    )
    target = f'#board [data-pile="{legal["to"]}"] .focus-target'
    settle_labels(page)
    assert "you may move it here" in page.get_attribute(target, "aria-label")
    page.focus(target)
    page.keyboard.press(" ")
    page.wait_for_function("v => window.crapette.version > v", arg=before, timeout=WAIT_MS)
    assert page.evaluate("document.activeElement.closest('[data-pile]')?.dataset.pile") in (
        legal["to"],
        legal["from"],
    )  # the focus stays on the board where the move was made

    # A spectator reads the same cards as pictures, and cannot act on them.
    watcher = new_page(LAPTOP)
    watcher.goto(f"{server.url}/table/{match_id}")
    watcher.wait_for_function("window.crapette && window.crapette.view", timeout=WAIT_MS)
    settle_labels(watcher)
    roles = watcher.eval_on_selector_all(
        "#board .focus-target", "ts => [...new Set(ts.map((t) => t.getAttribute('role')))]"
    )
    assert roles == ["img"]
    assert "Ann's reserve" in watcher.get_attribute(
        '#board [data-pile="R0"] .focus-target', "aria-label"
    )
    assert not (page.errors or watcher.errors)


# Counts the card flights the page starts (the board slides cards with element.animate()).
COUNT_FLIGHTS = """
  window.__flights = 0;
  const animate = Element.prototype.animate;
  Element.prototype.animate = function (...args) {
    window.__flights += 1;
    return animate.apply(this, args);
  };
"""


def play_moves(page: Any, count: int) -> None:
    """Move `count` of Ann's cards (waiting for her turn, turning hand cards as needed)."""
    for _ in range(count):
        wait_my_move(page)
        act(page, page.evaluate(NEXT_ACTION))


def test_motion_follows_the_system_and_the_setting(
    server: ServerProcess, browser: Any, new_page: Any
) -> None:
    # The system asks for reduced motion: no card flies, and CSS animations are off too.
    context = browser.new_context(
        viewport=LAPTOP,
        reduced_motion="reduce",
        bypass_csp=True,  # conftest.py
    )
    try:
        calm = context.new_page()
        calm.add_init_script(COUNT_FLIGHTS)
        open_bot_table(calm, server, limit="none")
        play_moves(calm, 3)
        assert calm.evaluate("window.__flights") == 0
        assert calm.evaluate("document.documentElement.classList.contains('no-motion')")
        calm.click("[data-testid=prefs] summary")
        assert "reduced motion" in calm.inner_text("[data-testid=prefs]")
    finally:
        context.close()

    # Otherwise cards fly, until the player turns motion off in Settings (kept for next time).
    page = new_page(LAPTOP)
    page.add_init_script(COUNT_FLIGHTS)
    open_bot_table(page, server, limit="none")
    play_moves(page, 3)
    assert page.evaluate("window.__flights") > 0
    page.click("[data-testid=prefs] summary")
    page.uncheck("#pref-motion")
    assert page.evaluate("document.documentElement.classList.contains('no-motion')")
    page.evaluate("window.__flights = 0")
    play_moves(page, 3)
    assert page.evaluate("window.__flights") == 0
    page.reload()
    page.wait_for_function("window.crapette && window.crapette.view", timeout=WAIT_MS)
    assert page.evaluate("window.crapette.board.animate") is False
    assert not page.errors


ENDING_ACTION = """() => { const legal = window.crapette.view.legal; const find = (d) =>
  legal.find((a) => a.do === d); return find('discard') ?? find('turn') ?? find('pass')
  ?? find('move'); }"""


def test_your_turn_in_the_tab_title_and_a_chime(server: ServerProcess, new_page: Any) -> None:
    page = new_page(LAPTOP)
    open_bot_table(page, server, limit="none")
    page.click("[data-testid=prefs] summary")
    page.check("#pref-sound")  # a click: what lets a page play sound
    my_turn(page)
    assert page.title().startswith("Your turn")
    chimes = "import('/static/js/prefs.js').then((m) => m.chimes.played)"
    before = page.evaluate(chimes)
    # Ann ends her turn (turning and discarding hand cards until the turn passes)...
    for _ in range(200):
        if page.evaluate("window.crapette.view.to_move") != 0:
            break
        act(page, page.evaluate(ENDING_ACTION))
    page.wait_for_function("() => !document.title.startsWith('Your turn')", timeout=WAIT_MS)
    assert page.title() == "Crapette — table"
    # ...the bot plays, and when it is her turn again the title and the chime say so.
    page.wait_for_function("() => document.title.startsWith('Your turn')", timeout=30_000)
    # At least once: the bot's turn may hand the move back and forth (a call on Ann's last
    # action) before the test looks, and each return to her is a new "your turn".
    assert page.evaluate(chimes) >= before + 1
    # Once per turn, not once per update: the notice itself, told the same thing again.
    repeat = """import('/static/js/turn_notice.js').then(async (m) => {
        const prefs = await import('/static/js/prefs.js');
        const start = prefs.chimes.played, notice = new m.TurnNotice('t');
        notice.update(true); notice.update(true); notice.update(false); notice.update(true);
        return prefs.chimes.played - start; })"""
    assert page.evaluate(repeat) == 2
    assert not page.errors
