"""Tournament commands: what each decides, what each refuses and why, and the stored form."""

from __future__ import annotations

import json

import pytest

from domain import Ruleset
from domain.errors import NotationError
from domain.tournament import (
    MAX_PLAYERS,
    CreateTournament,
    FinishTournament,
    PairRound,
    RecordNoShow,
    RegisterPlayer,
    ReportMatch,
    TournamentError,
    WithdrawPlayer,
    decide,
    event_from_payload,
    event_to_payload,
    fold,
    match_id_for,
    result_of_match,
    standings,
)
from tests.unit.domain.tournament_kit import Director

CLASSIC = Ruleset.preset("classic")


def _refused(d: Director, command: object, rule: str) -> None:
    with pytest.raises(TournamentError) as caught:
        d.do(command)  # type: ignore[arg-type]
    assert caught.value.rule == rule
    assert caught.value.message


@pytest.mark.parametrize(
    ("command", "rule"),
    [
        (CreateTournament("bad id!", "x", "swiss", 3, CLASSIC, 0), "bad id"),
        (CreateTournament("t", "  ", "swiss", 3, CLASSIC, 0), "bad name"),
        (CreateTournament("t", "x", "knockout", 3, CLASSIC, 0), "bad format"),  # type: ignore[arg-type]
        (CreateTournament("t", "x", "swiss", None, CLASSIC, 0), "bad rounds"),
        (CreateTournament("t", "x", "swiss", 0, CLASSIC, 0), "bad rounds"),
        (CreateTournament("t", "x", "round-robin", 3, CLASSIC, 0), "bad rounds"),
    ],
)
def test_creation_is_refused_with_a_reason(command: CreateTournament, rule: str) -> None:
    with pytest.raises(TournamentError) as caught:
        decide(None, command)
    assert caught.value.rule == rule


def test_a_rotation_ruleset_is_refused() -> None:
    rotation = Ruleset.from_json({"preset": "classic", "rotation": "winner_out"})
    with pytest.raises(TournamentError) as caught:
        decide(None, CreateTournament("t", "x", "swiss", 3, rotation, 0))
    assert caught.value.rule == "bad ruleset"


def test_commands_before_creation_and_twice_created() -> None:
    with pytest.raises(TournamentError) as caught:
        decide(None, PairRound(0))
    assert caught.value.rule == "no tournament"
    d = Director("swiss", ["Ann", "Bob"], rounds=1)
    _refused(d, CreateTournament("club", "again", "swiss", 1, CLASSIC, 0), "tournament exists")


def test_registration_refusals() -> None:
    d = Director("swiss", ["Ann", "Bob"], rounds=2)
    _refused(d, RegisterPlayer("Ann", 1), "name taken")
    _refused(d, RegisterPlayer("", 1), "bad name")
    _refused(d, RegisterPlayer("x" * 41, 1), "bad name")
    _refused(d, RegisterPlayer("Robo", 1, bot="nonesuch"), "unknown bot")
    d.do(RegisterPlayer("Robo", 1, bot="steady"))
    for number in range(MAX_PLAYERS - 3):
        d.do(RegisterPlayer(f"guest {number}", 1))
    _refused(d, RegisterPlayer("one too many", 1), "tournament full")
    assert d.now.entrant("Robo").bot == "steady"  # type: ignore[union-attr]
    d.pair()
    _refused(d, RegisterPlayer("Late", 1), "registration closed")


def test_round_flow_refusals_and_the_automatic_finish() -> None:
    d = Director("swiss", ["Ann", "Bob", "Cid", "Dee"], rounds=2)
    _refused(d, FinishTournament(1), "not started")
    d.pair()
    _refused(d, PairRound(1), "round running")
    _refused(d, FinishTournament(1), "round running")
    first, second = d.now.open_tables
    _refused(d, ReportMatch("elsewhere", 0, (1, 2), 1), "not a tournament match")
    _refused(d, ReportMatch(first.match_id, 2, (1, 2), 1), "bad result")
    _refused(d, ReportMatch(first.match_id, 0, (-1, 2), 1), "bad result")
    d.report(first.match_id, 0, (101, 12))
    _refused(d, ReportMatch(first.match_id, 0, (101, 12), 1), "already reported")
    _refused(d, RecordNoShow(second.match_id, ("Nobody",), 1), "bad no-show")
    assert d.now.next_table(second.players[0]) == second
    d.report(second.match_id, None, (77, 77))
    assert d.now.next_table(second.players[0]) is None
    d.pair()
    tables = d.now.open_tables
    d.report(tables[0].match_id, 1, (3, 100))
    events = d.do(RecordNoShow(tables[1].match_id, tables[1].players, d.tick()))
    assert [e.type for e in events] == ["MatchForfeited", "TournamentFinished"]
    assert d.now.finished
    _refused(d, PairRound(1), "tournament over")
    both_absent = {s.name: s.score for s in standings(d.now)}
    assert all(both_absent[name] <= 1.5 for name in tables[1].players)


