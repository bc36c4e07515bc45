"""Golden tests: the two worked examples of docs/tournaments.md, standings and tie-breaks."""

from __future__ import annotations

import pytest

from domain.tournament import crosstable_json, fold, standings
from tests.unit.domain.tournament_kit import Director

WIN, DRAW = (100, 60), (80, 80)

# docs/tournaments.md, worked example 1: (seat 0, seat 1, winner seat or None) per table.
SWISS_ROUNDS = [
    [("Ann", "Dee", 1), ("Bob", "Eve", None), ("Cid", "Fay", 1)],
    [("Dee", "Fay", None), ("Bob", "Ann", 1), ("Eve", "Cid", 1)],
    [("Cid", "Dee", None), ("Fay", "Bob", 1), ("Ann", "Eve", 1)],
]

SWISS_STANDINGS = [
    # rank, name, points, Buchholz, Sonneborn-Berger, direct, card points
    (1, "Dee", 2.0, 4.0, 2.5, 0.0, 260),
    (2, "Fay", 1.5, 5.0, 2.5, 1.0, 240),
    (3, "Cid", 1.5, 5.0, 2.5, 0.0, 240),
    (4, "Bob", 1.5, 4.0, 2.25, 0.0, 240),
    (5, "Eve", 1.5, 4.0, 1.75, 0.0, 240),
    (6, "Ann", 1.0, 5.0, 1.5, 0.0, 220),
]


def _totals(winner: int | None) -> tuple[int, int]:
    if winner is None:
        return DRAW
    return WIN if winner == 0 else (WIN[1], WIN[0])


def test_swiss_example_pairs_and_ranks_as_documented() -> None:
    d = Director("swiss", ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"], rounds=3)
    for expected in SWISS_ROUNDS:
        d.pair()
        tables = d.now.rounds[-1].tables
        assert [(t.players[0], t.players[1]) for t in tables] == [(a, b) for a, b, _ in expected]
        assert d.now.rounds[-1].byes == ()
        for table, (_a, _b, winner) in zip(tables, expected, strict=True):
            d.report(table.match_id, winner, _totals(winner))
    assert d.now.finished  # the last result of the last round finishes it
    got = [
        (s.rank, s.name, s.score, s.buchholz, s.sonneborn_berger, s.direct, s.card_points)
        for s in standings(d.now)
    ]
    assert got == SWISS_STANDINGS
    assert fold(d.events) == d.now


# docs/tournaments.md, worked example 2: Berger tables for four, (winner, totals) per table.
ROUND_ROBIN = [
    [(None, (90, 90)), (0, (102, 75))],
    [(None, (88, 88)), (0, (101, 64))],
    [(0, (101, 48)), (None, (95, 95))],
]


def test_round_robin_example_ranks_as_documented() -> None:
    d = Director("round-robin", ["Ann", "Bob", "Cid", "Dee"])
    expected_tables = [
        [("Ann", "Dee"), ("Bob", "Cid")],
        [("Dee", "Cid"), ("Ann", "Bob")],
        [("Bob", "Dee"), ("Cid", "Ann")],
    ]
    for results, tables in zip(ROUND_ROBIN, expected_tables, strict=True):
        d.pair()
        paired = d.now.rounds[-1].tables
        assert [t.players for t in paired] == tables
        for table, (winner, totals) in zip(paired, results, strict=True):
            d.report(table.match_id, winner, totals)
    assert d.now.finished and d.now.total_rounds == 3
    got = [
        (s.rank, s.name, s.score, s.buchholz, s.sonneborn_berger, s.direct, s.card_points)
        for s in standings(d.now)
    ]
    assert got == [
        (1, "Ann", 2.0, 4.0, 3.0, 0.0, 286),
        (2, "Bob", 2.0, 4.0, 2.0, 0.0, 267),
        (3, "Cid", 1.0, 5.0, 1.5, 0.5, 258),
        (4, "Dee", 1.0, 5.0, 1.5, 0.5, 226),
    ]


def test_players_level_on_everything_share_a_rank() -> None:
    d = Director("round-robin", ["Ann", "Bob"])
    d.pair()
    d.report(d.now.open_tables[0].match_id, None, (80, 80))
    ranks = [(s.rank, s.name) for s in standings(d.now)]
    assert ranks == [(1, "Ann"), (1, "Bob")]


def test_crosstable_marks_results_byes_and_pending_tables() -> None:
    d = Director("round-robin", ["Ann", "Bob", "Cid"])
    d.pair()  # round 1 of three: Bob – Cid, Ann has the bye
    (table,) = d.now.rounds[0].tables
    assert table.players == ("Bob", "Cid") and d.now.rounds[0].byes == ("Ann",)
    rows = {row["name"]: row["rounds"] for row in crosstable_json(d.now)}
    assert rows["Ann"] == [{"round": 1, "opponent": None, "seat": None, "mark": "bye"}]
    assert rows["Bob"] == [{"round": 1, "opponent": "Cid", "seat": 0, "mark": "*"}]
    d.report(table.match_id, 1, (40, 101))
    rows = {row["name"]: row["rounds"] for row in crosstable_json(d.now)}
    assert rows["Bob"][0]["mark"] == "0" and rows["Cid"][0]["mark"] == "1"
    standing = {s.name: s for s in standings(d.now)}
    assert standing["Ann"].score == 0.0  # a round-robin bye scores nothing
    assert standing["Ann"].byes == 1 and standing["Ann"].played == 0


@pytest.mark.parametrize("fmt", ["swiss", "round-robin"])
def test_a_bye_scores_one_in_a_swiss_and_nothing_in_a_round_robin(fmt: str) -> None:
    d = Director(fmt, ["Ann", "Bob", "Cid"], rounds=1 if fmt == "swiss" else None)  # type: ignore[arg-type]
    d.pair()
    (bye,) = d.now.rounds[0].byes
    score = {s.name: s.score for s in standings(d.now)}[bye]
    assert score == (1.0 if fmt == "swiss" else 0.0)
