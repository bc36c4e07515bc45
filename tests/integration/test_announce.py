"""The server found by name on the LAN (server/adapters/announce.py), for real: mDNS packets between
a real `crapette serve` and a resolver, inside a network namespace of this test's own whose only
interface is loopback (`unshare -n`), so that no packet can leave the machine. Skipped where no
namespace can be made (not root)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO_ROOT

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def in_namespace(module: str, *args: str) -> dict[str, Any]:
    probe = subprocess.run(["unshare", "-n", "true"], capture_output=True)
    if probe.returncode:
        pytest.skip(f"no network namespace here: {probe.stderr.decode().strip()}")
    done = subprocess.run(
        ["unshare", "-n", sys.executable, "-m", module, *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=110,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@pytest.mark.timeout(120)
def test_the_server_is_found_by_name_and_follows_its_addresses(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    seen = in_namespace("tests.integration.announce_netns", str(log))
    port = seen["port"]
    assert seen["server_info"]["announced_url"] == f"http://crapette.local:{port}/"
    assert seen["first"]["addresses"] == ["127.0.0.1"], log.read_text()
    service = seen["first"]["service"]
    assert service == {
        "port": port,
        "server": "crapette.local.",
        "addresses": ["127.0.0.1"],
        "path": "/",
    }
    # A new address is announced within a poll or two, and it serves the lobby.
    assert sorted(seen["changed"]["addresses"]) == ["127.0.0.1", "127.0.0.2"], log.read_text()
    assert seen["second_address"] == 200
    # One announcer, gone with the server, and its goodbye withdrew the name.
    assert seen["announcers"] == 1
    assert seen["announcers_left"] == []
    assert seen["after_stop"] == {"addresses": [], "service": None}


@pytest.mark.timeout(60)
def test_the_announcer_does_not_stall_the_event_loop() -> None:
    """An eventlet loop ticking every millisecond goes on at its idle rate while the announcer
    starts, announces and re-checks its addresses (every 0.2 s here), in its own process."""
    figures = in_namespace("tests.integration.announce_stall")
    print(figures)
    assert figures["alive"]
    idle, announcing = figures["idle"], figures["announcing"]
    # Bounds far from the figures (docs/lan.md): only a loop stopped for the announcer's
    # start (~0.2 s of CPU) or for its polls would miss them, even on a loaded machine.
    assert announcing["longest_ms"] < 200, figures
    assert announcing["ticks_per_s"] > idle["ticks_per_s"] / 2, figures
