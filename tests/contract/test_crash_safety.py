"""Crash safety: a child process appends in a loop and is SIGKILLed at random moments. Every
append it acknowledged (on a pipe, after commit) must be stored, and no batch may be partial."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from eventstore import open_store
from eventstore.postgres import PostgresStore

REPO_ROOT = Path(__file__).resolve().parents[2]
ROUNDS = 6


def _run_and_kill(url: str, first_batch: int, rng: random.Random) -> set[int]:
    """Start the child, let it append for a random while, SIGKILL it; return the acked batches."""
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.contract.crash_child", url, str(first_batch)],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        ready = child.stdout.readline()
        assert ready == "ready\n", child.stderr.read() if child.stderr else ready
        # Kill while appends are in flight: after a random delay, or a random number of acks.
        # (The delay bounds the round; the random moment is what matters, not its length.)
        time.sleep(rng.uniform(0.01, 0.25))
        os.kill(child.pid, signal.SIGKILL)
        rest = child.stdout.read()  # acks already in the pipe survive the kill
    finally:
        if child.poll() is None:
            os.kill(child.pid, signal.SIGKILL)
        child.wait()
        for stream in (child.stdout, child.stderr):
            if stream is not None:
                stream.close()
    assert child.returncode == -signal.SIGKILL
    return {int(line) for line in rest.splitlines() if line.strip()}


def _check_crash_safety(url: str) -> None:
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    acknowledged: set[int] = set()
    next_batch = 0
    for _ in range(ROUNDS):
        acked_now = _run_and_kill(url, next_batch, rng)
        acknowledged |= acked_now
        store = open_store(url)
        try:
            stored: dict[int, list[int]] = {}
            sizes: dict[int, int] = {}
            for event in store.read_all():
                stored.setdefault(event.data["batch"], []).append(event.data["j"])
                sizes[event.data["batch"]] = event.data["size"]
        finally:
            store.close()
        missing = acknowledged - stored.keys()
        assert not missing, f"acknowledged but lost: {sorted(missing)} (seed {seed})"
        for batch, js in stored.items():
            assert js == list(range(sizes[batch])), f"batch {batch} is partial (seed {seed})"
        # At most one batch of this round (the one in flight at the kill) may be stored without
        # its acknowledgement.
        stored_now = {batch for batch in stored if batch >= next_batch}
        assert len(stored_now - acked_now) <= 1, f"seed {seed}"
        next_batch = max(stored, default=-1) + 1
    assert len(acknowledged) >= ROUNDS, f"the child hardly ever committed (seed {seed})"


@pytest.mark.slow
def test_sqlite_survives_sigkill(tmp_path: Path) -> None:
    _check_crash_safety(f"sqlite:///{tmp_path / 'crash.db'}")


@pytest.fixture
def postgres_schema_url(postgres_url: str) -> Iterator[str]:
    schema = f"es_crash_{uuid.uuid4().hex[:12]}"
    separator = "&" if "?" in postgres_url else "?"
    url = f"{postgres_url}{separator}schema={schema}"
    yield url
    cleaner = PostgresStore(url, pool_size=1)
    cleaner.drop()
    cleaner.close()


@pytest.mark.slow
def test_postgres_survives_sigkill(postgres_schema_url: str) -> None:
    _check_crash_safety(postgres_schema_url)
