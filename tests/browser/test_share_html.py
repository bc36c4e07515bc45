"""The replay as one HTML file (docs/records.md § HTML) in Chromium: downloaded with the replay
page's button and written by `crapette export --format html`, opened from disk with every
network request blocked, it steps through every frame with the keys and shows the positions the
live replay page shows, frame by frame; its size for a match of 600+ events; `crapette import`
and `crapette verify` take it as a record."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import DESKTOP
from tests.browser.ui import WAIT_MS
from tests.integration.harness import ServerProcess

pytestmark = pytest.mark.browser

MAX_BYTES = 2 * 1024 * 1024

# What a frame shows: every pile as drawn (name, count, each card's face or a back), the marks on
# the board, the caption, the position counter, the move list's current row, the board's words
# (seat panels),
# the commitment or seed, the summary and charts of the analysis.
SHOWN = """() => {
  const piles = [...document.querySelectorAll('#board [data-pile]')].map((el) => [
    el.dataset.pile, el.hidden, el.dataset.count ?? '', el.className,
    [...el.querySelectorAll('.card')].map((c) => c.dataset.card ?? (c.className || 'back')),
  ]);
  const text = (sel) => document.querySelector(sel)?.textContent ?? null;
  return JSON.stringify({
    piles, caption: text('#caption'), pos: text('#pos'), row: text('#moves .ev.current'),
    board: document.querySelector('#board').textContent,
    commitment: text('#commitment'), summary: text('#summary'),
    charts: document.querySelector('#charts').hidden
      ? null : document.querySelector('#charts').querySelectorAll('svg, canvas').length,
  });
}"""

# Step from the first frame to the last with the → key, as a viewer does, noting each one.
WALK = f"""async () => {{
  const shown = {SHOWN};
  const out = [];
  window.dispatchEvent(new KeyboardEvent('keydown', {{key: 'Home'}}));
  out.push(shown());
  for (let k = 1; k < window.replay.frames.length; k++) {{
    window.dispatchEvent(new KeyboardEvent('keydown', {{key: 'ArrowRight'}}));
    if (window.replay.pos !== k) throw new Error(`→ went to ${{window.replay.pos}}, not ${{k}}`);
    out.push(shown());
  }}
  return out;
}}"""


def _selfplay_record(tmp: Path) -> dict[str, Any]:
    """Two games between the steady bots (789 events, every game over), from the CLI."""
    out = tmp / "records"
    args = ["selfplay", "--games", "2", "--seed", "5e1f", "--export", str(out)]
    subprocess.run([sys.executable, "-m", "server", *args], check=True, capture_output=True)
    (path,) = out.glob("*.json")
    record: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return record


@pytest.fixture(scope="module")
def long_match(server: ServerProcess, tmp_path_factory: pytest.TempPathFactory) -> str:
    record = _selfplay_record(tmp_path_factory.mktemp("selfplay"))
    response = server.post("/api/records", record)
    assert response.status_code == 201, response.text
    match_id: str = response.json()["match_id"]
    return match_id


def _offline_page(browser: Any) -> tuple[Any, Any, list[str]]:
    """A page whose every request but the file itself is refused and noted."""
    context = browser.new_context(viewport=DESKTOP)
    asked: list[str] = []

    def route(route: Any) -> None:
        url = route.request.url
        if url.startswith("file:"):
            route.continue_()
        else:
            asked.append(url)
            route.abort()

    context.route("**/*", route)
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    return context, page, asked


def _walk(page: Any) -> list[str]:
    page.wait_for_function("window.replayReady === true", timeout=WAIT_MS)
    shown: list[str] = page.evaluate(WALK)
    return shown


def test_the_downloaded_replay_shows_every_frame_offline_as_the_live_page(
    server: ServerProcess, new_page: Any, browser: Any, long_match: str, artifact_dir: Path
) -> None:
    live = new_page()
    live.goto(f"{server.url}/replay/{long_match}")
    expected = _walk(live)
    assert len(expected) >= 600
    assert json.loads(expected[-1])["charts"], "the analysis charts show on the live page"
    # The copy link names the position shown, as the address bar does.
    live.keyboard.press("Home")
    for _ in range(5):
        live.keyboard.press("ArrowRight")
    live.get_by_test_id("copy-link").click()
    copied = f"{server.url}/replay/{long_match}?game=0&v=6"
    live.wait_for_function(f"window.replay.share.lastCopied === {json.dumps(copied)}")
    assert "copied" in live.get_by_test_id("share-note").inner_text()
    with live.expect_download() as download:
        live.get_by_test_id("share-html").click()
    path = artifact_dir / "replay.html"
    download.value.save_as(path)
    size = path.stat().st_size
    assert size <= MAX_BYTES, f"{size} bytes for {len(expected)} events"

    context, page, asked = _offline_page(browser)
    try:
        page.goto(path.as_uri())
        shown = _walk(page)
        page.keyboard.press("End")
        page.screenshot(path=str(artifact_dir / "offline-end.png"))
        assert page.errors == []
        # The file's links lead back to the server it came from; the copy link names it.
        assert page.get_by_test_id("copy-link").count() == 1
        title = page.locator("header.bar a.title").get_attribute("href")
        assert title == f"{server.url}/"
    finally:
        context.close()
    assert asked == [], f"the file asked the network for {asked}"
    assert len(shown) == len(expected)
    for k, (mine, theirs) in enumerate(zip(shown, expected, strict=True)):
        assert mine == theirs, f"frame {k} differs"


def test_the_file_autoplays_and_switches_the_knowledge_view_offline(
    server: ServerProcess, browser: Any, long_match: str, tmp_path: Path, artifact_dir: Path
) -> None:
    """`crapette export --format html` of the server's own store, opened from disk: autoplay
    runs, the seat's view lists its options (embedded), the JSON record downloads."""
    path = tmp_path / "cli.html"
    args = ["export", long_match, "--format", "html", "--store", server.store_url, "-o", str(path)]
    subprocess.run([sys.executable, "-m", "server", *args], check=True, capture_output=True)
    context, page, asked = _offline_page(browser)
    try:
        page.goto(path.as_uri() + "?v=40")
        page.wait_for_function("window.replayReady === true", timeout=WAIT_MS)
        assert page.evaluate("window.replay.frames[window.replay.pos].version") == 40
        page.select_option("[data-testid=speed]", "15")
        page.get_by_test_id("play").click()
        page.wait_for_function("window.replay.frames[window.replay.pos].version >= 44")
        page.keyboard.press(" ")
        page.keyboard.press("v")  # every card → as the first seat saw it: its options listed
        page.wait_for_selector("[data-testid=options]:not([hidden])", timeout=WAIT_MS)
        assert page.locator("[data-testid=options] .option").count() > 0
        page.screenshot(path=str(artifact_dir / "offline-seat-view.png"))
        assert page.get_by_test_id("copy-link").count() == 0  # no server known to link to
        with page.expect_download() as download:
            page.locator("#dl-json").click()
        saved = tmp_path / "from-file.json"
        download.value.save_as(saved)
        assert json.loads(saved.read_text(encoding="utf-8"))["match_id"] == long_match
        assert page.errors == []
    finally:
        context.close()
    assert asked == []

    # The file is a record: verified, and imported into another store, where it replays.
    verify = subprocess.run(
        [sys.executable, "-m", "server", "verify", str(path)], capture_output=True, text=True
    )
    assert verify.returncode == 0, verify.stderr
    store = f"sqlite:///{tmp_path / 'other.sqlite3'}"
    imported = subprocess.run(
        [sys.executable, "-m", "server", "import", str(path), "--store", store],
        capture_output=True,
        text=True,
    )
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.startswith(f"imported {long_match}:")


