"""Issue 38, against a real server process: a tournament's result cannot be forged by importing
a record under one of its predictable table ids, and its names cannot all be claimed from one
address (claim, `me` and `director` share the seat joins' rate limit)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import requests

from tests.conftest import REPO_ROOT
from tests.integration.harness import WAIT_S, ServerProcess

GOLDEN = REPO_ROOT / "tests" / "data" / "records" / "classic-calls-resign.json"


def _forged(match_id: str) -> dict[str, Any]:
    """A finished one-game match that Bob (seat 1) won 0–89, as the attacker's record."""
    record: dict[str, Any] = json.loads(GOLDEN.read_text())
    record["ruleset"]["match"] = "wins:1"
    record["result"] = {"finished": True, "winner": 1, "totals": [0, 89]}
    record["match_id"] = match_id
    return record


def _upload(server: ServerProcess, record: dict[str, Any], **query: str) -> requests.Response:
    return requests.post(
        f"{server.url}/api/records", params=query, data=json.dumps(record), timeout=WAIT_S
    )


def _create(server: ServerProcess, names: list[str]) -> dict[str, Any]:
    body = {
        "name": "Club night",
        "format": "swiss",
        "rounds": 1,
        "preset": "classic",
        "match": "wins:1",
        "players": [{"name": n} for n in names],
    }
    created = server.post("/api/tournaments", body)
    assert created.status_code == 201, created.text
    return dict(created.json())


def test_a_forged_import_under_a_tournament_table_id_is_refused(server: ServerProcess) -> None:
    created = _create(server, ["Ann", "Bob"])
    tid, director = created["tournament_id"], created["director_token"]
    table_id = f"{tid}-r1-t1"  # the id its first round's table will have
    # The attack: the record's own id, or the id asked for, is the table's.
    for answer in (
        _upload(server, _forged(table_id)),
        _upload(server, _forged("x"), match_id=table_id),
    ):
        assert answer.status_code == 400, answer.text
        body = answer.json()
        assert body["code"] == "invalid" and "tournament's table ids" in body["message"], body
        assert "<tournament id>-r<round>-t<table>" in body["details"]["match_id"][0], body
    # The server's own table form is refused too when asked for.
    answer = _upload(server, _forged("y"), match_id="m-0123456789")
    assert answer.status_code == 400 and "server's own" in answer.json()["message"], answer.text
    assert server.get(f"/api/tables/{table_id}").status_code == 404  # nothing was stored
    # The round opens the desk's own table, with both players seated and nothing played.
    order = {"director_token": director, "action": "start"}
    assert server.post(f"/api/tournaments/{tid}/director", order).status_code == 200
    deadline = time.monotonic() + WAIT_S
    while server.get(f"/api/tables/{table_id}").status_code != 200:
        assert time.monotonic() < deadline, "the desk never opened its table"
        time.sleep(0.1)
    table = server.get(f"/api/tables/{table_id}").json()
    assert [seat["name"] for seat in table["seats"]] == ["Ann", "Bob"], table
    view = server.get(f"/api/tournaments/{tid}").json()
    assert view["status"] == "playing", view
    assert view["rounds"][0]["tables"][0]["result"] is None, view
    # The forged record under another id is a plain import, nowhere in the tournament.
    answer = _upload(server, _forged("z"), match_id=f"{tid}.r1.t1")
    assert answer.status_code == 201, answer.text
    time.sleep(1.2)  # two of the desk's ticks
    view = server.get(f"/api/tournaments/{tid}").json()
    assert view["status"] == "playing" and view["rounds"][0]["tables"][0]["result"] is None
    assert "Traceback" not in server.log()


def test_claims_me_and_director_share_the_join_limit(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path, rate_limits=("all=off", "join=20/minute")).start()
    try:
        names = [f"P{n:02}" for n in range(32)]
        created = _create(server, names)
        tid = created["tournament_id"]
        claims = [server.post(f"/api/tournaments/{tid}/claim", {"name": n}) for n in names[:20]]
        assert {c.status_code for c in claims} == {200}, [c.text for c in claims]
        for path, body in (
            ("claim", {"name": names[20]}),
            ("me", {"player_token": claims[0].json()["player_token"]}),
            ("director", {"director_token": created["director_token"], "action": "start"}),
        ):
            refused = server.post(f"/api/tournaments/{tid}/{path}", body)
            assert refused.status_code == 429, (path, refused.text)
            assert refused.json()["code"] == "rate_limited"
            assert int(refused.headers["Retry-After"]) >= 1
        # The 21st name stays unclaimed: nobody got its seat token.
        view = server.get(f"/api/tournaments/{tid}").json()
        assert view["status"] == "registering"
        assert server.alive()
    finally:
        server.stop()
