"""The derived data a state hands on to the next (`Derived.handed_on`, a fast path) is what a
fresh computation on that state gives (the plain path), at every position of random games."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain import PRESETS, Ruleset
from domain.actions import Call, OfferDraw, Resign, TimeOut
from domain.commands import Act, StartGame, StartMatch
from domain.engine import decide_and_fold, legal_actions
from domain.moves import foundation_index, house_index
from domain.priority import legal_steps, priority
from domain.state import GameState, MatchState

SKIPPED = (Resign, OfferDraw, TimeOut)


def fresh(game: GameState) -> GameState:
    """The same game with nothing computed yet."""
    return game._evolved()


def check_derived(game: GameState) -> None:
    derived = game.derived
    plain = fresh(game)
    assert plain.derived is not derived and plain.derived.foundations is None
    # What the state was handed (or has computed) is what the plain path computes.
    if derived.foundations is not None:
        assert derived.foundations == foundation_index(plain)
    if derived.houses is not None:
        assert derived.houses == house_index(plain)
    for seat in (0, 1):
        assert legal_steps(game, seat) == legal_steps(fresh(game), seat)
        assert priority(game, seat) == priority(fresh(game), seat)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    preset=st.sampled_from(sorted(PRESETS)),
    seed=st.binary(min_size=32, max_size=32).map(bytes.hex),
    choices=st.integers(0, 2**32),
    steps=st.integers(1, 300),
)
def test_handed_on_indexes_equal_fresh_ones(
    preset: str, seed: str, choices: int, steps: int
) -> None:
    rng = random.Random(choices)
    _, state = decide_and_fold(None, StartMatch("m-derived", Ruleset.preset(preset), ("a", "b"), 0))
    _, state = decide_and_fold(state, StartGame(seed, None, 0))
    for _ in range(steps):
        game = state.game
        assert game is not None
        if game.over:
            break
        seat = game.to_move
        # Query like a table does (both seats), so that indexes exist to be handed on.
        calls = [a for a in legal_actions(state, 1 - seat) if isinstance(a, Call)]
        choices_now = [a for a in legal_actions(state, seat) if not isinstance(a, SKIPPED)]
        action = calls[0] if calls and rng.random() < 0.3 else rng.choice(choices_now)
        _, state = decide_and_fold(state, Act(action, 0))
        check_match(state)


def check_match(state: MatchState) -> None:
    assert state.game is not None
    check_derived(state.game)
