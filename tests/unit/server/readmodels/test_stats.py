"""Player statistics (server/readmodels/stats.py) and `crapette stats` over a SQLite store in
tmp_path."""

from __future__ import annotations

import json
import os
import pty
import random
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import domain
from domain.analysis import analyse
from domain.engine_match import random_match
from eventstore import NewEvent, open_store
from records.importer import import_record, parse_record_file
from server.cli.stats import stats_cmd
from server.readmodels.stats import StatsIndex, match_stats
from tests.http_kit import json_of

GOLDEN = Path(__file__).resolve().parents[3] / "data" / "records"
DAY = 86_400_000
START = 1_764_547_200_000  # 2025-12-01


def _store_random(store: object, number: int, players: tuple[str, str]) -> list[object]:
    events = random_match(random.Random(number), max_games=2, max_actions=400)
    payloads = [domain.event_to_payload(event) for event in events]
    payloads[0][1]["at_ms"] = START + number * DAY
    payloads[0][1]["players"] = list(players)
    batch = [NewEvent(kind, data) for kind, data in payloads]
    store.append(f"match-r{number}", batch, expected_version=0)  # type: ignore[attr-defined]
    return [domain.event_from_payload(kind, data) for kind, data in payloads]


@pytest.fixture
def store_url(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'events.sqlite3'}"
    store = open_store(url)
    _store_random(store, 0, ("Ann", "Bob"))
    _store_random(store, 1, ("Bob", "Cy"))
    _store_random(store, 2, ("Ann", "Cy"))
    record = parse_record_file((GOLDEN / "classic-calls-resign.txt").read_text())
    import_record(store, record)  # Ann v Bob, 2025-11-29: a right call, a wrong call
    store.close()
    return url


def _expected(url: str) -> dict[str, dict[str, int]]:
    """Each name's figures summed from each match's analysis, seat by seat."""
    store = open_store(url)
    totals: dict[str, dict[str, int]] = {}
    for stream in store.list_streams("match-"):
        events = [domain.event_from_payload(r.type, r.data) for r in store.read(stream)]
        analysis = analyse(events)
        for seat, name in enumerate(analysis.players):
            mine = totals.setdefault(name, {"games": 0, "wins": 0, "points": 0, "faults": 0})
            mine.setdefault("missed", 0)
            for game in analysis.games:
                mine["games"] += 1
                mine["wins"] += int(game.winner == seat)
                mine["points"] += game.score[seat]
                mine["faults"] += game.seats[seat].faults
                mine["missed"] += game.seats[seat].missed_calls
    store.close()
    return totals


def test_every_name_seen_gets_its_figures(store_url: str) -> None:
    store = open_store(store_url)
    players = StatsIndex().players(store)
    store.close()
    assert list(players) == ["Ann", "Bob", "Cy"]
    for name, want in _expected(store_url).items():
        got = players[name]
        assert (got.games, got.wins, got.points, got.faults, got.missed_calls) == (
            want["games"],
            want["wins"],
            want["points"],
            want["faults"],
            want["missed"],
        )
    bob = players["Bob"]
    assert bob.matches == 3 and bob.right_calls >= 1  # the golden's right call is Bob's
    assert players["Ann"].wrong_calls >= 1  # and its wrong call Ann's
    assert bob.faults_per_100 == round(100 * bob.faults / bob.actions, 2)


def test_since_leaves_older_matches_out(store_url: str) -> None:
    result = CliRunner().invoke(
        stats_cmd, ["--store", store_url, "--since", "2025-12-02", "--json"]
    )
    assert result.exit_code == 0, result.output
    players = {p["name"]: p for p in json.loads(result.output)["players"]}
    assert set(players) == {"Ann", "Bob", "Cy"}
    assert players["Bob"]["matches"] == 1 and players["Ann"]["matches"] == 1
    assert players["Cy"]["matches"] == 2


