"""docs/spec/rules.md §7: enforcement modes, the "Crapette!" call window, right and wrong calls,
voiding by compensating events and the compulsory move played for the offender."""

from __future__ import annotations

import pytest

from domain import RulesError
from domain.state import MatchState
from tests.unit.domain.rules_kit import (
    act,
    kinds,
    legal_texts,
    of_kind,
    pile,
    position,
    refused,
    rules,
)

CALL = rules(enforcement="call")
C1_RULE = "priority: reserve to foundation first"
C2_RULE = "priority: foundation first"
E_RULE = "priority: fill the empty house from your reserve first"

# Seat 0: reserve top 2H fits F0 (C1); T1's 2S fits F1 (C2). Seat 1 has cards of its own.
C1_POSITION = (
    "R0=9D,2H H0=4C,6C F0=AH F1=AS T0=KS T1=2S T2=8H T3=JD T4=9C/1 T5=TD/1 T6=5C/1 T7=QS/1"
    " R1=3C,7S H1=4D,8C"
)


def piles_of(state: MatchState) -> dict[str, str]:
    assert state.game is not None
    return {name: pile(state, name) for name in state.game.piles}


# --- enforcement modes ------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["enforce", "lenient"])
def test_no_calls_outside_call_mode(mode: str) -> None:
    state = position(C1_POSITION, rules(enforcement=mode))
    _, state = act(state, "T4-T5") if mode == "lenient" else act(state, "R0-F0")
    assert refused(state, "crapette", seat=1).rule == "no calls"


def test_call_mode_accepts_a_priority_breach_and_records_the_fault() -> None:
    events, state = act(position(C1_POSITION, CALL), "T1-F1")
    assert events[0].fault == C1_RULE and pile(state, "F1") == "AS 2S"


def test_call_mode_still_refuses_building_breaches() -> None:
    assert refused(position(C1_POSITION, CALL), "T4-T0").rule == "building"


def test_call_is_offered_to_the_opponent_after_every_action() -> None:
    _, state = act(position(C1_POSITION, CALL), "R0-F0")  # no fault
    assert "crapette" in legal_texts(state, seat=1)
    assert "crapette" not in legal_texts(state, seat=0)


# --- right call -------------------------------------------------------------------------------


def test_right_call_voids_the_fault_plays_the_compulsory_move_and_passes_the_turn() -> None:
    before = position(C1_POSITION, CALL)
    _, state = act(before, "T1-F1")
    events, after = act(state, "crapette", seat=1)
    assert kinds(events) == [
        "CrapetteCalled",
        "ActionVoided",
        "CompulsoryMovePlayed",
        "TurnEnded",
    ]
    called = events[0]
    assert called.verdict == "right" and called.rule == C1_RULE and called.caller == 1
    assert (events[2].src, events[2].dst, events[2].card.code) == ("R0", "F0", "2H")
    assert after.game is not None and after.game.to_move == 1
    # Voided: the state before the faulty action, plus only the compulsory move.
    _, expected = act(before, "R0-F0")
    assert piles_of(after) == piles_of(expected)


def test_right_call_compulsory_move_named_by_the_caller() -> None:
    state = position(C1_POSITION.replace("R0=9D,2H", "R0=9D,AC"), CALL)
    _, state = act(state, "T4-T5")  # breaks C1: AC must go to a foundation
    events, after = act(state, "crapette R0-F6", seat=1)
    played = of_kind(events, "CompulsoryMovePlayed")[0]
    assert played.dst == "F6" and pile(after, "F6") == "AC"


def test_right_call_c1_default_is_the_lowest_numbered_foundation() -> None:
    state = position(C1_POSITION.replace("R0=9D,2H", "R0=9D,AC"), CALL)
    _, state = act(state, "T4-T5")
    events, _ = act(state, "crapette", seat=1)
    assert of_kind(events, "CompulsoryMovePlayed")[0].dst == "F2"  # F0, F1 are taken


