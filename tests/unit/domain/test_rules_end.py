"""docs/spec/rules.md §8: winning, stalemates (null-turn streaks, the 400-turn cap, agreement),
scores, matches and resignation."""

from __future__ import annotations

from typing import Any

import pytest

from domain import STALEMATE_TURNS, RulesError, StartGame, Turn
from domain.commands import Act
from domain.engine import decide_and_fold
from domain.events import GameStarted
from domain.state import MatchState
from tests.unit.domain.rules_kit import AT, act, acts, kinds, of_kind, position, refused, rules

QUIET = "T0=KS T1=KH T2=KD T3=KC T4=KS/1 T5=KH/1 T6=KD/1 T7=KC/1"
LENIENT = rules(enforcement="lenient")


# --- win --------------------------------------------------------------------------------------


def test_win_when_reserve_hand_x_and_waste_are_empty() -> None:
    # Seat 1 keeps 2 reserve cards and 3 loose ones: 30 + 2*2 + 3.
    text = f"R0=2H F0=AH {QUIET} R1=3C,7S H1=4D,8C W1=9H"
    events, after = act(position(text), "R0-F0")
    won = of_kind(events, "GameWon")[0]
    assert won.winner == 0 and won.score == (37, 0)
    assert after.game is not None and after.game.over and after.totals == (37, 0)


def test_no_win_while_the_waste_holds_cards_classic() -> None:
    text = f"R0=2H W0=5C F0=AH {QUIET} R1=3C"
    events, after = act(position(text), "R0-F0")
    assert "GameWon" not in kinds(events) and after.game is not None and not after.game.over


def test_win_reserve_hand_lets_the_waste_remain() -> None:
    text = f"R0=2H W0=5C F0=AH {QUIET} R1=3C"
    events, _ = act(position(text, rules(win="reserve_hand")), "R0-F0")
    assert of_kind(events, "GameWon")[0].winner == 0


def test_win_reserve_hand_by_discarding_the_last_hand_card() -> None:
    text = f"X0=5C W0=9C {QUIET} R1=3C"
    events, _ = act(position(text, rules(win="reserve_hand")), "discard")
    assert of_kind(events, "GameWon")[0].winner == 0


def test_win_by_loading_the_last_card_onto_the_opponent() -> None:
    text = f"R0=4C {QUIET} R1=3C H1=8D"
    events, _ = act(position(text), "R0-R1")
    won = of_kind(events, "GameWon")[0]
    assert won.winner == 0 and won.score == (30 + 2 * 2 + 1, 0)


# --- stalemate by streaks ---------------------------------------------------------------------

# Neither player can play anything: each turns his hand card and discards it.
STUCK = f"R0=9D H0=2C,3C R1=9H H1=4S {QUIET}"


def null_turn(state: MatchState) -> tuple[list[Any], MatchState]:
    return acts(state, "turn", "discard")


def test_stalemate_when_both_streaks_reach_their_targets() -> None:
    state = position(STUCK, LENIENT)
    _, state = null_turn(state)  # seat 0: streak 1 of target 2
    _, state = null_turn(state)  # seat 1: streak 1 of target 1
    assert state.game is not None and not state.game.over
    events, state = null_turn(state)  # seat 0: streak 2 of 2: both done
    stalemate = of_kind(events, "GameStalemated")[0]
    # Penalties: seat 0 2*1 + 2 (hand/waste), seat 1 2*1 + 1: seat 1 scores the difference.
    assert stalemate.penalties == (4, 3) and stalemate.score == (0, 1)
    assert state.game is not None and state.game.over


def test_a_productive_turn_restarts_both_streaks() -> None:
    state = position(f"R0=9D H0=2C,3C R1=9H,QS H1=4S {QUIET}", LENIENT)
    _, state = null_turn(state)  # seat 0: streak 1 of 2
    _, state = acts(state, "R1-T1", "turn", "discard")  # seat 1: QS/1 out of its reserve
    _, state = null_turn(state)  # seat 0: streak 1 again (restarted)
    _, state = null_turn(state)  # seat 1: streak 1 of 1
    assert state.game is not None and not state.game.over
    events, state = null_turn(state)  # seat 0: streak 2 of 2
    assert "GameStalemated" in kinds(events)


def test_stalemate_equal_penalties_nobody_scores() -> None:
    text = f"R0=9D H0=2C R1=9H H1=4S {QUIET}"
    _, state = null_turn(position(text, LENIENT))
    events, _ = null_turn(state)
    stalemate = of_kind(events, "GameStalemated")[0]
    assert stalemate.penalties == (3, 3) and stalemate.score == (0, 0)


def test_stalemate_after_400_turns_without_a_foundation_build() -> None:
    # Both players load the same 5H back and forth (productive turns, never a foundation card).
    state = position(f"R0=4H,5H H0=2C R1=6H H1=2D {QUIET}", LENIENT)
    turns = 0
    while state.game is not None and not state.game.over:
        assert turns <= STALEMATE_TURNS
        src, dst = ("R0", "R1") if state.game.to_move == 0 else ("R1", "R0")
        events, state = acts(state, f"{src}-{dst}", "turn", "discard")
        turns += len(of_kind(events, "TurnEnded"))
    assert turns == STALEMATE_TURNS == 400
    assert "400" in of_kind(events, "GameStalemated")[0].reason


def test_the_400th_quiet_turn_stalemates() -> None:
    state = position(f"R0=9D H0=2C,3C R1=9H H1=4S {QUIET}", LENIENT, quiet_turns=399)
    events, _ = acts(state, "turn", "discard")
    assert "GameStalemated" in kinds(events)


