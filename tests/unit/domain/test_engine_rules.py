"""The engine's rules on small positions: building, priorities in the three enforcement modes,
the Crapette call and its voiding, turns, wins, stalemates, scores, matches."""

from __future__ import annotations

import pytest

from domain import (
    ActionVoided,
    CardDiscarded,
    CardMoved,
    CompulsoryMovePlayed,
    CrapetteCalled,
    Event,
    GameStalemated,
    GameWon,
    HandCardTurned,
    MatchWon,
    RulesError,
    TurnEnded,
    WasteTurnedOver,
    check,
    fault_of,
    fold,
    is_compulsory,
    legal_actions,
    parse_action,
    position_from_text,
    position_to_text,
)
from tests.unit.domain.rules_kit import act, kinds, position, refused, rules


def test_position_text_round_trips() -> None:
    text = "R0=5S,7H R1=8C H0=2D H1=3D,4D X0=2C T0=KS/1,QH T4=9D/1 F0=AS,2S to=1"
    assert position_to_text(position_from_text(text)) == text


# ------------------------------------------------------------------------------- building rules

BUILD = "R0=2D,9C T0=TH T1=5S T2=KD F0=AS R1=4C W1=JS H0=3H H1=3S to=0"


def test_house_takes_one_lower_of_the_other_colour() -> None:
    events, state = act(position(BUILD), "R0-T0")
    assert isinstance(events[0], CardMoved) and str(events[0].card) == "9C/0"
    assert state.game is not None and state.game.pile("T0")[-1].code == "9C"


@pytest.mark.parametrize(
    ("move", "rule"),
    [
        ("R0-T1", "building"),  # 9C on 5S
        ("R0-T2", "building"),  # 9C on KD: not one lower
        ("R0-F1", "building"),  # not an Ace
        ("R0-F0", "building"),  # 9C on AS
        ("R0-R0", "building"),
        ("R0-W0", "building"),
        ("R0-H1", "building"),
        ("R1-T0", "not available"),  # the opponent's reserve
        ("W1-T0", "not available"),
        ("F0-T1", "not available"),
        ("H0-T0", "not available"),
        ("X0-T0", "not available"),  # empty
        ("T5-T0", "not available"),  # empty house
    ],
)
def test_building_breaches_are_refused_in_every_mode(move: str, rule: str) -> None:
    for mode in ("call", "enforce", "lenient"):
        assert refused(position(BUILD, rules(enforcement=mode)), move).rule == rule


def test_loading_onto_the_opponents_reserve_and_waste() -> None:
    state = position("R0=2D,TS T0=3C R1=4C W1=JS H0=3H to=0")
    _, after = act(state, "R0-W1")  # TS on JS: same suit, one lower
    assert after.game is not None and after.game.pile("W1")[-1].code == "TS"
    _, after = act(state, "T0-R1")  # 3C on 4C
    assert after.game is not None and after.game.pile("R1")[-1].code == "3C"
    assert refused(position("R0=2D,TD R1=4C W1=JS H0=3H to=0"), "R0-W1").rule == "building"


def test_not_your_turn() -> None:
    assert refused(position(BUILD), "R1-T0", seat=1).rule == "not your turn"


def test_card_mismatch_is_refused() -> None:
    assert refused(position(BUILD), "R0-T0 8C").rule == "card mismatch"
    act(position(BUILD), "R0-T0 9C")


def test_empty_house_options() -> None:
    text = "R0=2D,9C T0=TH X0=5S H0=3H to=0"
    assert "R0-T1" in [a.notation() for a in legal_actions(position(text), 0)]
    assert refused(position(text, rules(empty_house="king_only")), "R0-T1").rule == "building"
    act(position("R0=2D,KC T0=TH H0=3H to=0", rules(empty_house="king_only")), "R0-T1")
    assert refused(position(text, rules(empty_house="reserve_first")), "X0-T1").rule == "building"
    act(position(text, rules(empty_house="reserve_first")), "R0-T1")
    act(position("T0=TH X0=5S H0=3H to=0", rules(empty_house="reserve_first")), "X0-T1")


