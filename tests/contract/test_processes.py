"""Global order across processes: four writer processes (tests/contract/crash_child.py with a
count) append batches to the same store while this process reads `read_all` throughout. Every
reader page must continue exactly where the last one ended (positions without a hole, so nothing
skipped), and at the end every batch is there, whole, once."""

from __future__ import annotations

import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from eventstore import RecordedEvent, open_store
from eventstore.postgres import PostgresStore

REPO_ROOT = Path(__file__).resolve().parents[2]
WRITERS = 4
BATCHES = 60  # per writer; batch sizes 1-4


def _check_order_across_processes(url: str) -> None:
    reader = open_store(url)  # creates the tables before the writers race to
    writers = [
        subprocess.Popen(
            [sys.executable, "-m", "tests.contract.crash_child", url, str(w * 1000), str(BATCHES)],
            cwd=REPO_ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for w in range(WRITERS)
    ]
    seen: list[RecordedEvent] = []
    try:
        while True:
            running = any(w.poll() is None for w in writers)
            page = reader.read_all(len(seen) + 1, limit=40)
            assert [e.position for e in page] == list(
                range(len(seen) + 1, len(seen) + 1 + len(page))
            )
            seen.extend(page)
            if not running and not page:
                break
            if not page:
                time.sleep(0.002)  # leave the CPU to the writers
    finally:
        for writer in writers:
            _, err = writer.communicate(timeout=60)
            assert writer.returncode == 0, err.decode(errors="replace")
        reader.close()
    batches: dict[int, list[int]] = {}
    for event in seen:
        batches.setdefault(event.data["batch"], []).append(event.data["j"])
    expected = {w * 1000 + i for w in range(WRITERS) for i in range(BATCHES)}
    assert batches.keys() == expected
    for batch, js in batches.items():
        assert js == list(range(1 + batch % 4)), f"batch {batch} is split or partial: {js}"
    versions: dict[str, int] = {}
    for event in seen:
        assert event.version == versions.get(event.stream, 0) + 1
        versions[event.stream] = event.version


def test_sqlite_writers_in_several_processes(tmp_path: Path) -> None:
    _check_order_across_processes(f"sqlite:///{tmp_path / 'shared.db'}")


@pytest.fixture
def postgres_schema_url(postgres_url: str) -> Iterator[str]:
    separator = "&" if "?" in postgres_url else "?"
    url = f"{postgres_url}{separator}schema=es_procs_{uuid.uuid4().hex[:12]}"
    yield url
    cleaner = PostgresStore(url, pool_size=1)
    cleaner.drop()
    cleaner.close()


@pytest.mark.slow
def test_postgres_writers_in_several_processes(postgres_schema_url: str) -> None:
    _check_order_across_processes(postgres_schema_url)
