"""The table for people (issue 12): a person follows every action, calls each fault in time, sees
each game end, and reads no pile code anywhere.

These tests run a server where bots keep their tables' real pace (no `--bot-delay` override) and
the test-only `faulty` bot may be seated (`--test-bots`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import DESKTOP, PHONE
from tests.browser.ui import PILE_CODE, WAIT_MS, drag, message, the_view, view, wait_idle
from tests.integration.harness import ServerProcess

pytestmark = pytest.mark.browser

PLAYS = ("CardMoved", "HandCardTurned", "CardDiscarded", "Passed", "WasteTurnedOver")
NORMAL_PACE_MS = 1000  # server.model.tables.BOT_PACES["normal"]
GAME_WAIT_MS = 240_000  # upper bound for a whole game at a person's pace; never a speed check
SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": PHONE}

# A test player living in the page: it reads the log as a person would, presses "Crapette!"
# 700 ms after each of the bot's actions appears there (the call window of docs/spec/rules.md
# §7 stays open until the bot's next action, which a table at normal pace leaves for 1 s), and
# otherwise plays its own turns through the page's controls. After every new log line it scans
# the page's visible text for a pile code.
PLAYER = """
const startPlayer = () => {
  const page = window.crapette;
  if (!page || !document.getElementById("log")) return setTimeout(startPlayer, 20);
  const out = (window.player = {calls: [], codes: [], actions: 0, pending: 0, stop: false});
  const PLAYS = new Set(
    ["CardMoved", "HandCardTurned", "CardDiscarded", "Passed", "WasteTurnedOver"]);
  const code = /__PILE_CODE__/;
  const scan = () => {
    const text = document.body.innerText;
    const m = code.exec(text);
    if (m) out.codes.push(text.slice(Math.max(0, m.index - 40), m.index + 40));
  };
  const press = (key) => window.dispatchEvent(new KeyboardEvent("keydown", {key}));
  new MutationObserver((records) => {
    for (const r of records) {
      for (const li of r.addedNodes) {
        if (!(li instanceof HTMLElement) || !PLAYS.has(li.dataset.type)) continue;
        if (li.classList.contains("mine")) continue;
        const seen = Date.now();
        out.pending++;
        setTimeout(() => {
          out.pending--;
          const legal = page.view?.legal ?? [];
          if (legal.some((a) => a.do === "call")) {
            out.calls.push({text: li.textContent, after_ms: Date.now() - seen});
            press("c");
          }
        }, 700);
      }
    }
    scan();
  }).observe(document.getElementById("log"), {childList: true});
  const rank = (a) => a.do === "move" && a.to.startsWith("F") ? 0 : a.do === "turn" ? 1
    : a.do === "discard" ? 2 : a.do === "move" ? 3 : 4;
  const tick = async () => {
    if (out.stop) return;
    const v = page.view;
    if (out.play && v && !v.over && v.to_move === page.seat && !out.pending && !out.busy) {
      const legal = v.legal.filter((a) => !["call", "offer-draw", "accept-draw"].includes(a.do));
      legal.sort((a, b) => rank(a) - rank(b));
      if (legal.length) {
        out.busy = true;
        const a = legal[0];
        try {
          if (a.do === "move") await page.input.tryMove(a.from, a.to);
          else await page.input.doAction(a.do);
          out.actions++;
        } finally {
          out.busy = false;
        }
        scan();
      }
    }
    setTimeout(tick, 60);
  };
  tick();
};
if (location.pathname.startsWith("/table/")) startPlayer();
""".replace("__PILE_CODE__", PILE_CODE.pattern)


@pytest.fixture(scope="module")
def paced_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    process = ServerProcess(
        tmp_path_factory.mktemp("paced"), bot_delay_s=None, test_bots=True, grace_s=60.0
    )
    process.start()
    try:
        yield process
    finally:
        process.stop()


def sit_at_bot_table(
    server: ServerProcess, new_page: Any, player: bool = False, **body: Any
) -> tuple[Any, str]:
    """Open a bot table over the API and sit down at it in a new browser; with `player`, the
    test player watches the log from the page's first moment (it plays once told to)."""
    created = server.open_table(name="Tess", **body)
    page = new_page(DESKTOP)
    if player:
        page.add_init_script(PLAYER)
    page.goto(server.url + "/")
    seat = {"seat": created["seat"], "seat_token": created["seat_token"], "name": "Tess"}
    page.evaluate(
        "([k, v]) => localStorage.setItem(k, v)",
        [f"crapette:seat:{created['match_id']}", json.dumps(seat)],
    )
    page.goto(f"{server.url}/table/{created['match_id']}")
    page.wait_for_function(
        "window.crapette && window.crapette.view && window.crapette.view.piles.R0",
        timeout=WAIT_MS,
    )
    return page, created["match_id"]


