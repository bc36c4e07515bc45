"""The tournament record (`crapette-tournament/1`): export → verify → import → export again,
and every way a tampered record is refused (docs/records.md, The tournament record)."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from domain import Ruleset
from domain.tournament import TournamentCreated, fold
from eventstore import NewEvent, open_store
from records.errors import MatchExistsError, RecordError, RecordFormatError
from records.tournament import (
    TournamentMismatchError,
    export_tournament,
    import_tournament,
    read_tournament,
    tournament_record,
    verify_tournament,
)
from server.cli.records import export_cmd, import_cmd, verify_cmd
from server.cli.tournament import simulate, tournament
from server.readmodels.ratings import ratings_of

ONE_GAME = Ruleset.from_json({"preset": "classic", "match": "wins:1"})


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    """A round-robin of three bots (three one-game matches, three byes), played for real."""
    events, state, matches = simulate(
        "round-robin", 3, None, ["steady", "sharp"], ONE_GAME, "5eed", "rr3"
    )
    assert state.finished and len(matches) == 3
    made = tournament_record(events, state, matches)
    reread: dict[str, Any] = json.loads(json.dumps(made))  # as a file holds it
    return reread


def test_the_record_verifies_and_says_so(record: dict[str, Any]) -> None:
    verified = verify_tournament(record)
    assert verified.summary.startswith("ok: tournament rr3 (round-robin, finished): 3 round(s)")
    assert len(verified.matches) == 3
    assert [r["byes"] for r in _rounds(record)] == [["steady 1"], ["steady 3"], ["sharp 2"]]


def _rounds(record: dict[str, Any]) -> list[dict[str, Any]]:
    return [e["data"] for e in record["events"] if e["type"] == "RoundPaired"]


def test_round_trip_export_verify_import_export(record: dict[str, Any]) -> None:
    store = open_store("memory://")
    line = import_tournament(store, record)
    assert line.startswith("imported tournament rr3")
    again = json.loads(json.dumps(export_tournament(store, "rr3")))
    assert again == record
    assert verify_tournament(again).state == verify_tournament(record).state
    _, state = read_tournament(store, "rr3")
    assert state is not None and state.finished
    with pytest.raises(MatchExistsError):
        import_tournament(store, record)
    # the imported matches were played elsewhere: they do not count for the ratings here
    assert ratings_of(store).current == {}


def _tampered(record: dict[str, Any], change: Any) -> dict[str, Any]:
    bad = copy.deepcopy(record)
    change(bad)
    return bad


def _swap_first_pairing(bad: dict[str, Any]) -> None:
    table = _rounds(bad)[1]["tables"][0]
    table["players"].reverse()


def _flip_a_result(bad: dict[str, Any]) -> None:
    report = next(e for e in bad["events"] if e["type"] == "MatchReported")
    report["data"]["winner"] = 1 - report["data"]["winner"]


def _drop_a_match(bad: dict[str, Any]) -> None:
    bad["matches"].pop()


def _rewrite_standings(bad: dict[str, Any]) -> None:
    bad["standings"][0], bad["standings"][1] = bad["standings"][1], bad["standings"][0]


def _drop_a_registration(bad: dict[str, Any]) -> None:
    del bad["events"][2]


def _extra_finish(bad: dict[str, Any]) -> None:
    bad["events"].append({"type": "TournamentFinished", "data": {"rounds_played": 3, "at_ms": 1}})


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (_swap_first_pairing, "the rules say [round 2"),
        (_flip_a_result, "the match says seat"),
        (_drop_a_match, "has no match record"),
        (_rewrite_standings, "standings written in the record"),
        (_drop_a_registration, "RoundPaired"),
        (_extra_finish, "tournament has finished"),
    ],
)
def test_a_tampered_record_is_refused_with_the_reason(
    record: dict[str, Any], change: Any, words: str
) -> None:
    with pytest.raises(TournamentMismatchError) as caught:
        verify_tournament(_tampered(record, change))
    assert words in caught.value.message


def _foreign_match(bad: dict[str, Any]) -> None:
    stranger = copy.deepcopy(bad["matches"][0])
    stranger["match_id"] = "m-elsewhere"
    bad["matches"].append(stranger)


def _match_twice(bad: dict[str, Any]) -> None:
    bad["matches"].append(copy.deepcopy(bad["matches"][0]))


def _seats_swapped(bad: dict[str, Any]) -> None:
    match = bad["matches"][0]
    match["players"].reverse()


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (_foreign_match, "is no table of this tournament"),
        (_match_twice, "is in the record twice"),
    ],
)
def test_a_match_that_is_not_one_of_its_tables_is_refused(
    record: dict[str, Any], change: Any, words: str
) -> None:
    with pytest.raises(TournamentMismatchError, match=words):
        verify_tournament(_tampered(record, change))


def test_a_match_with_its_seats_swapped_is_refused(record: dict[str, Any]) -> None:
    with pytest.raises(RecordError):  # the match verifier or the pairing, whichever sees it
        verify_tournament(_tampered(record, _seats_swapped))


def test_a_tampered_match_fails_the_match_verifier(record: dict[str, Any]) -> None:
    def change(bad: dict[str, Any]) -> None:
        bad["matches"][0]["result"]["totals"] = [999, 0]

    with pytest.raises(RecordError):
        verify_tournament(_tampered(record, change))


@pytest.mark.parametrize(
    "bad",
    [
        {"format": "crapette-tournament/1"},
        {"format": "crapette-tournament/1", "events": [], "matches": []},
        {"format": "crapette-tournament/1", "events": [{"type": "Nope"}], "matches": []},
        {"format": "crapette-record/1"},
        [],
    ],
)
def test_a_file_that_is_no_tournament_record_is_a_format_error(bad: object) -> None:
    with pytest.raises(RecordFormatError):
        verify_tournament(bad)


def test_only_a_finished_tournament_is_imported() -> None:
    events, state, matches = simulate("swiss", 2, 1, ["random"], ONE_GAME, "cd", "run2")
    running = tournament_record(events[:-2], fold(events[:-2]), [])  # round 1 paired, no result
    assert not running["finished"]
    verify_tournament(json.loads(json.dumps(running)))  # a running one verifies…
    with pytest.raises(TournamentMismatchError, match="not finished"):
        import_tournament(open_store("memory://"), running)  # …but is not imported


def test_a_stream_the_domain_cannot_read_is_refused_on_export() -> None:
    store = open_store("memory://")
    store.append("tournament-junk", [NewEvent("RoundPaired", {"round": "x"})], 0)
    with pytest.raises(RecordError, match="event 1 of tournament-junk"):
        export_tournament(store, "junk")


def test_the_directors_token_hash_stays_out_of_the_record(record: dict[str, Any]) -> None:
    events, state, matches = simulate("swiss", 2, 1, ["random"], ONE_GAME, "ab", "sw2")
    from dataclasses import replace

    assert isinstance(events[0], TournamentCreated)
    secret = [replace(events[0], director="f00d" * 16), *events[1:]]
    made = tournament_record(secret, replace(state, director="f00d" * 16), matches)
    assert "f00d" not in json.dumps(made)
    verify_tournament(json.loads(json.dumps(made)))


def test_the_command_line_round_trip(record: dict[str, Any], tmp_path: Path) -> None:
    runner = CliRunner()
    first = tmp_path / "rr3.json"
    first.write_text(json.dumps(record), encoding="utf-8")
    url = f"sqlite:///{tmp_path / 'club.sqlite3'}"
    result = runner.invoke(import_cmd, [str(first), "--store", url])
    assert result.exit_code == 0, result.output
    out = tmp_path / "again.json"
    result = runner.invoke(export_cmd, ["--tournament", "rr3", "--store", url, "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text(encoding="utf-8")) == record
    result = runner.invoke(verify_cmd, [str(out)])
    assert result.exit_code == 0 and result.output.startswith("ok: tournament rr3")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(_tampered(record, _flip_a_result)), encoding="utf-8")
    result = runner.invoke(verify_cmd, [str(bad)])
    assert result.exit_code == 1 and "error: " in result.output
    result = runner.invoke(export_cmd, ["--tournament", "nope", "--store", url])
    assert result.exit_code == 1 and "no tournament 'nope'" in result.output
    result = runner.invoke(export_cmd, ["m-1", "--tournament", "rr3", "--store", url])
    assert result.exit_code == 2  # a usage error


def test_simulate_prints_rounds_byes_and_standings(tmp_path: Path) -> None:
    out = tmp_path / "sim.json"
    url = f"sqlite:///{tmp_path / 'sim.sqlite3'}"
    args = ["simulate", "--format", "swiss", "--players", "3", "--rounds", "2"]
    args += ["--bots", "steady,random", "--json", "--export", str(out), "--store", url]
    result = CliRunner().invoke(tournament, args)
    assert result.exit_code == 0, result.output
    printed = json.loads(result.stdout)
    assert printed["format"] == "swiss" and len(printed["rounds"]) == 2
    assert all(len(tables) == 1 for tables in printed["rounds"])
    byes = [b for round_byes in printed["byes"] for b in round_byes]
    assert len(byes) == 2 and len(set(byes)) == 2
    assert [row["rank"] for row in printed["standings"]] == sorted(
        row["rank"] for row in printed["standings"]
    )
    assert verify_tournament(json.loads(out.read_text(encoding="utf-8"))).state.finished
    assert read_tournament(open_store(url), "sim-c1ab")[1] is not None


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--format", "round-robin", "--players", "3", "--rounds", "2"], "--rounds goes with"),
        (["--format", "swiss", "--players", "3", "--bots", "nobody"], "bot kinds"),
        (["--format", "swiss", "--players", "3", "--match", "goals:3"], "--match"),
        (["--format", "swiss", "--players", "1"], "--players"),
    ],
)
def test_simulate_refuses_bad_options(args: list[str], words: str) -> None:
    result = CliRunner().invoke(tournament, ["simulate", *args])
    assert result.exit_code == 2 and words in result.output


def test_standings_of_a_stored_tournament(record: dict[str, Any], tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'club.sqlite3'}"
    import_tournament(open_store(url), record)
    runner = CliRunner()
    result = runner.invoke(tournament, ["standings", "rr3", "--store", url, "--json"])
    assert result.exit_code == 0, result.output
    shown = json.loads(result.output)
    assert shown["standings"] == record["standings"] and shown["finished"]
    assert [len(row["rounds"]) for row in shown["crosstable"]] == [3, 3, 3]
    result = runner.invoke(tournament, ["standings", "rr3", "--store", url])
    assert result.exit_code == 0 and "round-robin, finished" in result.output
    result = runner.invoke(tournament, ["standings", "nope", "--store", url])
    assert result.exit_code == 1 and "no tournament 'nope'" in result.output


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("steady 1\u17b4", "default-ignorable character (U+17B4"),  # the domain's own rule
        ("\U0001d42cteady 1", "not as a server takes it ('steady 1'"),  # NFKC makes it another
        ("steady\u00a01", "not as a server takes it"),  # a non-ASCII space
    ],
)
def test_a_registered_name_follows_the_servers_name_rules(
    record: dict[str, Any], name: str, said: str
) -> None:
    """Issue 38: a tournament record's names are taken as the server takes them (docs/protocol.md
    § Names: the domain's rules, then RFC 8266's Nickname profile)."""
    tampered = copy.deepcopy(record)
    registered = next(e for e in tampered["events"] if e["type"] == "PlayerRegistered")
    registered["data"]["name"] = name
    with pytest.raises(RecordFormatError, match=re.escape(said)):
        verify_tournament(tampered)
