"""Property tests of the pairing rules (docs/tournaments.md, Pairing), over whole tournaments
played with random results, withdrawals and no-shows."""

from __future__ import annotations

from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from domain.tournament import (
    PairRound,
    RecordNoShow,
    WithdrawPlayer,
    berger_round,
    cycle_rounds,
    fold,
    met,
    next_round,
    standings,
)
from domain.tournament.matching import has_perfect_matching
from domain.tournament.swiss import SwissPlayer, pair_swiss
from tests.unit.domain.tournament_kit import Director

RESULTS = st.sampled_from([0, 1, None])


def _names(n: int) -> list[str]:
    return [f"p{i:02d}" for i in range(1, n + 1)]


def _play_round(d: Director, data: st.DataObject) -> None:
    for table in d.now.open_tables:
        if data.draw(st.integers(0, 19), label="no-show?") == 0:
            d.do(RecordNoShow(table.match_id, (table.players[0],), d.tick()))
            continue
        winner = data.draw(RESULTS, label="winner")
        totals = (data.draw(st.integers(0, 130)), data.draw(st.integers(0, 130)))
        d.report(table.match_id, winner, totals)


def _repeat_avoidable(d: Director) -> bool:
    """Whether the round about to be paired could pair everyone still in without a repeat
    (with an odd number: leaving out someone who has had no bye, if anyone has not)."""
    state = d.now
    names = [e.name for e in state.active]
    seen = met(state)
    had_bye = {name for r in state.rounds for name in r.byes}
    left_out: list[str | None] = [None]
    if len(names) % 2:
        left_out = [n for n in names if n not in had_bye] or names  # type: ignore[assignment]
    for out in left_out:
        rest = [n for n in names if n != out]
        edges = [
            (i, j)
            for i, j in combinations(range(len(rest)), 2)
            if frozenset((rest[i], rest[j])) not in seen
        ]
        if has_perfect_matching(range(len(rest)), edges):
            return True
    return False


@settings(max_examples=60)
@given(n=st.integers(2, 14), data=st.data())
def test_swiss_never_repeats_a_pairing_while_one_can_be_avoided(
    n: int, data: st.DataObject
) -> None:
    rounds = data.draw(st.integers(1, max(1, n - 1)), label="rounds")
    d = Director("swiss", _names(n), rounds=rounds)
    while not d.now.finished:
        if len(d.now.active) > 3 and data.draw(st.integers(0, 9), label="withdraw?") == 0:
            d.do(WithdrawPlayer(d.now.active[-1].name, d.tick()))
            continue
        avoidable = _repeat_avoidable(d)
        before = met(d.now)
        had_bye = {name for r in d.now.rounds for name in r.byes}
        d.pair()
        paired = d.now.rounds[-1]
        pairs = [frozenset(t.players) for t in paired.tables]
        if avoidable:
            assert not set(pairs) & before, f"round {paired.number} repeats a pairing"
        # everyone still in plays exactly once or has the bye; a bye only when the number is odd
        names = [name for t in paired.tables for name in t.players] + list(paired.byes)
        assert sorted(names) == sorted(e.name for e in d.now.active)
        assert len(paired.byes) == len(d.now.active) % 2
        for name in paired.byes:
            if any(e.name not in had_bye for e in d.now.active):
                assert name not in had_bye, f"{name} has a second bye while others had none"
        _play_round(d, data)
    assert fold(d.events) == d.now
    _check_standings(d)


def _check_standings(d: Director) -> None:
    """Every point comes from a result or a Swiss bye; the standings are in tie-break order."""
    state = d.now
    rows = standings(state)
    expected = 0.0
    for result in state.results.values():
        expected += 0.0 if result.kind == "forfeit" and len(result.absent) == 2 else 1.0
    expected += sum(len(r.byes) for r in state.rounds) * (1.0 if state.format == "swiss" else 0)
    assert sum(row.score for row in rows) == expected
    keys = [row.key() for row in rows]
    assert keys == sorted(keys, reverse=True)
    assert [row.rank for row in rows] == sorted(row.rank for row in rows)


@settings(max_examples=40)
@given(n=st.integers(2, 16), data=st.data())
def test_a_swiss_of_fewer_rounds_than_players_gives_each_at_most_one_bye(
    n: int, data: st.DataObject
) -> None:
    d = Director("swiss", _names(n), rounds=data.draw(st.integers(1, n - 1 if n > 1 else 1)))
    while not d.now.finished:
        d.pair()
        _play_round(d, data)
    byes = [name for r in d.now.rounds for name in r.byes]
    assert len(byes) == len(set(byes))


