"""`crapette bench engine`: its JSON report and its verdict on the games/s target."""

from __future__ import annotations


def test_engine_bench_reports_every_figure_as_json() -> None:
    import json

    from click.testing import CliRunner

    from bench.engine import engine

    result = CliRunner().invoke(engine, ["--games", "1", "--preset", "french", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["baseline_dict_copy_us"] > 0
    row = data["presets"]["french"]
    assert row["games"] == 1
    for policy in ("uniform", "eager"):
        assert row[policy]["games_per_s"] > 0 and row[policy]["unfinished"] == 0
        assert row[policy]["engine_game_in_baseline_copies"] > 0
    assert "target" not in data  # the target is about classic, which this run did not play


def test_engine_bench_says_which_figures_reach_the_target() -> None:
    from bench.engine import TARGET_GAMES_PER_S, target_verdict

    def row(uniform: float, eager: float) -> dict[str, dict[str, float]]:
        return {
            "uniform": {"games_per_s": uniform, "engine_games_per_s": uniform + 1},
            "eager": {"games_per_s": eager, "engine_games_per_s": eager + 1},
        }

    verdict = target_verdict(row(TARGET_GAMES_PER_S - 2, TARGET_GAMES_PER_S - 0.5))
    assert verdict["uniform"] == {"as_played": False, "engine_alone": False}
    assert verdict["eager"] == {"as_played": False, "engine_alone": True}
