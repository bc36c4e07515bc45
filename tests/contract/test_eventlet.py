"""The store under eventlet, as the server runs it: SQLite and PostgreSQL called directly from
greenthreads (see docs/eventstore.md). Each case runs in a child process that monkey-patches."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]


def _run_child(url: str) -> dict[str, object]:
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}  # eventlet's deprecation notice
    done = subprocess.run(
        [sys.executable, "-m", "tests.contract.eventlet_child", url],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    report: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return report


@pytest.mark.slow
def test_sqlite_from_greenthreads_with_a_live_subscription(tmp_path: Path) -> None:
    report = _run_child(f"sqlite:///{tmp_path / 'green.db'}")
    assert report["received"] == list(range(1, 101))


@pytest.mark.slow
def test_sqlite_group_commit_from_greenthreads(tmp_path: Path) -> None:
    """As the server opens its store: the appends of greenthreads that are ready together
    share one commit, and every one of them is stored and delivered once, in order."""
    report = _run_child(f"sqlite:///{tmp_path / 'green.db'}?group_commit=on")
    assert report["received"] == list(range(1, 101))
    stats = report["group_stats"]
    assert isinstance(stats, dict)
    # Ten writers append at once, then each yields: most appends join another's commit.
    assert stats["commits"] + stats["joined"] == 100 and stats["joined"] >= 50, stats


@pytest.mark.slow
def test_postgres_from_greenthreads_does_not_freeze_the_hub(postgres_url: str) -> None:
    separator = "&" if "?" in postgres_url else "?"
    report = _run_child(f"{postgres_url}{separator}schema=es_green_{uuid.uuid4().hex[:10]}")
    assert report["received"] == list(range(1, 101))
    # With psycopg's default C wait the hub is frozen for the whole query: no tick at all.
    ticks = report["ticks_during_query"]
    assert isinstance(ticks, int) and ticks >= 1
    # The listener (LISTEN/NOTIFY) does not block the hub while it waits: during each of its
    # 1 s waits the main greenthread sleeps 20 ms many times (about 50); a wait that froze the
    # hub would let it sleep once per wait. A count against the listener's own waits, not the
    # wall clock: only a 10-fold stretch of every 20 ms sleep would bring it under 5.
    assert report["listening"] is True
    per_wait = report["short_sleeps_per_listener_wait"]
    assert isinstance(per_wait, float) and per_wait >= 5, per_wait
