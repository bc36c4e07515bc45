"""Glicko-2 ratings (server/readmodels/ratings.py): Glickman's worked example, the correction to the
library's step 5, the fold over matches and which stored matches count."""

from __future__ import annotations

import glicko2
import pytest
from hypothesis import given
from hypothesis import strategies as st

import domain
from domain import Ruleset
from eventstore import NewEvent, open_store
from records.streams import match_stream, table_stream
from server.model.tables import BOT_SEATED, SEAT_TAKEN, TABLE_OPENED
from server.readmodels.ratings import RatedMatch, Rating, rate, rated_matches, update

# Glickman, "Example of the Glicko-2 system" (glicko2.pdf): a 1500 / 200 player beats a
# 1400 / 30, loses to a 1550 / 100 and to a 1700 / 300.
OPPONENTS = [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0), (Rating(1700, 300), 0.0)]


def test_glickmans_worked_example() -> None:
    after = update(Rating(1500, 200, 0.06), OPPONENTS)
    # The paper rounds μ' to −0.2069 before converting: 1464.06; unrounded it is 1464.0507.
    assert after.rating == pytest.approx(1464.06, abs=0.015)
    assert after.rd == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)


def test_a_period_without_games_only_widens_the_deviation() -> None:
    after = update(Rating(1500, 200, 0.06), [])
    assert after.rating == 1500
    assert after.rd == pytest.approx(200.2714, abs=0.001)  # 173.7178 · sqrt(φ² + σ²)


@given(shift=st.floats(-600, 600), wins=st.integers(1, 12))
def test_a_rating_change_does_not_depend_on_where_the_scale_starts(shift: float, wins: int) -> None:
    """Glicko-2 looks only at rating differences; the library's f(x) used μ² where the paper
    has φ², which broke this whenever the volatility moves (a streak of upsets)."""
    base = update(Rating(1500, 50, 0.06), [(Rating(1900, 50), 1.0)] * wins)
    moved = update(Rating(1500 + shift, 50, 0.06), [(Rating(1900 + shift, 50), 1.0)] * wins)
    assert moved.rating - shift == pytest.approx(base.rating, abs=1e-6)
    assert moved.rd == pytest.approx(base.rd, abs=1e-6)
    assert moved.volatility == pytest.approx(base.volatility, abs=1e-9)


def test_the_uncorrected_library_drifts_with_the_rating() -> None:
    """Why `_Player` exists: the same streak 400 points higher moves the volatility less."""
    results: list[list[float]] = [[1900.0] * 10, [50.0] * 10, [1] * 10]
    low, high = glicko2.Player(1500, 50, 0.06), glicko2.Player(1900, 50, 0.06)
    low.update_player(*results)
    high.update_player([r + 400 for r in results[0]], results[1], results[2])
    assert abs(low.vol - high.vol) > 1e-3
    fixed_low = update(Rating(1500, 50), [(Rating(1900, 50), 1.0)] * 10)
    fixed_high = update(Rating(1900, 50), [(Rating(2300, 50), 1.0)] * 10)
    assert fixed_low.volatility == pytest.approx(fixed_high.volatility, abs=1e-9)


def test_rate_folds_matches_in_the_order_they_ended() -> None:
    matches = [
        RatedMatch("m3", 3_000, ("Ann", "Cid"), 1),
        RatedMatch("m1", 1_000, ("Ann", "Bob"), 0),
        RatedMatch("m2", 2_000, ("Bob", "Cid"), None),
        RatedMatch("mx", 2_500, ("Dee", "Dee"), 0),  # one name at both seats: ignored
    ]
    ratings = rate(matches)
    assert rate(reversed(matches)).current == ratings.current
    assert [p.match_id for p in ratings.history["Ann"]] == ["m1", "m3"]
    assert [p.score for p in ratings.history["Bob"]] == [0.0, 0.5]
    assert "Dee" not in ratings.current
    first = ratings.history["Ann"][0]
    assert first.rating > 1500 and first.opponent == "Bob"
    board = ratings.leaderboard()
    assert [row["name"] for row in board] == ["Cid", "Ann", "Bob"]
    assert [row["rank"] for row in board] == [1, 2, 3]
    assert board[0]["wins"] == 1 and board[0]["draws"] == 1 and board[0]["provisional"]
    assert ratings.leaderboard(include_provisional=False) == []
    history = ratings.history_json("Ann")
    assert history is not None and history["matches"] == 2
    assert [p["match_id"] for p in history["history"]] == ["m1", "m3"]
    assert ratings.history_json("Nobody") is None


def _store_match(store, match_id: str, players, winner: int, bots=(None, None), rotation=False):  # type: ignore[no-untyped-def]
    ruleset = Ruleset.preset("classic")
    if rotation:
        ruleset = Ruleset.from_json({"preset": "classic", "rotation": "winner_out"})
    events: list[domain.Event] = [
        domain.MatchStarted(match_id, ruleset, players, 1_000),
        domain.MatchWon(winner, (100, 40) if winner == 0 else (40, 100), 5_000),
    ]
    stored = [NewEvent(*domain.event_to_payload(e)) for e in events]
    store.append(match_stream(match_id), stored, 0)
    table = [
        NewEvent(
            TABLE_OPENED, {"match_id": match_id, "ruleset": {}, "preset": "classic", "at_ms": 1}
        )
    ]
    for seat, bot in enumerate(bots):
        if bot is None:
            table.append(
                NewEvent(SEAT_TAKEN, {"seat": seat, "name": players[seat], "token_hash": "h"})
            )
        else:
            table.append(NewEvent(BOT_SEATED, {"seat": seat, "name": players[seat], "bot": bot}))
    store.append(table_stream(match_id), table, 0)


def test_rated_matches_leave_out_bot_only_rotation_and_unfinished_matches() -> None:
    store = open_store("memory://")
    _store_match(store, "m-1", ("Ann", "Bob"), 0)
    _store_match(store, "m-2", ("Ann", "steady bot"), 1, bots=(None, "steady"))
    _store_match(store, "m-3", ("sharp bot", "steady bot"), 0, bots=("sharp", "steady"))
    _store_match(store, "m-4", ("Cid", "Dee"), 0, rotation=True)
    started = domain.MatchStarted("m-5", Ruleset.preset("classic"), ("Ann", "Eve"), 1)
    store.append(match_stream("m-5"), [NewEvent(*domain.event_to_payload(started))], 0)
    found = rated_matches(store)
    assert [(m.match_id, m.players, m.winner) for m in found] == [
        ("m-1", ("Ann", "Bob"), 0),
        ("m-2", ("Ann", "steady bot"), 1),
    ]
    assert found[0].ended_at_ms == 5_000
