"""The Italian variants `reserves_per_player=2` and `hands_per_player=3` (docs/spec/rules.md
§10): scenario tests."""

from __future__ import annotations

import pytest

from domain import Ruleset
from domain.actions import Call, Turn
from domain.cards import Card
from domain.commands import Act, StartGame, StartMatch
from domain.deal import first_player, layout, packs_from_seed
from domain.engine import compulsory_moves, decide, decide_and_fold, fold
from domain.piles import ALL_PILES
from domain.views import visible_piles
from tests.unit.domain.rules_kit import (
    act,
    acts,
    kinds,
    legal_texts,
    of_kind,
    pile,
    position,
    refused,
    rules,
)

SEED = "0" * 64
TWO = rules("italian-two-reserves")
# Every house holds a card nothing here builds on, so that no house is empty (E stays quiet).
QUIET = "T0=KS T1=KH T2=KD T3=KC T4=KS/1 T5=KH/1 T6=KD/1 T7=KC/1"


def dealt(ruleset: Ruleset) -> object:
    match = fold(decide(None, StartMatch("m", ruleset, ("a", "b"), 0)))
    state = fold(decide(match, StartGame(SEED, None, 0)), match)
    assert state.game is not None
    return state.game


@pytest.mark.parametrize(("size", "in_r", "in_q"), [(13, 7, 6), (12, 6, 6), (11, 6, 5), (10, 5, 5)])
def test_reserve_cards_are_dealt_to_r_and_q_in_turn(size: int, in_r: int, in_q: int) -> None:
    packs = packs_from_seed(SEED)
    piles = layout(packs, size, 4, reserves_per_player=2)
    for seat in (0, 1):
        pack = packs[seat]
        assert piles[f"R{seat}"] == pack[0:size:2] and len(piles[f"R{seat}"]) == in_r
        assert piles[f"Q{seat}"] == pack[1:size:2] and len(piles[f"Q{seat}"]) == in_q
        # The hand and houses are dealt as with one reserve.
        assert piles[f"H{seat}"] == layout(packs, size, 4)[f"H{seat}"]


def test_a_dealt_game_has_q_piles_only_with_two_reserves() -> None:
    game = dealt(TWO)
    assert "Q0" in game.piles and "Q1" in game.piles  # type: ignore[attr-defined]
    assert "Q0" not in dealt(Ruleset()).piles  # type: ignore[attr-defined]


def test_q_refused_in_a_position_with_one_reserve() -> None:
    from domain.errors import NotationError

    with pytest.raises(NotationError):
        position("Q0=5H")


def test_both_reserve_tops_are_available() -> None:
    state = position(f"R0=9D,2S Q0=4C,QD F0=AS H0=3D {QUIET}", TWO)
    legal = legal_texts(state)
    assert "R0-F0" in legal
    _, after = act(state, "R0-F0")
    assert pile(after, "R0") == "9D" and pile(after, "F0") == "AS 2S"


def test_q_top_goes_to_a_house() -> None:
    state = position(f"R0=9D Q0=4C,QD H0=3D T0=KS {QUIET.replace('T0=KS ', '')}", TWO)
    _, after = act(state, "Q0-T0")
    assert pile(after, "T0") == "KS QD" and pile(after, "Q0") == "4C"


def test_either_opponent_reserve_may_be_loaded() -> None:
    state = position(f"R0=9D X0=6H R1=2C Q1=5H H0=3D {QUIET}", TWO)
    _, after = act(state, "X0-Q1")
    assert pile(after, "Q1") == "5H/1 6H"


def test_own_q_takes_no_card() -> None:
    state = position(f"R0=9D Q0=2C X0=3C H0=3D {QUIET}", TWO)
    assert refused(state, "X0-Q0").rule == "building"


def test_the_opponents_q_is_not_a_source() -> None:
    state = position(f"R0=9D Q1=2S F0=AS H0=3D {QUIET}", TWO)
    assert refused(state, "Q1-F0").rule == "not available"