def visible_text_has_no_pile_code(page: Any) -> None:
    text = page.inner_text("body")
    found = PILE_CODE.search(text)
    assert found is None, text[max(0, found.start() - 60) : found.end() + 60]


def game_events(server: ServerProcess, match_id: str, game_index: int) -> list[dict[str, Any]]:
    """The events of one finished game, faults revealed (the replay shows them once it is over)."""
    frames = server.get(f"/api/matches/{match_id}/replay").json()["frames"]
    return [f["event"] for f in frames if f.get("game_index") == game_index and f["event"]]


def test_a_person_calls_every_fault_of_a_game_at_normal_pace(
    paced_server: ServerProcess, new_page: Any, artifact_dir: Path
) -> None:
    page, match_id = sit_at_bot_table(
        paced_server, new_page, player=True, bot="faulty", preset="classic"
    )
    assert page.evaluate("window.crapette.table.bot_pace") == "normal"
    page.evaluate("window.player.play = true")
    page.locator("[data-testid=game-end]").wait_for(state="visible", timeout=GAME_WAIT_MS)
    page.evaluate("window.player.stop = true")
    player = page.evaluate("window.player")
    page.screenshot(path=str(artifact_dir / "call-test-game-end.png"))
    assert not player["codes"], player["codes"][:3]
    visible_text_has_no_pile_code(page)

    events = game_events(paced_server, match_id, 0)
    bot = 1 - page.evaluate("window.crapette.seat")
    # One fault per action: a turn that first recycles the waste carries it on both its events.
    faults = [
        i
        for i, e in enumerate(events)
        if e.get("fault") and e.get("seat") == bot and not (i and events[i - 1].get("fault"))
    ]
    assert len(faults) >= 3, "the faulty bot committed too few faults to test the call"
    right, late, delays = 0, [], []
    for i in faults:
        fault, rest = events[i], events[i + 1 :]
        # The fault's action may be several events (a discard ends the turn); the bot's next
        # action comes no sooner than its pace allows: that is the person's window.
        # (A discard made for him by a right call, `auto`, is none of his actions.)
        later = [
            k
            for k, e in enumerate(rest)
            if e.get("seat") == bot and e["type"] in PLAYS and not e.get("auto")
        ]
        if later:
            assert rest[later[0]]["at_ms"] - fault["at_ms"] >= NORMAL_PACE_MS, (fault, rest)
        call = next((k for k, e in enumerate(rest) if e["type"] == "CrapetteCalled"), None)
        if call is not None:
            delays.append(rest[call]["at_ms"] - fault["at_ms"])
        if call is not None and (not later or call < later[0]):
            assert rest[call]["verdict"] == "right", (fault, rest[call])
            assert delays[-1] >= 700  # a person's reaction, not a script's
            right += 1
        else:
            # Missed only when the page's call reached the server after the pace: the machine
            # (two cores shared by many test runs) delayed the update or the page's timer.
            assert call is None or delays[-1] >= NORMAL_PACE_MS, (fault, rest[call])
            late.append(fault)
    (artifact_dir / "call-delays.json").write_text(json.dumps({"ms": delays, "late": late}))
    assert right >= 3 and len(late) <= 1, (right, late, delays)
    assert any(e["type"] == "GameResigned" and e["seat"] == bot for e in events)
    # Every call the page made after a fault was judged right, and the log said so in words.
    log = page.inner_text("[data-testid=log]")
    assert log.count("— right") >= right
    # Once the game is over its faults are shown, each in words: none went uncalled.
    page.wait_for_function(
        "document.querySelector('[data-testid=end-faults]').textContent.includes('Faults')",
        timeout=WAIT_MS,
    )
    more = page.locator("[data-testid=faults-show-all]")
    if more.count():  # a long list opens folded: the test reads every fault
        more.click()
    revealed = page.inner_text("[data-testid=end-faults]")
    assert revealed.startswith("Faults in this game: "), revealed  # the player's own too
    bots = [line for line in revealed.splitlines() if line.startswith("Faulty bot")]
    assert len(bots) == len(faults), revealed
    assert sum(line.endswith(": called") for line in bots) == right, revealed
    visible_text_has_no_pile_code(page)
    assert page.errors == []


