"""Play on from here (server/services/practice.py, docs/protocol.md § practice): a practice table
starts at the very position of a finished match, a person against a bot, says it is practice, and
counts in no statistics (the players pages and `crapette stats`); a match in play, or a position
between two games, is refused. And the learning mode's try (server/services/analyses.py): the best
move, a worse one, an illegal one, before any analysis."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from flask.testing import FlaskClient

from server.adapters.matches import MatchRepository
from server.app import create_app
from server.cli import main
from server.config import ServerConfig
from tests.http_kit import json_of

GOLDEN = Path(__file__).resolve().parents[3] / "data" / "records"
FIXTURE = "tests.analysis_fixture"


def _app(**config: Any) -> Any:
    app, _ = create_app(
        ServerConfig(
            async_mode="threading",
            analyser=f"{FIXTURE}:analyse_record",
            try_judge=f"{FIXTURE}:judge_try",
            **config,
        )
    )
    return app


def _import(client: FlaskClient, name: str = "classic-win-recycle") -> str:
    body = (GOLDEN / f"{name}.json").read_bytes()
    answer = client.post("/api/records", data=body, content_type="application/json")
    assert answer.status_code == 201, answer.json
    match_id: str = json_of(answer)["match_id"]
    return match_id


def test_a_practice_table_starts_at_the_position_and_says_so() -> None:
    app = _app()
    client = app.test_client()
    source = _import(client)
    service = app.extensions["crapette"]
    answer = client.post(
        f"/api/matches/{source}/practice",
        json={"version": 40, "name": "Cleo", "seat": 1, "bot": "steady"},
    )
    assert answer.status_code == 201, answer.json
    ticket = answer.json
    assert (
        ticket["seat"] == 1
        and ticket["seat_token"]
        and ticket["table_url"].endswith(ticket["match_id"])
    )
    table = client.get(f"/api/tables/{ticket['match_id']}").json
    assert table["practice"] == {"match_id": source, "version": 40}
    assert table["status"] == "playing"
    assert [s["name"] for s in table["seats"]] == ["steady bot", "Cleo"]
    assert table["ruleset"]["match"] == "wins:1" and table["ruleset"]["move_time_limit_s"] is None
    # The very position of the source, at once playable by the same rules.
    origin = MatchRepository.state_at(service.repo.find(source), 40)
    now = service.repo.find(ticket["match_id"]).state
    assert origin is not None and origin.game is not None
    assert now is not None and now.game is not None
    assert now.game.piles == origin.game.piles and now.game.to_move == origin.game.to_move
    assert not now.finished and now.players == ("steady bot", "Cleo")
    # The source's table is no practice.
    assert client.get(f"/api/tables/{source}").json["practice"] is None


def test_refused_for_a_match_in_play_between_games_or_out_of_range() -> None:
    client = _app().test_client()
    live = client.post("/api/tables", json={"name": "Ann", "bot": "steady"}).json["match_id"]
    body = {"version": 2, "name": "Cleo"}
    answer = client.post(f"/api/matches/{live}/practice", json=body)
    assert answer.status_code == 409 and answer.json["code"] == "match_running"
    source = _import(client)
    answer = client.post(f"/api/matches/{source}/practice", json={**body, "version": 1})
    assert answer.status_code == 409 and answer.json["code"] == "not_playing"
    answer = client.post(f"/api/matches/{source}/practice", json={**body, "version": 10**6})
    assert answer.status_code == 400 and "version" in answer.json["details"]
    answer = client.post(f"/api/matches/{source}/practice", json={**body, "bot": "nobody"})
    assert answer.status_code == 400 and "bot" in answer.json["details"]
    # The viewer's own name, never the bot's (issue 39: "steady bot (you)" against a bot).
    named = {**body, "version": 40, "bot": "steady", "name": "Steady Bot"}
    answer = client.post(f"/api/matches/{source}/practice", json=named)
    assert answer.status_code == 400 and "name" in answer.json["details"]


def test_a_practice_game_counts_in_no_statistics(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 's.db'}"
    app = _app(store_url=url, read_workers=0, analysis_workers=0)
    client = app.test_client()
    source = _import(client)
    before = client.get("/api/players").json["players"]
    ticket = client.post(
        f"/api/matches/{source}/practice",
        json={"version": 40, "name": "Cleo", "seat": 0, "bot": "steady"},
    ).json
    service = app.extensions["crapette"]
    resign = {"do": "resign", "seat": 0}
    service.player_commands.execute(ticket["match_id"], ticket["seat_token"], "c-resign-01", resign)
    assert client.get(f"/api/tables/{ticket['match_id']}").json["status"] == "finished"
    # A finished game with a winner, which any other table would count:
    assert service.repo.find(ticket["match_id"]).state.wins == (0, 1)
    assert client.get("/api/players").json["players"] == before
    assert client.get("/api/players/Cleo").status_code == 404
    # Nor in the ratings, though a person beat a bot to the end of a match there.
    from server.readmodels.ratings import rated_matches

    store = app.extensions["crapette_store"]
    assert ticket["match_id"] not in [m.match_id for m in rated_matches(store)]
    app.extensions["crapette_store"].close()
    result = CliRunner().invoke(main, ["stats", "--store", url, "--json"])
    assert result.exit_code == 0, result.output
    names = [p["name"] for p in json.loads(result.output)["players"]]
    assert "Cleo" not in names and "steady bot" not in names and names  # Ann and Bob count


def _analysed(client: FlaskClient, match_id: str) -> dict[str, Any]:
    answer = client.post(f"/api/matches/{match_id}/analysis")
    while answer.status_code == 202:
        time.sleep(0.05)
        answer = client.get(f"/api/matches/{match_id}/analysis")
    assert answer.status_code == 200, answer.json
    result: dict[str, Any] = json_of(answer)["analysis"]
    return result


def test_a_try_is_judged_against_the_best_move() -> None:
    client = _app().test_client()
    source = _import(client)
    answer = client.post(f"/api/matches/{source}/analysis/try", json={"version": 2, "action": {}})
    assert answer.status_code == 404 and answer.json["code"] == "not_analysed"
    decisions = _analysed(client, source)["games"][0]["decisions"]
    mistake = next(d for d in decisions if d["judgement"] in ("mistake", "blunder"))
    url = f"/api/matches/{source}/analysis/try"
    best = client.post(url, json={"version": mistake["version"], "action": mistake["best"]}).json
    assert best["verdict"] == "best" and best["best"] == mistake["best"]
    assert best["win_chance"]["tried"] == mistake["win_chance"]["best"]
    again = client.post(url, json={"version": mistake["version"], "action": mistake["played"]})
    assert again.status_code == 200, again.json
    assert again.json["verdict"] == "worse"
    assert again.json["win_chance"]["tried"] < mistake["win_chance"]["best"]
    wrong = {"do": "move", "from": "F0", "to": "T0"}
    answer = client.post(url, json={"version": mistake["version"], "action": wrong})
    assert answer.status_code == 422 and answer.json["reason"] == "not_legal"
    answer = client.post(url, json={"version": 10**6, "action": mistake["best"]})
    assert answer.status_code == 400 and "version" in answer.json["details"]