def test_a_foundation_build_restarts_the_400_turn_count() -> None:
    text = f"R0=9D H0=2C,3C R1=9H H1=4S T4=AH/1 {QUIET.replace('T4=KS/1', '')}"
    state = position(text, LENIENT, quiet_turns=399)
    events, state = acts(state, "T4-F0", "turn", "discard")
    assert "GameStalemated" not in kinds(events)
    assert state.game is not None and state.game.quiet_turns == 0


# --- agreed stalemate -------------------------------------------------------------------------


def test_agreed_stalemate() -> None:
    state = position(f"R0=9D,8D H0=2C R1=9H H1=4S {QUIET}")
    _, state = act(state, "offer-draw", seat=0)
    events, state = act(state, "accept-draw", seat=1)
    assert kinds(events)[:2] == ["DrawAccepted", "GameStalemated"]
    stalemate = of_kind(events, "GameStalemated")[0]
    assert stalemate.penalties == (5, 3) and stalemate.score == (0, 2)


def test_accepting_without_an_offer_is_refused() -> None:
    assert refused(position(f"R0=9D {QUIET} R1=3C"), "accept-draw", seat=1).rule == (
        "no draw offer"
    )


def test_draw_offer_lapses_when_the_opponent_ends_a_turn() -> None:
    # docs/domain-api.md, decision 17: the offerer's own turn end keeps it open.
    state = position(f"R0=9D H0=2C R1=9H H1=4S,5S {QUIET}")
    _, state = act(state, "offer-draw", seat=0)
    _, state = acts(state, "turn", "discard", "turn", "discard")
    assert refused(state, "accept-draw", seat=1).rule == "no draw offer"


# --- resign -----------------------------------------------------------------------------------


@pytest.mark.parametrize("seat", [0, 1])
def test_resign_scores_a_win_for_the_opponent_with_the_cards_as_they_lie(seat: int) -> None:
    state = position(f"R0=9D,8D H0=2C R1=9H H1=4S,5S W1=6S {QUIET}")
    events, after = act(state, "resign", seat=seat)
    resigned = of_kind(events, "GameResigned")[0]
    points = 30 + 5  # both seats' penalty: 2*2 + 1 and 2*1 + 2 + 1
    assert resigned.winner == 1 - seat
    assert resigned.score == ((0, points) if seat == 0 else (points, 0))
    assert after.game is not None and after.game.over


# --- matches ----------------------------------------------------------------------------------


def test_match_won_when_a_total_reaches_the_points_target() -> None:
    text = f"R0=2H F0=AH {QUIET} R1=3C"
    events, after = act(position(text, totals=(270, 100)), "R0-F0")
    assert kinds(events)[-2:] == ["GameWon", "MatchWon"]
    assert of_kind(events, "MatchWon")[0].winner == 0 and after.finished
    assert after.totals == (302, 100)


def test_match_goes_on_below_the_target() -> None:
    text = f"R0=2H F0=AH {QUIET} R1=3C"
    events, after = act(position(text, totals=(200, 100)), "R0-F0")
    assert "MatchWon" not in kinds(events) and not after.finished
    next_game, _ = decide_and_fold(after, StartGame("ab" * 32, None, AT + 5000))
    assert isinstance(next_game[0], GameStarted)
    assert next_game[0].game_index == 1


def test_points_target_of_the_preset() -> None:
    g4a = rules("g4a")
    text = f"R0=2H F0=AH {QUIET} R1=3C"
    events, _ = act(position(text, g4a, totals=(120, 0)), "R0-F0")
    assert "MatchWon" in kinds(events)  # 120 + 32 ≥ 150


def test_wins_target_counts_games_won() -> None:
    french = rules("french")
    text = "R0=2H F0=AH T0=KS T1=KH T4=KS/1 T5=KH/1 R1=3C"
    events, after = act(position(text, french, totals=(10, 300), wins=(2, 1)), "R0-F0")
    assert of_kind(events, "MatchWon")[0].winner == 0
    events, after = act(position(text, french, totals=(10, 300), wins=(1, 1)), "R0-F0")
    assert "MatchWon" not in kinds(events)


def test_no_action_after_the_match_is_over() -> None:
    text = f"R0=2H F0=AH {QUIET} R1=3C"
    _, after = act(position(text, totals=(290, 0)), "R0-F0")
    with pytest.raises(RulesError) as caught:
        decide_and_fold(after, Act(Turn(1), AT + 2000))
    assert caught.value.rule == "match over"


def test_alternate_first_player_in_the_next_game() -> None:
    ruleset = rules(first_player="alternate")
    text = f"R0=2H F0=AH {QUIET} R1=3C"
    _, after = act(position(text, ruleset, to_move=0), "R0-F0")
    started = decide_and_fold(after, StartGame("ab" * 32, None, AT + 5000))[0][0]
    assert isinstance(started, GameStarted)
    assert started.first_player == 1 and "alternate" in started.first_player_reason


def test_wins_target_counts_a_resignation_as_a_win() -> None:
    french = rules("french")
    text = "R0=2H F0=AH T0=KS T1=KH T4=KS/1 T5=KH/1 R1=3C"
    events, after = act(position(text, french, wins=(1, 2)), "resign", seat=0)
    assert of_kind(events, "MatchWon")[0].winner == 1 and after.wins == (1, 3)


def test_wins_target_does_not_count_a_stalemate() -> None:
    french = rules("french")
    text = "R0=9D H0=2C R1=9H H1=4S T0=KS T1=KH T4=KS/1 T5=KH/1"
    state = position(text, french, wins=(2, 2))
    _, state = act(state, "offer-draw", seat=0)
    events, after = act(state, "accept-draw", seat=1)
    assert "MatchWon" not in kinds(events) and after.wins == (2, 2) and not after.finished
