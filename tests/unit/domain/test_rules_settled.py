"""docs/spec/rules.md §11, the points settled after the first implementation: one section per
point (calls, naming the remedy, multi-card moves, king_only's E, finnish, danish, french,
stalemate, match end).
"""

from __future__ import annotations

import pytest

from domain import StartGame
from domain.engine import compulsory_moves, decide_and_fold, fault_of
from domain.piles import ALL_PILES
from tests.unit.domain.rules_kit import (
    act,
    action,
    acts,
    kinds,
    legal_texts,
    of_kind,
    pile,
    position,
    refused,
    rules,
)

C1_RULE = "priority: reserve to foundation first"
C2_RULE = "priority: foundation first"
E_RULE = "priority: fill the empty house from your reserve first"
ACES_RULE = "priority: Aces to the foundations first"
RESERVE_TO_HOUSE = "priority: reserve to house first"
HAND_TO_HOUSE = "priority: hand card to a house before the waste"
PLAYABLE = "discard: the hand card can still be played"

CALL = rules(enforcement="call")
LENIENT = rules(enforcement="lenient")
QUIET = "T0=KS T1=KH T2=KD T3=KC T4=KS/1 T5=KH/1 T6=KD/1 T7=KC/1"

# Seat 0: reserve top 2H fits F0 (C1); T1's 2S fits F1 (C2).
C1_POSITION = (
    "R0=9D,2H H0=4C,6C F0=AH F1=AS T0=KS T1=2S T2=8H T3=JD T4=9C/1 T5=TD/1 T6=5C/1 T7=QS/1"
    " R1=3C,7S H1=4D,8C"
)


def fault(state, text: str) -> str | None:  # type: ignore[no-untyped-def]
    return fault_of(state, action(state, text))


# --- calls: an action is called once ----------------------------------------------------------


def test_a_call_before_any_action_of_the_game_is_refused_and_changes_nothing() -> None:
    state = position(C1_POSITION, CALL)
    for seat in (0, 1):
        assert refused(state, "crapette", seat=seat).rule == "call window closed"
    assert "crapette" not in legal_texts(state, seat=1)


def test_a_second_call_on_the_same_action_is_refused_not_a_wrong_call() -> None:
    ruleset = rules(enforcement="call", wrong_call_penalty="lose_turn_after_3")
    _, state = act(position(C1_POSITION, ruleset), "R0-F0")
    events, state = act(state, "crapette", seat=1)
    assert events[0].verdict == "wrong"
    assert refused(state, "crapette", seat=1).rule == "call window closed"
    assert state.game is not None and state.game.wrong_calls == (0, 1)  # one wrong call only


def test_the_offender_calls_his_own_action_once_and_the_opponent_keeps_his_call() -> None:
    _, state = act(position(C1_POSITION, CALL), "T1-F1")  # a fault
    events, state = act(state, "crapette", seat=0)
    assert events[0].verdict == "wrong"
    assert refused(state, "crapette", seat=0).rule == "call window closed"
    events, after = act(state, "crapette", seat=1)
    assert events[0].verdict == "right" and pile(after, "F1") == "AS"


def test_a_call_right_after_a_right_call_is_refused() -> None:
    _, state = act(position(C1_POSITION, CALL), "T1-F1")
    events, state = act(state, "crapette", seat=1)
    assert events[0].verdict == "right"
    version = state.version
    for seat in (0, 1):
        assert refused(state, "crapette", seat=seat).rule == "call window closed"
    assert state.version == version  # nothing recorded


# --- naming the remedy ------------------------------------------------------------------------


def test_a_named_move_outside_the_broken_level_plays_the_default_remedy() -> None:
    _, state = act(position(C1_POSITION, CALL), "T4-T5")  # breaks C1
    events, after = act(state, "crapette T1-F1", seat=1)  # a C2 move: not of the broken level
    assert events[0].verdict == "right"
    played = of_kind(events, "CompulsoryMovePlayed")[0]
    assert (played.src, played.dst, played.card.code) == ("R0", "F0", "2H")
    assert pile(after, "T1") == "2S" and pile(after, "F1") == "AS"


