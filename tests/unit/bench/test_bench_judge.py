"""`crapette bench judge` (bench/judge_bench.py): the game it plays, the agreement it
computes, and its JSON, with the stand-in evaluator (the real one's figures are in
docs/benchmarks.md)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from bench.judge_bench import agreement, judge, judged_game
from records.verify import verify_record
from server.readmodels import judge as judge_module
from tests.unit.judge_fake import CardCount


def _result(*labels: str) -> dict[str, object]:
    decisions = [{"version": v, "judgement": j} for v, j in enumerate(labels)]
    return {"games": [{"decisions": decisions, "missed_calls": []}]}


def test_agreement_counts_the_decisions_either_labels_a_mistake_or_worse() -> None:
    one = _result("best", "mistake", "blunder", "mistake", "good", "inaccuracy")
    two = _result("best", "mistake", "mistake", "inaccuracy", "good", "blunder")
    figures = agreement(one, two)
    assert figures["labelled"] == 4  # versions 1, 2, 3 and 5
    assert figures["agreement"] == 0.25  # only version 1 is labelled the same
    assert figures["flagged_agreement"] == 0.5  # 1 and 2 are a mistake or worse in both
    assert figures["agreement_all"] == 0.5  # 0, 1, 4 of the 6
    assert agreement(_result("best"), _result("good"))["agreement"] == 1.0  # nothing labelled


def test_the_game_has_the_decisions_asked_for_and_verifies() -> None:
    record = judged_game(120, seed=3)
    verified = verify_record(record)
    [game] = record["games"]
    assert game["result"]["outcome"] == "resign"  # at the last decision asked for
    plays = [a for a in game["actions"] if a["do"] in ("move", "turn", "discard")]
    assert len(plays) == 120
    assert verified.summary.startswith("ok: ")
    assert judged_game(120, seed=3) == record  # the same game for the same seed


def test_the_bench_s_json(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(judge_module, "evaluator", CardCount)
    result = CliRunner().invoke(judge, ["--decisions", "60", "--depth", "quick", "--json"])
    assert result.exit_code == 0, result.output
    body = json.loads(result.stdout)
    assert body["decisions"] == 60 and body["depth"] == "quick" and body["seeds"] == [0, 1]
    assert len(body["wall_s"]) == 2 and body["wall_s_max"] == max(body["wall_s"])
    assert 0 <= body["agreement"] <= 1 and 0 <= body["agreement_all"] <= 1
    bad = CliRunner().invoke(judge, ["--seeds", "0"])
    assert bad.exit_code == 2 and "--seeds" in bad.output


def test_the_arrow_plays_the_judge_s_best_in_a_game_that_verifies() -> None:
    """`--trust`'s arrow (bench/judge_bench.py, issue 37): a player of the judge's first
    candidate at every decision, against random play, in a record that verifies."""
    import domain
    from bench.judge_bench import ArrowPlayer, _deal, bot_game

    record, winner = bot_game(("arrow", "random"), _deal("test-arrow", 0))
    assert verify_record(record).summary.startswith("ok: ")
    assert winner in (0, 1, None)
    arrow = ArrowPlayer()
    state = None
    for batch in verify_record(record).batches[:40]:
        for event in batch:
            state = domain.evolve(state, event)
        assert state is not None
        game = state.game
        if game is None or game.over or game.to_move != 0:
            continue
        ranked = arrow.watch.fork().rank(state, 0)
        if ranked:
            assert arrow.act(state, 0) == ranked[0].action


def test_the_trust_figures_in_words() -> None:
    from bench.judge_bench import _mean_se, _trust_text

    assert _mean_se([1.0, 0.0, 1.0, 0.0]) == (0.5, 0.2887)
    assert _mean_se([]) == (0.0, 0.0)
    text = _trust_text({"arrow": {"sharp": {"games": 4, "score": 0.5, "se": 0.2887}}})
    assert text.splitlines()[0] == "arrow against sharp: 0.500 ± 0.289 of 4 games"
    fitted = {"positions": 10, "games": 2, "a": 0.01, "b": 0.2, "held_out_positions": 4,
              "position_ece": 0.03}  # fmt: skip
    assert _trust_text(fitted).startswith("scale fitted on 10 positions of 2 games: a 0.01")


def _rows(games: int, seed: int, slope: float = 1.5) -> list[tuple[float, float, float, int]]:
    """Rows as `_fit_game` gives them, from a known model: the outcome is drawn with chance
    sigmoid(`slope` * the anchor's logit), the search's score is 40 points a logit unit, plus
    noise; a few won lines."""
    import numpy as np

    rng = np.random.default_rng(seed)
    rows: list[tuple[float, float, float, int]] = []
    for game in range(games):
        for _ in range(40):
            z = float(rng.normal(0, 1.2))
            outcome = float(rng.random() < 1 / (1 + np.exp(-slope * z)))
            rows.append((40 * z + float(rng.normal(0, 10)), z, outcome, game))
        rows.append((9_999.0, 2.0, 1.0, game))
    return rows


def test_the_fit_recovers_the_scale_and_recalibrates_the_position_figure() -> None:
    from bench.judge_bench import fit_rows

    found = fit_rows(_rows(60, 0), _rows(30, 1), 60, 30, "test", 1, write=False)
    assert found["positions"] == 60 * 40  # the won lines are left out of the fit
    assert found["platt_kept"] and 1.3 < found["p"] < 1.7 and abs(found["q"]) < 0.15
    assert 0.025 < found["a"] < 0.045 and 0 < found["a_se"] < 0.01
    anchor, recalibrated = found["anchor"], found["recalibrated"]
    assert recalibrated["ece"] < anchor["ece"] and recalibrated["ece"] < 0.04
    assert recalibrated["ece_se"] > 0 and recalibrated["games"] == 30
    assert sum(b["n"] for b in recalibrated["bins"]) == recalibrated["positions"] == 30 * 41
    assert found["rows"]["test"][0][3] == 0
    assert found["position_ece"] == recalibrated["ece"]


def test_a_map_that_does_not_help_on_the_held_out_games_is_not_kept() -> None:
    """Fit games whose outcomes follow 1.5 x the anchor's logit, held-out ones that follow the
    anchor itself: the Platt map fitted (p near 1.5) would miscalibrate the held-out games."""
    from bench.judge_bench import fit_rows

    found = fit_rows(_rows(60, 0), _rows(30, 1, slope=1.0), 60, 30, "test", 1, False, 2)
    assert found["platt"][0] > 1.3 and not found["platt_kept"]
    assert (found["p"], found["q"]) == (1.0, 0.0)
    assert found["position_ece"] == found["anchor"]["ece"] < found["recalibrated"]["ece"]


def test_the_time_targets_in_words() -> None:
    from bench.judge_bench import target_text

    assert target_text("normal") == (
        "target for 400 decisions: <= 10 s at quick, <= 60 s at normal"
    )
    assert target_text("deep") == "no target at deep"


def test_the_horizon_figures_in_words() -> None:
    from bench.judge_bench import _trust_text

    found = {"games": 3, "deals": 8, "decisions": 30, "same_sign": 0.9, "same_sign_of": 20,
             "correlation": 0.7, "horizon_mean": (0.1, 0.02), "end_mean": (0.12, 0.03),
             "confirmed": 12, "confirmed_end_positive": 11}  # fmt: skip
    assert _trust_text(found).startswith(
        "30 flagged decisions of 3 games, 8 playouts per move: the horizon's drop and the drop "
        "to the end have the same sign in 0.9 of 20 (both 0 in None), correlation 0.7"
    )


def test_the_horizon_figures() -> None:
    from bench.judge_bench import horizon_figures

    def row(h: float, hs: float, e: float, es: float) -> dict[str, float]:
        return {"horizon": h, "horizon_se": hs, "end": e, "end_se": es, "horizon_s": 1.0,
                "end_s": 2.0}  # fmt: skip

    rows = [row(0.2, 0.02, 0.5, 0.2), row(0.1, 0.08, -0.25, 0.2), row(0.0, 0.0, 0.0, 0.0),
            row(-0.05, 0.01, -0.5, 0.1), row(0.06, 0.01, 0.0, 0.0)]  # fmt: skip
    found = horizon_figures(rows, 2, 8)
    assert found["decisions"] == 5 and found["both_zero"] == 1
    assert (found["same_sign"], found["same_sign_of"]) == (0.667, 3)  # rows 0, 1, 3
    assert found["confirmed"] == 2 and found["confirmed_end_positive"] == 1  # rows 0 and 4
    assert found["confirmed_end_mean"] == (0.25, 0.25)
    assert 0 < found["correlation"] < 1 and 0 < found["end_noise_share"] < 1
    assert found["end_s"] == 10.0 and found["longer"] == {}
    for r in rows:  # a longer horizon that finds what the end finds
        r.update(turns_4=r["end"], turns_4_se=r["end_se"], turns_4_s=3.0)
    longer = horizon_figures(rows, 2, 8)["longer"]["turns_4"]
    assert longer["same_sign"] == 1.0 and longer["both_zero"] == 2
    assert longer["correlation"] == 1.0 and longer["turns_4_s"] == 15.0
    assert longer["confirmed"] == 1 and longer["confirmed_end_positive"] == 1
    assert horizon_figures(rows[:1], 1, 8) == {"games": 1, "deals": 8, "decisions": 1,
                                               "rows": rows[:1]}  # fmt: skip


def test_the_timed_part_reports_wall_and_cpu_against_the_targets(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from bench.judge_bench import TARGET_S, _timed

    monkeypatch.setattr(judge_module, "evaluator", CardCount)
    lines: list[str] = []
    found = _timed({}, 40, lines.append)["time"]
    assert found["decisions"] == 40 and found["targets_s"] == TARGET_S
    for depth in ("quick", "normal"):
        assert found[f"{depth}_wall_s"] >= 0 and found[f"{depth}_cpu_s"] >= 0
        assert found["met"][depth] == (found[f"{depth}_wall_s"] <= TARGET_S[depth])
    assert found["load_average"] >= 0 and json.loads(lines[-1]) == found
    assert _timed({"a": 1}, 0, lines.append) == {"a": 1}  # no game asked: nothing timed
