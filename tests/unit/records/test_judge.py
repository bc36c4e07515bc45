"""The judge (records/judge.py, docs/records.md § How well it was played): thresholds,
the accuracy formula, the JSON shape, missed calls, progress and determinism, with a stand-in
evaluator (evaluator_fake.py) put in the judge's place: these tests are about the judging, not
about how good the evaluator is."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

import domain
from records import judge
from records.errors import RecordError
from records.export import record_from_events
from records.selfplay import random_match
from records.verify import verify_record
from server.readmodels import analysis_try
from tests.unit.records.evaluator_fake import CardCount

GOLDEN = Path(__file__).resolve().parents[2] / "data" / "records"


def _golden(name: str = "classic-win-recycle") -> dict[str, Any]:
    record: dict[str, Any] = json.loads((GOLDEN / f"{name}.json").read_text())
    return record


def _uncalled(seed: int = 3, actions: int = 80) -> dict[str, Any]:
    """A call-mode game of random play in which nobody ever calls: its faults are all missed."""
    events = random_match(random.Random(seed), max_games=1, max_actions=actions, call_rate=0.0)
    return record_from_events(events)


@pytest.mark.parametrize(
    ("drop", "same", "expected"),
    [
        (0.0, False, "best"),
        (0.0199, False, "best"),
        (0.5, True, "best"),
        (0.02, False, "good"),
        (0.0999, False, "good"),
        (0.1, False, "inaccuracy"),
        (0.1999, False, "inaccuracy"),
        (0.2, False, "mistake"),
        (0.2999, False, "mistake"),
        (0.3, False, "blunder"),
        (1.0, False, "blunder"),
    ],
)
def test_the_thresholds(drop: float, same: bool, expected: str) -> None:
    assert judge.judgement(drop, same) == expected


def test_the_accuracy_formula_falls_from_100_to_0_as_the_drop_grows() -> None:
    assert judge.move_accuracy(0.0) == pytest.approx(100.0, abs=1e-3)
    assert judge.move_accuracy(-0.1) == judge.move_accuracy(0.0)  # no drop below none
    assert judge.move_accuracy(0.1) == pytest.approx(63.6, abs=0.05)
    assert judge.move_accuracy(0.2) == pytest.approx(40.0, abs=0.05)
    assert judge.move_accuracy(0.3) == pytest.approx(24.8, abs=0.05)
    assert judge.move_accuracy(1.0) == 0.0
    drops = [i / 100 for i in range(101)]
    values = [judge.move_accuracy(d) for d in drops]
    assert all(a >= b for a, b in zip(values, values[1:], strict=False))
    assert all(0.0 <= v <= 100.0 for v in values)


def test_a_seat_s_accuracy_is_the_mean_of_its_decisions_and_counts_each_judgement() -> None:
    def decision(best: float, after: float, judged: str) -> dict[str, Any]:
        return {"win_chance": {"before": best, "after": after, "best": best}, "judgement": judged}

    summary = judge.seat_summary(
        [
            decision(0.6, 0.6, "best"),
            decision(0.6, 0.5, "inaccuracy"),
            decision(0.9, 0.6, "blunder"),
        ]
    )
    expected = (judge.move_accuracy(0) + judge.move_accuracy(0.1) + judge.move_accuracy(0.3)) / 3
    assert summary["accuracy"] == round(expected, 1)
    assert summary["counts"] == {"best": 1, "good": 0, "inaccuracy": 1, "mistake": 0, "blunder": 1}
    assert judge.seat_summary([]) == {
        "accuracy": 100.0,
        "counts": dict.fromkeys(judge.JUDGEMENTS, 0),
    }


def test_the_json_shape_and_every_figure_from_one_ranking_per_decision(fake: CardCount) -> None:
    record = _golden()
    result = judge.analyse_record(record, depth="quick", seed=7)
    assert set(result) == {"depth", "seed", "games", "match"}
    assert result["depth"] == "quick" and result["seed"] == 7
    [game] = result["games"]
    assert set(game) == {"game_index", "seats", "decisions", "missed_calls"}
    verified = verify_record(record)
    played = [
        b
        for b in verified.batches[1:]
        if judge._played(b) is not None  # noqa: SLF001
    ]
    assert len(game["decisions"]) == len(played) > 100
    ranks = [c for c in fake.calls if c[0] == "rank_actions"]
    assert len(ranks) == len(game["decisions"])  # one ranking per decision
    assert all(c[2:] == ("quick", 7) for c in fake.calls)
    state = None
    done = 0
    positions: dict[int, domain.MatchState] = {}
    for batch in verified.batches:
        for event in batch:
            state = domain.evolve(state, event)
            done += 1
        assert state is not None
        positions[done] = state
    for d in game["decisions"]:
        assert set(d) == {"version", "seat", "played", "best", "win_chance", "judgement"}
        chance = d["win_chance"]
        assert chance["before"] == chance["best"] >= chance["after"]
        same = d["best"]["text"] == d["played"]["text"]
        assert d["judgement"] == judge.judgement(chance["best"] - chance["after"], same)
        at = positions[d["version"]]
        assert at.game is not None and at.game.to_move == d["seat"]  # decided there, by him
        best = domain.action_from_json(d["best"])
        assert best in domain.legal_actions(at, d["seat"])
        assert d["played"]["text"] == domain.action_from_json(d["played"]).notation()
    assert {d["judgement"] for d in game["decisions"]} >= {"best", "good"}
    for seat in (0, 1):
        own = [d for d in game["decisions"] if d["seat"] == seat]
        assert game["seats"][seat] == judge.seat_summary(own)
        assert sum(game["seats"][seat]["counts"].values()) == len(own)
    assert result["match"]["seats"] == game["seats"]  # one game: the match is that game
    json.dumps(result)  # plain JSON


def test_every_judgement_through_the_analysis(
    fake: CardCount, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An evaluator that puts the first legal move at 0.95 and each other one 0.05, 0.15, 0.25
    or 0.35 below it (in turns, from the position's version on): the move played is judged by
    how far below the first it is."""
    drops = (0.05, 0.15, 0.25, 0.35)

    def steps(match: domain.MatchState, seat: int, **_: Any) -> list[tuple[domain.Action, float]]:
        legal = [a for a in domain.legal_actions(match, seat) if not isinstance(a, domain.Call)]
        ranked = [
            (a, 0.95 - (drops[(k + match.version) % 4] if k else 0)) for k, a in enumerate(legal)
        ]
        return sorted(ranked, key=lambda pair: -pair[1])

    monkeypatch.setattr(fake, "rank_actions", steps)
    record = _golden()
    [game] = judge.analyse_record(record, depth="quick")["games"]
    verified = verify_record(record)
    state = None
    expected: list[str] = []
    for batch in verified.batches:
        played = judge._played(batch)  # noqa: SLF001
        if state is not None and played is not None:
            chances = {a.notation(): c for a, c in steps(state, played.seat)}
            drop = round(0.95 - chances[played.notation()], 4)
            expected.append(judge.judgement(drop, drop == 0))
        for event in batch:
            state = domain.evolve(state, event)
    assert [d["judgement"] for d in game["decisions"]] == expected
    assert set(expected) == set(judge.JUDGEMENTS)