def test_a_withdrawal_forfeits_the_open_table_and_is_never_paired_again() -> None:
    d = Director("swiss", ["Ann", "Bob", "Cid", "Dee", "Eve"], rounds=3)
    d.pair()
    table = d.now.next_table("Ann")
    assert table is not None
    opponent = table.players[1 - table.players.index("Ann")]
    events = d.do(WithdrawPlayer("Ann", d.tick()))
    assert [e.type for e in events] == ["PlayerWithdrew", "MatchForfeited"]
    _refused(d, WithdrawPlayer("Ann", 1), "withdrawn")
    _refused(d, WithdrawPlayer("Zed", 1), "not registered")
    for open_table in d.now.open_tables:
        d.report(open_table.match_id, 0, (100, 0))
    d.pair()
    assert all("Ann" not in t.players for t in d.now.rounds[-1].tables)
    assert "Ann" not in d.now.rounds[-1].byes
    row = {s.name: s for s in standings(d.now)}
    assert row["Ann"].withdrawn and row[opponent].score >= 1.0


def test_withdrawing_before_the_start_takes_the_name_off() -> None:
    d = Director("round-robin", ["Ann", "Bob", "Cid"])
    d.do(WithdrawPlayer("Ann", 1))
    assert [(e.name, e.number) for e in d.now.entrants] == [("Bob", 1), ("Cid", 2)]


def test_too_few_players_and_all_rounds_played() -> None:
    d = Director("swiss", ["Ann", "Bob", "Cid"], rounds=5)
    d.pair()
    d.do(WithdrawPlayer("Bob", 1))
    d.do(WithdrawPlayer("Cid", 1))
    for table in d.now.open_tables:
        d.report(table.match_id, 0, (1, 0))
    _refused(d, PairRound(1), "too few players")
    d.do(FinishTournament(d.tick()))
    assert d.now.finished and d.now.finished_at_ms == d.clock


def test_every_event_round_trips_through_its_json_payload() -> None:
    d = Director("swiss", ["Ann", "Bob", "Cid"], rounds=2)
    d.pair()
    table = d.now.open_tables[0]
    d.report(table.match_id, 1, (12, 104))
    d.do(WithdrawPlayer("Cid", d.tick()))
    d.pair()
    d.do(RecordNoShow(d.now.open_tables[0].match_id, ("Ann",), d.tick()))
    kinds = {e.type for e in d.events}
    assert kinds == {
        "TournamentCreated",
        "PlayerRegistered",
        "PlayerWithdrew",
        "RoundPaired",
        "MatchReported",
        "MatchForfeited",
        "TournamentFinished",
    }
    stored = [json.loads(json.dumps(event_to_payload(e))) for e in d.events]
    assert [event_from_payload(kind, payload) for kind, payload in stored] == d.events
    assert fold(event_from_payload(k, p) for k, p in stored) == d.now


@pytest.mark.parametrize(
    ("kind", "payload"),
    [
        ("TournamentStarted", {}),
        ("PlayerRegistered", {"name": "x"}),
        ("PlayerRegistered", {"name": "x", "at_ms": 1, "extra": 2}),
        ("RoundPaired", {"round": 1, "tables": [{"table": 1}], "byes": [], "at_ms": 1}),
        ("TournamentCreated", {"ruleset": {"preset": "nonesuch"}}),
        ("MatchReported", []),
    ],
)
def test_a_payload_that_is_no_event_is_a_notation_error(kind: str, payload: object) -> None:
    with pytest.raises(NotationError):
        event_from_payload(kind, payload)  # type: ignore[arg-type]


def test_match_ids_and_the_result_read_off_a_finished_match() -> None:
    assert match_id_for("club", 2, 3) == "club-r2-t3"
    import domain

    state = domain.fold(
        [
            domain.MatchStarted("club-r1-t1", CLASSIC, ("Ann", "Bob"), 0),
        ]
    )
    assert result_of_match(state, 5) is None
    won = state._replace(finished=True, winner=1, totals=(40, 102))
    assert result_of_match(won, 5) == ReportMatch("club-r1-t1", 1, (40, 102), 5)
