"""The pages under their Content-Security-Policy (server/entrypoints/security.py) in Chromium: each
page of the client (lobby, table, replay, players, tournaments, rules, the replay file served from
the server) renders with no `securitypolicyviolation` at all, and a page of another origin cannot
frame a table (`frame-ancestors 'self'`) while the server's own page can."""

from __future__ import annotations

import http.server
import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser.conftest import DESKTOP
from tests.browser.ui import WAIT_MS
from tests.conftest import find_free_port
from tests.integration.harness import ServerProcess

pytestmark = pytest.mark.browser

# Installed before any script of the page runs: every violation the policy reports.
RECORD_VIOLATIONS = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  const where = `${e.sourceFile}:${e.lineNumber}`;
  window.__violations.push(`${e.violatedDirective} ${e.blockedURI} ${where}`);
});
"""


@pytest.fixture(scope="module")
def finished(server: ServerProcess, tmp_path_factory: pytest.TempPathFactory) -> str:
    """A finished match between two bots (one game), imported as a record."""
    out = tmp_path_factory.mktemp("selfplay")
    args = ["selfplay", "--games", "1", "--seed", "5e1f", "--export", str(out)]
    subprocess.run([sys.executable, "-m", "server", *args], check=True, capture_output=True)
    (path,) = out.glob("*.json")
    response = server.post("/api/records", json.loads(path.read_text(encoding="utf-8")))
    assert response.status_code == 201, response.text
    match_id: str = response.json()["match_id"]
    return match_id


def _strict_page(browser: Any) -> Any:
    """A page in a context of its own that keeps the policy (the other tests' contexts bypass
    it: tests/browser/conftest.py), every violation recorded before any script of it runs."""
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    page.add_init_script(RECORD_VIOLATIONS)
    return page


def _wait(page: Any, ready: str) -> None:
    """Wait until `ready` holds, asked with evaluate(): wait_for_function would eval() it, which
    the policy refuses."""
    deadline = time.monotonic() + WAIT_MS / 1000
    while not page.evaluate(ready):
        assert time.monotonic() < deadline, f"not ready: {ready} at {page.url}"
        page.wait_for_timeout(50)


def _violations(page: Any, url: str, ready: str) -> list[str]:
    page.goto(url)
    _wait(page, ready)
    page.wait_for_timeout(300)  # what the page draws once ready (charts, QR code)
    found: list[str] = page.evaluate("window.__violations")
    return found


def test_no_page_breaks_its_policy(server: ServerProcess, browser: Any, finished: str) -> None:
    table = server.open_table(name="Ann")
    match_id = table["match_id"]
    playing = server.open_table(name="Cy")["match_id"]
    server.join(playing, name="Di")
    created = server.post(
        "/api/tournaments",
        {
            "name": "Club night",
            "format": "swiss",
            "rounds": 1,
            "match": "wins:1",
            "players": [{"name": "Eve"}, {"name": "Fay"}],
        },
    )
    assert created.status_code == 201, created.text
    tournament = created.json()["url"]
    board = "document.querySelector('#board [data-pile]') !== null"
    pages = [
        ("/", "window.lobbyReady === true"),
        (f"/table/{match_id}", "document.querySelector('#join:not([hidden])') !== null"),
        (f"/table/{playing}", board),
        (f"/replay/{finished}", "window.replayReady === true"),
        (f"/replay/{playing}", "window.replayReady === true"),
        ("/players", "window.playersReady === true"),
        ("/players/Ann", "window.playersReady === true"),
        ("/tournaments", "window.tournamentsReady === true"),
        (tournament, "window.tournamentReady === true"),
        ("/rules", "document.querySelector('h1') !== null"),
        # The self-contained file as the server sends it, opened in place: its own policy.
        (f"/api/matches/{finished}/replay.html?inline=1", "window.replayReady === true"),
    ]
    page = _strict_page(browser)
    try:
        for path, ready in pages:
            assert _violations(page, server.url + path, ready) == [], path
        assert page.errors == []
    finally:
        page.context.close()
    # The lobby's invite (its QR code drawn in the page), and a seated player's table, against
    # a bot: the board drawn, cards flying.
    owner = _strict_page(browser)
    try:
        owner.goto(server.url + "/")
        _wait(owner, "window.lobbyReady === true")
        owner.fill("#name", "Gus")
        owner.click("#create-btn")
        owner.locator("[data-testid=invite-url]").wait_for(timeout=WAIT_MS)
        owner.wait_for_timeout(300)
        assert owner.evaluate("window.__violations") == []
        owner.goto(server.url + "/")
        _wait(owner, "window.lobbyReady === true")
        owner.fill("#name", "Hal")
        owner.select_option("#opponent", "random")
        owner.select_option("#bot-pace", "quick")
        owner.click("#create-btn")
        owner.wait_for_url("**/table/m-*", timeout=WAIT_MS)
        _wait(owner, "window.crapette && window.crapette.view && window.crapette.seat === 0")
        owner.wait_for_timeout(1500)  # the bot plays a few moves
        assert owner.evaluate("window.__violations") == []
        assert owner.errors == []
    finally:
        owner.context.close()


class _Framing(http.server.BaseHTTPRequestHandler):
    target = ""

    def do_GET(self) -> None:  # noqa: N802 (the standard library's name)
        body = f'<!doctype html><iframe id="f" src="{self.target}"></iframe>'.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_args: object) -> None:
        pass


@pytest.fixture
def framing_site(server: ServerProcess) -> Iterator[tuple[str, type[_Framing]]]:
    """Another origin (another port of this machine) whose page frames a URL of the server."""
    port = find_free_port()
    handler = type("Framing", (_Framing,), {})
    site = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    thread = threading.Thread(target=site.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}/", handler
    finally:
        site.shutdown()
        site.server_close()


def _framed_table(frame: Any) -> bool:
    try:
        return bool(frame.evaluate("document.querySelector('#board') !== null"))
    except Exception:  # the refused frame holds Chromium's error page, or nothing
        return False


def test_another_site_cannot_frame_a_table(
    server: ServerProcess, browser: Any, framing_site: tuple[str, type[_Framing]]
) -> None:
    url, handler = framing_site
    match_id = server.open_table(name="Ann")["match_id"]
    handler.target = f"{server.url}/table/{match_id}"
    page = _strict_page(browser)
    try:
        page.goto(url)
        page.wait_for_timeout(1500)
        frames = [f for f in page.frames if f is not page.main_frame]
        assert len(frames) == 1
        assert not _framed_table(frames[0]), "a page of another origin framed the table"
        # The server's own page may frame it (frame-ancestors 'self').
        page.goto(server.url + "/")
        _wait(page, "window.lobbyReady === true")
        page.evaluate(
            "(src) => { const f = document.createElement('iframe'); f.src = src;"
            " document.body.append(f); }",
            f"/table/{match_id}",
        )
        _wait(
            page,
            "document.querySelector('iframe').contentDocument?.querySelector('#board') != null",
        )
        assert page.evaluate("window.__violations") == []
    finally:
        page.context.close()
