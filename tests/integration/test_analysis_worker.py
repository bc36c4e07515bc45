"""A real `crapette serve` (eventlet) analyses a finished match in a worker process of its
analysis pool while another table plays on: that table's moves are answered all along (the
analysis never stops the loop), the page sees the analysis's progress, and the worker ends with
the server. The judgements come from the fixture analyser (tests/analysis_fixture.py), made to
burn CPU for a while per decision as a real evaluator does."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from tests.integration.conftest import seat_two
from tests.integration.harness import Client, ServerProcess, choose
from tests.integration.test_read_workers import _alive, _children

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "records"
DELAY_S = 0.03  # per decision: the golden record's 123 decisions take ~4 s of CPU


@pytest.fixture(scope="module")
def server(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[ServerProcess]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CRAPETTE_FIXTURE_DELAY_S", str(DELAY_S))  # the worker inherits it
        args = ("--analyser", "tests.analysis_fixture:analyse_record")
        process = ServerProcess(tmp_path_factory.mktemp("analysis"), extra_args=args).start()
    try:
        yield process
    finally:
        process.stop()


def _import(server: ServerProcess) -> str:
    body = (GOLDEN / "classic-win-recycle.json").read_bytes()
    answer = requests.post(
        f"{server.url}/api/records", data=body, headers={"Content-Type": "application/json"}
    )
    assert answer.status_code == 201, answer.text
    match_id: str = answer.json()["match_id"]
    return match_id


def test_a_table_plays_on_while_a_worker_analyses(
    server: ServerProcess, clients: list[Client]
) -> None:
    finished = _import(server)
    match_id, ann, bob = seat_two(server, clients, preset="classic")
    players = [ann, bob]
    ann.wait_version(2)
    started = time.monotonic()
    answer = server.post(f"/api/matches/{finished}/analysis", {})
    assert answer.status_code == 202, answer.text
    waits: list[float] = []
    progress: list[int] = []
    while answer.status_code == 202:
        # One move of the other table, timed from command to acknowledgement.
        version = max(p.version for p in players)
        for player in players:
            player.wait_version(version)
        view = ann.view
        assert view is not None
        mover = players[view["to_move"]]
        action = None if view["over"] else choose(mover.view or {})
        if action is not None:  # (a game that ended meanwhile: the analysis is polled on)
            sent = time.monotonic()
            ack = mover.send(match_id, action)
            waits.append(time.monotonic() - sent)
            assert ack["ok"], ack
        else:
            time.sleep(0.05)
        answer = server.get(f"/api/matches/{finished}/analysis")
        progress.append(answer.json()["progress"]["done"])
    analysis_s = time.monotonic() - started
    assert answer.status_code == 200, answer.text
    total = answer.json()["progress"]["total"]
    assert analysis_s >= total * DELAY_S * 0.9  # it did take its time...
    assert len(waits) >= 10  # ... and the table moved all along, each move answered quickly:
    assert max(waits) < analysis_s / 4, (max(waits), analysis_s)  # on the loop: >= analysis_s
    assert any(0 < done < total for done in progress)
    # The analysis came from a child process of the server, which ends with it.
    workers = _children(server.proc.pid) if server.proc else []
    assert workers
    server.stop()
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_alive(pid) for pid in workers)