def test_the_match_accuracy_weighs_every_decision_of_every_game(fake: CardCount) -> None:
    events = random_match(random.Random(5), max_games=2, max_actions=40, call_rate=0.5)
    result = judge.analyse_record(record_from_events(events), depth="quick")
    assert [g["game_index"] for g in result["games"]] == [0, 1]
    for seat in (0, 1):
        every = [
            d
            for g in result["games"]
            for d in g["decisions"] + g["missed_calls"]
            if d["seat"] == seat
        ]
        assert result["match"]["seats"][seat] == judge.seat_summary(every)


def test_a_missed_call_is_judged_by_the_chance_the_call_would_have_given(
    fake: CardCount,
) -> None:
    record = _uncalled()
    result = judge.analyse_record(record, depth="quick")
    [game] = result["games"]
    analysis = domain.analysis.analyse(e for b in verify_record(record).batches for e in b)
    missed = analysis.games[0].missed
    assert missed and len(game["missed_calls"]) == len(missed)
    for d, fault in zip(game["missed_calls"], missed, strict=True):
        assert d["fault"] == fault.to_json()  # the rule fault, its own mark, alongside
        assert d["seat"] == 1 - fault.seat
        assert d["played"] is None
        assert d["best"] == {"do": "call", "seat": d["seat"], "text": "crapette"}
        chance = d["win_chance"]
        assert chance["best"] >= chance["after"]
        judged = judge.judgement(chance["best"] - chance["after"])
        at_least = judge.JUDGEMENTS.index(judge.MISSED_CALL_AT_LEAST)
        assert judge.JUDGEMENTS.index(d["judgement"]) == max(
            at_least, judge.JUDGEMENTS.index(judged)
        )
    # ...and counted in the seat's figures, as its other decisions.
    for seat in (0, 1):
        of_seat = [d for d in game["decisions"] + game["missed_calls"] if d["seat"] == seat]
        assert game["seats"][seat] == judge.seat_summary(of_seat)