def test_a_named_move_that_is_no_move_at_all_is_still_judged_on_the_action() -> None:
    _, state = act(position(C1_POSITION, CALL), "T4-T5")
    events, _ = act(state, "crapette T6-F7", seat=1)  # 5C/1 cannot go to an empty foundation
    assert events[0].verdict == "right"
    played = of_kind(events, "CompulsoryMovePlayed")[0]
    assert (played.src, played.dst) == ("R0", "F0")


def test_a_named_move_does_not_make_a_call_on_a_proper_action_right() -> None:
    _, state = act(position(C1_POSITION, CALL), "R0-F0")  # no fault
    events, after = act(state, "crapette T1-F1", seat=1)
    assert kinds(events) == ["CrapetteCalled"] and events[0].verdict == "wrong"
    assert pile(after, "T1") == "2S"


# --- multi-card moves -------------------------------------------------------------------------

# 3S and 2D on T0 go onto 4D on T3; T1 and T2 are empty.
SEQUENCE = "R0=9D,5C T0=KC,3S,2D T3=KS,4D T4=KH/1 T5=KD/1 T6=QS/1 T7=JC/1 R1=8C H0=3C"


def test_a_multi_card_move_is_its_single_moves_through_the_lowest_numbered_empty_house() -> None:
    events, after = act(position(SEQUENCE, CALL), "T0-T3 3S")
    moved = [(e.src, e.dst, e.card.code) for e in of_kind(events, "CardMoved")]
    assert moved == [("T0", "T1", "2D"), ("T0", "T3", "3S"), ("T1", "T3", "2D")]
    assert kinds(events) == ["CardMoved"] * 3
    assert pile(after, "T3") == "KS 4D 3S 2D" and pile(after, "T0") == "KC"


def test_each_step_is_judged_and_a_call_reaches_only_the_last_step() -> None:
    # R0's 2H fits F0: every step breaks C1; the call voids the last one only.
    text = SEQUENCE.replace("R0=9D,5C", "R0=9D,2H F0=AH")
    events, state = act(position(text, CALL), "T0-T3 3S")
    assert [e.fault for e in events] == [C1_RULE] * 3
    assert state.game is not None and state.game.window is not None
    assert state.game.window.first_index == state.version - 1  # the last step's event
    events, after = act(state, "crapette", seat=1)
    assert events[0].verdict == "right"
    voided = of_kind(events, "ActionVoided")
    assert [(v.src, v.dst, v.card.code) for v in voided] == [("T1", "T3", "2D")]
    assert pile(after, "T1") == "2D" and pile(after, "T3") == "KS 4D 3S"
    assert pile(after, "F0") == "AH 2H"


def test_a_step_that_uncovers_a_foundation_card_makes_only_the_next_steps_faults() -> None:
    # 9S 8H onto TD through T7: the second step uncovers 2H for F0, so only the third breaks C2.
    text = "R0=9D F0=AH T0=2H,9S,8H T1=TD T2=2D T3=2C T4=2S/1 T5=3D T6=4D"
    events, state = act(position(text, CALL), "T0-T1 9S")
    assert [(e.src, e.dst, e.fault) for e in events] == [
        ("T0", "T7", None),
        ("T0", "T1", None),
        ("T7", "T1", C2_RULE),
    ]
    events, after = act(state, "crapette", seat=1)
    assert events[0].verdict == "right" and pile(after, "T7") == "8H"
    assert pile(after, "F0") == "AH 2H"


# --- an empty house under king_only -----------------------------------------------------------

KING_ONLY = rules(empty_house="king_only", enforcement="call")
EMPTY_T3 = "R0=9D,5H H0=3C T0=KS T1=KH T2=KD T4=KS/1 T5=KH/1 T6=KD/1 T7=KC/1 R1=8C"


def test_king_only_e_does_not_hold_while_the_reserve_top_is_no_king() -> None:
    state = position(EMPTY_T3, KING_ONLY)
    assert fault(state, "turn") is None
    assert "R0-T3" not in legal_texts(state)