def test_c1_applies_to_the_q_top() -> None:
    ruleset = rules("italian-two-reserves", enforcement="enforce")
    state = position(f"R0=9D Q0=2S X0=2H F0=AS F1=AH H0=3D {QUIET}", ruleset)
    assert legal_texts(state) == {"Q0-F0"}


def test_e_waits_for_either_reserve() -> None:
    ruleset = rules("italian-two-reserves", enforcement="enforce")
    houses = QUIET.replace("T3=KC ", "")
    state = position(f"Q0=9D H0=3D {houses}", ruleset)
    assert "turn" not in legal_texts(state)
    assert "Q0-T3" in legal_texts(state)


def test_reserve_first_lets_q_fill_an_empty_house() -> None:
    ruleset = rules("italian-two-reserves", empty_house="reserve_first")
    houses = QUIET.replace("T3=KC ", "")
    state = position(f"Q0=9D X0=8C H0=3D {houses}", ruleset)
    legal = legal_texts(state)
    assert "Q0-T3" in legal and "X0-T3" not in legal


def test_the_default_remedy_takes_r_before_q() -> None:
    state = position(f"R0=9D,2H Q0=7C,2S F0=AS F1=AH H0=3D {QUIET}", TWO)
    game = state.game
    assert game is not None
    moves = compulsory_moves(game, Turn(0))
    assert [ALL_PILES[src] for src, _ in moves] == ["R0", "Q0"]
    events, after = act(state, "turn")
    assert of_kind(events, "HandCardTurned")
    events, after = decide_and_fold(after, Act(Call(1, None), 2000))
    played = of_kind(events, "CompulsoryMovePlayed")
    assert played and played[0].src == "R0"


def test_a_seat_wins_only_with_both_reserves_empty() -> None:
    state = position(f"Q0=3S F0=AS,2S {QUIET} R1=9D H1=5C", TWO)
    events, after = act(state, "Q0-F0")
    assert "GameWon" in kinds(events)
    state = position(f"R0=4H Q0=3S F0=AS,2S {QUIET} R1=9D H1=5C", TWO)
    events, after = act(state, "Q0-F0")
    assert "GameWon" not in kinds(events)


def test_scores_count_both_reserves_double() -> None:
    state = position(f"Q0=3S F0=AS,2S {QUIET} R1=9D,8D Q1=4C H1=5C", TWO)
    events, _ = act(state, "Q0-F0")
    won = of_kind(events, "GameWon")[0]
    assert won.score == (30 + 2 * 3 + 1, 0)


def _put(pack: list[Card], index: int, rank: int) -> None:
    """Swap a card of `rank` from below the reserve into `pack[index]`."""
    j = next(i for i in range(13, 52) if pack[i].rank == rank)
    pack[index], pack[j] = pack[j], pack[index]


def test_who_starts_compares_r_then_q_then_houses() -> None:
    packs = [list(p) for p in packs_from_seed(SEED)]
    # With 13 reserve cards R's top is D[12] and Q's D[11]. Equal R tops: the Q tops decide.
    for seat, (r_rank, q_rank) in enumerate(((5, 9), (5, 3))):
        _put(packs[seat], 12, r_rank)
        _put(packs[seat], 11, q_rank)
    seat, reason = first_player(TWO, packs, None, 0, None)
    assert (seat, reason) == (1, f"lower Q top: {packs[1][11].code} against {packs[0][11].code}")
    # With one reserve the same packs compare only D[12], then the houses.
    assert not first_player(Ruleset(), packs, None, 0, None)[1].startswith("lower reserve top")


def test_the_view_hides_q_below_its_top() -> None:
    game = dealt(TWO)
    shown = visible_piles(game)  # type: ignore[arg-type]
    assert shown["Q0"][:-1] == [None] * 5 and shown["Q0"][-1] is not None
    assert shown["R1"][:-1] == [None] * 6 and shown["R1"][-1] is not None


# --- hands_per_player=3: three hands H, I, J ---------------------------------------------------

THREE = rules("italian-three-hands")
THREE_LENIENT = rules("italian-three-hands", enforcement="lenient")


