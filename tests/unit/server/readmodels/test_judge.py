"""The judge (server/readmodels/judge.py, docs/evaluator.md § The judge): thresholds, the
accuracy and which decisions count, the JSON shape, checked labels, faults and calls, progress and
determinism; with a stand-in watch (judge_fake.py) where a test is about the judging, with
the real engine where it is about what the engine finds."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

import domain
from domain.engine_match import random_match
from records.errors import RecordError
from records.export import record_from_events
from records.verify import verify_record
from server.readmodels import judge
from tests.unit.judge_fake import CardCount

GOLDEN = Path(__file__).resolve().parents[3] / "data" / "records"


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
        (0.0499, False, "good"),
        (0.05, False, "inaccuracy"),
        (0.0999, False, "inaccuracy"),
        (0.1, False, "mistake"),
        (0.1999, False, "mistake"),
        (0.2, False, "blunder"),
        (1.0, False, "blunder"),
    ],
)
def test_the_thresholds(drop: float, same: bool, expected: str) -> None:
    assert judge.judgement(drop, same) == expected


def test_a_decision_s_accuracy_is_the_share_of_its_stake_kept() -> None:
    """100 for the best or within `FREE_WITHIN` of it, 0 for the worst candidate, the share
    of the stake kept (beyond the free margin) in between; nothing at stake, nothing lost."""
    free = judge.FREE_WITHIN
    assert judge.move_accuracy(0.0, 0.3) == 100.0
    assert judge.move_accuracy(free, 0.3) == 100.0  # within the margin of the best
    assert judge.move_accuracy(0.3, 0.3) == 0.0  # the worst move there was
    assert judge.move_accuracy(0.5, 0.3) == 0.0  # a checked drop beyond the search's stake
    half = free + (0.3 - free) / 2
    assert judge.move_accuracy(half, 0.3) == pytest.approx(50.0)
    assert judge.move_accuracy(0.01, 0.01) == 100.0  # nothing at stake beyond the margin
    costs = [i / 100 for i in range(31)]
    values = [judge.move_accuracy(c, 0.3) for c in costs]
    assert all(a >= b for a, b in zip(values, values[1:], strict=False))
    assert all(0.0 <= v <= 100.0 for v in values)
    # The same move costs less accuracy where more was at stake: a share, not an amount.
    assert judge.move_accuracy(0.1, 0.2) < judge.move_accuracy(0.1, 0.6)


def test_a_seat_s_accuracy_is_the_mean_of_its_counted_decisions() -> None:
    def decision(cost: float, stake: float, judged: str, counted: bool = True) -> dict[str, Any]:
        chance = {"before": 0.6, "after": 0.6 - cost, "best": 0.6}
        return {
            "win_chance": chance,
            "judgement": judged,
            "cost": cost,
            "stake": stake,
            "counted": counted,
        }

    summary = judge.seat_summary(
        [
            decision(0.0, 0.2, "best"),
            decision(0.11, 0.2, "inaccuracy"),
            decision(0.3, 0.3, "blunder"),
            decision(0.0, 0.0, "best", counted=False),  # forced: says nothing
        ]
    )
    expected = (100.0 + judge.move_accuracy(0.11, 0.2) + 0.0) / 3
    assert summary["accuracy"] == round(expected, 1) and summary["counted"] == 3
    assert summary["counts"] == {"best": 2, "good": 0, "inaccuracy": 1, "mistake": 0, "blunder": 1}
    assert judge.seat_summary([]) == {
        "accuracy": 100.0,
        "counts": dict.fromkeys(judge.JUDGEMENTS, 0),
        "counted": 0,
    }
    # A decision without its stake (a call) lost all there was: its cost.
    call = {"win_chance": {"before": 0.5, "after": 0.4, "best": 0.5}, "judgement": "mistake",
            "cost": 0.1}  # fmt: skip
    assert judge.seat_summary([call])["accuracy"] == 0.0


def _positions(record: dict[str, Any]) -> dict[int, domain.MatchState]:
    positions: dict[int, domain.MatchState] = {}
    state = None
    done = 0
    for batch in verify_record(record).batches:
        for event in batch:
            state = domain.evolve(state, event)
            done += 1
        assert state is not None
        positions[done] = state
    return positions


def test_the_json_shape_and_one_ranking_per_decision(fake: CardCount) -> None:
    record = _golden()
    result = judge.analyse_record(record, depth="quick", seed=7)
    assert set(result) == {"depth", "seed", "judge", "games", "match"}
    assert result["depth"] == "quick" and result["seed"] == 7
    assert result["judge"]["version"] == judge.FORMAT_VERSION == 4
    [game] = result["games"]
    assert set(game) == {"game_index", "seats", "decisions", "missed_calls", "wrong_calls"}
    verified = verify_record(record)
    played = [b for b in verified.batches[1:] if judge._played(b) is not None]  # noqa: SLF001
    assert len(game["decisions"]) == len(played) > 100
    ranks = [c for c in fake.calls if c[0] == "rank"]
    assert len(ranks) == len(game["decisions"])  # one ranking per decision
    positions = _positions(record)
    for d in game["decisions"]:
        assert {"version", "seat", "played", "best", "win_chance", "judgement", "cost"} <= set(d)
        assert {"counted", "check", "candidates", "stake"} <= set(d)
        assert d["stake"] >= d["cost"] and d["counted"] == (
            bool(d.get("faulty")) or d["stake"] >= judge.COUNTS_FROM
        )
        chance = d["win_chance"]
        assert chance["before"] == chance["best"] >= chance["after"]
        at = positions[d["version"]]
        assert at.game is not None and at.game.to_move == d["seat"]  # decided there, by him
        assert domain.action_from_json(d["best"]) in domain.legal_actions(at, d["seat"])
        assert d["candidates"][judge.candidate_key(d["best"])] == chance["best"]
        assert d["candidates"][judge.candidate_key(d["played"])] == chance["after"]
        if d["check"] is None and d["judgement"] in ("inaccuracy", "mistake", "blunder"):
            raise AssertionError(f"a label shown unchecked: {d}")
    for seat in (0, 1):
        own = [d for d in game["decisions"] if d["seat"] == seat]
        assert game["seats"][seat] == judge.seat_summary(own)
    assert result["match"]["seats"] == game["seats"]  # one game: the match is that game
    json.dumps(result)  # plain JSON


def test_a_label_is_shown_only_once_playouts_confirm_it(
    fake: CardCount,
) -> None:
    """Every move but the best is put 0.4 under it by the search; the playouts find a drop of
    0.15 (a mistake, not the blunder the search claimed), or of 0.005 (no label at all)."""
    record = _golden()
    verified = verify_record(record)
    names = {
        a.notation()
        for b in verified.batches
        if (a := judge._played(b)) is not None  # noqa: SLF001
    }
    fake.penalty = dict.fromkeys(names, 0.0)
    fake.checked_drop = 0.15
    fake.spread = 0.4
    result = judge.analyse_record(record, depth="quick", seed=1)
    fake.checked_drop = 0.005
    calm = judge.analyse_record(record, depth="quick", seed=1)
    decisions = result["games"][0]["decisions"]
    checked = [d for d in decisions if d["check"] is not None]
    assert len(checked) == judge.CHECKS["quick"].most  # the cap of the depth
    for d in checked:
        check = d["check"]
        assert check["deals"] == judge.CHECKS["quick"].deals
        assert check["best"] - check["played"] == pytest.approx(check["drop"], abs=2e-4)
        assert check["drop"] == pytest.approx(0.15, abs=0.011)
        assert d["judgement"] == "mistake"
        assert d["cost"] == pytest.approx(judge.even_drop(check["best"], check["played"]), abs=3e-4)
    unchecked = [d for d in decisions if d.get("unchecked")]
    assert unchecked and all(d["judgement"] == "good" for d in unchecked)
    for d in calm["games"][0]["decisions"]:
        assert d["judgement"] in ("best", "good")  # the playouts decide


def test_a_cost_is_the_drop_at_an_even_position() -> None:
    """In a game already lost a bad move throws away little chance: its cost is what it would
    throw away at 50 %, so it still weighs on accuracy."""
    assert judge.even_drop(0.5, 0.4) == pytest.approx(0.1, abs=0.002)
    assert judge.even_drop(0.05, 0.03) > 0.1 > 0.05 - 0.03
    assert judge.even_drop(0.3, 0.4) == 0.0


def test_a_won_position_s_margin_above_won_from_costs_nothing() -> None:
    """A chance above WON_FROM counts as WON_FROM: the winner who lets 0.02 of a 95 % game go
    loses nothing; what a move takes under WON_FROM costs as from WON_FROM; a losing seat's
    small drops still weigh (issue 37: sharp, winning 80 % of its games against steady, was
    scored under it)."""
    assert judge.even_drop(0.95, 0.93) == 0.0
    assert judge.even_drop(0.95, 0.93, won=0.995) > judge.COUNTS_FROM
    assert judge.even_drop(0.95, 0.6) == pytest.approx(judge.even_drop(judge.WON_FROM, 0.6))
    assert judge.even_drop(0.07, 0.05) == judge.even_drop(0.07, 0.05, won=0.995) > 0.03


def test_a_called_fault_and_a_wrong_call_lower_accuracy() -> None:
    """Random play where every fault is called and calls are made at random (some wrong), judged
    by the real engine: a fault's candidate is scored as called (the turn lost), and a wrong call
    costs at least `CALL_COST_AT_LEAST`; both count, and lower the seat's accuracy."""
    events = random_match(random.Random(11), max_games=1, max_actions=90, call_rate=0.6)
    result = judge.analyse_record(record_from_events(events), depth="quick")
    [game] = result["games"]
    faults = [d for d in game["decisions"] if d.get("faulty")]
    wrong = game["wrong_calls"]
    assert faults and wrong
    assert all(d["counted"] for d in faults + wrong)
    assert any(d["cost"] > 0.02 for d in faults)
    assert all(d["cost"] >= judge.CALL_COST_AT_LEAST for d in wrong)
    for seat in (0, 1):
        judged = [d for d in game["decisions"] + game["missed_calls"] + wrong if d["seat"] == seat]
        costly = [d for d in judged if (d in wrong or d.get("faulty")) and d["cost"] > 0.02]
        if not costly:
            continue
        without = judge.seat_summary([d for d in judged if d not in costly])
        assert game["seats"][seat]["accuracy"] < without["accuracy"]


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
        assert d["cost"] >= judge.CALL_COST_AT_LEAST and d["counted"]
        assert judge.JUDGEMENTS.index(d["judgement"]) >= judge.JUDGEMENTS.index("inaccuracy")
    for seat in (0, 1):
        of_seat = [d for d in game["decisions"] + game["missed_calls"] if d["seat"] == seat]
        assert game["seats"][seat] == judge.seat_summary(of_seat)


