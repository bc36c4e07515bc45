"""docs/spec/rules.md §6 (the classic hierarchy C1, C2, E) and the `finnish` and `french6` orders
of §9.

In `enforce` a priority breach is refused and names its rule; in `call` it is accepted and
recorded as a fault; in `lenient` it is neither.
"""

from __future__ import annotations

import pytest

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

ENFORCE = rules(enforcement="enforce")
CALL = rules(enforcement="call")
LENIENT = rules(enforcement="lenient")

C1_RULE = "priority: reserve to foundation first"
C2_RULE = "priority: foundation first"
E_RULE = "priority: fill the empty house from your reserve first"

# Seat 0's reserve top 2H fits F0 (C1); T1's 2S fits F1 (C2); every house is filled.
C1_POSITION = "R0=9D,2H H0=4C F0=AH F1=AS T0=KS T1=2S T2=8H T3=JD T4=9C/1 T5=TD/1 T6=5C/1 T7=QS/1"


# --- C1 ---------------------------------------------------------------------------------------


def test_c1_reserve_to_foundation_is_accepted() -> None:
    _, after = act(position(C1_POSITION, ENFORCE), "R0-F0")
    assert pile(after, "F0") == "AH 2H"


@pytest.mark.parametrize("text", ["T1-F1", "T4-T5", "turn"])
def test_c1_anything_else_is_refused_in_enforce(text: str) -> None:
    assert refused(position(C1_POSITION, ENFORCE), text).rule == C1_RULE


def test_c1_legal_actions_in_enforce_hold_only_c1() -> None:
    assert legal_texts(position(C1_POSITION, ENFORCE)) == {"R0-F0"}


def test_c1_player_chooses_among_foundations() -> None:
    state = position("R0=9D,AC T0=KS T1=QH T2=8H T3=JD T4=9C/1 T5=TD/1 T6=5C/1 T7=QS/1", ENFORCE)
    assert {"R0-F0", "R0-F5", "R0-F7"} <= legal_texts(state)
    _, after = act(state, "R0-F5")
    assert pile(after, "F5") == "AC"


def test_c1_breach_in_call_mode_is_recorded_as_a_fault() -> None:
    events, _ = act(position(C1_POSITION, CALL), "T1-F1")
    assert of_kind(events, "CardMoved")[0].fault == C1_RULE


def test_c1_breach_in_lenient_mode_is_no_fault() -> None:
    events, _ = act(position(C1_POSITION, LENIENT), "T1-F1")
    assert of_kind(events, "CardMoved")[0].fault is None


# --- C2 ---------------------------------------------------------------------------------------

C2_POSITION = C1_POSITION.replace("R0=9D,2H", "R0=9D,7C").replace("H0=4C", "H0=4C X0=2C F2=AC")


def test_c2_any_foundation_build_is_accepted_player_chooses() -> None:
    state = position(C2_POSITION, ENFORCE)
    assert legal_texts(state) == {"T1-F1", "X0-F2"}
    _, after = act(state, "X0-F2")
    assert pile(after, "F2") == "AC 2C"


@pytest.mark.parametrize("text", ["R0-T2", "discard"])
def test_c2_other_actions_are_refused(text: str) -> None:
    assert refused(position(C2_POSITION, ENFORCE), text).rule == C2_RULE


def test_c2_x_card_that_fits_a_foundation_cannot_be_discarded() -> None:
    state = position("R0=9D X0=2C F2=AC T0=KS T1=QH T2=8H T3=JD", ENFORCE)
    assert refused(state, "discard").rule == C2_RULE


def test_priorities_are_reevaluated_after_every_action() -> None:
    state = position(C2_POSITION, ENFORCE)
    _, state = act(state, "T1-F1")  # T1 is now empty: E (reserve non-empty, empty house)
    assert refused(state, "R0-T2").rule == C2_RULE  # X0 2C still fits F2
    _, state = act(state, "X0-F2")
    assert refused(state, "turn").rule == E_RULE


# --- E ----------------------------------------------------------------------------------------

E_POSITION = "R0=9D,7C H0=4C,5D T0=KS T1=8H T2=8D T4=9C/1 T5=TD/1 T6=5C/1 T7=QS/1"


def test_e_turn_refused_while_a_house_is_empty_and_reserve_remains() -> None:
    assert refused(position(E_POSITION, ENFORCE), "turn").rule == E_RULE


def test_e_other_moves_allowed() -> None:
    _, after = act(position(E_POSITION, ENFORCE), "R0-T1")
    assert pile(after, "T1") == "8H 7C"


def test_e_filling_the_house_from_the_reserve_allows_the_turn() -> None:
    _, after = act(position(E_POSITION, ENFORCE), "R0-T3")
    _, after = act(after, "turn")
    assert pile(after, "X0") == "5D"


def test_e_does_not_apply_with_an_empty_reserve() -> None:
    _, after = act(position(E_POSITION.replace("R0=9D,7C", ""), ENFORCE), "turn")
    assert pile(after, "X0") == "5D"


def test_e_discard_is_allowed() -> None:
    state = position(E_POSITION.replace("H0=4C,5D", "H0=4C X0=5D"), ENFORCE)
    events, _ = act(state, "discard")
    assert "CardDiscarded" in kinds(events)


def test_e_breach_in_call_mode_is_a_fault() -> None:
    events, _ = act(position(E_POSITION, CALL), "turn")
    assert of_kind(events, "HandCardTurned")[0].fault == E_RULE


