"""The Italian variant `reserves_per_player=2` (docs/spec/rules.md §10): scenario tests."""

from __future__ import annotations

import pytest

from domain import Ruleset
from domain.actions import Call, Turn
from domain.cards import Card
from domain.commands import Act, StartGame, StartMatch
from domain.deal import first_player, layout, packs_from_seed
from domain.engine import compulsory_moves, decide, fold, play
from domain.piles import ALL_PILES
from domain.views import visible_piles
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
    events, after = play(after, Act(Call(1, None), 2000))
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
