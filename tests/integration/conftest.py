"""Fixtures: one real server process per test module, and seated clients."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.harness import Client, ServerProcess


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    process = ServerProcess(tmp_path_factory.mktemp("server")).start()
    try:
        yield process
    finally:
        process.stop()


@pytest.fixture
def clients() -> Iterator[list[Client]]:
    """Every client a test makes goes in here and is closed after it."""
    made: list[Client] = []
    yield made
    for client in made:
        client.close()


def seat_two(
    server: ServerProcess, clients: list[Client], **table: object
) -> tuple[str, Client, Client]:
    """A table with Ann (seat 0) and Bob (seat 1) joined and their clients connected."""
    opened = server.open_table(**table)
    joined = server.join(opened["match_id"])
    match_id = opened["match_id"]
    ann = Client(server, opened["seat_token"]).connect()
    bob = Client(server, joined["seat_token"]).connect()
    clients.extend([ann, bob])
    for client in (ann, bob):
        client.join(match_id, last_version=0)
    return match_id, ann, bob


def tmp_store(path: Path) -> str:
    return f"sqlite:///{path / 'store.sqlite3'}"