def test_waste_playable_options() -> None:
    text = "R0=2D T0=TH W0=9C H0=3H to=0"
    assert refused(position(text), "W0-T0").rule == "not available"
    act(position(text, rules(waste_playable="always")), "W0-T0")
    assert (
        refused(position(text, rules(waste_playable="after_hand_empty")), "W0-T0").rule
        == "not available"
    )
    act(position("R0=2D T0=TH W0=9C to=0", rules(waste_playable="after_hand_empty")), "W0-T0")


def test_repetition_within_a_turn_is_illegal() -> None:
    # 9C onto TH empties T1; moving it back would recreate the turn's starting layout.
    fresh = position("R0=2D T0=TH T1=9C T2=JS H0=3H to=0")
    _, moved = act(fresh, "T1-T0")
    assert refused(moved, "T0-T1").rule == "repetition"
    assert "T0-T1" not in [a.notation() for a in legal_actions(moved, 0)]


# -------------------------------------------------------------------------------- priorities

C1 = "R0=9D,AH T0=TH T1=5S X0=2C F0=AC H0=3H R1=4C to=0"


def test_priority_in_enforce_mode_refuses() -> None:
    state = position(C1, rules(enforcement="enforce"))
    assert refused(state, "X0-F0").rule == "priority: reserve to foundation first"
    assert [a.notation() for a in legal_actions(state, 0)] == [f"R0-F{i}" for i in range(1, 8)]
    _, after = act(state, "R0-F1")
    assert refused(after, "discard").rule == "priority: foundation first"  # 2C fits F0


def test_priority_in_call_mode_records_a_fault() -> None:
    events, _ = act(position(C1), "X0-F0")
    assert isinstance(events[0], CardMoved)
    assert events[0].fault == "priority: reserve to foundation first"
    assert (
        fault_of(position(C1), parse_action("X0-F0", 0)) == "priority: reserve to foundation first"
    )
    assert fault_of(position(C1), parse_action("R0-F1", 0)) is None


def test_a_compulsory_move_is_one_priority_demands_before_any_other_action() -> None:
    # Reserve to foundation first: the reserve's card up is compulsory, nothing else is.
    state = position(C1)
    assert is_compulsory(state, parse_action("R0-F1", 0))
    assert not is_compulsory(state, parse_action("X0-F0", 0))  # a fault, not compulsory
    assert not is_compulsory(state, parse_action("turn", 0))
    # An empty house waiting for the reserve binds only the turn: filling it is not compulsory
    # (another move may come first), so the replay lists every sound move there.
    waits = position("R0=9D,5C T0=TH H0=3H,4S to=0")
    assert fault_of(waits, parse_action("turn", 0)) is not None
    assert not any(is_compulsory(waits, a) for a in legal_actions(waits, 0))


def test_priority_in_lenient_mode_is_advice_only() -> None:
    events, _ = act(position(C1, rules(enforcement="lenient")), "X0-F0")
    assert isinstance(events[0], CardMoved) and events[0].fault is None


def test_turn_is_a_fault_while_an_empty_house_waits_for_the_reserve() -> None:
    state = position("R0=9D,5C T0=TH H0=3H,4S to=0")
    assert fault_of(state, parse_action("turn", 0)) == (
        "priority: fill the empty house from your reserve first"
    )
    assert refused(
        position("R0=9D,5C T0=TH H0=3H to=0", rules(enforcement="enforce")), "turn"
    ).rule.startswith("priority")


def test_discard_rule_only_if_unplayable() -> None:
    text = "R0=2D T0=TH X0=9C H0=3H to=0"
    act(position(text), "discard")
    rule = refused(
        position(text, rules(discard_rule="only_if_unplayable", enforcement="enforce")), "discard"
    ).rule
    assert rule == "discard: the hand card can still be played"