def test_right_call_c2_default_takes_x_first_then_houses_in_order() -> None:
    text = C1_POSITION.replace("R0=9D,2H", "R0=9D,7C").replace("H0=4C,6C", "H0=4C X0=2C F5=AC")
    _, state = act(position(text, CALL), "R0-T2")  # breaks C2
    events, after = act(state, "crapette", seat=1)
    played = of_kind(events, "CompulsoryMovePlayed")[0]
    assert (played.src, played.dst) == ("X0", "F5")
    assert pile(after, "R0") == "9D 7C" and pile(after, "T2") == "8H"


def test_right_call_c2_houses_in_order_without_x() -> None:
    text = C1_POSITION.replace("R0=9D,2H", "R0=9D,7C").replace("T3=JD", "T3=JD,2H")
    _, state = act(position(text, CALL), "R0-T2")
    events, _ = act(state, "crapette", seat=1)
    played = of_kind(events, "CompulsoryMovePlayed")[0]
    assert (played.src, played.dst) == ("T1", "F1")


def test_right_call_on_a_turn_puts_the_card_back_on_the_hand_and_fills_the_house() -> None:
    text = C1_POSITION.replace("R0=9D,2H", "R0=9D,7C").replace("T1=2S", "")
    before = position(text, CALL)
    events, state = act(before, "turn")  # T1 is empty: E broken
    assert events[0].fault == E_RULE
    events, after = act(state, "crapette", seat=1)
    played = of_kind(events, "CompulsoryMovePlayed")[0]
    assert (played.src, played.dst) == ("R0", "T1")
    assert pile(after, "H0") == "4C 6C" and pile(after, "X0") == ""
    _, expected = act(before, "R0-T1")
    assert piles_of(after) == piles_of(expected)


def test_right_call_on_a_turn_fills_the_house_the_caller_names() -> None:
    text = C1_POSITION.replace("R0=9D,2H", "R0=9D,7C").replace("T1=2S", "")
    text = text.replace("T6=5C/1", "")
    _, state = act(position(text, CALL), "turn")
    events, after = act(state, "crapette R0-T6", seat=1)
    assert of_kind(events, "CompulsoryMovePlayed")[0].dst == "T6" and pile(after, "T6") == "7C"


def test_right_call_on_a_turn_restores_a_waste_turned_over() -> None:
    text = C1_POSITION.replace("R0=9D,2H", "R0=9D,7C").replace("T1=2S", "")
    text = text.replace("H0=4C,6C", "W0=4C,6C")
    before = position(text, CALL)
    events, state = act(before, "turn")
    assert kinds(events) == ["WasteTurnedOver", "HandCardTurned"]
    events, after = act(state, "crapette", seat=1)
    assert [e.voided for e in of_kind(events, "ActionVoided")] == [
        "HandCardTurned",
        "WasteTurnedOver",
    ]
    assert pile(after, "W0") == "4C 6C" and pile(after, "H0") == "" and pile(after, "X0") == ""


def test_right_call_on_a_discard_comes_until_the_callers_first_action() -> None:
    text = C1_POSITION.replace("R0=9D,2H", "R0=9D,7C").replace("H0=4C,6C", "H0=4C X0=2C F5=AC")
    before = position(text, CALL)
    events, state = act(before, "discard")  # 2C fits F5: C2 broken; the turn passes to seat 1
    assert events[0].fault == C2_RULE and state.game is not None and state.game.to_move == 1
    assert "crapette" in legal_texts(state, seat=1)
    events, after = act(state, "crapette", seat=1)
    assert [e.voided for e in of_kind(events, "ActionVoided")] == ["TurnEnded", "CardDiscarded"]
    assert pile(after, "F5") == "AC 2C" and pile(after, "W0") == ""
    assert after.game is not None and after.game.to_move == 1


def test_call_after_the_callers_first_action_no_longer_reaches_the_discard() -> None:
    text = C1_POSITION.replace("R0=9D,2H", "R0=9D,7C").replace("H0=4C,6C", "H0=4C X0=2C F5=AC")
    _, state = act(position(text, CALL), "discard")
    _, state = act(state, "T4-T5")  # seat 1's own first action
    try:
        events, after = act(state, "crapette", seat=1)
    except RulesError as error:
        assert error.rule == "call window closed"
    else:
        assert events[0].verdict == "wrong" and not of_kind(events, "ActionVoided")
        assert pile(after, "W0") == "2C"


