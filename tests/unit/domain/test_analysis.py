"""Missed calls and game figures (domain.analysis) on the golden records and self-played matches.

Every fault the analysis reports is checked against the engine itself: right after the faulty
action, the opponent's call is judged right and plays exactly the move the analysis names."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import domain
from domain import Act, Call, Resign, Ruleset, StartGame, StartMatch, Turn
from domain.analysis import Fault, MatchAnalysis, SkippedMove, analyse
from domain.bots import make_bot
from domain.bots.arena import derive_seed, play_match
from records.verify import verify_record

GOLDEN = Path(__file__).resolve().parents[2] / "data" / "records"
NAMES = sorted(path.stem for path in GOLDEN.glob("*.json"))


def _record(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))
    return loaded


def _events(record: dict[str, Any]) -> list[Any]:
    return [event for batch in verify_record(record).batches for event in batch]


@pytest.mark.parametrize("name", NAMES)
def test_the_analysis_of_a_golden_record_agrees_with_its_decisions(name: str) -> None:
    record = _record(name)
    analysis = analyse(_events(record))
    finished = [game for game in record["games"] if game["result"] is not None]
    assert [g.game_index for g in analysis.games] == [game["index"] for game in finished]
    for game, found in zip(finished, analysis.games, strict=True):
        actions = game["actions"]
        faults = [a for a in actions if a.get("fault")]
        right = [a for a in actions if a.get("verdict") == "right"]
        wrong = [a for a in actions if a.get("verdict") == "wrong"]
        assert [f.rule for f in found.faults] == [a["rule"] for a in faults]
        assert len([f for f in found.faults if not f.missed]) == len(right)
        assert len(found.missed) == len(faults) - len(right)
        for seat in (0, 1):
            summary = found.seats[seat]
            assert summary.right_calls == sum(a["seat"] == seat for a in right)
            assert summary.wrong_calls == sum(a["seat"] == seat for a in wrong)
            assert summary.faults == sum(a["seat"] == seat for a in faults)
        assert list(found.score) == game["result"]["score"]


def test_the_golden_right_call_names_the_move_it_played() -> None:
    analysis = analyse(_events(_record("classic-calls-resign")))
    (fault,) = analysis.faults
    assert (fault.seat, fault.called_by, fault.missed) == (0, 1, False)
    assert fault.action == Turn(0)
    assert fault.rule == "priority: reserve to foundation first"
    assert fault.skipped == SkippedMove("R0", "F0", domain.Card.parse("AS/0"))
    ann, bob = analysis.games[0].seats
    assert (ann.faults, ann.wrong_calls, ann.missed_calls) == (1, 1, 0)
    assert (bob.right_calls, bob.missed_calls) == (1, 0)
    # AS/0 went up by the compulsory move, for Ann; Bob built AH/0 from a house.
    assert (ann.to_foundations, bob.to_foundations) == (1, 1)


def _golden_deal() -> tuple[list[Any], Any]:
    """The match of classic-calls-resign, dealt, before its first action."""
    record = _record("classic-calls-resign")
    ruleset = Ruleset.from_json({**record["ruleset"], "preset": "classic"})
    packs = tuple(
        [domain.Card.parse(code, owner=seat) for code in pack]
        for seat, pack in enumerate(record["games"][0]["deal"]["packs"])
    )
    events, state = domain.decide_and_fold(None, StartMatch("m", ruleset, ("Ann", "Bob"), 1000))
    more, state = domain.decide_and_fold(state, StartGame(None, (packs[0], packs[1]), 2000))
    return events + more, state


def test_a_fault_nobody_called_is_missed_by_the_opponent() -> None:
    events, state = _golden_deal()
    turned, state = domain.decide_and_fold(
        state, Act(Turn(0), 2700)
    )  # AS waits on Ann's reserve: a fault
    resigned, state = domain.decide_and_fold(state, Act(Resign(0), 3500))
    analysis = analyse(events + turned + resigned)
    (fault,) = analysis.faults
    assert fault.missed and fault.called_by is None and fault.call_index is None
    assert fault.index == len(events)  # the turn's event, as a call's target_index counts
    assert fault.skipped == SkippedMove("R0", "F0", domain.Card.parse("AS/0"))
    ann, bob = analysis.games[0].seats
    assert (ann.faults, bob.missed_calls, ann.missed_calls) == (1, 1, 0)
    as_json = fault.to_json()
    assert as_json["missed"] is True and as_json["version"] == len(events) + 1
    assert as_json["skipped"] == {"from": "R0", "to": "F0", "card": "AS/0"}


def test_a_running_game_has_no_public_analysis() -> None:
    events, state = _golden_deal()
    turned, state = domain.decide_and_fold(state, Act(Turn(0), 2700))
    analysis = analyse(events + turned)
    assert analysis.games == [] and analysis.faults == [] and analysis.scores == []


def test_figures_of_the_golden_win() -> None:
    record = _record("classic-win-recycle")
    analysis = analyse(_events(record))
    (game,) = analysis.games
    ann, bob = game.seats
    assert ann.to_foundations == 52  # every card of Ann's pack went up
    assert game.cards_left[-1][1] == 0  # Ann has nothing left
    assert analysis.scores == [(game.end_index, 83, 0)]
    assert sum(t.actions for t in game.turns) == ann.actions + bob.actions
    assert ann.longest_turn_ms == max(t.ms for t in game.turns if t.seat == 0)
    thinking = {t.index: t for t in game.thinking}
    assert len(thinking) == ann.actions + bob.actions


# -- self-played matches: every fault checked against the engine ---------------------------------


def _seeds(root: str) -> Iterator[str]:
    n = 0
    while True:
        yield derive_seed(root, "game", n)
        n += 1


def _random_match(preset: str, root: str) -> list[Any]:
    bots = (make_bot("random", seed=f"{root}0"), make_bot("random", seed=f"{root}1"))
    report = play_match(Ruleset.preset(preset), bots, "m", _seeds(root), 2, None, False)
    return list(report.events)


def _check_against_the_engine(events: list[Any], analysis: MatchAnalysis) -> None:
    states = list(_states(events))
    for fault in analysis.faults:
        assert events[fault.fault_index].fault == fault.rule
        if not fault.missed:
            called = events[fault.call_index or 0]
            assert isinstance(called, domain.CrapetteCalled)
            assert (called.target_index, called.verdict) == (fault.index, "right")
        _a_call_is_right(fault, states[fault.fault_index])


def _a_call_is_right(fault: Fault, after: Any) -> None:
    """The opponent's call, made right after the fault, is right and plays `fault.skipped`."""
    judged = domain.decide(after, Act(Call(1 - fault.seat), 10**13))
    assert isinstance(judged[0], domain.CrapetteCalled) and judged[0].verdict == "right"
    played = [e for e in judged if isinstance(e, domain.CompulsoryMovePlayed)]
    if fault.skipped is None:
        assert played == []
    elif fault.missed:  # a call names no move: the default
        assert [(e.src, e.dst, e.card) for e in played] == [
            (fault.skipped.src, fault.skipped.dst, fault.skipped.card)
        ]