def test_a_missed_call_that_threw_a_game_away_is_a_blunder(
    fake: CardCount, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The chance after the call against the chance with the fault standing: 0.9 - 0.4."""
    called: list[int] = []

    def win_chance(match: domain.MatchState, seat: int, **_: Any) -> float:
        game = match.game
        assert game is not None
        window = game.window
        called.append(seat)
        return 0.4 if window is not None and window.fault and not window.called else 0.9

    monkeypatch.setattr(fake, "win_chance", win_chance)
    [game] = judge.analyse_record(_uncalled(), depth="quick")["games"]
    assert game["missed_calls"]
    for d in game["missed_calls"]:
        assert d["win_chance"] == {"before": 0.9, "after": 0.4, "best": 0.9}
        assert d["judgement"] == "blunder"
    assert game["seats"][0]["counts"]["blunder"] + game["seats"][1]["counts"]["blunder"] >= len(
        game["missed_calls"]
    )


def test_a_played_move_the_ranking_lacks_is_asked_for_on_its_own(
    fake: CardCount, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An evaluator may rank only the moves worth a look: the move played is then asked for."""
    rank = fake.rank_actions

    def top_two(
        match: domain.MatchState, seat: int, **kw: Any
    ) -> list[tuple[domain.Action, float]]:
        return rank(match, seat, **kw)[:2]

    monkeypatch.setattr(fake, "rank_actions", top_two)
    result = judge.analyse_record(_golden(), depth="quick")
    asked = [c for c in fake.calls if c[0] == "chance_after"]
    decisions = result["games"][0]["decisions"]
    assert asked and len(asked) < len(decisions)
    for d in decisions:
        assert d["win_chance"]["best"] >= d["win_chance"]["after"]


def test_progress_is_told_after_every_decision(fake: CardCount) -> None:
    told: list[tuple[int, int]] = []
    result = judge.analyse_record(_uncalled(), depth="quick", progress=lambda *a: told.append(a))
    [game] = result["games"]
    total = len(game["decisions"]) + len(game["missed_calls"])
    assert told == [(i, total) for i in range(1, total + 1)]


def test_deterministic_for_a_seed_and_the_seed_reaches_the_evaluator(fake: CardCount) -> None:
    record = _uncalled(seed=4)
    one = judge.analyse_record(record, depth="normal", seed=1)
    assert judge.analyse_record(record, depth="normal", seed=1) == one
    other = judge.analyse_record(record, depth="normal", seed=2)
    chances = [d["win_chance"] for d in one["games"][0]["decisions"]]
    assert chances != [d["win_chance"] for d in other["games"][0]["decisions"]]


def test_a_try_gets_the_figure_the_analysis_gave_that_move(fake: CardCount) -> None:
    """server/readmodels/analysis_try.py asks the same ranking: the best move's try gets the best's
    chance, the move played the chance after it."""
    record = _golden()
    verified = verify_record(record)
    result = judge.analyse_record(record, depth="quick")
    positions: dict[int, domain.MatchState] = {}
    state = None
    done = 0
    for batch in verified.batches:
        for event in batch:
            state = domain.evolve(state, event)
            done += 1
        assert state is not None
        positions[done] = state
    for d in result["games"][0]["decisions"][:30]:
        at = positions[d["version"]]
        best = domain.action_from_json(d["best"])
        played = domain.action_from_json(d["played"])
        assert analysis_try.chance_after(at, best, depth="quick") == d["win_chance"]["best"]
        assert analysis_try.chance_after(at, played, depth="quick") == d["win_chance"]["after"]


def test_an_unknown_depth_and_a_bad_record_are_refused(fake: CardCount) -> None:
    with pytest.raises(judge.JudgeError, match="depth is one of quick, normal, deep"):
        judge.analyse_record(_golden(), depth="fast")
    record = _golden()
    record["games"][0]["actions"][3]["card"] = "KH/1"
    with pytest.raises(RecordError):
        judge.analyse_record(record)
    assert fake.calls == []  # refused before any evaluation


def test_the_judgements_in_words(fake: CardCount) -> None:
    from server.readmodels.analysis_text import judgement_lines

    record = _uncalled()
    result = judge.analyse_record(record, depth="quick")
    lines = judgement_lines(result, verify_record(record).batches)
    assert lines[0] == "judgements (depth quick, seed 0):"
    assert lines[1].startswith("game 1: Ann accuracy ") and "; Bob accuracy " in lines[1]
    missed = [line for line in lines if "missed a call on" in line]
    assert len(missed) == len(result["games"][0]["missed_calls"])
    assert lines[-1].startswith("match: Ann accuracy ")
