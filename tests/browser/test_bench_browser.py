"""`crapette bench browser` runs end to end on tiny settings and prints every figure (the
figures themselves are the benchmark's business, not a test's)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.browser.conftest import CHROMIUM
from tests.conftest import service_unavailable


@pytest.mark.slow
def test_the_browser_benchmark_prints_every_figure() -> None:
    if not Path(CHROMIUM).exists():
        service_unavailable("Chromium", f"nothing at {CHROMIUM}")  # fails under CI
    # Its own process: Playwright's sync API cannot run inside another test's Playwright.
    command = [sys.executable, "-c", "from server.cli import main; main()", "bench", "browser"]
    command += ["--events", "30", "--jumps", "5", "--json", "--chromium", CHROMIUM]
    done = subprocess.run(command, capture_output=True, text=True, timeout=100, check=False)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["frames"] >= 30
    for key in ("step_ms", "jump_ms", "naive_redraw_ms"):
        figures = report[key]
        assert 0 <= figures["median"] <= figures["p95"] <= figures["max"], key
    assert report["targets_ms"] == {"step": 16.0, "jump": 50.0}
    assert isinstance(report["step_within_target"], bool)
    assert report["analysis_shown"] is True  # a finished match, its analysis drawn