def _states(events: list[Any]) -> Iterator[Any]:
    state = None
    for event in events:
        state = domain.evolve(state, event)
        yield state


@pytest.mark.parametrize(
    ("preset", "root"), [("classic", "a1"), ("finnish", "b2"), ("french", "c3")]
)
def test_every_fault_of_a_self_played_match_is_what_the_engine_judges(
    preset: str, root: str
) -> None:
    events = _random_match(preset, root)
    analysis = analyse(events)
    assert analysis.faults, "random bots make faults"
    assert any(f.missed for f in analysis.faults), "and miss half of the calls"
    _check_against_the_engine(events, analysis)
    faults = [e for e in events if getattr(e, "fault", None)]
    over = sum(len(g.faults) for g in analysis.games)
    assert over == len(faults)  # every fault, each game being over
    for game in analysis.games:
        for seat in (0, 1):
            missed = [f for f in game.faults if f.missed and f.seat == 1 - seat]
            assert game.seats[seat].missed_calls == len(missed)


def test_the_analysis_reads_states_it_is_given() -> None:
    from domain.analysis import analyse_states

    events = _random_match("classic", "d4")
    assert analyse_states(zip(events, _states(events), strict=True)).to_json() == (
        analyse(events).to_json()
    )


def test_verify_recomputes_the_analysis_on_request() -> None:
    from click.testing import CliRunner

    from server.cli.records import verify_cmd

    path = str(GOLDEN / "classic-calls-resign.txt")
    plain = CliRunner().invoke(verify_cmd, [path])
    assert plain.exit_code == 0 and plain.output.count("\n") == 1
    result = CliRunner().invoke(verify_cmd, ["--analysis", path])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == plain.output.strip()
    assert lines[1].startswith("game 1: Ann 1 fault(s), calls 0 right 1 wrong 0 missed")
    assert lines[2] == (
        "  action 1: Ann turn, priority: reserve to foundation first; called by Bob; "
        "compulsory R0-F0 AS/0"
    )
