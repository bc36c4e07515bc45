"""Random self-play over every preset: every game terminates with a valid result and score.

Random players pick uniformly among their legal actions, call "Crapette!" at random, and now and
then let the clock run out, offer or accept a stalemate, or resign, so every ending is reached.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

import pytest

from domain import PRESETS, Ruleset
from domain.actions import AcceptDraw, Action, Call, OfferDraw, Resign, TimeOut
from domain.commands import Act, StartGame, StartMatch
from domain.engine import decide_and_fold, legal_actions
from domain.events import GameResigned, GameStalemated, GameWon, MatchWon
from domain.state import GameState, MatchState

GAMES_PER_PRESET = 10
MAX_ACTIONS = 100_000  # far above any real game: reaching it means the game did not terminate


def penalty(game: GameState, seat: int) -> int:
    # Both reserves count double with the Italian two reserves (Q is empty otherwise); the
    # three hands of the Italian three hands count one each (I and J are empty otherwise).
    reserves = sum(len(game.pile(f"{kind}{seat}")) for kind in "RQ")
    return 2 * reserves + sum(len(game.pile(f"{kind}{seat}")) for kind in "HIJXW")


def next_action(state: MatchState, rng: random.Random, clock: list[int]) -> Action:
    game = state.game
    assert game is not None
    seat = game.to_move
    other = legal_actions(state, 1 - seat)
    for action in other:
        if isinstance(action, Call) and rng.random() < 0.3:
            return action
        if isinstance(action, AcceptDraw) and rng.random() < 0.5:
            return action
    roll = rng.random()
    if roll < 0.0005:
        return Resign(rng.choice((0, 1)))
    if roll < 0.001 and game.draw_offer is None:
        return OfferDraw(seat)
    limit = game.ruleset.move_time_limit_s
    if limit is not None and roll < 0.003:
        clock[0] = game.move_started_at_ms + limit * 1000
        return TimeOut(seat)
    choices = [a for a in legal_actions(state, seat) if not isinstance(a, AcceptDraw)]
    assert choices, f"seat {seat} has nothing to do in a running game"
    return rng.choice(choices)


def play_game(preset: str, index: int) -> tuple[list[Any], MatchState, MatchState]:
    seed = hashlib.sha256(f"selfplay {preset} {index}".encode()).hexdigest()
    rng = random.Random(seed)
    _, state = decide_and_fold(None, StartMatch("m-self", Ruleset.preset(preset), ("a", "b"), 0))
    events, state = decide_and_fold(state, StartGame(seed, None, 0))
    start = state
    clock = [0]
    for _ in range(MAX_ACTIONS):
        game = state.game
        assert game is not None
        if game.over:
            return events, start, state
        action = next_action(state, rng, clock)
        new_events, state = decide_and_fold(state, Act(action, clock[0]))
        events.extend(new_events)
    pytest.fail(f"{preset} game {index} did not end in {MAX_ACTIONS} actions")


def check_result(events: list[Any], state: MatchState) -> None:
    game = state.game
    assert game is not None and game.over and game.result is not None
    endings = [e for e in events if isinstance(e, (GameWon, GameStalemated, GameResigned))]
    last = events[-2] if isinstance(events[-1], MatchWon) else events[-1]
    assert endings == [last], "exactly one ending, and it is the last game event"
    ending = last
    rules = game.ruleset
    if isinstance(ending, GameWon):
        w = ending.winner
        assert not any(game.pile(f"{kind}{w}") for kind in "RQHIJX")
        if rules.win == "reserve_hand_waste":
            assert not game.pile(f"W{w}")
        points = 30 + penalty(game, 1 - w)
        assert ending.score == ((points, 0) if w == 0 else (0, points))
    elif isinstance(ending, GameStalemated):
        pens = (penalty(game, 0), penalty(game, 1))
        assert ending.penalties == pens
        diff = abs(pens[0] - pens[1])
        expected = (diff, 0) if pens[0] < pens[1] else (0, diff) if pens[1] < pens[0] else (0, 0)
        assert ending.score == expected
    else:
        points = 30 + penalty(game, ending.seat)
        assert ending.winner == 1 - ending.seat
        assert ending.score == ((points, 0) if ending.winner == 0 else (0, points))
    assert state.totals == ending.score and state.games_played == 1


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_random_games_terminate_with_a_valid_result(preset: str) -> None:
    kinds = set()
    for index in range(GAMES_PER_PRESET):
        events, _, state = play_game(preset, index)
        check_result(events, state)
        assert state.game is not None and state.game.result is not None
        kinds.add(state.game.result.kind)
    assert kinds <= {"win", "stalemate", "resign"}