def test_refill_at_once_comes_before_anything_else() -> None:
    # T1 is emptied during the mover's turn (refill_at_once is about such a house: spec §11).
    text = "R0=9D,5C T0=6H T1=5S X0=AS H0=3H to=0"
    _, refill = act(position(text, rules(empty_house="refill_at_once")), "T1-T0")
    assert fault_of(refill, parse_action("X0-F0", 0)) == (
        "priority: fill the empty house from your reserve first"
    )
    _, classic = act(position(text), "T1-T0")
    assert fault_of(classic, parse_action("X0-F0", 0)) is None


def test_finnish_aces_first_and_reserve_to_house() -> None:
    text = "R0=9D,2H T0=3S T1=AC F0=AH H0=3H to=0"
    assert fault_of(position(text, "finnish"), parse_action("R0-F0", 0)) == (
        "priority: Aces to the foundations first"
    )
    text2 = "R0=9D,5H T0=6S T1=KC H0=3H to=0"
    assert fault_of(position(text2, "finnish"), parse_action("turn", 0)) == (
        "priority: reserve to house first"
    )


def test_french6_house_to_house_only_to_free_a_better_move() -> None:
    ruleset = "french"
    useless = "R0=9D,4D T0=6S T1=QC,5H T4=KC T5=2C H0=3H to=0"
    assert fault_of(position(useless, ruleset), parse_action("T1-T0", 0)) == (
        "priority: house to house only to free a better move"
    )
    useful = "R0=9D,4D T0=6S T1=AC,5H T4=KC T5=2C H0=3H to=0"
    assert fault_of(position(useful, ruleset), parse_action("T1-T0", 0)) is None


# ----------------------------------------------------------------------------- turns and hands


def test_turn_recycles_the_waste_bottom_card_first() -> None:
    state = position("R0=9D W0=2C,5H,7S R1=4C to=0")
    events, after = act(state, "turn")
    assert kinds(events) == ["WasteTurnedOver", "HandCardTurned"]
    assert isinstance(events[1], HandCardTurned) and events[1].card.code == "2C"
    assert after.game is not None
    assert [c.code for c in after.game.pile("H0")] == ["7S", "5H"]


def test_turn_refused_while_x_shows_or_with_nothing_to_turn() -> None:
    assert refused(position("R0=9D X0=2C H0=3H to=0"), "turn").rule == "hand card showing"
    assert refused(position("R0=9D R1=4C to=0"), "turn").rule == "no hand card"


def test_discard_ends_the_turn_and_pass_needs_empty_hand() -> None:
    events, after = act(position("R0=9D X0=2C H0=3H R1=4C H1=5C to=0"), "discard")
    assert kinds(events) == ["CardDiscarded", "TurnEnded"]
    assert after.game is not None and after.game.to_move == 1
    assert refused(position("R0=9D H0=3H R1=4C to=0"), "pass").rule == "cannot pass"
    events, _ = act(position("R0=9D R1=4C H1=5C to=0"), "pass")
    assert kinds(events) == ["Passed", "TurnEnded"]


def test_hand_card_lock_discards_an_unplayable_turned_card() -> None:
    houses = "T0=TH T1=TS T2=TD T3=TC T4=KH T5=KS T6=KD T7=KC"
    text = f"R0=9D {houses} H0=3H,2S R1=4C H1=5C to=0"
    events, after = act(position(text, rules(hand_card_lock="on")), "turn")
    assert kinds(events) == ["HandCardTurned", "CardDiscarded", "TurnEnded"]
    assert isinstance(events[1], CardDiscarded) and events[1].auto == "hand card lock"
    events, _ = act(position(text), "turn")
    assert kinds(events) == ["HandCardTurned"]


# ------------------------------------------------------------------------------ the Crapette call