def test_pass_while_a_compulsory_move_exists_breaks_priority() -> None:
    state = position(C1_POSITION.replace("H0=4C", ""), CALL)
    events, _ = act(state, "pass")
    assert of_kind(events, "Passed")[0].fault == C1_RULE
    assert refused(position(C1_POSITION.replace("H0=4C", ""), ENFORCE), "pass").rule == C1_RULE


def test_sequence_step_is_checked_with_priorities() -> None:
    """9S 8H onto TD through T7: the second step uncovers 2H for F0, so C2 binds the third."""
    state = position("R0=9D F0=AH T0=2H,9S,8H T1=TD T2=2D T3=2C T4=2S/1 T5=3D T6=4D", ENFORCE)
    _, state = act(state, "T0-T7")
    _, state = act(state, "T0-T1")
    assert refused(state, "T7-T1").rule == C2_RULE


# Seat 1's four houses filled with cards that take nothing of the tests' (no empty house).
FULL_RIGHT = "T4=KC/1 T5=KD/1 T6=KH/1 T7=9C/1"

# --- discard_rule -----------------------------------------------------------------------------


def test_discard_rule_unless_foundation_allows_discarding_a_house_fit() -> None:
    state = position("R0=9D X0=5H T0=6S T1=KS T2=QH T3=JD", ENFORCE)
    events, _ = act(state, "discard")
    assert "CardDiscarded" in kinds(events)


@pytest.mark.parametrize("fit", ["T0=6S", "R1=6H", "W1=4H"])
def test_discard_rule_only_if_unplayable_refuses_a_playable_hand_card(fit: str) -> None:
    ruleset = rules(enforcement="enforce", discard_rule="only_if_unplayable")
    state = position(f"R0=9D X0=5H {fit} T1=KS T2=QH T3=JD {FULL_RIGHT}", ruleset)
    assert refused(state, "discard").rule == "discard: the hand card can still be played"


def test_discard_rule_only_if_unplayable_allows_an_unplayable_hand_card() -> None:
    ruleset = rules(enforcement="enforce", discard_rule="only_if_unplayable")
    state = position(f"R0=9D X0=5H T0=6H T1=KS T2=QH T3=JD {FULL_RIGHT}", ruleset)
    events, _ = act(state, "discard")
    assert "CardDiscarded" in kinds(events)


# --- finnish ----------------------------------------------------------------------------------

FINNISH = rules(priorities="finnish", enforcement="enforce", empty_house="any")


def test_finnish_aces_first_before_reserve_to_foundation() -> None:
    state = position("R0=9D,2H F0=AH T0=AS T1=KS T2=QH T3=JD", FINNISH)
    assert refused(state, "R0-F0").rule == "priority: Aces to the foundations first"
    _, after = act(state, "T0-F1")
    assert pile(after, "F1") == "AS"


def test_finnish_reserve_before_other_foundation_builds() -> None:
    state = position("R0=9D,2H F0=AH F1=AS T0=2S T1=KS T2=QH T3=JD", FINNISH)
    assert refused(state, "T0-F1").rule == C1_RULE


def test_finnish_other_foundation_builds_before_house_moves() -> None:
    state = position("R0=9D,7C F1=AS T0=2S T1=8H T2=QH T3=JD", FINNISH)
    assert refused(state, "R0-T1").rule == C2_RULE


def test_finnish_reserve_to_house_before_other_sources_and_turn() -> None:
    state = position("R0=9D,7C H0=3D T0=8H T1=KS T2=QH T3=JD T4=5C/1 T5=6D/1", FINNISH)
    assert refused(state, "T4-T5").rule == "priority: reserve to house first"
    assert refused(state, "turn").rule == "priority: reserve to house first"
    _, after = act(state, "R0-T0")
    assert pile(after, "T0") == "8H 7C"


# --- french6 ----------------------------------------------------------------------------------

FRENCH6 = rules(priorities="french6", enforcement="enforce")


def test_french6_reserve_to_foundation_first() -> None:
    state = position(C1_POSITION, FRENCH6)
    assert refused(state, "T1-F1").rule == C1_RULE


def test_french6_any_card_to_foundation_before_reserve_to_house() -> None:
    state = position("R0=9D,7C F1=AS T0=2S T1=8H T2=QH T3=JD", FRENCH6)
    assert refused(state, "R0-T1").rule == C2_RULE


def test_french6_reserve_to_house_before_hand_card() -> None:
    state = position("R0=9D,7C H0=3D T0=8H T1=KS T2=QH T3=JD", FRENCH6)
    assert refused(state, "turn").rule == "priority: reserve to house first"


def test_french6_house_to_house_only_when_it_frees_a_better_move() -> None:
    # T2-T3 (8C onto 9H) uncovers 2S for F1: allowed. T4-T3 (8S onto 9H) frees nothing.
    state = position(
        "R0=9D,KC F1=AS T0=KS T1=QH T2=2S,8C T3=9H T4=3D/1,8S/1 T5=TS/1 T6=KD/1 T7=KH/1",
        FRENCH6,
    )
    assert refused(state, "T4-T3").rule == "priority: house to house only to free a better move"
    _, after = act(state, "T2-T3")
    assert pile(after, "T3") == "9H 8C"


def test_french6_hand_card_to_house_before_the_waste() -> None:
    state = position(
        "R0=9D,KC X0=5H T0=6S T1=QH T2=2S T3=JD T4=KD/1 T5=KH/1 T6=3D/1 T7=9C/1",
        FRENCH6,
    )
    assert refused(state, "discard").rule == "priority: hand card to a house before the waste"
