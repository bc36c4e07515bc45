"""`crapette bench eval` and `crapette bench bots` (bench/evaluator_bench.py) run on tiny
settings and print the issue's JSON (docs/benchmarks.md)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from server.cli import main


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_bench_eval_prints_calibration_figures() -> None:
    result = CliRunner().invoke(
        main, ["bench", "eval", "--games", "1", "--depth", "quick", "--json"]
    )
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    assert set(figures) == {"positions", "ece", "brier", "brier_baseline", "brier_skill"}
    assert figures["positions"] > 50
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


def test_bench_eval_refuses_the_fit_s_seed() -> None:
    result = CliRunner().invoke(
        main, ["bench", "eval", "--seed", "crapette-evaluator-fit", "--games", "1"]
    )
    assert result.exit_code != 0 and "held-out seed" in result.output


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_bench_eval_ceiling_prints_playout_figures() -> None:
    result = CliRunner().invoke(
        main,
        ["bench", "eval", "--games", "1", "--ceiling", "2", "--ceiling-every", "150", "--json"],
    )
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    assert figures["positions"] >= 2 and figures["playouts"] == 2
    for name in ("omniscient", "fair"):
        assert 0 <= figures[f"brier_{name}"] <= 1
        assert figures[f"brier_{name}_exact"] <= figures[f"brier_{name}"]
        assert figures[f"skill_{name}"] == pytest.approx(
            1 - figures[f"brier_{name}"] / figures["brier_baseline"], abs=1e-3
        )
