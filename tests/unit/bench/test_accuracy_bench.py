"""bench/accuracy_bench.py (issue 37): its recomputation of accuracy agrees with the judge's own
(server.readmodels.judge.seat_summary) for the shipped definition, and `compare` reads the analyses'
figures per pairing."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bench import accuracy_bench
from server.readmodels import judge


def _decision(rng: random.Random, seat: int, check: bool = False) -> dict[str, Any]:
    """A move's decision as `server.readmodels.judge.judge_move` (and `confirm`) would write it."""
    chances = sorted((rng.uniform(0.05, 0.95) for _ in range(rng.randint(1, 5))), reverse=True)
    best, after = chances[0], rng.choice(chances)
    cost = judge.even_drop(best, after)
    decision: dict[str, Any] = {
        "seat": seat,
        "played": {"do": "move", "text": "x"},
        "best": {"do": "move", "text": "y"},
        "win_chance": {"before": best, "after": after, "best": best},
        "candidates": {str(k): c for k, c in enumerate(chances)},
        "judgement": "good",
        "cost": round(cost, judge.DIGITS),
        "stake": round(max(judge.even_drop(chances[0], chances[-1]), cost), judge.DIGITS),
        "check": None,
    }
    if rng.random() < 0.2:
        decision["faulty"] = True
    decision["counted"] = bool(decision.get("faulty")) or decision["stake"] >= judge.COUNTS_FROM
    if check and best - after >= judge.FLAG_FROM:  # the judge checks flagged decisions only
        played = max(0.0, best - rng.uniform(0.0, 0.3))
        judge.confirm(decision, [[best] * 4, [played] * 4])
    return decision


def test_the_sweep_s_shipped_definition_is_the_judge_s() -> None:
    rng = random.Random(37)
    for _ in range(20):
        decisions = [_decision(rng, 0, check=rng.random() < 0.3) for _ in range(40)]
        recomputed = accuracy_bench._accuracy(  # noqa: SLF001
            decisions, True, judge.COUNTS_FROM, judge.FREE_WITHIN
        )
        # The judge reads the costs rounded to DIGITS, the sweep recomputes them: a tenth apart
        # at most, where the mean falls on a rounding edge.
        assert recomputed == pytest.approx(judge.seat_summary(decisions)["accuracy"], abs=0.051)


def test_the_sweep_recomputes_each_definition_on_every_game() -> None:
    """A won seat's small drop (0.95 to 0.93) costs under format 3's definition (`won` 0.995)
    and not under the judge's (`WON_FROM`); the sweep gives a row per definition."""
    won = {
        "seat": 1,
        "played": {"do": "move", "text": "x"},
        "best": {"do": "move", "text": "y"},
        "win_chance": {"before": 0.95, "after": 0.93, "best": 0.95},
        "candidates": {"a": 0.95, "b": 0.93},
        "judgement": "good",
        "check": None,
    }
    lost = {**won, "seat": 0, "win_chance": {"before": 0.07, "after": 0.05, "best": 0.07}}
    lost["candidates"] = {"a": 0.07, "b": 0.05}
    assert accuracy_bench._accuracy([won], True, 0.03, 0.02, won=0.995) < 50.0  # noqa: SLF001
    assert accuracy_bench._accuracy([won], True, 0.03, 0.02) == 100.0  # noqa: SLF001
    assert accuracy_bench._accuracy([lost], True, 0.03, 0.02) < 50.0  # noqa: SLF001
    game = {"pair": ["random", "steady"], "seated": ["random", "steady"], "winner": "steady"}
    rows = accuracy_bench.sweep([{**game, "decisions": [won, lost]}] * 2)
    assert len(rows) == len(accuracy_bench.DEFINITIONS)
    shipped = rows[1]
    assert (shipped["won"], shipped["rs_at_least_15"]) == (judge.WON_FROM, "2/2")
    assert rows[0]["rs_mean"] < shipped["rs_mean"]


def test_compare_gives_each_pairing_s_gaps_and_each_bot_s_figures() -> None:
    def game(seated: list[str], winner: str, accuracies: list[float]) -> dict[str, Any]:
        return {
            "pair": ["random", "steady"],
            "seated": seated,
            "winner": winner,
            "seats": [{"accuracy": a} for a in accuracies],
            "decisions": [
                {"seat": 0, "played": {"do": "move"}, "judgement": "mistake"},
                {"seat": 1, "played": {"do": "move"}, "judgement": "best"},
            ],
        }

    figures = accuracy_bench.compare(
        [
            game(["random", "steady"], "steady", [40.0, 80.0]),
            game(["steady", "random"], "steady", [70.0, 50.0]),
        ]
    )
    pairing = figures["pairings"]["random-steady"]
    assert pairing["gaps"] == [40.0, 20.0] and pairing["gap_min"] == 20.0
    assert pairing["wins"] == {"steady": 2} and pairing["winner_higher"] == 2
    assert figures["bots"]["random"]["accuracy"] == 45.0
    # Seat 0's one move was a mistake: random's in the first game, steady's in the second.
    assert figures["bots"]["random"]["mistakes_per_100"] == 50.0
    assert figures["bots"]["steady"]["mistakes_per_100"] == 50.0