def test_a_whole_game_at_quick_pace_ends_on_the_board_then_next_game(
    paced_server: ServerProcess, new_page: Any, artifact_dir: Path
) -> None:
    page, match_id = sit_at_bot_table(
        paced_server, new_page, player=True, bot="faulty", preset="classic", bot_pace="quick"
    )
    assert page.evaluate("window.crapette.table.bot_pace") == "quick"
    seat = page.evaluate("window.crapette.seat")
    # Playable cards are not shown by default at a `call` table; the switch turns them on.
    assert not page.is_checked("[data-testid=show-playable]")
    page.wait_for_function(
        "c => { const v = window.crapette.view; return v.to_move === c && v.legal.length; }",
        arg=seat,
        timeout=WAIT_MS,
    )
    wait_idle(page)
    # A card that cannot move says why, in words; an illegal drop is refused in words too.
    drag(page, f"R{1 - seat}", f"T{seat * 4}")
    assert "not yours" in message(page)
    drag(page, f"R{seat}", f"H{seat}")
    page.wait_for_function(
        "document.querySelector('[data-testid=message]').dataset.kind === 'refused'",
        timeout=WAIT_MS,
    )
    assert message(page).startswith("Refused: ")
    visible_text_has_no_pile_code(page)
    # H shows one legal action, marked unlike the last move.
    page.keyboard.press("h")
    assert message(page).startswith("Hint: ")
    assert page.locator("#board .pile.cursor-from").count() == 1
    page.keyboard.press("Escape")

    page.evaluate("window.player.play = true")
    page.locator("[data-testid=game-end]").wait_for(state="visible", timeout=GAME_WAIT_MS)
    page.evaluate("window.player.stop = true")
    assert not page.evaluate("window.player.codes")
    wait_idle(page)
    # The final position stays, with the result, the score worked out, totals and target.
    final = view(page)
    assert final is not None and final["over"] and not final["match_over"]
    assert page.evaluate("window.crapette.view.game_index") == 0
    score = page.inner_text("[data-testid=end-score]")
    assert re.search(r"30 \+ 2 × \d+ .* = \d+", score), score
    assert "first to 300 points" in page.inner_text("[data-testid=end-match]")
    for name, size in SIZES.items():
        page.set_viewport_size(size)
        page.screenshot(path=str(artifact_dir / f"game-end-{name}.png"), full_page=True)
    page.set_viewport_size(DESKTOP)
    visible_text_has_no_pile_code(page)
    # The next game waits for this player (the bot is ready): nothing is dealt until he presses.
    assert page.inner_text("[data-testid=next-wait]").endswith("is ready.")
    page.wait_for_timeout(1500)  # not a speed check: the table must stay as it is meanwhile
    assert page.evaluate("window.crapette.view.game_index") == 0
    page.click("[data-testid=next-game]")
    page.wait_for_function("window.crapette.view.game_index === 1", timeout=WAIT_MS)
    page.locator("[data-testid=game-end]").wait_for(state="hidden", timeout=WAIT_MS)
    assert page.inner_text("[data-testid=log]").startswith("Game 2 dealt")

    # The replay of the match names no pile in its visible text either, at every event.
    replay = new_page()
    replay.goto(f"{paced_server.url}/replay/{match_id}")
    replay.wait_for_function("window.replayReady === true", timeout=WAIT_MS)
    replay.keyboard.press("Home")
    frames = replay.evaluate("window.replay.frames.length")
    for _ in range(frames):
        visible_text_has_no_pile_code(replay)
        replay.keyboard.press("ArrowRight")
    assert page.errors == [] and replay.errors == []


def boxes_overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


def banner_covers_nothing_it_must_not(page: Any) -> None:
    banner = page.locator("[data-testid=banner]").bounding_box()
    assert banner is not None
    for what in ("header.bar", "[data-testid=score]", ".status-line", "[data-testid=turn]"):
        box = page.locator(what).bounding_box()
        assert box is not None
        assert not boxes_overlap(banner, box), f"the banner covers {what}"