def test_right_call_voids_the_fault_and_plays_the_compulsory_move() -> None:
    state = position(C1 + " H1=5C")
    events, state = act(state, "X0-F0")
    assert [a.notation() for a in legal_actions(state, 1)] == ["crapette"]
    events, after = act(state, "crapette", seat=1, at=2000)
    assert kinds(events) == [
        "CrapetteCalled",
        "ActionVoided",
        "CompulsoryMovePlayed",
        "CardDiscarded",
        "TurnEnded",
    ]
    call = events[0]
    assert isinstance(call, CrapetteCalled) and call.verdict == "right"
    assert call.rule == "priority: reserve to foundation first"
    voided = events[1]
    assert isinstance(voided, ActionVoided) and voided.card is not None
    assert (voided.src, voided.dst, voided.card.code) == ("X0", "F0", "2C")
    played = events[2]
    assert isinstance(played, CompulsoryMovePlayed) and (played.src, played.dst) == ("R0", "F1")
    assert after.game is not None and after.game.to_move == 1
    assert after.game.pile("W0")[-1].code == "2C"  # the card in X went to the waste
    assert after.game.pile("R0")[-1].code == "9D"


def test_caller_may_name_the_compulsory_move() -> None:
    state = position("R0=9D,AH T0=TH X0=2C F0=AC F3=KS H0=3H H1=5C to=0")
    _, state = act(state, "X0-F0")
    events, _ = act(state, "crapette R0-F4", seat=1)
    played = [e for e in events if isinstance(e, CompulsoryMovePlayed)]
    assert (played[0].src, played[0].dst) == ("R0", "F4")


def test_wrong_call_changes_nothing() -> None:
    state = position(C1 + " H1=5C")
    _, state = act(state, "R0-F1")
    events, after = act(state, "crapette", seat=1)
    assert kinds(events) == ["CrapetteCalled"]
    assert isinstance(events[0], CrapetteCalled) and events[0].verdict == "wrong"
    assert after.game is not None and state.game is not None
    assert after.game.p == state.game.p and after.game.to_move == 0
    assert refused(after, "crapette", seat=1).rule == "call window closed"  # once per action


def test_call_window_is_the_offenders_last_action_only() -> None:
    state = position(C1 + " H1=5C")
    _, state = act(state, "X0-F0")  # fault
    _, state = act(state, "R0-F1")  # his next action closes the window on the fault
    events, _ = act(state, "crapette", seat=1)
    assert isinstance(events[0], CrapetteCalled) and events[0].verdict == "wrong"


def test_a_faulty_discard_can_be_called_until_the_callers_first_action() -> None:
    state = position("R0=9D T0=TH X0=AS H0=3H R1=4C H1=5C,6D to=0")
    events, state = act(state, "discard")  # AS fits a foundation: a fault
    assert isinstance(events[0], CardDiscarded) and events[0].fault == "priority: foundation first"
    assert state.game is not None and state.game.to_move == 1
    assert "crapette" in [a.notation() for a in legal_actions(state, 1)]
    events, after = act(state, "crapette", seat=1)
    assert kinds(events) == [
        "CrapetteCalled",
        "ActionVoided",
        "ActionVoided",
        "CompulsoryMovePlayed",
        "TurnEnded",
    ]
    assert after.game is not None and after.game.to_move == 1
    assert after.game.pile("F0")[-1].code == "AS" and not after.game.pile("X0")
    # Had seat 1 acted first, the window would have closed.
    _, moved_on = act(state, "turn", seat=1)
    assert "crapette" not in [a.notation() for a in legal_actions(moved_on, 1)]


def test_a_voided_turn_puts_the_card_back_and_the_waste_back() -> None:
    state = position("R0=9D,AH W0=2C,5H R1=4C H1=5C to=0")
    events, state = act(state, "turn")
    assert kinds(events) == ["WasteTurnedOver", "HandCardTurned"]
    events, after = act(state, "crapette", seat=1)
    assert kinds(events)[:3] == ["CrapetteCalled", "ActionVoided", "ActionVoided"]
    assert after.game is not None
    assert [c.code for c in after.game.pile("W0")] == ["2C", "5H"]
    assert after.game.pile("F0")[-1].code == "AH"


def test_no_calls_outside_call_mode() -> None:
    state = position(C1 + " H1=5C", rules(enforcement="lenient"))
    _, state = act(state, "X0-F0")
    assert refused(state, "crapette", seat=1).rule == "no calls"