def test_progress_is_told_after_every_decision_and_check(fake: CardCount) -> None:
    told: list[tuple[int, int]] = []
    result = judge.analyse_record(_uncalled(), depth="quick", progress=lambda *a: told.append(a))
    [game] = result["games"]
    judged = len(game["decisions"]) + len(game["missed_calls"])
    checks = sum(1 for d in game["decisions"] if d["check"] is not None)
    assert [done for done, _ in told] == list(range(1, judged + checks + 1))
    assert told[judged - 1] == (judged, judged)  # every move judged: the checks come next
    assert told[-1] == (judged + checks, judged + checks)
    assert all(done <= total for done, total in told)


def test_deterministic_for_a_seed(fake: CardCount) -> None:
    record = _uncalled(seed=4)
    one = judge.analyse_record(record, depth="normal", seed=1)
    assert judge.analyse_record(record, depth="normal", seed=1) == one


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


@pytest.fixture(scope="module")
def random_steady() -> tuple[dict[str, Any], dict[str, Any]]:
    """A classic game of `random` against `steady` (call mode) and its analysis at `quick`, by
    the real engine."""
    from bench.judge_bench import bot_game
    from domain.bots.arena import derive_seed

    record, winner = bot_game(("random", "steady"), derive_seed("judge-labels", 0))
    assert winner == 1
    return record, judge.analyse_record(record, depth="quick", seed=3)


