"""What a player does with the mouse and keyboard, and what the test reads back from the page.

The page keeps its state in `window.crapette` (table) and `window.replay` (replay viewer); tests
read the server's view from there only to choose a move, and check results in the DOM.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, TypedDict

WAIT_MS = 15_000  # upper bound of any wait; never an assertion about speed
# A pile code (R0, Q1, H0, X1, W0, T0-T7, F0-F7): no player-facing text may hold one.
PILE_CODE = re.compile(r"\b([RQHIJXW][01]|[TF][0-7])\b")


def pile_top(page: Any, pile: str) -> Any:
    return page.locator(f'#board [data-pile="{pile}"] .card:last-of-type')


def pile_box(page: Any, pile: str) -> dict[str, float]:
    box: dict[str, float] | None = page.locator(f'#board [data-pile="{pile}"]').bounding_box()
    assert box is not None, f"pile {pile} is not on the page"
    return box


def centre(box: dict[str, float]) -> tuple[float, float]:
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def target_point(page: Any, pile: str) -> tuple[float, float]:
    """A point on the pile where a card would be dropped: its top card if any, else its slot."""
    top = pile_top(page, pile)
    if top.count():
        box = top.bounding_box()
    else:
        box = page.locator(f'#board [data-pile="{pile}"] .slot').bounding_box()
    assert box is not None
    return centre(box)


def view(page: Any) -> dict[str, Any] | None:
    result: dict[str, Any] | None = page.evaluate("window.crapette && window.crapette.view")
    return result


def the_view(page: Any) -> dict[str, Any]:
    """The page's view, which the test knows is there by now."""
    seen = view(page)
    assert seen is not None, "the page has no view"
    return seen


def version(page: Any) -> int:
    return int(page.evaluate("window.crapette && window.crapette.version") or 0)


def wait_version_above(page: Any, v: int) -> None:
    """Wait for a newer version and for the board to show it (the table animates one action at
    a time, so the board may be a few flights behind the newest view for a moment)."""
    page.wait_for_function(
        "v => window.crapette && window.crapette.version > v && window.crapette.idle",
        arg=v,
        timeout=WAIT_MS,
    )


def wait_idle(page: Any) -> None:
    """Wait until the board shows the newest view received."""
    page.wait_for_function("window.crapette && window.crapette.idle", timeout=WAIT_MS)


def my_turn(page: Any) -> None:
    """Wait until it is the seated player's turn and he has something to do."""
    page.wait_for_function(
        """() => { const c = window.crapette; return c && c.view && !c.view.over &&
                   c.view.to_move === c.seat && c.view.legal.length > 0; }""",
        timeout=WAIT_MS,
    )


NEXT_ACTION = """() => { const legal = window.crapette.view.legal; const find = (d) =>
  legal.find((a) => a.do === d); return find('move') ?? find('turn') ?? find('discard')
  ?? find('pass'); }"""


def act(page: Any, action: dict[str, Any]) -> None:
    before = page.evaluate("window.crapette.version")
    page.evaluate("(a) => window.crapette.act(a)", action)
    page.wait_for_function("v => window.crapette.version > v", arg=before, timeout=WAIT_MS)


def wait_my_move(page: Any) -> None:
    """Wait until the seated player can move a card: on his turn, turn and discard hand cards
    until one can (a deal may open with nothing to move but the hand's card)."""
    for _ in range(200):
        my_turn(page)
        action = page.evaluate(NEXT_ACTION)
        if action["do"] == "move":
            return
        act(page, action)
    raise AssertionError("no card to move in 200 actions")


def settle(page: Any) -> None:
    """Wait until no card is still flying into place: a card grabbed mid-flight is not where
    its pile is, so a drag from there (or a drop on it) would miss, as a hurried person's would."""
    if page.evaluate("Boolean(window.crapette)"):
        wait_idle(page)
    # Finite animations only: a pulsing highlight (the "Crapette!" button when a call is open)
    # runs for ever.
    page.wait_for_function(
        """() => document.getAnimations().every((a) =>
             a.playState !== 'running' || a.effect?.getComputedTiming().endTime === Infinity)""",
        timeout=WAIT_MS,
    )


def drag(page: Any, src: str, dst: str) -> None:
    """Press on the top card of `src`, move in steps, release over `dst`."""
    settle(page)
    box = pile_top(page, src).bounding_box()
    assert box is not None, f"no card to drag on {src}"
    x, y = centre(box)
    tx, ty = target_point(page, dst)
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 10, y + 10, steps=3)
    page.mouse.move(tx, ty, steps=12)
    page.mouse.up()