def test_king_only_e_holds_while_the_reserve_top_is_a_king_and_it_may_fill_the_house() -> None:
    state = position(EMPTY_T3.replace("R0=9D,5H", "R0=9D,KC"), KING_ONLY)
    assert fault(state, "turn") == E_RULE
    assert "R0-T3" in legal_texts(state) and fault(state, "R0-T3") is None
    _, after = act(state, "R0-T3")
    assert pile(after, "T3") == "KC"


# --- finnish: loading and discarding under reserve-to-house -----------------------------------

FINNISH = rules("finnish", enforcement="call")
# R0's 7C fits T0's 8H; X0's 4H could be loaded onto R1's 5H.
FINNISH_POSITION = (
    "R0=9D,7C X0=4H H0=2C T0=8H T1=KS T2=QH T3=JD T4=KC/1 T5=KD/1 T6=KH/1 T7=QC/1 R1=5H"
)


def test_finnish_loading_and_discarding_break_priority_while_reserve_to_house_exists() -> None:
    state = position(FINNISH_POSITION, FINNISH)
    assert fault(state, "X0-R1") == RESERVE_TO_HOUSE
    assert fault(state, "discard") == RESERVE_TO_HOUSE
    _, after = act(state, "R0-T0")  # the reserve top is now 9D: no reserve-to-house move left
    assert fault(after, "X0-R1") is None and fault(after, "discard") is None


# --- danish: refill_at_once -------------------------------------------------------------------

# T5's AD/1 could go to a foundation; T3 holds a card the mover can take away (to F0, onto
# T4's 5H/1, or loaded onto R1's 8C), emptying it during his own turn.
REFILL_BASE = (
    "R0=9D,5H H0=3C F0=AH T0=KS T1=KH T2=KD T4=KS/1,5H/1 T5=KH/1,AD/1 T6=KD/1 T7=KC/1 R1=8C"
)
EMPTYING = {"T3-F0": "2H", "T3-T4": "4S", "T3-R1": "9C"}


@pytest.mark.parametrize("move", sorted(EMPTYING))
@pytest.mark.parametrize("priorities", ["classic", "finnish", "french6"])
def test_refill_at_once_a_house_emptied_by_any_move_comes_before_foundations(
    move: str, priorities: str
) -> None:
    ruleset = rules(empty_house="refill_at_once", enforcement="call", priorities=priorities)
    state = position(f"{REFILL_BASE} T3={EMPTYING[move]}", ruleset)
    _, state = act(state, move)
    assert pile(state, "T3") == ""
    assert fault(state, "T5-F1") == E_RULE  # foundations (the finnish Aces too) wait
    assert fault(state, "R0-T3") is None
    assert state.game is not None
    assert [ALL_PILES[d] for _, d in compulsory_moves(state.game, action(state, "T5-F1"))] == ["T3"]


def test_refill_at_once_in_the_danish_preset_under_enforce() -> None:
    state = position(f"{REFILL_BASE} T3=2H", rules("danish", enforcement="enforce"))
    _, state = act(state, "T3-F0")
    assert legal_texts(state) == {"R0-T3"}


def test_refill_at_once_leaves_a_house_empty_since_the_turn_began_to_e() -> None:
    # T3 was emptied by the opponent: foundations come first, and E only forbids turning.
    state = position(REFILL_BASE, rules(empty_house="refill_at_once", enforcement="call"))
    assert fault(state, "T5-F1") is None
    assert fault(state, "R0-T3") == C2_RULE
    _, state = act(state, "T5-F1")
    assert fault(state, "turn") == E_RULE
    assert fault(state, "T4-T3") is None  # any card may still fill it


def test_refill_at_once_forgets_the_emptied_houses_when_the_turn_ends() -> None:
    ruleset = rules(empty_house="refill_at_once", enforcement="lenient")
    state = position(f"{REFILL_BASE} T3=2H H1=7D", ruleset)
    _, state = acts(state, "T3-F0", "turn", "discard")  # seat 0 leaves T3 empty
    assert state.game is not None and state.game.to_move == 1
    assert fault(state, "T5-F1") is None  # seat 1 did not empty T3


