"""The "Crapette!" button tells the truth (issue 39): a plain button like the others, enabled
only while a call can be made, and then naming what it would call ("Crapette! on 8♠ to house 3")
in the page's language; disabled and plain once the opponent's action may no longer be called."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.browser.ui import (
    NEXT_ACTION,
    WAIT_MS,
    act,
    create_table,
    settle,
    the_view,
    version,
    wait_version_above,
)
from tests.integration.harness import ServerProcess

WEB = Path(__file__).resolve().parents[2] / "web"
CARD = r"\S*[♠♥♦♣]"  # a card in short: rank letters of the language, then its suit


def catalogue(lang: str) -> dict[str, str]:
    words: dict[str, str] = json.loads((WEB / "i18n" / f"{lang}.json").read_text("utf-8"))
    return words


def template(words: dict[str, str], action: str) -> re.Pattern[str]:
    """The button's words for the call window's action, as a pattern: the card and the pile
    in words stand for any card and any words."""
    if re.match(r"^[A-Z][0-7]-[A-Z][0-7]", action):
        key = "call.on_move"
    else:
        key = {"turn": "call.on_turn", "discard": "call.on_discard", "pass": "call.on_pass"}[
            action.split(" ")[0]
        ]
    parts = re.split(r"(\{call\}|\{card\}|\{pile\})", words[key])
    fill = {"{call}": re.escape(words["call.word"]), "{card}": CARD, "{pile}": r"\D.*"}
    return re.compile("^" + "".join(fill.get(p, re.escape(p)) for p in parts) + "$")


def wait_call(page: Any) -> dict[str, Any]:
    """Play Ann's turns until the bot has acted and Ann, on her own turn, may call it or go on
    with an action of her own: the view then. A call open while the bot is still on its turn is
    waited out: Ann has nothing else to do then, and the bot's next action would close it."""
    for _ in range(400):
        page.wait_for_function(
            """() => { const c = window.crapette; return c && c.view && !c.view.over &&
                 c.view.legal.length > 0 && (c.view.to_move === c.seat ||
                 c.view.legal.some((a) => a.do === 'call')); }""",
            timeout=WAIT_MS * 2,
        )
        settle(page)
        view = the_view(page)
        mine = view["to_move"] == page.evaluate("window.crapette.seat")
        action = page.evaluate(NEXT_ACTION)
        if not mine or action is None:
            wait_version_above(page, version(page))  # the bot's next action
            continue
        # A move or a hand card's turn keeps Ann's turn, so the closed call can be seen after it.
        if action["do"] in ("move", "turn") and any(a["do"] == "call" for a in view["legal"]):
            return view
        act(page, action)
    raise AssertionError("no call open on Ann's turn in 400 actions")


@pytest.mark.parametrize("lang", ["en", "fr", "da", "it", "fi"])
def test_the_call_button_names_what_it_would_call_and_only_while_it_can(
    server: ServerProcess, new_page: Any, lang: str
) -> None:
    words = catalogue(lang)
    page = new_page()
    create_table(page, server, "Ann", {"opponent": "steady"}, lang=lang)
    plain = page.eval_on_selector("#btn-hint", "b => getComputedStyle(b).backgroundColor")
    view = wait_call(page)
    button = page.locator("#btn-call")
    assert button.is_enabled()
    text = button.inner_text().replace("\n", " ").rsplit(" ", 1)[0]  # less its key, C
    action = view["call_window"]["action"]
    assert template(words, action).match(text), (action, text)
    assert button.evaluate("b => getComputedStyle(b).backgroundColor") == plain
    assert button.evaluate("b => b.getAnimations().length") == 0
    # Once Ann acts, the bot's action can no longer be called: disabled, the call's word only.
    act(page, page.evaluate(NEXT_ACTION))
    page.wait_for_function(
        """() => { const c = window.crapette; return c.idle &&
             !c.view.legal.some((a) => a.do === 'call'); }""",
        timeout=WAIT_MS,
    )
    if not the_view(page)["legal"] and the_view(page)["to_move"] != 0:
        return  # the bot moves again at once: nothing else to check without a race
    assert not button.is_enabled()
    assert button.inner_text().replace("\n", " ").rsplit(" ", 1)[0] == words["call.word"]
    assert button.evaluate("b => getComputedStyle(b).backgroundColor") == plain
