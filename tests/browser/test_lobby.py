"""The ways into a game: the lobby's rules options and bots, the invite, a guest's join form, and
uploading a record (an id clash, a partial match)."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest

from tests.browser.ui import WAIT_MS
from tests.integration.harness import ServerProcess

pytestmark = pytest.mark.browser

LAPTOP = {"width": 1280, "height": 800}
RECORDS = Path(__file__).resolve().parents[1] / "data" / "records"


def open_lobby(page: Any, server: ServerProcess) -> None:
    page.goto(server.url + "/")
    page.wait_for_function("window.lobbyReady === true", timeout=WAIT_MS)


def chosen(page: Any, select: str) -> str:
    value: str = page.eval_on_selector(select, "s => s.options[s.selectedIndex].value")
    return value


def form_value(value: Any) -> str:
    return "none" if value is None else str(value)


def test_every_option_is_explained_and_prefilled_with_the_preset(
    server: ServerProcess, new_page: Any, artifact_dir: Path
) -> None:
    catalogue = server.get("/api/presets").json()
    presets = {p["name"]: p["ruleset"] for p in catalogue["presets"]}
    page = new_page(LAPTOP)
    open_lobby(page, server)
    # A table of three or four (rotation) sits in the main form too: it changes who plays.
    main = {"match": "#match", "move_time_limit_s": "#limit", "rotation": "#rotation"}
    # Closed until asked for; every option but the three of the main form is inside it.
    assert page.locator("#advanced").get_attribute("open") is None
    page.click("#advanced summary")
    for preset in ("classic", "finnish", "french"):
        page.select_option("#preset", preset)
        for option in catalogue["options"]:
            select = main.get(option["name"], f"#opt-{option['name']}")
            if option["name"] not in main:
                assert page.locator(f"#advanced {select}").is_visible(), option["name"]
            assert chosen(page, select) == form_value(presets[preset][option["name"]]), (
                preset,
                option["name"],
            )
            label = page.locator(f"label[for={select[1:]}]").inner_text()
            help_id = page.get_attribute(select, "aria-describedby")
            assert label and page.inner_text(f"#{help_id}") == option["help"], option["name"]
        # The preset by its name (issue 31), not its id.
        name = {"classic": "Classic", "finnish": "Finnish", "french": "French"}[preset]
        assert page.inner_text("[data-testid=advanced-state]") == f"— as in {name}"
    page.screenshot(path=str(artifact_dir / "lobby-advanced.png"), full_page=True)

    # Each bot is described as the server describes it.
    for bot in catalogue["bots"]:
        page.select_option("#opponent", bot["name"])
        assert page.inner_text("[data-testid=opponent-desc]") == bot["description"]
    page.select_option("#opponent", "")
    assert "invite link" in page.inner_text("[data-testid=opponent-desc]")

    # A changed option is what the table plays, over the preset.
    page.select_option("#preset", "finnish")
    page.select_option("#opt-enforcement", "enforce")
    page.select_option("#opt-reserve_size", "10")
    page.select_option("#limit", "none")
    assert "enforcement" in page.inner_text("[data-testid=advanced-state]")
    page.fill("#name", "Ann")
    page.click("#create-btn")
    page.locator("[data-testid=invite-url]").wait_for(timeout=WAIT_MS)
    match_id = page.locator("[data-testid=invite-url]").input_value().rsplit("/", 1)[1]
    table = server.get(f"/api/tables/{match_id}").json()
    assert table["preset"] == "finnish"
    expected = {**presets["finnish"], "enforcement": "enforce", "reserve_size": 10}
    assert table["ruleset"] == {**expected, "move_time_limit_s": None}

    # The invite (link, QR code, "sit down") is in view at 1280×800 without scrolling.
    for part in ("[data-testid=invite-url]", "#invite .qr svg", "[data-testid=go-table]"):
        box = page.locator(part).bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 800, part
    assert page.evaluate("window.scrollY") == 0
    page.screenshot(path=str(artifact_dir / "lobby-invite.png"))

    # The waiting page shows the invite but no link to itself.
    page.click("[data-testid=go-table]")
    page.locator("#waiting-invite [data-testid=invite-url]").wait_for(timeout=WAIT_MS)
    hrefs = page.eval_on_selector_all("#waiting a", "links => links.map(a => a.href)")
    assert not [h for h in hrefs if h.rstrip("/").endswith(f"/table/{match_id}")], hrefs
    assert not page.errors, page.errors


def test_a_guest_sees_host_rules_changes_target_and_limit_before_sitting_down(
    server: ServerProcess, new_page: Any, artifact_dir: Path
) -> None:
    opened = server.open_table(
        name="Hostess",
        preset="danish",
        options={"enforcement": "lenient", "match": "wins:2"},
        move_time_limit_s=30,
    )
    match_id = opened["match_id"]
    lobby = new_page(LAPTOP)
    open_lobby(lobby, server)
    row = lobby.locator(f'[data-testid=open-tables] li[data-match="{match_id}"]')
    row.locator("text=Join").click()  # the lobby's Join leads to the join form, not to a seat
    lobby.wait_for_url(f"**/table/{match_id}", timeout=WAIT_MS)
    lobby.locator("[data-testid=join-host]").wait_for(timeout=WAIT_MS)
    facts = {
        key: lobby.inner_text(f"[data-testid=join-{key}]")
        for key in ("host", "preset", "changed", "target", "limit")
    }
    assert facts["host"] == "Hostess"
    assert facts["preset"].startswith("Danish — Danish Russian Bank")
    assert facts["changed"] == "enforcement: nothing: priorities are only advice"
    assert facts["target"] == "first to two games won"
    assert facts["limit"] == "30 seconds"
    assert server.get(f"/api/tables/{match_id}").json()["status"] == "open"  # not seated yet
    lobby.screenshot(path=str(artifact_dir / "join-form.png"))
    lobby.fill("#join-name", "Guest")
    lobby.click("#join-btn")
    lobby.wait_for_function("window.crapette && window.crapette.seat === 1", timeout=WAIT_MS)
    assert not lobby.errors, lobby.errors


def upload(page: Any, path: Path) -> None:
    page.set_input_files("#record-file", str(path))
    page.click("#upload button[type=submit]")


def test_uploading_a_record_twice_offers_its_replay_and_another_match_a_new_id(
    server: ServerProcess, new_page: Any, tmp_path: Path
) -> None:
    record = RECORDS / "classic-calls-resign.json"  # a match stopped before its target
    page = new_page(LAPTOP)
    open_lobby(page, server)
    upload(page, record)
    page.wait_for_url("**/replay/**", timeout=WAIT_MS)
    first_id = page.url.rsplit("/", 1)[1]

    # An imported partial match was played elsewhere: finished here, never live.
    assert server.get(f"/api/tables/{first_id}").json()["status"] == "finished"
    open_lobby(page, server)
    assert page.locator(f'[data-testid=live-tables] li[data-match="{first_id}"]').count() == 0

    # The same file again (here its text form): the replay is there already.
    upload(page, record.with_suffix(".txt"))
    existing = page.locator("[data-testid=existing-replay]")
    existing.wait_for(timeout=WAIT_MS)
    assert "already here" in page.inner_text("[data-testid=upload-msg]")
    assert existing.get_attribute("href") == f"/replay/{first_id}"
    # No other id is offered: the same record under another id would be one match twice.
    assert page.locator("[data-testid=upload-as]").is_hidden()

    # Another match under a taken id: no replay link, only a new id.
    other = tmp_path / "other.json"
    text = (RECORDS / "g4a-resign.json").read_text()
    other.write_text(text.replace('"golden-g4a"', f'"{first_id}"'))
    open_lobby(page, server)
    upload(page, other)
    page.locator("[data-testid=upload-as]").wait_for(timeout=WAIT_MS)
    assert "Another match already has the id" in page.inner_text("[data-testid=upload-msg]")
    assert page.locator("[data-testid=existing-replay]").count() == 0
    assert page.locator("#upload-id").input_value() == f"{first_id}-2"
    page.click("#upload-as button[type=submit]")
    page.wait_for_url(f"**/replay/{first_id}-2", timeout=WAIT_MS)
    assert not page.errors, page.errors


def test_a_refused_name_shows_the_servers_reason(server: ServerProcess, new_page: Any) -> None:
    """Issue 28: the lobby shows which rule a name breaks, in the server's words, and opens
    no table; the same name without the override opens one."""
    page = new_page(LAPTOP)
    open_lobby(page, server)
    before = len(server.get("/api/tables?all=1").json()["tables"])
    page.fill("#name", "\u202eAnn")
    page.click("#create-btn")
    message = page.locator("#create-msg")
    message.filter(has_text="bidirectional").wait_for(timeout=WAIT_MS)
    said = message.inner_text()
    assert (
        said
        == "name: A name may not contain a bidirectional control (U+202E RIGHT-TO-LEFT OVERRIDE)."
    )
    assert "{" not in said  # the message alone, not the field messages after it
    assert len(server.get("/api/tables?all=1").json()["tables"]) == before
    page.fill("#name", "Ann\u200b")
    page.click("#create-btn")
    message.filter(has_text="invisible character").wait_for(timeout=WAIT_MS)
    assert "U+200B ZERO WIDTH SPACE" in message.inner_text()
    assert len(server.get("/api/tables?all=1").json()["tables"]) == before
    assert not page.errors, page.errors


@pytest.mark.slow  # a record of thousands of moves made, then checked: some 30 s
def test_a_long_record_shows_its_progress_while_it_is_checked(
    server: ServerProcess, new_page: Any, tmp_path: Path
) -> None:
    """Issue 38: a record of thousands of moves takes seconds to check; the import dialog says
    how far it has come (the server's count of moves checked, polled), then opens the replay."""
    from bench.abuse import finished_record, record_bytes

    record = finished_record(wins=2, seed=5, match_id="club-progress")  # ~6,800 actions
    path = tmp_path / "long.json"
    path.write_bytes(record_bytes(record))
    page = new_page(LAPTOP)
    open_lobby(page, server)
    upload(page, path)
    seen: list[str] = []
    for _ in range(2400):  # at most 120 s: until the replay opens
        if "/replay/" in page.url:
            break
        with contextlib.suppress(Exception):  # the page is navigating to the replay
            seen.append(page.inner_text("[data-testid=upload-msg]"))
        page.wait_for_timeout(50)
    assert "/replay/club-progress" in page.url, (page.url, sorted(set(seen)))
    # (Seen here: waiting, 800 then 4,502 of 6,770 moves checked, storing.)
    checking = [text for text in seen if text.startswith("Checking the moves:")]
    assert checking and all(text.endswith(" of 6,770") for text in checking), sorted(set(seen))
    assert not page.errors, page.errors
