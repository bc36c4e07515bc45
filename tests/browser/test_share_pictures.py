"""Sharing pictures from the pages, in Chromium: the replay page's GIF link downloads the game
shown at the speed chosen (its frame count and size), refuses a game still in play with words;
the replay and table pages carry Open Graph / Twitter tags whose picture the server draws."""

from __future__ import annotations

import html
import io
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from PIL.GifImagePlugin import GifImageFile

from bench.browser import open_bot_match, play_until
from server.readmodels.share import picture
from server.readmodels.share.animate import MAX_FRAMES
from tests.browser.ui import WAIT_MS
from tests.integration.harness import ServerProcess

pytestmark = pytest.mark.browser

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "records"


def _meta(page: str) -> dict[str, str]:
    found = re.findall(r'<meta (?:property|name)="([^"]+)" content="([^"]*)">', page)
    return {key: html.unescape(value) for key, value in found}


@pytest.fixture(scope="module")
def finished(server: ServerProcess) -> str:
    record = json.loads((GOLDEN / "classic-win-recycle.json").read_text(encoding="utf-8"))
    response = server.post("/api/records", record)
    assert response.status_code == 201, response.text
    match_id: str = response.json()["match_id"]
    return match_id


def test_the_gif_link_downloads_the_game_shown(
    server: ServerProcess, new_page: Any, finished: str, artifact_dir: Path
) -> None:
    page = new_page()
    page.goto(f"{server.url}/replay/{finished}?v=20")
    page.wait_for_function("window.replayReady === true", timeout=WAIT_MS)
    events = page.evaluate("window.replay.frames.filter((f) => f.game_index === 0).length")
    page.select_option("[data-testid=gif-speed]", "2")
    page.screenshot(path=str(artifact_dir / "replay-share-controls.png"))
    with page.expect_download() as download:
        page.get_by_test_id("share-gif").click()
    path = artifact_dir / "game.gif"
    download.value.save_as(path)
    assert download.value.suggested_filename == f"crapette-{finished}-game1.gif"
    with Image.open(path) as gif:
        assert isinstance(gif, GifImageFile)
        assert gif.size == (picture.WIDTH, picture.HEIGHT)
        assert gif.n_frames == min(MAX_FRAMES, events)
        assert gif.info["duration"] == 400  # speed 2: 800 ms / 2 per action
        gif.seek(gif.n_frames // 2)
        gif.convert("RGB").save(artifact_dir / "gif-middle.png")
    assert page.errors == []


def test_a_shared_link_previews_with_the_position_it_names(
    server: ServerProcess, new_page: Any, finished: str
) -> None:
    html = server.get(f"/replay/{finished}?v=12").text
    tags = _meta(html)
    assert tags["og:image"] == (
        f"{server.url}/api/matches/{finished}/position.png?version=12&lang=en"
    )
    # Who played and the preset, in the page's language (issue 39), never a generic title.
    assert tags["og:title"] == "Ann v Bob — Crapette"
    assert tags["og:description"].startswith("Classic · ")
    french = _meta(server.get(f"/replay/{finished}?v=12&lang=fr").text)
    assert french["og:title"] == "Ann contre Bob — Crapette"
    assert french["og:description"].startswith("Classique · ")
    assert french["og:locale"] == "fr_FR" and french["og:image"].endswith("&lang=fr")
    assert french["og:image:alt"] != tags["og:image:alt"]
    assert tags["twitter:card"] == "summary_large_image"
    assert tags["twitter:image"] == tags["og:image"]
    assert tags["og:url"] == f"{server.url}/replay/{finished}?v=12"
    image = server.get(tags["og:image"].removeprefix(server.url))
    assert image.status_code == 200 and image.headers["Content-Type"] == "image/png"
    with Image.open(io.BytesIO(image.content)) as png:
        size = png.size
    assert size == (int(tags["og:image:width"]), int(tags["og:image:height"]))
    # The page with its tags still works as before.
    page = new_page()
    page.goto(f"{server.url}/replay/{finished}?v=12")
    page.wait_for_function("window.replayReady === true", timeout=WAIT_MS)
    assert page.evaluate("window.replay.frames[window.replay.pos].version") == 12


def test_a_running_game_previews_as_a_spectator_sees_it_and_has_no_gif(
    server: ServerProcess, new_page: Any, artifact_dir: Path
) -> None:
    match_id, token = open_bot_match(server.url)
    play_until(server.url, match_id, token, 30, random.Random(3))
    tags = _meta(server.get(f"/table/{match_id}").text)
    assert tags["og:image"] == f"{server.url}/api/matches/{match_id}/position.png?lang=en"
    # The players, the match score and the preset (issue 39).
    totals = server.get(f"/api/tables/{match_id}").json()["totals"]
    assert tags["og:title"] == "Bench v random bot — Crapette"
    assert f"{totals[0]}–{totals[1]}" in tags["og:description"], tags["og:description"]
    image = server.get(f"/api/matches/{match_id}/position.png")
    assert image.status_code == 200
    assert image.headers["Cache-Control"] == "no-cache"  # the match goes on
    (artifact_dir / "running.png").write_bytes(image.content)
    refused = server.get(f"/api/matches/{match_id}/game.gif?game=0")
    assert refused.status_code == 409
    assert refused.json()["code"] == "game_in_play"
    page = new_page()
    page.goto(f"{server.url}/replay/{match_id}")
    page.wait_for_function("window.replayReady === true", timeout=WAIT_MS)
    page.get_by_test_id("share-gif").click()
    assert "still in play" in page.get_by_test_id("share-note").inner_text()
    assert page.errors == []