def test_right_call_plays_the_compulsory_move_then_x_goes_to_the_waste() -> None:
    text = C1_POSITION.replace("H0=4C,6C", "H0=4C X0=6C")
    _, state = act(position(text, CALL), "T1-F1")
    events, after = act(state, "crapette", seat=1)
    assert kinds(events)[-2:] == ["CardDiscarded", "TurnEnded"]
    assert pile(after, "W0") == "6C" and pile(after, "X0") == ""


def test_right_call_compulsory_move_that_empties_the_last_pile_wins_for_the_offender() -> None:
    text = "R0=2H F0=AH F1=AS T0=KS T1=2S T2=8H T3=JD R1=3C,7S H1=4D"
    _, state = act(position(text, CALL), "T1-F1")  # breaks C1
    events, after = act(state, "crapette", seat=1)
    assert kinds(events)[-1] in ("GameWon", "MatchWon")
    won = of_kind(events, "GameWon")[0]
    assert won.winner == 0 and after.game is not None and after.game.over


# --- wrong calls ------------------------------------------------------------------------------


def test_wrong_call_changes_nothing_and_the_offenders_turn_goes_on() -> None:
    _, state = act(position(C1_POSITION, CALL), "R0-F0")
    events, after = act(state, "crapette", seat=1)
    assert kinds(events) == ["CrapetteCalled"] and events[0].verdict == "wrong"
    assert piles_of(after) == piles_of(state)
    assert after.game is not None and after.game.to_move == 0


def test_call_by_the_offender_himself_is_wrong() -> None:
    _, state = act(position(C1_POSITION, CALL), "T1-F1")
    events, after = act(state, "crapette", seat=0)
    assert events[0].verdict == "wrong" and piles_of(after) == piles_of(state)


def test_a_self_call_does_not_shield_the_fault_from_the_opponent() -> None:
    _, state = act(position(C1_POSITION, CALL), "T1-F1")
    _, state = act(state, "crapette", seat=0)  # wrong: the offender called himself
    events, after = act(state, "crapette", seat=1)
    assert events[0].verdict == "right" and pile(after, "F1") == "AS"


def test_only_the_most_recent_action_can_be_called() -> None:
    _, state = act(position(C1_POSITION, CALL), "T1-F1")  # fault
    _, state = act(state, "R0-F0")  # no fault; the fault above now stands
    events, after = act(state, "crapette", seat=1)
    assert events[0].verdict == "wrong"
    assert pile(after, "F1") == "AS 2S"  # a fault nobody called stands


def test_no_second_call_on_the_same_action() -> None:
    _, state = act(position(C1_POSITION, CALL), "R0-F0")
    _, state = act(state, "crapette", seat=1)
    assert refused(state, "crapette", seat=1).rule == "call window closed"


def test_wrong_call_penalty_none_never_costs_a_turn() -> None:
    state = position(C1_POSITION, CALL)
    for step in ("R0-F0", "T1-F1", "T4-T5"):
        _, state = act(state, step)
        events, state = act(state, "crapette", seat=1)
        assert not events[0].penalty


def test_wrong_call_penalty_lose_turn_after_3() -> None:
    ruleset = rules(enforcement="call", wrong_call_penalty="lose_turn_after_3")
    state = position(C1_POSITION, ruleset)
    penalties = []
    for step in ("R0-F0", "T1-F1", "T4-T5"):
        _, state = act(state, step)
        events, state = act(state, "crapette", seat=1)
        penalties.append(events[0].penalty)
    assert penalties == [False, False, True]
    events, state = act(state, "turn")
    events, state = act(state, "discard")  # seat 1's turn is skipped: seat 0 again
    assert [e.reason for e in of_kind(events, "TurnEnded")] == ["discard", "wrong calls"]
    assert state.game is not None and state.game.to_move == 0


def test_nothing_left_to_call_after_a_game_ending_action() -> None:
    text = "R0=2H F0=AH T0=KS T1=QH T2=8H T3=JD R1=3C,7S H1=4D"
    events, state = act(position(text, CALL), "R0-F0")
    assert "GameWon" in kinds(events)
    assert refused(state, "crapette", seat=1).rule == "game over"


