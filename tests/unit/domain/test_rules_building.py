"""docs/spec/rules.md §4 (available cards) and §5 (where a card may go): one test per rule point.

Positions are in `lenient` mode unless priority is the point, so that only building rules speak.
"""

from __future__ import annotations

import pytest

from tests.unit.domain.rules_kit import act, legal_texts, pile, position, refused, rules

LENIENT = rules(enforcement="lenient")


# --- §4 available cards ---------------------------------------------------------------------


def test_available_reserve_top_moves() -> None:
    state = position("R0=9D,5H T0=6S", LENIENT)
    _, after = act(state, "R0-T0")
    assert pile(after, "T0") == "6S 5H" and pile(after, "R0") == "9D"


def test_available_house_top_of_either_side_moves() -> None:
    state = position("R0=9D T4=6S/1 T1=7H", LENIENT)
    _, after = act(state, "T4-T1")
    assert pile(after, "T1") == "7H 6S/1"


def test_available_x_card_moves() -> None:
    state = position("R0=9D X0=5H T0=6S", LENIENT)
    _, after = act(state, "X0-T0")
    assert pile(after, "X0") == "" and pile(after, "T0") == "6S 5H"


def test_not_available_own_waste_classic() -> None:
    state = position("R0=9D W0=5H T0=6S", LENIENT)
    assert refused(state, "W0-T0").rule == "not available"


def test_not_available_reserve_below_its_top() -> None:
    state = position("R0=5H,9D T0=6S", LENIENT)
    error = refused(state, "R0-T0 5H")
    assert error.rule in ("card mismatch", "building")


@pytest.mark.parametrize("src", ["R1", "X1", "W1", "H1"])
def test_not_available_anything_of_the_opponent(src: str) -> None:
    state = position(f"R0=9D {src}=5H T0=6S", LENIENT)
    assert refused(state, f"{src}-T0").rule == "not available"


def test_not_available_foundation_card() -> None:
    state = position("R0=9D F0=AS,2S T0=3H", LENIENT)
    assert refused(state, "F0-T0").rule == "not available"


def test_not_available_face_down_hand() -> None:
    state = position("R0=9D H0=5H T0=6S", LENIENT)
    assert refused(state, "H0-T0").rule == "not available"


def test_not_available_empty_pile() -> None:
    state = position("R0=9D T0=6S", LENIENT)
    assert refused(state, "T1-T0").rule == "not available"


def test_not_your_turn() -> None:
    state = position("R1=9D T0=TS R0=5H", LENIENT, to_move=1)
    assert refused(state, "R0-T1", seat=0).rule == "not your turn"


# --- §5 destinations ------------------------------------------------------------------------


def test_empty_foundation_takes_an_ace() -> None:
    state = position("R0=9D,AH", LENIENT)
    _, after = act(state, "R0-F3")
    assert pile(after, "F3") == "AH"


def test_empty_foundation_refuses_a_non_ace() -> None:
    state = position("R0=9D,2H", LENIENT)
    assert refused(state, "R0-F0").rule == "building"


def test_foundation_takes_same_suit_one_higher() -> None:
    state = position("R0=9D,3H F2=AH,2H/1", LENIENT)
    _, after = act(state, "R0-F2")
    assert pile(after, "F2") == "AH 2H/1 3H"


@pytest.mark.parametrize("card", ["3D", "4H", "2H"])
def test_foundation_refuses_other_suit_or_rank(card: str) -> None:
    state = position(f"R0=9C,{card} F2=AH,2H/1", LENIENT)
    assert refused(state, "R0-F2").rule == "building"


def test_foundation_nothing_after_a_king() -> None:
    full = ",".join(r + "S" for r in "A23456789TJQK")
    state = position(f"R0=9D,AS/1 F0={full}", LENIENT)
    assert refused(state, "R0-F0").rule == "building"


def test_empty_house_takes_any_available_card_classic() -> None:
    state = position("R0=9D,5H X0=7C T3=8S", LENIENT)
    _, after = act(state, "R0-T1")
    assert pile(after, "T1") == "5H"
    _, after = act(after, "X0-T2")
    assert pile(after, "T2") == "7C"
    _, after = act(after, "T3-T5")
    assert pile(after, "T5") == "8S"


def test_house_takes_one_lower_opposite_colour() -> None:
    state = position("R0=9D,5H T0=6S", LENIENT)
    _, after = act(state, "R0-T0")
    assert pile(after, "T0") == "6S 5H"


@pytest.mark.parametrize("card", ["5C", "4H", "6H", "7D"])
def test_house_refuses_same_colour_or_wrong_rank(card: str) -> None:
    state = position(f"R0=9D,{card} T0=6S", LENIENT)
    assert refused(state, "R0-T0").rule == "building"