@pytest.mark.parametrize(("size", "houses"), [(13, 4), (12, 4), (13, 2)])
def test_hand_cards_are_dealt_to_h_i_and_j_in_turn(size: int, houses: int) -> None:
    packs = packs_from_seed(SEED)
    piles = layout(packs, size, houses, hands_per_player=3)
    one = layout(packs, size, houses)
    for seat in (0, 1):
        rest = list(packs[seat][size + houses :])
        h, i, j = piles[f"H{seat}"], piles[f"I{seat}"], piles[f"J{seat}"]
        # D[r+h] to H, the next card to I, the next to J, and again; each listed bottom to top.
        assert h[::-1] == rest[0::3] and i[::-1] == rest[1::3] and j[::-1] == rest[2::3]
        assert h[-1] == rest[0] and i[-1] == rest[1] and j[-1] == rest[2]
        assert sorted(h + i + j) == sorted(one[f"H{seat}"])
        # Reserves and houses are dealt as with one hand.
        assert piles[f"R{seat}"] == one[f"R{seat}"]
    if (size, houses) == (13, 4):
        assert [len(piles[f"{k}0"]) for k in "HIJ"] == [12, 12, 11]  # 35 cards: 12, 12, 11


def test_a_dealt_game_has_i_and_j_only_with_three_hands() -> None:
    game = dealt(THREE)
    names = game.piles  # type: ignore[attr-defined]
    assert {"I0", "I1", "J0", "J1"} <= set(names)
    assert [len(names[f"{k}1"]) for k in "HIJ"] == [12, 12, 11]
    assert "I0" not in dealt(Ruleset()).piles  # type: ignore[attr-defined]


def test_i_and_j_refused_in_a_position_with_one_hand() -> None:
    from domain.errors import NotationError

    with pytest.raises(NotationError, match="three hands"):
        position("I0=5H")
    with pytest.raises(NotationError, match="three hands"):
        position("J1=5H")


def test_an_unnamed_turn_takes_the_first_hand_with_cards() -> None:
    state = position(f"R0=9D I0=2C,3C J0=4C {QUIET}", THREE)
    events, after = act(state, "turn")
    turned = of_kind(events, "HandCardTurned")[0]
    assert turned.card == Card.parse("3C/0") and turned.hand == "I0" and not turned.named
    assert pile(after, "X0") == "3C" and pile(after, "I0") == "2C" and pile(after, "J0") == "4C"
    # H before I before J.
    state = position(f"R0=9D H0=5C I0=2C J0=4C {QUIET}", THREE)
    events, after = act(state, "turn")
    assert pile(after, "X0") == "5C" and of_kind(events, "HandCardTurned")[0].hand is None


def test_a_named_turn_takes_that_hand() -> None:
    state = position(f"R0=9D H0=5C I0=2C J0=4C,6C {QUIET}", THREE)
    assert {"turn", "turn H0", "turn I0", "turn J0"} <= legal_texts(state)
    events, after = act(state, "turn J0")
    turned = of_kind(events, "HandCardTurned")[0]
    assert turned.hand == "J0" and turned.named and turned.action == Turn(0, "J0")
    assert pile(after, "X0") == "6C" and pile(after, "J0") == "4C" and pile(after, "H0") == "5C"
    # One X: no second turn while it shows a card.
    assert refused(after, "turn H0").rule == "hand card showing"


def test_a_named_turn_keeps_the_lock_and_the_priorities() -> None:
    # The hand card lock: a card from J that fits nowhere goes to the waste and the turn ends.
    locked = rules("italian-three-hands", hand_card_lock="on")
    state = position(f"R0=9D H0=5C J0=4C,2H {QUIET}", locked)
    events, after = act(state, "turn J0")
    assert kinds(events)[:2] == ["HandCardTurned", "CardDiscarded"]
    assert pile(after, "W0") == "2H" and pile(after, "J0") == "4C"
    assert after.game is not None and after.game.to_move == 1
    # E: an empty house with cards in the reserve forbids turning, from whichever hand.
    enforced = rules("italian-three-hands", enforcement="enforce")
    houses = QUIET.replace("T3=KC ", "")
    state = position(f"R0=9D H0=5C I0=4C {houses}", enforced)
    assert not any(t.startswith("turn") for t in legal_texts(state))
    assert refused(state, "turn I0").rule.startswith("priority")