def test_right_call_on_a_pass_voids_it_and_the_turn_end() -> None:
    text = C1_POSITION.replace("H0=4C,6C", "")
    before = position(text, CALL)
    events, state = act(before, "pass")  # R0's 2H fits F0: C1 broken
    assert events[0].fault == C1_RULE and state.game is not None and state.game.to_move == 1
    events, after = act(state, "crapette", seat=1)
    assert [e.voided for e in of_kind(events, "ActionVoided")] == ["TurnEnded", "Passed"]
    _, expected = act(before, "R0-F0")
    assert piles_of(after) == piles_of(expected)
    assert after.game is not None and after.game.to_move == 1


def test_right_call_on_a_locked_hand_card_voids_the_automatic_discard_too() -> None:
    ruleset = rules(enforcement="call", hand_card_lock="on")
    before = position(C1_POSITION, ruleset)
    events, state = act(before, "turn")  # C1 broken; 6C fits nowhere: locked to the waste
    assert kinds(events) == ["HandCardTurned", "CardDiscarded", "TurnEnded"]
    events, after = act(state, "crapette", seat=1)
    assert [e.voided for e in of_kind(events, "ActionVoided")] == [
        "TurnEnded",
        "CardDiscarded",
        "HandCardTurned",
    ]
    _, expected = act(before, "R0-F0")
    assert piles_of(after) == piles_of(expected)


def test_right_call_on_a_discard_of_a_playable_hand_card() -> None:
    ruleset = rules(enforcement="call", discard_rule="only_if_unplayable")
    text = C1_POSITION.replace("R0=9D,2H", "R0=9D,7C").replace("H0=4C,6C", "H0=4C X0=7H")
    text = text.replace("T2=8H", "T2=8S").replace("T1=2S", "T1=QD")
    before = position(text, ruleset)
    events, state = act(before, "discard")
    assert events[0].fault == "discard: the hand card can still be played"
    events, after = act(state, "crapette", seat=1)
    played = of_kind(events, "CompulsoryMovePlayed")[0]
    assert (played.src, played.dst) == ("X0", "T2") and pile(after, "T2") == "8S 7H"


def test_wrong_call_after_a_faultless_discard_leaves_the_caller_to_move() -> None:
    text = C1_POSITION.replace("R0=9D,2H", "R0=9D,7C").replace("T1=2S", "T1=QD")
    _, state = act(position(text.replace("H0=4C,6C", "H0=4C X0=6C"), CALL), "discard")
    events, after = act(state, "crapette", seat=1)
    assert events[0].verdict == "wrong" and piles_of(after) == piles_of(state)
    assert after.game is not None and after.game.to_move == 1


def test_a_time_out_keeps_the_call_window_open_like_a_discard() -> None:
    """docs/spec/rules.md §8: a time-out ends the turn as by discard; §7: against a discard the call
    may come until the caller's own first action. The offender's faulty move is still his most
    recent action, so the opponent may still call it."""
    ruleset = rules(enforcement="call", move_time_limit_s=10)
    _, state = act(position(C1_POSITION, ruleset), "T1-F1", at=1000)  # breaks C1
    _, state = act(state, "time-out", at=11_000)
    assert state.game is not None and state.game.to_move == 1
    events, after = act(state, "crapette", seat=1, at=12_000)
    assert events[0].verdict == "right"
    assert pile(after, "T1") == "2S" and pile(after, "F0") == "AH 2H"


def test_the_callers_own_time_out_closes_the_window() -> None:
    """A caller who lets his turn run out has passed his chance: a call after it would void his
    timed-out turn too."""
    ruleset = rules(enforcement="call", move_time_limit_s=10)
    _, state = act(position(C1_POSITION, ruleset), "T1-F1", at=1000)  # breaks C1
    _, state = act(state, "time-out", at=11_000)  # seat 0's turn ends; seat 1 may call
    _, state = act(state, "time-out", seat=1, at=21_000)  # seat 1 lets his own turn run out
    assert state.game is not None and state.game.to_move == 0
    assert refused(state, "crapette", seat=1).rule == "call window closed"