@pytest.mark.slow
def test_a_label_s_playout_figures_are_in_the_json(
    random_steady: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    """By the real engine: every checked decision keeps its playouts' count and both moves'
    results, every label stands on them (its drop from the threshold up and two standard
    errors clear of zero), and the accuracy follows strength."""
    _, result = random_steady
    [game] = result["games"]
    checked = [d for d in game["decisions"] if d["check"] is not None]
    assert len(checked) == judge.CHECKS["quick"].most
    labels = dict((name, limit) for limit, name in judge.THRESHOLDS)
    for d in game["decisions"]:
        check = d["check"]
        if d["judgement"] in labels:
            assert check is not None, d  # never a label unchecked
            assert check["drop"] >= labels[d["judgement"]]
            assert check["drop"] >= judge.CONFIRM_SE * check["se"]
        if check is None:
            continue
        assert check["deals"] == judge.CHECKS["quick"].deals
        assert 0.0 <= check["played"] <= 1.0 and 0.0 <= check["best"] <= 1.0
        assert check["best"] - check["played"] == pytest.approx(check["drop"], abs=2e-4)
        assert check["se"] >= 0.0
        assert d["cost"] <= d["stake"]
    assert json.loads(json.dumps(result)) == result  # plain JSON, as kept and served
    random_seat, steady_seat = game["seats"]
    assert random_seat["accuracy"] <= steady_seat["accuracy"] - 15, game["seats"]


@pytest.mark.slow
def test_hidden_cards_are_never_read_a_reshuffle_gives_the_same_labels(
    random_steady: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    """At each decision the analysis checked, the cards the mover could not see (his
    remembered hands kept) are shuffled anew: judged and checked again there, the decision's
    JSON (judgement, chances, cost, stake, check) is the analysis's own, on either deal."""
    from domain.evaluator.judging import Watch
    from domain.evaluator.sampling import Sampler, as_match

    record, result = random_steady
    checked = {d["version"]: d for d in result["games"][0]["decisions"] if d["check"]}
    watch = Watch()
    rng = random.Random(37)
    state: domain.MatchState | None = None
    version = 0
    compared = 0
    for batch in verify_record(record).batches:
        before, played = state, judge._played(batch)  # noqa: SLF001
        if before is not None and before.game is not None and played is not None:
            if version in checked:
                seat = played.seat
                other = as_match(before, Sampler(before, seat, watch.known(seat)).draw(rng))
                assert other.game is not None and other.game.p != before.game.p  # other cards
                for position in (before, other):
                    fork = watch.fork()
                    decision, best, _ = judge.judge_move(fork, position, seat, played, version)
                    deals = judge.CHECKS["quick"].deals
                    judge.confirm(decision, fork.check(position, seat, [best, played], deals, 3))
                    assert decision == checked[version]
                compared += 1
            watch.played(before, played)
        for event in batch:
            state = domain.evolve(state, event)
        assert state is not None
        watch.see(state)
        version += len(batch)
    assert compared == len(checked) > 0