def test_only_hands_with_cards_are_listed_and_accepted() -> None:
    state = position(f"R0=9D H0=5C J0=4C {QUIET} I1=7D", THREE)
    legal = {t for t in legal_texts(state) if t.startswith("turn")}
    assert legal == {"turn", "turn H0", "turn J0"}
    error = refused(state, "turn I0")
    assert (error.reason, error.params) == ("pile_empty", {"pile": "I0"})
    error = refused(state, "turn I1")
    assert (error.reason, error.params) == ("opponents_pile", {"pile": "I1"})


def test_a_hand_is_named_only_with_three_hands() -> None:
    state = position(f"R0=9D H0=5C {QUIET}")
    assert refused(state, "turn I0").reason == "one_hand_layout"
    assert refused(state, "turn H0").reason == "one_hand_layout"
    assert {t for t in legal_texts(state) if t.startswith("turn")} == {"turn"}


def test_all_three_hands_empty_the_waste_turns_over_into_h() -> None:
    state = position(f"R0=9D W0=2C,3C,4C {QUIET}", THREE)
    assert {t for t in legal_texts(state) if t.startswith("turn")} == {"turn", "turn H0"}
    assert refused(state, "turn I0").reason == "pile_empty"
    for text in ("turn", "turn H0"):
        events, after = act(state, text)
        assert kinds(events)[:2] == ["WasteTurnedOver", "HandCardTurned"]
        # The waste's bottom card is turned first (§4), from H.
        assert pile(after, "X0") == "2C" and pile(after, "H0") == "4C 3C"
        assert pile(after, "W0") == "" and pile(after, "I0") == "" and pile(after, "J0") == ""


def test_the_waste_is_not_turned_over_while_i_or_j_has_cards() -> None:
    state = position(f"R0=9D J0=8C W0=2C,3C {QUIET}", THREE)
    events, after = act(state, "turn")
    assert "WasteTurnedOver" not in kinds(events)
    assert pile(after, "X0") == "8C" and pile(after, "W0") == "2C 3C"


def test_a_pass_needs_all_three_hands_empty() -> None:
    state = position(f"R0=9D J0=8C {QUIET}", THREE_LENIENT)
    assert refused(state, "pass").rule == "cannot pass"
    assert "pass" not in legal_texts(state)


def test_a_seat_wins_only_with_all_three_hands_empty() -> None:
    state = position(f"R0=3S F0=AS,2S {QUIET} R1=9D H1=5C", THREE)
    assert "GameWon" in kinds(act(state, "R0-F0")[0])
    for hand in ("H0", "I0", "J0"):
        state = position(f"R0=3S F0=AS,2S {hand}=7D {QUIET} R1=9D H1=5C", THREE)
        assert "GameWon" not in kinds(act(state, "R0-F0")[0]), hand


def test_scores_count_the_cards_of_all_three_hands() -> None:
    state = position(f"R0=3S F0=AS,2S {QUIET} R1=9D H1=5C,6C I1=7C J1=8C W1=2D", THREE)
    won = of_kind(act(state, "R0-F0")[0], "GameWon")[0]
    assert won.score == (30 + 2 * 1 + 2 + 1 + 1 + 1, 0)


def test_stalemate_targets_count_the_cards_of_all_three_hands() -> None:
    # Neither player can play anything: each turns a hand card and discards it.
    stuck = f"R0=9D H0=2C I0=3C J0=4C R1=9H H1=4S {QUIET}"
    state = position(stuck, THREE_LENIENT)
    _, state = acts(state, "turn", "discard")  # seat 0: a null turn, target 3 (H + I + J)
    assert state.game is not None and state.game.targets == (3, 0)
    _, state = acts(state, "turn", "discard")  # seat 1: target 1
    _, state = acts(state, "turn J0", "discard")  # seat 0: streak 2 of 3
    assert state.game is not None and not state.game.over
    _, state = acts(state, "turn", "discard")  # seat 1: its waste turned over, streak 2 of 1
    events, state = acts(state, "turn", "discard")  # seat 0: streak 3 of 3: both done
    stalemate = of_kind(events, "GameStalemated")[0]
    assert stalemate.penalties == (2 + 3, 2 + 1)