def test_wrong_call_penalty_costs_a_turn_after_three() -> None:
    text = "R0=9D,AH T0=TH H0=3H,4S,5S,6S R1=4C H1=5C"
    state = position(text, rules(wrong_call_penalty="lose_turn_after_3"))
    for n, move in enumerate(["R0-F0", "R0-T1", "turn"]):
        _, state = act(state, move)
        events, state = act(state, "crapette", seat=1)
        assert isinstance(events[0], CrapetteCalled) and events[0].penalty == (n == 2)
    assert state.game is not None and state.game.skip_next == (False, True)
    events, state = act(state, "discard")
    assert kinds(events) == ["CardDiscarded", "TurnEnded", "TurnEnded"]
    assert state.game is not None and state.game.to_move == 0


# --------------------------------------------------------------------------- ends and scores


def test_win_when_reserve_hand_x_and_waste_are_empty() -> None:
    state = position("R0=2S F0=AS R1=4C,5D H1=5C,6C W1=7C to=0")
    events, after = act(state, "R0-F0")
    assert kinds(events) == ["CardMoved", "GameWon"]
    won = events[1]
    assert isinstance(won, GameWon) and won.score == (30 + 2 * 2 + 3, 0)
    assert after.game is not None and after.game.over and after.totals == (37, 0)
    assert refused(after, "pass", seat=1).rule == "game over"


def test_win_reserve_hand_leaves_the_waste() -> None:
    state = position("R0=2S F0=AS W0=9H R1=4C to=0", rules(win="reserve_hand"))
    events, _ = act(state, "R0-F0")
    assert kinds(events) == ["CardMoved", "GameWon"]
    events, _ = act(position("R0=2S F0=AS W0=9H R1=4C to=0"), "R0-F0")
    assert kinds(events) == ["CardMoved"]


def test_match_won_at_the_points_target() -> None:
    state = position("R0=2S F0=AS R1=4C,5D H1=5C,6C W1=7C to=0", rules(match="points:30"))
    events, after = act(state, "R0-F0")
    assert kinds(events) == ["CardMoved", "GameWon", "MatchWon"]
    assert isinstance(events[2], MatchWon) and events[2].winner == 0
    assert after.finished and after.winner == 0
    state = position("R0=2S F0=AS R1=4C to=0", rules(match="wins:1"))
    events, _ = act(state, "R0-F0")
    assert kinds(events)[-1] == "MatchWon"


def test_resign_scores_a_win_for_the_opponent() -> None:
    state = position("R0=2S,3S F0=AS H0=4H R1=4C H1=5C to=0")
    events, after = act(state, "resign", seat=0)
    assert after.game is not None and after.game.over
    assert after.totals == (0, 30 + 2 * 2 + 1)
    assert kinds(events) == ["GameResigned"]


def test_agreed_stalemate_scores_the_difference() -> None:
    state = position("R0=2S,3S H0=4H R1=4C H1=5C,6C,7C,8C to=0")
    _, state = act(state, "offer-draw", seat=1)
    assert "accept-draw" in [a.notation() for a in legal_actions(state, 0)]
    events, after = act(state, "accept-draw", seat=0)
    stale = events[-1]
    assert isinstance(stale, GameStalemated) and stale.penalties == (5, 6)
    assert stale.score == (1, 0) and after.totals == (1, 0)
    assert refused(position("R0=2S R1=4C to=0"), "accept-draw").rule == "no draw offer"


def test_a_draw_offer_lapses_when_the_opponent_ends_a_turn() -> None:
    state = position("R0=2S,3S X0=4H R1=4C H1=5C,6C to=0")
    _, state = act(state, "offer-draw", seat=0)
    _, state = act(state, "discard")  # the offerer's own turn end keeps the offer
    assert "accept-draw" in [a.notation() for a in legal_actions(state, 1)]
    _, state = act(state, "turn")
    _, state = act(state, "discard")  # seat 1 played on: declined
    assert refused(state, "accept-draw", seat=1).rule == "no draw offer"