@settings(max_examples=30)
@given(n=st.integers(2, 16), data=st.data())
def test_swiss_seats_stay_balanced(n: int, data: st.DataObject) -> None:
    # A Swiss of as many rounds as a round-robin has no choice left in its last rounds (every
    # pair met once is forced): the bound holds for Swiss lengths, up to half the players.
    rounds = max(1, min(n // 2, 7))
    d = Director("swiss", _names(n), rounds=rounds)
    while not d.now.finished:
        d.pair()
        _play_round(d, data)
    for name in _names(n):
        seats = [t.players.index(name) for r in d.now.rounds for t in r.tables if name in t.players]
        assert abs(seats.count(0) - seats.count(1)) <= 2, (name, seats)


@settings(max_examples=40)
@given(n=st.integers(2, 16), data=st.data())
def test_round_robin_pairs_every_pair_exactly_once(n: int, data: st.DataObject) -> None:
    d = Director("round-robin", _names(n))
    while not d.now.finished:
        d.pair()
        _play_round(d, data)
    assert d.now.current_round == cycle_rounds(n)
    pairs = [frozenset(t.players) for r in d.now.rounds for t in r.tables]
    assert len(pairs) == len(set(pairs)) == n * (n - 1) // 2
    byes = [name for r in d.now.rounds for name in r.byes]
    assert len(byes) == len(set(byes)) == (n if n % 2 else 0)
    assert all(len(r.byes) == n % 2 for r in d.now.rounds)
    _check_standings(d)
    for name in _names(n):
        seats = [t.players.index(name) for r in d.now.rounds for t in r.tables if name in t.players]
        assert abs(seats.count(0) - seats.count(1)) <= 1


def test_berger_tables_for_six_are_fides() -> None:
    assert [berger_round(6, r) for r in range(1, 6)] == [
        [(1, 6), (2, 5), (3, 4)],
        [(6, 4), (5, 3), (1, 2)],
        [(2, 6), (3, 1), (4, 5)],
        [(6, 5), (1, 4), (2, 3)],
        [(3, 6), (4, 2), (5, 1)],
    ]


def test_a_withdrawn_round_robin_player_forfeits_his_remaining_tables() -> None:
    d = Director("round-robin", _names(4))
    d.pair()
    for table in d.now.open_tables:
        d.report(table.match_id, 0, (100, 50))
    d.do(WithdrawPlayer("p01", d.tick()))
    events = d.do(PairRound(d.tick()))
    kinds = [e.type for e in events]
    assert kinds == ["RoundPaired", "MatchForfeited"]
    forfeit = events[1]
    assert forfeit.absent == ("p01",) and forfeit.reason == "withdrew"  # type: ignore[union-attr]
    assert len(d.now.open_tables) == 1


def test_the_first_swiss_round_folds_the_field() -> None:
    d = Director("swiss", _names(8), rounds=3)
    tables, byes = next_round(d.now)
    assert tables == [("p01", "p05"), ("p02", "p06"), ("p03", "p07"), ("p04", "p08")]
    assert byes == []


def _perfect_matchings(items: list[int]) -> list[list[tuple[int, int]]]:
    if not items:
        return [[]]
    first, rest = items[0], items[1:]
    found = []
    for k, partner in enumerate(rest):
        for tail in _perfect_matchings(rest[:k] + rest[k + 1 :]):
            found.append([(first, partner), *tail])
    return found


@settings(max_examples=150)
@given(data=st.data())
def test_the_swiss_pairing_is_the_best_by_its_rules_not_a_greedy_one(data: st.DataObject) -> None:
    """Against every possible pairing of a small field: none has fewer repeats, of those none
    has fewer tables past the seat limit, and of those none has a smaller sum of squared score
    gaps (levels 1, 1b and 3 of swiss.py)."""
    n = data.draw(st.integers(2, 8), label="players")
    scores = sorted((data.draw(st.integers(0, 8)) / 2 for _ in range(n)), reverse=True)
    players = [
        SwissPlayer(
            f"p{i}", scores[i], data.draw(st.booleans()), data.draw(st.integers(-3, 3)), None
        )
        for i in range(n)
    ]
    pairs = list(combinations(range(n), 2))
    met_pairs = data.draw(st.sets(st.sampled_from(pairs), max_size=len(pairs)), label="met")
    seen = {frozenset((f"p{a}", f"p{b}")) for a, b in met_pairs}
    tables, byes = pair_swiss(players, seen)
    index = {p.name: i for i, p in enumerate(players)}
    left = [i for i in range(n) if players[i].name not in byes]

    def cost(matching: list[tuple[int, int]]) -> tuple[int, int, int]:
        repeats = sum(frozenset((players[a].name, players[b].name)) in seen for a, b in matching)
        balances = [(players[a].seat_balance, players[b].seat_balance) for a, b in matching]
        over = sum(min(x, y) >= 2 or max(x, y) <= -2 for x, y in balances)
        gaps = sum(round(2 * (players[a].score - players[b].score)) ** 2 for a, b in matching)
        return repeats, over, gaps

    chosen = cost([(index[a], index[b]) for a, b in tables])
    assert chosen == min(cost(m) for m in _perfect_matchings(left))
    if byes:  # the bye: the lowest-ranked without one whose absence allows no repeats
        candidates = [i for i in reversed(range(n)) if not players[i].had_bye] or list(
            reversed(range(n))
        )
        clean = [
            i
            for i in candidates
            if any(cost(m)[0] == 0 for m in _perfect_matchings([j for j in range(n) if j != i]))
        ]
        assert index[byes[0]] == (clean[0] if clean else candidates[0])