def click_move(page: Any, src: str, dst: str) -> None:
    """Click the top card of `src`, then click `dst`."""
    settle(page)
    pile_top(page, src).click()
    x, y = target_point(page, dst)
    page.mouse.click(x, y)


def message(page: Any) -> str:
    text: str = page.locator("[data-testid=message]").inner_text()
    return text


class DrawnPile(TypedDict):
    count: int
    cards: list[str | None]


_DRAWN = """() => {
    const out = {};
    for (const el of document.querySelectorAll('#board [data-pile]')) {
      if (el.hidden) continue;
      const cards = [...el.querySelectorAll('.card:not(.under)')]
        .map(c => c.dataset.card || null);
      out[el.dataset.pile] = {count: Number(el.dataset.count || 0), cards};
    }
    return out;
}"""


def board_piles(page: Any) -> dict[str, DrawnPile]:
    """Every pile as drawn: a house lists all its cards, other piles their count and top card."""
    result: dict[str, DrawnPile] = page.evaluate(_DRAWN)
    return result


def board_and_view(page: Any) -> tuple[dict[str, DrawnPile], dict[str, Any]]:
    """The board as drawn and the view it shows, read in one script once the page is idle: a
    bot's action arriving between two separate reads cannot set them apart."""
    handle = page.wait_for_function(
        f"""() => {{ const c = window.crapette;
                   if (!c || !c.idle || !c.view) return null;
                   return {{drawn: ({_DRAWN})(), view: c.view}}; }}""",
        timeout=WAIT_MS,
    )
    both: dict[str, Any] = handle.json_value()
    return both["drawn"], both["view"]


def seated_page(
    new_page: Any, server: Any, match_id: str, seat: int, token: str, name: str | None = None
) -> Any:
    """A browser that took this seat earlier (its token in localStorage), at the table."""
    page = new_page()
    page.goto(server.url + "/rules")  # any page of the server's origin, to reach its storage
    name = name or ("Ann", "Bob")[seat]
    saved = json.dumps({"seat": seat, "seat_token": token, "name": name})
    page.evaluate("([k, v]) => localStorage.setItem(k, v)", [f"crapette:seat:{match_id}", saved])
    page.goto(f"{server.url}/table/{match_id}")
    page.wait_for_function(
        "s => window.crapette && window.crapette.view && window.crapette.seat === s",
        arg=seat,
        timeout=WAIT_MS,
    )
    return page


def create_table(
    page: Any, server: Any, name: str, choices: dict[str, str] | None = None, lang: str = ""
) -> str:
    """Open a table with the lobby's form, as a person does: the name, then each `choices`
    select (by element id, in order: a preset before the options it fills in), then "Open".
    Against a bot the lobby goes to the table: returns its match id once the page has a view.
    Against a person it shows the invite: returns the match id of its link."""
    page.goto(server.url + "/" + (f"?lang={lang}" if lang else ""))
    page.wait_for_function("window.lobbyReady === true", timeout=WAIT_MS)
    page.fill("#name", name)
    for select, value in (choices or {}).items():
        page.select_option(f"#{select}", value)
    page.click("#create-btn")
    if (choices or {}).get("opponent"):
        page.wait_for_url("**/table/m-*", timeout=WAIT_MS)
        page.wait_for_function("window.crapette && window.crapette.view", timeout=WAIT_MS)
        match_id: str = page.url.rsplit("/", 1)[1]
        return match_id
    invite = page.locator("[data-testid=invite-url]")
    invite.wait_for(timeout=WAIT_MS)
    url: str = invite.input_value()
    assert "/table/m-" in url
    return url.rsplit("/", 1)[1]


def lobby_in(new_page: Any, server: Any, lang: str) -> tuple[Any, dict[str, Any]]:
    """A page of the server in `lang` (its lobby, loaded), to call the client's modules from,
    and that language's catalogue (web/i18n) to compare with what they say."""
    web = Path(__file__).resolve().parents[2] / "web"
    words: dict[str, Any] = json.loads((web / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))
    page = new_page()
    page.goto(f"{server.url}/?lang={lang}")
    page.wait_for_function("window.lobbyReady === true", timeout=WAIT_MS)
    return page, words
