"""docs/spec/rules.md §4 (a turn: turn, discard, pass, the waste turned over, the repetition
guard), the `hand_card_lock` option and the time limit of §8."""

from __future__ import annotations

import pytest

from domain import RulesError
from tests.unit.domain.rules_kit import (
    AT,
    act,
    kinds,
    legal_texts,
    of_kind,
    pile,
    position,
    refused,
    rules,
)

LENIENT = rules(enforcement="lenient")
# Every house filled, nothing fits a foundation: no priority speaks in these positions.
QUIET = "T0=KS T1=KH T2=KD T3=KC T4=KS/1 T5=KH/1 T6=KD/1 T7=KC/1"


# --- turn -------------------------------------------------------------------------------------


def test_turn_puts_the_hand_top_face_up_into_x() -> None:
    events, after = act(position(f"R0=9D H0=4C,7D {QUIET}"), "turn")
    assert kinds(events) == ["HandCardTurned"] and events[0].card.code == "7D"
    assert pile(after, "X0") == "7D" and pile(after, "H0") == "4C"
    assert after.game is not None and after.game.to_move == 0


def test_turn_refused_while_x_is_showing() -> None:
    state = position(f"R0=9D H0=4C X0=7D {QUIET}")
    assert refused(state, "turn").rule == "hand card showing"
    assert "turn" not in legal_texts(state)


def test_turn_with_empty_hand_turns_the_waste_over_bottom_card_first() -> None:
    events, after = act(position(f"R0=9D W0=3C,7D,9H {QUIET}"), "turn")
    assert kinds(events) == ["WasteTurnedOver", "HandCardTurned"]
    assert events[0].count == 3 and events[1].card.code == "3C"
    assert pile(after, "X0") == "3C" and pile(after, "H0") == "9H 7D" and pile(after, "W0") == ""


def test_turn_impossible_with_hand_and_waste_empty() -> None:
    state = position(f"R0=9D {QUIET}")
    assert refused(state, "turn").rule == "no hand card"


def test_moves_allowed_while_x_is_showing() -> None:
    state = position(f"R0=9D H0=4C X0=7D {QUIET} R1=8D")
    _, after = act(state, "R0-R1")
    assert pile(after, "R1") == "8D/1 9D" and pile(after, "X0") == "7D"


# --- discard ----------------------------------------------------------------------------------


def test_discard_puts_x_on_the_waste_and_ends_the_turn() -> None:
    events, after = act(position(f"R0=9D H0=4C X0=7D W0=2H {QUIET}"), "discard")
    assert kinds(events) == ["CardDiscarded", "TurnEnded"]
    assert events[1].next_seat == 1 and events[1].reason == "discard"
    assert pile(after, "W0") == "2H 7D" and pile(after, "X0") == ""
    assert after.game is not None and after.game.to_move == 1


def test_discard_refused_without_a_hand_card() -> None:
    assert refused(position(f"R0=9D H0=4C {QUIET}"), "discard").rule == "nothing to discard"


# --- pass -------------------------------------------------------------------------------------


def test_pass_with_hand_x_and_waste_empty_ends_the_turn() -> None:
    events, after = act(position(f"R0=9D {QUIET}"), "pass")
    assert kinds(events) == ["Passed", "TurnEnded"]
    assert after.game is not None and after.game.to_move == 1


@pytest.mark.parametrize("extra", ["H0=4C", "X0=4C", "W0=4C"])
def test_pass_refused_while_a_hand_card_remains(extra: str) -> None:
    state = position(f"R0=9D {extra} {QUIET}")
    assert refused(state, "pass").rule == "cannot pass"


# --- repetition guard -------------------------------------------------------------------------

SHUFFLE = "R0=9D H0=2C T0=6S,5H T1=6C T2=6S/1,5H/1 T3=KD T4=KC/1 T5=KH/1 T6=KS/1 T7=KD/1"


@pytest.mark.parametrize("mode", ["enforce", "call", "lenient"])
def test_repetition_back_to_the_turns_start_is_illegal_in_every_mode(mode: str) -> None:
    _, state = act(position(SHUFFLE, rules(enforcement=mode)), "T0-T1")
    assert "T1-T0" not in legal_texts(state)
    assert refused(state, "T1-T0").rule == "repetition"