def message_kind(page: Any) -> str:
    kind: str = page.evaluate("document.querySelector('[data-testid=message]').dataset.kind")
    return kind


def test_messages_live_until_the_next_action_and_seats_prompts_stay_with_seats(
    paced_server: ServerProcess, new_page: Any, artifact_dir: Path
) -> None:
    created = paced_server.open_table(name="Ann", preset="classic")
    match_id = created["match_id"]
    ann = new_page(DESKTOP)
    ann.goto(paced_server.url + "/")
    seat = {"seat": created["seat"], "seat_token": created["seat_token"], "name": "Ann"}
    ann.evaluate(
        "([k, v]) => localStorage.setItem(k, v)", [f"crapette:seat:{match_id}", json.dumps(seat)]
    )
    ann.goto(f"{paced_server.url}/table/{match_id}")
    ann.locator("#waiting").wait_for(state="visible", timeout=WAIT_MS)
    bob = new_page(PHONE)
    bob.goto(f"{paced_server.url}/table/{match_id}")
    bob.locator("#join-btn").wait_for(state="visible", timeout=WAIT_MS)
    bob.fill("#join-name", "Bob")
    bob.click("#join-btn")
    for page in (ann, bob):
        page.wait_for_function(
            "window.crapette && window.crapette.view && window.crapette.view.piles.R0 "
            "&& window.crapette.seat !== null",
            timeout=WAIT_MS,
        )
        wait_idle(page)
        # A first join is no reconnect (a loaded machine may drop a connection for real: then
        # the page rightly says so).
        if not page.evaluate("window.crapette.drops"):
            assert "Reconnected" not in message(page)
    watcher = new_page(DESKTOP)
    watcher.goto(f"{paced_server.url}/table/{match_id}")
    watcher.wait_for_function("window.crapette && window.crapette.view", timeout=WAIT_MS)
    if not watcher.evaluate("window.crapette.drops"):
        assert "Reconnected" not in message(watcher)
    assert watcher.locator("label[for=show-playable]").is_hidden()  # nothing a watcher plays

    pages = {p.evaluate("window.crapette.seat"): p for p in (ann, bob)}
    to_move = the_view(ann)["to_move"]
    mover, other = pages[to_move], pages[1 - to_move]

    def legal_action(page: Any) -> dict[str, Any]:
        """A move if any, else turning a card, else (a card turned that fits nowhere) a discard
        or a pass: some deals leave only those after a call."""
        legal = the_view(page)["legal"]
        for kind in ("move", "turn", "discard", "pass"):
            found = [a for a in legal if a["do"] == kind]
            if found:
                return dict(found[0])
        raise AssertionError(f"nothing to play in {legal}")

    def play(page: Any, action: dict[str, Any]) -> None:
        before = page.evaluate("window.crapette.version")
        page.evaluate("a => window.crapette.act(a)", action)
        for p in (ann, bob):
            p.wait_for_function("v => window.crapette.version > v", arg=before, timeout=WAIT_MS)

    # A refusal lives until the next action at the table.
    drag(mover, f"R{to_move}", f"H{to_move}")
    mover.wait_for_function(
        "document.querySelector('[data-testid=message]').dataset.kind === 'refused'",
        timeout=WAIT_MS,
    )
    visible_text_has_no_pile_code(mover)
    play(mover, legal_action(mover))
    assert message_kind(mover) != "refused" and not message(mover).startswith("Refused")

    # A verdict (right or wrong) lives until the next action too; the banner over the board
    # covers neither the header, the scores nor the status line.
    other.wait_for_function(
        "window.crapette.view.legal.some(a => a.do === 'call')", timeout=WAIT_MS
    )
    before = other.evaluate("window.crapette.version")
    other.keyboard.press("c")
    for page in (ann, bob, watcher):
        page.wait_for_function(
            "document.querySelector('[data-testid=message]').dataset.kind === 'verdict'"
            " || document.querySelector('[data-testid=banner]').hidden === false",
            timeout=WAIT_MS,
        )
    other.wait_for_function("v => window.crapette.version > v", arg=before, timeout=WAIT_MS)
    for page in (ann, bob):
        page.locator("[data-testid=banner]").wait_for(state="visible", timeout=WAIT_MS)
        banner_covers_nothing_it_must_not(page)
    bob.screenshot(path=str(artifact_dir / "banner-phone.png"))
    ann.screenshot(path=str(artifact_dir / "banner-desktop.png"))
    for size in SIZES.values():  # a long banner at both sizes
        ann.set_viewport_size(size)
        ann.evaluate("window.crapette.showBanner('Crapette! — right', 'a long verdict '.repeat(8))")
        banner_covers_nothing_it_must_not(ann)
    ann.set_viewport_size(DESKTOP)
    assert message_kind(ann) == "verdict"
    to_move = the_view(ann)["to_move"]
    play(pages[to_move], legal_action(pages[to_move]))
    for page in (ann, bob):
        assert message_kind(page) != "verdict", message(page)

    # A stalemate offer asks the other seat to press O; a spectator is never asked anything.
    before = watcher.evaluate("window.crapette.version")
    offerer = pages[to_move]
    offerer.keyboard.press("o")
    watcher.wait_for_function("v => window.crapette.version > v", arg=before, timeout=WAIT_MS)
    asked = pages[1 - offerer.evaluate("window.crapette.seat")]
    asked.wait_for_function(
        "document.querySelector('[data-testid=message]').textContent.includes('press O')",
        timeout=WAIT_MS,
    )
    assert "press" not in message(watcher)
    assert "offers a stalemate" in watcher.inner_text("[data-testid=log]")

    # Abandoning the match (issue 31, point 6) resigns this game and ends the match at once: no
    # game nobody played, the end panel and the record hold game 1 alone, scored as a resign.
    ann_seat = ann.evaluate("window.crapette.seat")
    ann.click("#btn-resign")
    ann.click("#btn-abandon")
    for page in (ann, bob, watcher):
        page.wait_for_function("window.crapette.view.match_over === true", timeout=WAIT_MS)
        wait_idle(page)
        assert page.inner_text("[data-testid=turn]") == "Match over."
        assert page.locator("#controls").is_hidden()
        assert page.locator(".seat-info .to-move:visible").count() == 0
        assert all(c == "" for c in page.locator(".seat-info .clock").all_inner_texts())
        assert "Match over:" in page.inner_text("[data-testid=end-match]")
        assert page.locator("[data-testid=next-game]").is_hidden()
        assert "abandoned the match" in page.inner_text("[data-testid=log]")
        visible_text_has_no_pile_code(page)
    assert "You abandoned the match: Bob wins it" in ann.inner_text("[data-testid=log]")
    assert "Ann abandoned the match: you win it" in bob.inner_text("[data-testid=log]")
    assert "Ann abandoned the match: Bob wins it" in watcher.inner_text("[data-testid=log]")
    # The end panel says why the match ended short of its target, also after a reload.
    assert "you abandoned it, so Bob wins" in ann.inner_text("[data-testid=end-match]")
    assert "Ann abandoned it, so you win" in bob.inner_text("[data-testid=end-match]")
    watcher.reload()
    watcher.wait_for_function(
        "document.querySelector('[data-testid=end-match]').textContent.includes('abandoned')",
        timeout=WAIT_MS,
    )
    assert "Ann abandoned it, so Bob wins" in watcher.inner_text("[data-testid=end-match]")
    final = view(ann)
    assert final is not None and final["game_scores"] and len(final["game_scores"]) == 1
    score = final["game_scores"][0]
    assert score[ann_seat] == 0 and score[1 - ann_seat] >= 30
    assert final["totals"] == score and max(final["totals"]) < 300  # the target, not reached
    assert ann.locator("[data-testid=end-games] tr").count() == 1 + 2  # head, game 1, total
    record = paced_server.get(f"/api/matches/{match_id}/record").json()
    assert len(record["games"]) == 1
    assert record["games"][0]["result"]["outcome"] == "resign"
    assert record["games"][0]["result"]["score"] == score
    assert record["games"][0]["actions"][-1]["do"] == "abandon"
    assert record["result"] == {"finished": True, "winner": 1 - ann_seat, "totals": score}
    assert bob.locator("#rematch-btn").is_visible()
    for name, page in (("desktop", ann), ("phone", bob)):
        page.screenshot(path=str(artifact_dir / f"match-over-{name}.png"), full_page=True)
    assert not (ann.errors or bob.errors or watcher.errors)
