"""Browser tests: a real server process and Debian's Chromium driven by Playwright.

The server is `python -m server serve` on a free port with a temporary SQLite store, stopped by its
PID (tests/integration/harness.py). Each test gets fresh browser contexts, so two players are two
separate cookie/localStorage jars, as on two laptops.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.browser import CHROMIUM_ARGS  # one set of flags for benchmarks and tests
from tests.conftest import service_unavailable
from tests.integration.harness import ServerProcess

CHROMIUM = os.environ.get("CRAPETTE_CHROMIUM", "/usr/bin/chromium")
DESKTOP = {"width": 1280, "height": 860}
LOCAL_URL = re.compile(r"^(data:|blob:|about:|https?://(127\.0\.0\.1|localhost)[:/])")
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    process = ServerProcess(tmp_path_factory.mktemp("server")).start()
    try:
        yield process
    finally:
        process.stop()


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        service_unavailable("Chromium", f"nothing at {CHROMIUM}")  # fails under CI
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def new_page(browser: object) -> Iterator[object]:
    """Make pages, each in its own context (another player's browser); all closed afterwards.

    Every page fails its test on an uncaught JavaScript error: `page.errors` collects them. Any
    request to another host than this machine fails the test too (the client must work offline).
    """
    contexts = []
    foreign: list[str] = []

    def watch(request: object) -> None:
        url = str(request.url)  # type: ignore[attr-defined]
        if not LOCAL_URL.match(url):
            foreign.append(url)

    def make(viewport: dict[str, int] | None = None) -> object:
        # bypass_csp: Playwright's wait_for_function evaluates its predicate with eval(), which
        # the pages' Content-Security-Policy refuses (no 'unsafe-eval',
        # server/entrypoints/security.py); the policy itself is tested without it
        # (test_security_headers.py).
        context = browser.new_context(  # type: ignore[attr-defined]
            viewport=viewport or DESKTOP, bypass_csp=True
        )
        contexts.append(context)
        page = context.new_page()
        page.errors = []
        page.on("pageerror", lambda exc: page.errors.append(str(exc)))
        page.on("request", watch)
        return page

    yield make
    for context in contexts:
        context.close()
    assert not foreign, f"the client asked another host: {foreign}"
