"""Issue 38: a tournament across processes. Two `crapette serve` on one PostgreSQL store with
Redis (as docs/deploy.md runs them): the director creates and starts the tournament on one, the
players claim their names, learn their tables and play on the other; each process's desk ticks
(one opens each table, the other finds it and adopts it: its opening names the tournament). An
8-player Swiss of bots and people finishes, and both processes show the same standings, rounds
and ratings."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.integration.harness import Client, ServerProcess, choose

pytestmark = pytest.mark.slow

PEOPLE = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"]
# Two bots: a Swiss pairs them together once at most (two steady bots play a whole game in a
# test's time; two random ones may wander for minutes).
BOTS = {"Rob": "steady", "Tim": "steady"}
FINISH_S = 300.0  # an upper bound on the whole tournament, never an assertion about speed


@pytest.fixture
def nodes(tmp_path: Path, postgres_url: str, redis_url: str) -> Iterator[dict[str, ServerProcess]]:
    separator = "&" if "?" in postgres_url else "?"
    schema = f"tourney_{uuid.uuid4().hex[:10]}"
    store_url = f"{postgres_url}{separator}schema={schema}"
    made: dict[str, ServerProcess] = {}
    for name in ("director", "players"):
        folder = tmp_path / name
        folder.mkdir()
        args = ("--message-queue", redis_url, "--node-id", name)
        made[name] = ServerProcess(folder, store_url=store_url, extra_args=args, bot_delay_s=0.0)
    try:
        for node in made.values():  # the first creates the schema before the second starts
            node.start()
        yield made
    finally:
        for node in made.values():
            node.stop()
        with psycopg.connect(postgres_url, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def _post(node: ServerProcess, path: str, body: Any) -> dict[str, Any]:
    answer = node.post(path, body)
    assert answer.status_code in (200, 201), (path, answer.text)
    return dict(answer.json())


class Person:
    """A player at the players' process: his token, his connection, the tables he played."""

    def __init__(self, node: ServerProcess, tid: str, name: str) -> None:
        self.node, self.tid, self.name = node, tid, name
        self.token = _post(node, f"/api/tournaments/{tid}/claim", {"name": name})["player_token"]
        self.client = Client(node, self.token).connect()
        self.played: set[str] = set()
        self.moves = 0

    def act(self) -> None:
        """At his next table: a few moves of the simple policy when it is his turn, then he
        resigns (so that a person's match ends in a test's time, by the table's own rules)."""
        me = _post(self.node, f"/api/tournaments/{self.tid}/me", {"player_token": self.token})
        table = me["next_table"]
        if table is None or table["match_id"] in self.played:
            return
        match_id, seat = table["match_id"], table["seat"]
        self.client.join(match_id)
        view = self.client.view or {}
        if self.moves < 3 and view.get("to_move") == seat and not view.get("finished"):
            action = choose(view)
            if action is not None:
                self.client.send(match_id, action)
                self.moves += 1
                return
        answer = self.client.send(match_id, {"do": "resign", "seat": seat})
        if answer.get("ok") or answer.get("code") in ("not_playing", "refused", "conflict"):
            self.played.add(match_id)
            self.moves = 0

    def close(self) -> None:
        self.client.close()


def _same_on_both(nodes: dict[str, ServerProcess], path: str) -> dict[str, Any]:
    """The answer of `path` once both processes give the same (each folds the store itself)."""
    deadline = time.monotonic() + 30
    while True:
        answers = [node.get(path).json() for node in nodes.values()]
        if answers[0] == answers[1]:
            return dict(answers[0])
        assert time.monotonic() < deadline, (path, answers)
        time.sleep(0.2)


def test_an_eight_player_swiss_finishes_alike_on_two_processes(
    nodes: dict[str, ServerProcess],
) -> None:
    director, players = nodes["director"], nodes["players"]
    entrants = [{"name": n} for n in PEOPLE] + [{"name": n, "bot": b} for n, b in BOTS.items()]
    body = {
        "name": "Two processes",
        "format": "swiss",
        "rounds": 3,
        "preset": "beginner",
        "match": "wins:1",
        "players": entrants,
    }
    created = _post(director, "/api/tournaments", body)
    tid = created["tournament_id"]
    people = [Person(players, tid, name) for name in PEOPLE]
    try:
        order = {"director_token": created["director_token"], "action": "start"}
        _post(director, f"/api/tournaments/{tid}/director", order)
        deadline = time.monotonic() + FINISH_S
        while players.get(f"/api/tournaments/{tid}").json()["status"] != "finished":
            assert time.monotonic() < deadline, players.get(f"/api/tournaments/{tid}").json()
            for person in people:
                person.act()
            time.sleep(0.2)
    finally:
        for person in people:
            person.close()
    view = _same_on_both(nodes, f"/api/tournaments/{tid}")
    assert view["status"] == "finished" and len(view["rounds"]) == 3, view
    results = [t["result"] for r in view["rounds"] for t in r["tables"]]
    assert len(results) == 12 and all(r is not None for r in results), view["rounds"]
    assert sorted(row["name"] for row in view["standings"]) == sorted(PEOPLE + list(BOTS))
    assert sum(row["score"] for row in view["standings"]) == 12.0  # one point per match
    # Every table was opened once, by one desk, and names its tournament.
    for played in view["rounds"]:
        for table in played["tables"]:
            lobby = _same_on_both(nodes, f"/api/tables/{table['match_id']}")
            assert [s["name"] for s in lobby["seats"]] == table["players"], lobby
    # The ratings, the same on both processes: every match of the tournament rated but one of
    # bot against bot (docs/tournaments.md § Ratings).
    rated = [
        t["players"]
        for r in view["rounds"]
        for t in r["tables"]
        if not all(name in BOTS for name in t["players"])
    ]
    ratings = _same_on_both(nodes, "/api/ratings")["ratings"]
    rows = {row["name"]: row for row in ratings}
    assert set(rows) == set(PEOPLE) | set(BOTS), ratings
    for name, row in rows.items():
        assert row["matches"] == sum(name in pair for pair in rated), (name, ratings)
    assert sum(row["wins"] for row in ratings) == len(rated), ratings
    for node in nodes.values():
        assert "Traceback" not in node.log(), node.log()[-3000:]
