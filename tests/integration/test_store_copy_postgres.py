"""`crapette store copy` of a SQLite store with a few hundred matches into PostgreSQL, as real
processes: killed (-9) partway and run again it finishes with nothing duplicated, a further run
writes nothing, and every match replays and exports identically from both stores."""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

import domain
from domain.engine_match import random_match
from eventstore import EventStore, NewEvent, open_store
from eventstore.postgres import PostgresStore
from records.export import export_match
from server.service import GameService
from tests.conftest import REPO_ROOT

MATCHES = 300

pytestmark = pytest.mark.slow


def _fill(url: str) -> int:
    """MATCHES short random matches, each with the lobby stream a server would have written."""
    with open_store(url) as store:
        for number in range(MATCHES):
            match_id = f"m-{number:04d}"
            events = random_match(random.Random(number), "beginner", max_games=1, max_actions=20)
            payloads = [domain.event_to_payload(event) for event in events]
            payloads[0][1]["match_id"] = match_id
            started = payloads[0][1]["at_ms"]
            opened = {
                "match_id": match_id,
                "ruleset": payloads[0][1]["ruleset"],
                "preset": "beginner",
                "at_ms": started,
                "rematch_of": None,
            }
            seats = [
                NewEvent("SeatTaken", {"seat": s, "name": n, "token_hash": None, "at_ms": started})
                for s, n in enumerate(("Ann", "Bob"))
            ]
            store.append(f"table-{match_id}", [NewEvent("TableOpened", opened), *seats], 0)
            for kind, data in payloads:  # one append per event, as a server writes them
                store.append(f"match-{match_id}", [NewEvent(kind, data)], -2)
        return store.last_position()


@pytest.fixture
def target_url(postgres_url: str) -> Iterator[str]:
    separator = "&" if "?" in postgres_url else "?"
    url = f"{postgres_url}{separator}schema=copy_{uuid.uuid4().hex[:10]}"
    yield url
    store = open_store(url)
    assert isinstance(store, PostgresStore)
    store.drop()
    store.close()


def _copy_command(source: str, target: str) -> list[str]:
    return [sys.executable, "-m", "server", "store", "copy", "--from", source, "--to", target]


def test_copy_killed_partway_then_rerun_is_identical(tmp_path: Path, target_url: str) -> None:
    # No fsync per append while the test fills it: ~8,000 appends.
    source_url = f"sqlite:///{tmp_path / 'club.sqlite3'}?synchronous=OFF"
    total = _fill(source_url)
    # Small pages, so that the kill lands in the middle of the copy.
    command = [*_copy_command(source_url, target_url), "--batch-size", "5"]
    with open_store(target_url) as target:
        process = subprocess.Popen(command, cwd=REPO_ROOT, stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while target.last_position() < total // 3 and time.monotonic() < deadline:
            assert process.poll() is None, "the copy ended before it could be killed"
            time.sleep(0.01)
        os.kill(process.pid, signal.SIGKILL)
        process.wait(10)
        killed_at = target.last_position()
    assert 0 < killed_at < total

    again = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    # The page in flight at the kill may still have committed after it: resumed from there.
    found = re.search(r"copied (\d+) event\(s\); (\d+) were already there", again.stdout)
    assert found is not None, again.stdout
    copied, already = int(found.group(1)), int(found.group(2))
    assert copied + already == total and killed_at <= already < total
    assert "event(s): every count and digest is the same" in again.stdout
    third = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True, timeout=300)
    assert third.returncode == 0 and f"copied 0 event(s); {total} were" in third.stdout

    with open_store(source_url) as source, open_store(target_url) as target:
        assert source.read_all() == target.read_all()  # ids, versions, positions, times
        _same_replays_and_records(source, target)


def _same_replays_and_records(source: EventStore, target: EventStore) -> None:
    original, copy = GameService(source), GameService(target)
    matches = [name.removeprefix("table-") for name in source.list_streams("table-")]
    assert len(matches) == MATCHES
    for match_id in matches:
        assert copy.reads.replay(match_id) == original.reads.replay(match_id)
        assert export_match(target, match_id) == export_match(source, match_id)