def test_repetition_compares_cards_with_their_owner() -> None:
    state = position(SHUFFLE, LENIENT)
    _, state = act(state, "T0-T1")  # T0 6S        T1 6C 5H    T2 6S/1 5H/1
    _, state = act(state, "T2-T0")  # T0 6S 5H/1   T1 6C 5H    T2 6S/1
    _, state = act(state, "T1-T2")  # T0 6S 5H/1   T1 6C       T2 6S/1 5H: same codes, new owners
    assert pile(state, "T0") == "6S 5H/1" and pile(state, "T2") == "6S/1 5H"


def test_repetition_of_a_middle_position_is_illegal_too() -> None:
    state = position(SHUFFLE, LENIENT)
    _, state = act(state, "T0-T1")  # position A
    _, state = act(state, "T2-T0")  # position B
    assert refused(state, "T0-T2").rule == "repetition"  # would recreate A


def test_repetition_guard_resets_in_the_next_turn() -> None:
    state = position(SHUFFLE.replace("H0=2C", "H0=5C,4C,3C X0=2C R1=2D"), LENIENT)
    _, state = act(state, "T0-T1")
    _, state = act(state, "discard")
    _, state = act(state, "pass")  # seat 1 has only a reserve: it passes
    _, state = act(state, "T1-T0")  # legal again: a new turn
    assert pile(state, "T0") == "6S 5H"


def test_single_card_house_to_empty_house_and_back_is_a_repetition() -> None:
    state = position("R0=9D H0=4C T2=6S", LENIENT)
    _, state = act(state, "T2-T6")
    assert refused(state, "T6-T2").rule == "repetition"


# --- hand_card_lock ---------------------------------------------------------------------------

LOCK = rules(hand_card_lock="on", enforcement="enforce")


def test_hand_card_lock_unplayable_card_goes_to_the_waste_and_ends_the_turn() -> None:
    events, after = act(position(f"R0=9D H0=4C,2H {QUIET}", LOCK), "turn")
    assert kinds(events) == ["HandCardTurned", "CardDiscarded", "TurnEnded"]
    assert pile(after, "W0") == "2H" and after.game is not None and after.game.to_move == 1


def test_hand_card_lock_playable_card_stays() -> None:
    events, after = act(position(f"R0=9D H0=4C,QS {QUIET}", LOCK), "turn")
    assert kinds(events) == ["HandCardTurned"] and pile(after, "X0") == "QS"


def test_hand_card_lock_off_unplayable_card_stays() -> None:
    off = rules(enforcement="enforce")
    events, after = act(position(f"R0=9D H0=4C,2H {QUIET}", off), "turn")
    assert kinds(events) == ["HandCardTurned"] and pile(after, "X0") == "2H"


# --- time limit (§8) --------------------------------------------------------------------------

TIMED = rules(move_time_limit_s=10)


def test_time_out_before_the_limit_is_refused() -> None:
    state = position(f"R0=9D X0=7D {QUIET}", TIMED)
    with pytest.raises(RulesError) as caught:
        act(state, "time-out", at=AT + 9_999)
    assert caught.value.rule == "time not up"


def test_time_out_ends_the_turn_as_by_discard() -> None:
    state = position(f"R0=9D H0=4C X0=7D {QUIET}", TIMED)
    events, after = act(state, "time-out", at=AT + 10_000)
    assert kinds(events) == ["TimeExpired", "CardDiscarded", "TurnEnded"]
    assert pile(after, "W0") == "7D" and after.game is not None and after.game.to_move == 1


def test_time_out_without_a_hand_card_just_ends_the_turn() -> None:
    state = position(f"R0=9D H0=4C {QUIET}", TIMED)
    events, after = act(state, "time-out", at=AT + 10_000)
    assert kinds(events) == ["TimeExpired", "TurnEnded"] and pile(after, "H0") == "4C"


def test_time_out_without_a_time_limit_is_refused() -> None:
    state = position(f"R0=9D X0=7D {QUIET}")
    with pytest.raises(RulesError) as caught:
        act(state, "time-out", at=AT + 10**9)
    assert caught.value.rule == "no time limit"


def test_clock_restarts_after_each_action() -> None:
    state = position(f"R0=9D H0=4C,8C {QUIET}", TIMED)
    _, state = act(state, "turn", at=AT + 9_000)
    with pytest.raises(RulesError) as caught:
        act(state, "time-out", at=AT + 12_000)
    assert caught.value.rule == "time not up"
    assert of_kind(act(state, "time-out", at=AT + 19_000)[0], "TimeExpired")