def test_after_hand_empty_waits_for_all_three_hands() -> None:
    ruleset = rules("italian-three-hands", waste_playable="after_hand_empty")
    state = position(f"R0=9D J0=8C W0=2H F0=AH {QUIET}", ruleset)
    assert refused(state, "W0-F0").reason == "waste_not_playable"
    state = position(f"R0=9D W0=2H F0=AH {QUIET}", ruleset)
    assert "W0-F0" in legal_texts(state)


def test_a_right_call_puts_a_named_turn_back_on_its_hand() -> None:
    # R0's 2S fits F0: turning a hand card first breaks priority (C1).
    state = position(f"R0=9D,2S F0=AS H0=5C J0=4C,6C {QUIET}", THREE)
    events, after = act(state, "turn J0")
    assert of_kind(events, "HandCardTurned")[0].fault is not None
    game = after.game
    assert game is not None and game.window is not None
    assert game.window.action == Turn(0, "J0")
    events, after = decide_and_fold(after, Act(Call(1, None), 2000))
    voided = of_kind(events, "ActionVoided")[0]
    assert (voided.src, voided.dst) == ("J0", "X0")
    assert pile(after, "J0") == "4C 6C" and pile(after, "H0") == "5C"
    assert pile(after, "F0") == "AS 2S"  # the compulsory move played for him


def test_the_view_shows_face_down_counts_of_each_hand() -> None:
    game = dealt(THREE)
    shown = visible_piles(game)  # type: ignore[arg-type]
    for seat in (0, 1):
        assert [shown[f"{k}{seat}"] for k in "HIJ"] == [[None] * 12, [None] * 12, [None] * 11]
    assert "I0" not in visible_piles(dealt(Ruleset()))  # type: ignore[arg-type]


def test_the_last_action_says_which_hand_a_card_came_from() -> None:
    from domain.views import view

    state = position(f"R0=9D H0=5C J0=6C {QUIET}", THREE)
    _, after = act(state, "turn J0")
    assert view(after, 1).last_action == {"do": "turn", "seat": 0, "card": "6C/0", "hand": "J0"}
    state = position(f"R0=9D H0=5C {QUIET}")
    _, after = act(state, "turn")
    assert view(after, 1).last_action == {"do": "turn", "seat": 0, "card": "5C/0"}


def test_a_named_turn_in_notation_and_json() -> None:
    from domain.actions import action_from_json, parse_action
    from domain.errors import NotationError

    turn = parse_action("turn I0", 0)
    assert turn == Turn(0, "I0") and turn.notation() == "turn I0"
    assert turn.to_json() == {"do": "turn", "seat": 0, "hand": "I0"}
    assert action_from_json(turn.to_json()) == turn
    assert Turn(1).to_json() == {"do": "turn", "seat": 1}  # unnamed: as before
    for bad in ("turn T0", "turn I2", "turn X0"):
        with pytest.raises(NotationError):
            parse_action(bad, 0)
    with pytest.raises(NotationError):
        action_from_json({"do": "turn", "seat": 0, "hand": "Q0"})


def test_the_event_keeps_its_hand_only_when_there_is_one_to_keep() -> None:
    from domain.events import HandCardTurned, event_from_payload, event_to_payload

    plain = HandCardTurned(0, Card.parse("5C/0"), None, 10)
    assert event_to_payload(plain)[1] == {"seat": 0, "card": "5C/0", "fault": None, "at_ms": 10}
    named = HandCardTurned(0, Card.parse("5C/0"), None, 10, "J0", True)
    kind, payload = event_to_payload(named)
    assert payload["hand"] == "J0" and payload["named"] is True
    assert event_from_payload(kind, payload) == named
