"""The real server on PostgreSQL under eventlet: concurrent tables play, and survive a restart."""

from __future__ import annotations

import threading
import uuid
from pathlib import Path

import pytest

from eventstore import open_store
from eventstore.postgres import PostgresStore
from tests.integration.conftest import seat_two
from tests.integration.harness import Client, ServerProcess, choose, view_of


@pytest.mark.slow
def test_tables_play_concurrently_and_survive_a_restart_on_postgres(
    postgres_url: str, tmp_path: Path, clients: list[Client]
) -> None:
    schema = "crapette_it_" + uuid.uuid4().hex[:10]
    url = f"{postgres_url}?schema={schema}"
    first = ServerProcess(tmp_path, store_url=url).start()
    try:
        tables = [seat_two(first, clients, preset="beginner") for _ in range(3)]
        errors: list[BaseException] = []

        def play(match_id: str, ann: Client, bob: Client) -> None:
            try:
                ann.wait_for(lambda c: c.view is not None, "a view")
                for _ in range(25):
                    mover = (ann, bob)[view_of(ann)["to_move"]]
                    ack = mover.send(match_id, choose(mover.view or {}) or {})
                    assert ack["ok"], ack
                    ann.wait_version(ack["version"])
                    bob.wait_version(ack["version"])
            except BaseException as exc:  # reported by the main thread
                errors.append(exc)

        threads = [threading.Thread(target=play, args=table) for table in tables]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
        versions = {m: first.get(f"/api/tables/{m}").json()["version"] for m, _, _ in tables}
        first.stop()
        second = ServerProcess(tmp_path, store_url=url).start()
        try:
            for match_id, version in versions.items():
                assert second.get(f"/api/tables/{match_id}").json()["version"] == version
        finally:
            second.stop()
    finally:
        first.stop()
        store = open_store(url)
        assert isinstance(store, PostgresStore)
        store.drop()
