"""`crapette bench eval` and `crapette bench bots` (bench/evaluator_bench.py) run on tiny
settings and print the issue's JSON (docs/benchmarks.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from bench.evaluator_bench import ceiling_figures, ceiling_points
from domain.evaluator import fit
from server.cli import main


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_bench_eval_prints_calibration_figures() -> None:
    result = CliRunner().invoke(
        main, ["bench", "eval", "--games", "2", "--every", "4", "--depth", "quick", "--json"]
    )
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    assert set(figures) == {"positions", "ece", "brier", "brier_baseline", "brier_skill"}
    # Every 4th decision of two games: each game's share is a quarter of its decisions.
    decided = [len(states) for _, states, _ in fit.games(2, "bench-eval")]
    assert figures["positions"] == sum(len(range(i % 4, n, 4)) for i, n in enumerate(decided))
    assert 0 <= figures["ece"] <= 1 and 0 <= figures["brier"] <= 1
    assert figures["brier_skill"] == pytest.approx(
        1 - figures["brier"] / figures["brier_baseline"], abs=1e-3
    )


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_bench_bots_prints_the_expert_s_score() -> None:
    result = CliRunner().invoke(main, ["bench", "bots", "--games", "1", "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    assert set(figures) == {"games", "expert_wins", "rate"}
    assert figures["games"] == 1 and figures["expert_wins"] in (0, 1)
    assert figures["rate"] == figures["expert_wins"]


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_bench_bots_all_knowing_says_so() -> None:
    result = CliRunner().invoke(main, ["bench", "bots", "--games", "1", "--all-knowing", "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    assert figures["all_knowing"] is True and figures["games"] == 1
    assert figures["expert_wins"] in (0, 1)


def test_bench_bots_replies_belong_to_the_all_knowing_bound() -> None:
    result = CliRunner().invoke(main, ["bench", "bots", "--games", "1", "--replies", "4"])
    assert result.exit_code != 0 and "all-knowing" in result.output


def test_bench_eval_refuses_the_fit_s_seed() -> None:
    result = CliRunner().invoke(
        main, ["bench", "eval", "--seed", "crapette-evaluator-fit", "--games", "1"]
    )
    assert result.exit_code != 0 and "held-out seed" in result.output


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_bench_eval_ceiling_prints_playout_figures(tmp_path: Path) -> None:
    rows = tmp_path / "rows.jsonl"
    result = CliRunner().invoke(
        main,
        [
            "bench",
            "eval",
            "--games",
            "2",
            "--ceiling",
            "2",
            "--ceiling-positions",
            "2",
            "--rows",
            str(rows),
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    assert figures["positions"] == 4 and figures["playouts"] == 2 and figures["games"] == 2
    written = [json.loads(line) for line in rows.read_text().splitlines()]
    assert [r["game"] for r in written] == [0, 0, 1, 1]
    assert all(r[kind][0] == 2 for r in written for kind in ("fair", "omniscient", "remembering"))
    assert set(figures["bootstrap"]) == {
        "resamples",
        "skill_omniscient_exact",
        "skill_fair_exact",
        "skill_remembering_exact",
    }
    for name in ("omniscient", "fair", "remembering"):
        assert 0 <= figures[f"brier_{name}"] <= 1
        assert figures[f"brier_{name}_exact"] <= figures[f"brier_{name}"]
        assert figures[f"skill_{name}"] == pytest.approx(
            1 - figures[f"brier_{name}"] / figures["brier_baseline"], abs=1e-3
        )


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_bench_eval_ceiling_can_skip_the_all_knowing_playouts() -> None:
    result = CliRunner().invoke(
        main,
        ["bench", "eval", "--games", "1", "--ceiling", "2", "--ceiling-positions", "1"]
        + ["--no-omniscient", "--json"],
    )
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    assert figures["positions"] == 1 and "brier_fair" in figures and "brier_remembering" in figures
    assert not any("omniscient" in key for key in figures)
    assert "skill_omniscient_exact" not in figures["bootstrap"]


def test_every_kth_decision_starts_at_an_offset_that_moves_with_the_game() -> None:
    states = list(range(10))
    assert fit.sampled(states, 4, 0) == [0, 4, 8]
    assert fit.sampled(states, 4, 1) == [1, 5, 9]
    assert fit.sampled(states, 4, 7) == [3, 7]
    assert fit.sampled(states, 1, 5) == states


def test_ceiling_points_spread_over_the_game() -> None:
    assert ceiling_points(400, 4) == [50, 150, 250, 350]
    assert ceiling_points(3, 8) == [0, 1, 2]
    assert ceiling_points(0, 4) == []


def _row(game: int, outcome: float, wins: int, n: int, decisions: int = 100) -> dict[str, object]:
    return {
        "game": game,
        "decision": 0,
        "decisions": decisions,
        "outcome": outcome,
        "baseline": [13.0, 39.0, 13.0, 39.0],
        "fair": [n, float(wins), float(wins)],
    }


# A baseline that says 0.5 everywhere: its Brier score is 0.25 on any outcome.
_COIN = {"features": list(fit.BASELINE_NAMES), "mean": [0.0] * 4, "scale": [1.0] * 4}
_COIN["layers"] = [{"w": [[0.0]] * 4, "b": [0.0]}]


def test_ceiling_figures_take_the_playout_noise_out() -> None:
    # Playouts that always foretell the outcome: Brier 0, skill 1, with or without the noise.
    sure = [_row(g, float(g % 2), 8 * (g % 2), 8) for g in range(10)]
    figures = ceiling_figures(sure, _COIN, resamples=50)
    assert figures["brier_baseline"] == 0.25 and figures["skill_fair_exact"] == 1.0
    assert figures["bootstrap"]["skill_fair_exact"]["p10"] == 1.0
    # Half of 8 playouts won: measured Brier 0.25, less the mean's variance 0.25 / 7.
    even = [_row(g, float(g % 2), 4, 8) for g in range(10)]
    figures = ceiling_figures(even, _COIN, resamples=50)
    assert figures["brier_fair"] == 0.25
    assert figures["brier_fair_exact"] == pytest.approx(0.25 - 0.25 / 7, abs=1e-4)


def test_ceiling_figures_weigh_games_by_their_length_and_resample_them() -> None:
    # A long game foretold, a short one missed: the long one's positions count for more.
    rows = [_row(0, 1.0, 8, 8, decisions=300), _row(1, 1.0, 0, 8, decisions=100)]
    figures = ceiling_figures(rows, _COIN, resamples=200)
    assert figures["brier_fair"] == pytest.approx(0.25, abs=1e-4)  # (3 * 0 + 1 * 1) / 4
    boot = figures["bootstrap"]["skill_fair_exact"]
    assert boot["p10"] <= boot["p50"] <= boot["p90"] <= boot["p95"]
    assert boot["p10"] == -3.0 and boot["p95"] == 1.0  # both games missed / both foretold
