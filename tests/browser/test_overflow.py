"""No cut text and no code on any page (issue 39, points 3 and 6): every page (the lobby with its
advanced rules open, a table in play, a table waiting for its guest, two replays, the rules,
the players pages, the tournaments and a tournament) at 1280×800 and 390×844, in each of the
five languages, is swept in Chromium for

- text its box cuts (overflow hidden or an ellipsis), a word broken across two lines ("0–" /
  "0"), and a page that scrolls sideways;
- a select's option that would not fit the select once chosen ("the lower reserve card",
  "4 pöytäpinoa kummall…");
- a pile code (tests/browser/ui.py PILE_CODE) or a card code ("8D") in the visible text, a
  title, an aria-label, an option or a help text.

The names are long ones ("Annika-Kristiina", a bot), so that a header that fits only short
names fails. The pictures' captions are checked for codes in
tests/unit/server/readmodels/test_share_pictures.py."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.ui import PILE_CODE, WAIT_MS
from tests.integration.harness import ServerProcess

pytestmark = pytest.mark.browser

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "records"
LANGUAGES = ("en", "fr", "da", "it", "fi")
# A card by its code ("8D", "TS/1"): a player reads "8♦".
CARD_CODE = re.compile(r"\b(10|[2-9AJQKT])[SHDC](/[01])?\b")
SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}

# What a person would see cut, in the page as drawn: returns one line per fault found.
CUT = """() => {
  const out = [];
  const visible = (el) => {
    const s = getComputedStyle(el);
    if (s.visibility === "hidden" || s.display === "none") return false;
    const r = el.getBoundingClientRect();
    return r.width > 2 && r.height > 2; // a visually hidden heading is for screen readers
  };
  const label = (el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "")
    + (typeof el.className === "string" && el.className.trim()
      ? "." + el.className.trim().split(/\\s+/).join(".") : "");
  const ctx = document.createElement("canvas").getContext("2d");
  const textWidth = (text, el) => {
    const s = getComputedStyle(el);
    ctx.font = `${s.fontStyle} ${s.fontWeight} ${s.fontSize} ${s.fontFamily}`;
    return ctx.measureText(text).width;
  };
  const doc = document.documentElement;
  if (doc.scrollWidth > doc.clientWidth + 1) {
    const past = [...document.body.querySelectorAll("*")]
      .filter((e) => e.getBoundingClientRect().right > doc.clientWidth + 1);
    const deepest = past.filter((e) => ![...e.children].some((c) => past.includes(c)));
    out.push(`the page scrolls sideways (${deepest.slice(0, 3).map(label).join(", ")})`);
  }
  for (const el of document.body.querySelectorAll("*")) {
    if (!visible(el) || el.closest("svg, #board, [aria-hidden=true]")) continue;
    const s = getComputedStyle(el);
    if (el.tagName === "SELECT") {
      // The room for the chosen option's text: the select less its padding and its arrow.
      const room = el.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight) - 20;
      for (const o of el.options) {
        const w = textWidth(o.text, el);
        const px = `${Math.round(w)} > ${Math.round(room)} px`;
        if (w > room + 1) out.push(`${label(el)}: option "${o.text}" is cut (${px})`);
      }
      continue;
    }
    if (![...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) continue;
    const clipsX = ["hidden", "clip"].includes(s.overflowX) || s.textOverflow === "ellipsis";
    if (clipsX && el.scrollWidth > el.clientWidth + 1) {
      out.push(`${label(el)}: "${el.textContent.trim().slice(0, 70)}" is cut`);
    }
    if (["hidden", "clip"].includes(s.overflowY) && el.scrollHeight > el.clientHeight + 1) {
      out.push(`${label(el)}: "${el.textContent.trim().slice(0, 70)}" is cut below`);
    }
    // A word broken over two lines (a break after a hyphen is the hyphen's own).
    for (const n of el.childNodes) {
      if (n.nodeType !== 3) continue;
      const re = /[^\\s-]{2,}/g;
      let m;
      while ((m = re.exec(n.textContent))) {
        const range = document.createRange();
        range.setStart(n, m.index);
        range.setEnd(n, m.index + m[0].length);
        const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0)
          .map((r) => Math.round(r.top)));
        if (tops.size > 1) out.push(`${label(el)}: the word "${m[0]}" is broken over two lines`);
      }
    }
  }
  return out;
}"""

# Every word a player may read on the page: its text, titles, labels for screen readers,
# options and placeholders. The replay's move list keeps the notation in its titles (docs/web.md).
WORDS = """() => {
  const parts = [document.body.innerText, document.title];
  for (const el of document.querySelectorAll("[title], [aria-label], [placeholder], option")) {
    if (el.closest("#moves")) continue;
    parts.push(el.getAttribute("title") || "", el.getAttribute("aria-label") || "",
               el.getAttribute("placeholder") || "", el.tagName === "OPTION" ? el.text : "");
  }
  return parts.join("\\n");
}"""

# A variant's pile (second reserve, hands I and J) drawn on the board.
VARIANT_PILES_SHOWN = """() => [...document.querySelectorAll('#board [data-pile]')]
  .filter((el) => /^[QIJ]/.test(el.dataset.pile) && el.getClientRects().length > 0)
  .map((el) => el.querySelector('.slot-label')?.textContent ?? el.dataset.pile)"""

# What says each page is drawn.
READY = {
    "lobby": "window.lobbyReady === true",
    "table": "window.crapette && window.crapette.idle !== false && document.getElementById('log')",
    "replay": "window.replayReady === true",
    "rules": "document.readyState === 'complete'",
    "players": "window.playersReady === true",
    "tournaments": "window.tournamentsReady === true",
    "tournament": "window.tournamentReady === true",
}


def _import(server: ServerProcess, name: str, match_id: str, players: list[str]) -> None:
    record = json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))
    record.update(players=players, match_id=match_id)
    response = server.post("/api/records", record)
    assert response.status_code == 201, response.text


@pytest.fixture(scope="module")
def pages(server: ServerProcess) -> Iterator[tuple[list[tuple[str, str]], dict[str, str]]]:
    """The pages to sweep (kind, path) and the browser storage that seats the sweeper."""
    _import(server, "classic-win-recycle", "sweep-classic", ["Nina", "steady bot"])
    _import(server, "italian-three-hands-resign", "sweep-italian", ["Annika-Kristiina", "Bob"])
    playing = server.open_table(name="Annika-Kristiina", bot="steady", preset="italian-three-hands")
    waiting = server.open_table(name="Hugo", preset="classic")
    players = [{"name": "Annika-Kristiina"}, {"name": "Stella", "bot": "steady"}]
    body = {"name": "Club night", "format": "round-robin", "rounds": None, "preset": "classic"}
    tour = server.post("/api/tournaments", {**body, "match": "wins:1", "players": players}).json()
    tid, director = tour["tournament_id"], tour["director_token"]
    started = server.post(
        f"/api/tournaments/{tid}/director", {"director_token": director, "action": "start"}
    )
    assert started.status_code == 200, started.text
    storage = {
        f"crapette:seat:{t['match_id']}": json.dumps(
            {"seat": t["seat"], "seat_token": t["seat_token"], "name": name}
        )
        for t, name in ((playing, "Annika-Kristiina"), (waiting, "Hugo"))
    }
    storage[f"crapette:tournament:{tid}:director"] = director
    yield (
        [
            ("lobby", "/"),
            ("table", f"/table/{playing['match_id']}"),
            ("table", f"/table/{waiting['match_id']}"),
            ("replay", "/replay/sweep-classic"),
            ("replay", "/replay/sweep-italian"),
            ("rules", "/rules"),
            ("players", "/players"),
            ("players", "/players/Nina"),
            ("tournaments", "/tournaments"),
            ("tournament", f"/tournament/{tid}"),
        ],
        storage,
    )


@pytest.mark.timeout(600)  # fifty pages, each drawn and swept; never a speed check
@pytest.mark.parametrize("size", SIZES)
def test_no_page_cuts_a_word_or_shows_a_code(
    server: ServerProcess,
    new_page: Any,
    pages: tuple[list[tuple[str, str]], dict[str, str]],
    size: str,
    artifact_dir: Path,
) -> None:
    paths, storage = pages
    waiting = paths[2][1]  # the classic table waiting for its guest
    found: list[str] = []
    for lang in LANGUAGES:
        page = new_page(SIZES[size])
        page.goto(server.url + "/rules")
        for key, value in storage.items():
            page.evaluate("([k, v]) => localStorage.setItem(k, v)", [key, value])
        for kind, path in paths:
            page.goto(f"{server.url}{path}?lang={lang}")
            try:
                page.wait_for_function(READY[kind], timeout=4 * WAIT_MS)  # a loaded machine
            except Exception as exc:
                said = page.inner_text("body")[:300]
                raise AssertionError(
                    f"{lang} {path} never got ready: {page.errors} {said}"
                ) from exc
            # Its requests done before the next page: a server serves one replay job per
            # address at a time (docs/deploy.md), and a table page reads its match's replay.
            page.wait_for_load_state("networkidle", timeout=4 * WAIT_MS)
            if kind == "lobby":  # the advanced rules open: every option's select in view
                page.evaluate("document.querySelectorAll('details').forEach((d) => d.open = true)")
            page.evaluate("document.fonts.ready")
            found += [f"{lang} {path}: {said}" for said in page.evaluate(CUT)]
            if path == waiting:  # a classic table shows only the piles classic has
                extra = page.evaluate(VARIANT_PILES_SHOWN)
                found += [f"{lang} {path}: the empty slot {name} is shown" for name in extra]
            words = page.evaluate(WORDS)
            code = PILE_CODE.search(words) or CARD_CODE.search(words)
            if code:
                found.append(f"{lang} {path}: the code {code[0]} is shown")
            if lang in ("fi", "fr"):
                name = f"{size}-{lang}-{kind}-{len(found)}.png"
                page.screenshot(path=str(artifact_dir / name))
        assert not page.errors, page.errors
    assert not found, "\n".join(found)