def test_the_file_draws_the_engine_analysis_offline_when_one_is_kept(
    server: ServerProcess, browser: Any, long_match: str, tmp_path: Path, artifact_dir: Path
) -> None:
    """An analysis kept beside the store (as the server keeps it; the fixture analyser, not the
    engine's seconds) is embedded by `crapette export --format html`; the file opened from disk
    draws its win-chance graph, judgements and accuracy with judgements.js, asking nothing."""
    from eventstore import open_store
    from records.streams import match_stream
    from server.cli.records import analysis_dir_of
    from server.readmodels.analysis_build import build_analysis

    cache = analysis_dir_of(server.store_url)
    store = open_store(server.store_url)
    try:
        version = store.stream_version(match_stream(long_match))
        job = {"match_id": long_match, "version": version, "depth": "normal", "cache_dir": cache}
        job["analyser"] = "tests.analysis_fixture:analyse_record"
        build_analysis(store, job, lambda _d, _t: None)
    finally:
        getattr(store, "close", lambda: None)()
    path = tmp_path / "analysed.html"
    args = ["export", long_match, "--format", "html", "--store", server.store_url, "-o", str(path)]
    subprocess.run([sys.executable, "-m", "server", *args], check=True, capture_output=True)
    size = path.stat().st_size
    print(f"replay file with analysis: {size} bytes")
    assert size <= MAX_BYTES, f"{size} bytes with the analysis"
    context, page, asked = _offline_page(browser)
    try:
        page.goto(path.as_uri())
        page.wait_for_function("window.replayReady === true", timeout=WAIT_MS)
        page.wait_for_selector("[data-testid=win-chart] svg", timeout=WAIT_MS)
        assert page.locator("#moves .judgement").count() > 0
        assert page.get_by_test_id("accuracy").count() == 1
        assert page.get_by_test_id("analyse").count() == 0  # nothing to ask of a server
        page.screenshot(path=str(artifact_dir / "offline-judgements.png"))
        assert page.errors == []
    finally:
        context.close()
    assert asked == [], f"the file asked the network for {asked}"