# --- french ------------------------------------------------------------------------------------

FRENCH = rules("french", enforcement="call")


@pytest.mark.parametrize("left", ["X0=7C", "H0=7C"])
def test_french_reserve_hand_win_needs_reserve_hand_and_x_empty(left: str) -> None:
    text = f"R0=2H F0=AH {left} W0=5C T0=KS T1=KH,8H T4=KD/1 T5=KC/1 R1=3C"
    events, _ = act(position(text, FRENCH), "R0-F0")
    assert "GameWon" not in kinds(events)


def test_french_reserve_hand_win_lets_the_waste_remain() -> None:
    text = "R0=2H F0=AH X0=7C W0=5C T0=KS T1=KH,8H T4=KD/1 T5=KC/1 R1=3C"
    events, _ = acts(position(text, FRENCH), "R0-F0", "X0-T1")
    assert of_kind(events, "GameWon")[0].winner == 0


# X0's 5H fits T0's 6S (a hand card to a house) and could be loaded onto R1's 6H.
FRENCH6_LOADING = "R0=9D,KC X0=5H H0=2C T0=6S T1=QH T4=KD/1 T5=3D/1 R1=6H"


def test_french6_loading_sits_with_any_other_legal_move() -> None:
    state = position(FRENCH6_LOADING, FRENCH)
    assert fault(state, "discard") == PLAYABLE  # X0 could still be played
    assert fault(state, "X0-R1") is None  # loading is not ranked: no fault
    french6 = rules(priorities="french6", enforcement="call", houses_per_player=2)
    state = position(FRENCH6_LOADING, french6)
    assert fault(state, "discard") == HAND_TO_HOUSE
    assert fault(state, "X0-R1") is None  # not below "hand card to a house" either


def test_french6_loading_waits_for_reserve_to_house_like_any_other_move() -> None:
    state = position(FRENCH6_LOADING.replace("T1=QH", "T1=6D").replace("KC", "5C"), FRENCH)
    assert fault(state, "X0-R1") == RESERVE_TO_HOUSE


# --- stalemate: a playable waste never makes a turn productive --------------------------------

WASTE_TURN = f"R0=9D H0=2C,3C W0=5D,2H F0=AH R1=9H H1=4S {QUIET}"


def test_a_move_from_a_playable_waste_to_a_foundation_leaves_the_turn_null() -> None:
    state = position(WASTE_TURN, rules(enforcement="lenient", waste_playable="always"))
    _, state = acts(state, "W0-F0", "turn", "discard")
    assert state.game is not None
    assert state.game.streaks == (1, 0)  # a null turn for seat 0
    assert state.game.quiet_turns == 0  # it still added a card to a foundation (the 400 turns)


def test_the_same_card_from_x_makes_the_turn_productive() -> None:
    text = WASTE_TURN.replace("W0=5D,2H", "W0=5D X0=2H")
    state = position(text, rules(enforcement="lenient", waste_playable="always"))
    _, state = acts(state, "X0-F0", "turn", "discard")
    assert state.game is not None and state.game.streaks == (0, 0)


# --- match end --------------------------------------------------------------------------------

# Seat 1 plays its last card; seat 0 keeps 2 reserve and 3 loose cards: seat 1 scores 37.
LAST_CARD = f"R1=2H F0=AH {QUIET} R0=3C,7S H0=4D,8C W0=9H"


def test_both_totals_at_the_target_the_higher_wins() -> None:
    state = position(LAST_CARD, CALL, to_move=1, totals=(300, 290))
    events, after = act(state, "R1-F0")
    won = of_kind(events, "MatchWon")[0]
    assert won.winner == 1 and won.totals == (300, 327)
    assert after.finished


def test_equal_totals_at_the_target_another_game_is_played() -> None:
    state = position(LAST_CARD, CALL, to_move=1, totals=(300, 263))
    events, after = act(state, "R1-F0")
    assert "MatchWon" not in kinds(events)
    assert after.totals == (300, 300) and not after.finished
    events, _ = decide_and_fold(after, StartGame("ab" * 32, None, 5000))
    assert kinds(events) == ["GameStarted"]