def test_house_refuses_its_own_source() -> None:
    state = position("R0=9D T0=6S,5H", LENIENT)
    assert refused(state, "T0-T0").rule == "building"


@pytest.mark.parametrize("target", ["R1", "W1"])
@pytest.mark.parametrize("card", ["6H", "8H"])
def test_loading_same_suit_one_apart(target: str, card: str) -> None:
    state = position(f"R0=9D,{card} {target}=7H", LENIENT)
    _, after = act(state, f"R0-{target}")
    assert pile(after, target) == f"7H/1 {card}"


@pytest.mark.parametrize("target", ["R1", "W1"])
@pytest.mark.parametrize("card", ["6D", "9H", "7H"])
def test_loading_refuses_other_suit_or_rank(target: str, card: str) -> None:
    state = position(f"R0=9D,{card} {target}=7H", LENIENT)
    assert refused(state, f"R0-{target}").rule == "building"


@pytest.mark.parametrize("target", ["R1", "W1"])
def test_loading_refuses_an_empty_pile(target: str) -> None:
    state = position("R0=9D,6H", LENIENT)
    assert refused(state, f"R0-{target}").rule == "building"


def test_own_waste_only_by_discard() -> None:
    state = position("R0=9D X0=5H W0=4H", LENIENT)
    assert refused(state, "X0-W0").rule == "building"


@pytest.mark.parametrize("dst", ["R0", "H0", "H1", "X1", "X0"])
def test_never_onto_own_reserve_hands_or_x(dst: str) -> None:
    state = position("R0=9D,6H T0=5H R1=4C", LENIENT)
    assert refused(state, f"T0-{dst}").rule == "building"


def test_house_only_card_to_an_empty_house_is_legal() -> None:
    state = position("R0=9D T2=6S", LENIENT)
    _, after = act(state, "T2-T6")
    assert pile(after, "T6") == "6S" and pile(after, "T2") == ""


def test_refused_action_changes_nothing_and_names_the_rule() -> None:
    state = position("R0=9D,5C T0=6S", LENIENT)
    error = refused(state, "R0-T0")
    assert error.rule == "building" and "5C" in error.message


# --- §5 sequences through empty houses -------------------------------------------------------


def test_sequence_through_one_empty_house_two_cards() -> None:
    """With k=1 empty house, 2 cards move onto a non-empty house as two single moves."""
    state = position("R0=9D T0=9S,8H,7C T1=9C T2=2D T3=2C T4=2S/1 T5=3S T6=3D")
    # T7 is the only empty house.
    _, state = act(state, "T0-T7")
    _, state = act(state, "T0-T1")
    _, state = act(state, "T7-T1")
    assert pile(state, "T1") == "9C 8H 7C" and pile(state, "T0") == "9S"


def test_sequence_of_four_through_two_empty_houses() -> None:
    """k=2 empty houses: up to 4 cards, every step a legal single move."""
    state = position("R0=9D T0=9S,8H,7C,6D,5S T1=9C T2=2D T3=2C T4=2S/1 T5=3S")
    steps = ["T0-T6", "T0-T7", "T6-T7", "T0-T6", "T0-T1", "T6-T1", "T7-T6", "T7-T1", "T6-T1"]
    for step in steps:
        _, state = act(state, step)
    assert pile(state, "T1") == "9C 8H 7C 6D 5S"
    assert pile(state, "T6") == "" and pile(state, "T7") == ""


def test_legal_moves_list_matches_the_building_rules() -> None:
    state = position("R0=9D,5H T0=6S T1=6C T2=4C T3=KH T4=QC/1 T5=8D T6=9S T7=TH")
    moves = {text for text in legal_texts(state) if "-" in text}
    # 5H: onto 6S, 6C; 4C: onto 5H? no (5H is in R0, not a house); houses: QC on KH; 9S on TH...
    assert {"R0-T0", "R0-T1", "T4-T3", "T6-T7"} <= moves
    assert "R0-T2" not in moves and "T2-T0" not in moves


@pytest.mark.parametrize("card,top", [("KH", "AH"), ("AH", "KH")])
def test_loading_has_no_wrap_around_between_ace_and_king(card: str, top: str) -> None:
    state = position(f"R0=9D,{card} R1={top}", LENIENT)
    assert refused(state, "R0-R1").rule == "building"


def test_house_has_no_wrap_around_king_onto_ace() -> None:
    state = position("R0=9D,KS T0=AH", LENIENT)
    assert refused(state, "R0-T0").rule == "building"