def test_the_table_and_a_named_player(store_url: str) -> None:
    result = CliRunner().invoke(stats_cmd, ["--store", store_url, "Bob", "Nobody"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split()[:2] == ["player", "matches"]
    assert lines[1].startswith("Bob ") and len(lines) == 2
    assert "nobody called 'Nobody' played here" in result.stderr


def test_an_index_reads_a_match_again_only_when_it_grew(store_url: str) -> None:
    store = open_store(store_url)
    index = StatsIndex()
    read: list[int] = []
    index.players(store, pause=lambda: read.append(1))
    assert len(read) == 4
    index.players(store, pause=lambda: read.append(1))
    assert len(read) == 4  # nothing new: nothing read
    _store_random(store, 9, ("Dee", "Ann"))
    players = index.players(store, pause=lambda: read.append(1))
    assert len(read) == 5 and "Dee" in players
    store.close()


def _on_a_terminal(args: list[str]) -> tuple[str, str]:
    """Run `crapette ARGS` with stderr on a pseudo-terminal: (stdout, stderr)."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "server", *args],
        stdout=subprocess.PIPE,
        stderr=follower,
        env={**os.environ, "COLUMNS": "100"},
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        chunks.append(chunk)
    out, _ = process.communicate(timeout=120)
    os.close(leader)
    return out.decode(), b"".join(chunks).decode(errors="replace")


def test_a_progress_bar_only_on_a_terminal_and_never_with_json(store_url: str) -> None:
    out, err = _on_a_terminal(["stats", "--store", store_url])
    assert "reading matches" in err and "Ann" in out
    out, err = _on_a_terminal(["stats", "--store", store_url, "--json"])
    assert err == "" and json.loads(out)["players"]
    quiet = CliRunner().invoke(stats_cmd, ["--store", store_url])
    assert quiet.stderr == ""  # not a terminal


def test_selfplay_shows_its_progress_on_a_terminal() -> None:
    out, err = _on_a_terminal(["selfplay", "--games", "2"])
    assert "selfplay" in err and "2 games of classic" in out
    out, err = _on_a_terminal(["selfplay", "--games", "2", "--json"])
    assert err == "" and json.loads(out)["games"] == 2


def test_the_players_routes(store_url: str) -> None:
    from flask import Flask

    from server.entrypoints.players_http import players_bp

    app = Flask(__name__)
    app.extensions["crapette_store"] = open_store(store_url)
    app.register_blueprint(players_bp)
    client = app.test_client()
    everyone = client.get("/api/players")
    assert everyone.status_code == 200
    assert [p["name"] for p in json_of(everyone)["players"]] == ["Ann", "Bob", "Cy"]
    bob = client.get("/api/players/Bob")
    assert bob.status_code == 200 and json_of(bob)["matches"] == 3
    assert {m["match_id"] for m in json_of(bob)["recent"]} == {"r0", "r1", "golden-calls"}
    later = client.get("/api/players/Bob?since=2025-12-01T12:00")
    assert json_of(later)["matches"] == 1
    missing = client.get("/api/players/Nobody")
    assert missing.status_code == 404 and json_of(missing)["code"] == "not_found"
    bad = client.get("/api/players?since=yesterday")
    assert bad.status_code == 400 and json_of(bad)["details"] == {"since": ["Not a date."]}
    with client.get("/players/Bob") as page:
        assert page.status_code == 200 and b"players.js" in page.data
    app.extensions["crapette_store"].close()


def test_two_seats_of_one_name_count_as_two_players_as_before_rotation() -> None:
    """Outside rotation tables two seats may bear one name (a classic table does not refuse
    it): each seat is a player of the match, as the figures of stored matches always said."""
    events = random_match(random.Random(7), max_games=2, max_actions=400)
    payloads = [domain.event_to_payload(event) for event in events]
    payloads[0][1]["players"] = ["Ann", "Ann"]
    events = [domain.event_from_payload(kind, data) for kind, data in payloads]
    seats = match_stats("m-same", events)
    games = len(analyse(events).games)
    assert [s.name for s in seats] == ["Ann", "Ann"]
    assert [(s.matches, s.games) for s in seats] == [(1, games), (1, games)]
    assert [s.recent[0]["seat"] for s in seats] == [0, 1]