def test_stalemate_when_both_go_through_their_hands_without_progress() -> None:
    # Nothing can ever move: each player turns his one card and discards it.
    state = position("R0=KD T0=KS T4=KH H0=3C R1=KC H1=3D to=0")
    events: list[Event] = []
    for _ in range(8):
        assert state.game is not None
        if state.game.over:
            break
        more, state = act(state, "turn")
        events += more
        assert state.game is not None
        more, state = act(state, "discard")
        events += more
    assert state.game is not None and state.game.over
    assert state.game.result is not None and state.game.result.kind == "stalemate"
    assert isinstance(events[-1], GameStalemated) and events[-1].penalties == (3, 3)


def test_time_out_ends_the_turn_as_a_discard() -> None:
    state = position("R0=9D X0=2C H0=3H R1=4C H1=5C to=0", rules(move_time_limit_s=10))
    assert refused(state, "time-out").rule == "time not up"
    events, after = act(state, "time-out", at=10_000)
    assert kinds(events) == ["TimeExpired", "CardDiscarded", "TurnEnded"]
    assert after.game is not None and after.game.to_move == 1
    assert refused(position("R0=9D to=0"), "time-out").rule == "no time limit"


def test_check_raises_what_decide_would() -> None:
    with pytest.raises(RulesError):
        check(position(BUILD), parse_action("R0-T1", 0))
    check(position(BUILD), parse_action("R0-T0", 0))


def test_folding_the_events_again_gives_the_same_state() -> None:
    state = position(C1 + " H1=5C")
    e1, s1 = act(state, "X0-F0")
    e2, s2 = act(s1, "crapette", seat=1)
    refolded = fold(e1 + e2, state)
    assert refolded.game is not None and s2.game is not None
    assert refolded.game.p == s2.game.p and refolded.game.to_move == s2.game.to_move
    assert isinstance(e2[-1], TurnEnded) and not isinstance(e2[-1], WasteTurnedOver)


# ------------------------------------------------------------------------------ sequence moves


def test_a_sequence_moves_through_empty_houses_as_single_moves() -> None:
    # 9C 8H 7S on T0; two empty houses (T2 T3 … are all empty here) carry three cards to TD.
    text = "R0=2D T0=KS,9C,8H,7S T1=TD T4=3C T5=3H T6=3D T7=3S H0=4H R1=4C"
    events, after = act(position(text), "T0-T1 9C")
    moves = [(e.src, e.dst) for e in events if isinstance(e, CardMoved)]
    assert len(moves) == 5 and moves[-1][1] == "T1"
    assert after.game is not None
    assert [c.code for c in after.game.pile("T1")] == ["TD", "9C", "8H", "7S"]
    assert [c.code for c in after.game.pile("T0")] == ["KS"]


def test_a_sequence_needs_enough_empty_houses_and_a_fitting_house() -> None:
    full = "T2=KD T3=KC T4=3C T5=3H T6=3D T7=3S"
    text = f"R0=2D T0=KS,9C,8H,7S T1=TD {full} H0=4H R1=4C"
    assert (
        refused(position(text), "T0-T1 9C").rule == "building"
    )  # no empty house: one card at a time
    assert (
        refused(position(text.replace("T1=TD", "T1=TH")), "T0-T1 9C").rule == "building"
    )  # 9C on TH
    one_empty = text.replace(" T3=KC", "")
    assert refused(position(one_empty), "T0-T1 9C").rule == "building"  # three cards need two
    _, after = act(position(one_empty.replace("T1=TD", "T1=9S")), "T0-T1 8H")  # two need one
    assert after.game is not None and [c.code for c in after.game.pile("T1")] == ["9S", "8H", "7S"]


def test_a_sequence_move_is_refused_under_king_only() -> None:
    text = "R0=2D T0=KS,9C,8H,7S T1=TD T4=3C T5=3H T6=3D T7=3S H0=4H R1=4C"
    assert refused(position(text, rules(empty_house="king_only")), "T0-T1 9C").rule == "building"
