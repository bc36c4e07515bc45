"""Random self-play over every preset: every game ends with a valid result, the 104 cards stay
accounted for, the events fold back into the same state, and views never show a hidden card."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from domain import (
    PRESETS,
    Act,
    Event,
    MatchState,
    Ruleset,
    StartGame,
    StartMatch,
    decide_and_fold,
    fold,
    legal_actions,
    view,
)
from domain.piles import HAND, RESERVE

MAX_ACTIONS = 50_000  # far above any game seen; reaching it means a game that never ends


def random_game(ruleset: Ruleset, seed: str, rng: random.Random) -> tuple[list[Event], MatchState]:
    events, state = decide_and_fold(None, StartMatch("m", ruleset, ("A", "B"), 0))
    more, state = decide_and_fold(state, StartGame(seed, None, 1))
    events += more
    at = 1
    for _ in range(MAX_ACTIONS):
        game = state.game
        assert game is not None
        if game.over:
            return events, state
        mover = game.to_move
        mine = legal_actions(state, mover)
        theirs = legal_actions(state, 1 - mover)
        assert mine, f"seat {mover} has nothing to do"
        action = rng.choice(theirs) if theirs and rng.random() < 0.2 else rng.choice(mine)
        at += 500
        more, state = decide_and_fold(state, Act(action, at))
        events += more
    raise AssertionError("the game did not end")


def check_cards(state: MatchState) -> None:
    game = state.game
    assert game is not None
    cards = Counter(card for pile in game.p for card in pile)
    assert sum(cards.values()) == 104 and len(cards) == 104


def check_views(state: MatchState) -> None:
    game = state.game
    assert game is not None
    hidden = {str(c) for seat in (0, 1) for c in game.p[HAND[seat]]}
    hidden |= {str(c) for seat in (0, 1) for c in game.p[RESERVE[seat]][:-1]}
    for viewer in (0, 1, None):
        data = view(state, viewer).to_json()
        assert data["seed"] is None
        shown = {c for pile in data["piles"].values() for c in pile if c is not None}
        assert not (shown & hidden)
        assert sum(len(pile) for pile in data["piles"].values()) == 104


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_random_games_end_with_a_valid_result(preset: str) -> None:
    rng = random.Random(preset)
    ruleset = Ruleset.preset(preset)
    for _n in range(3):
        seed = f"{rng.getrandbits(256):064x}"
        events, state = random_game(ruleset, seed, rng)
        game = state.game
        assert game is not None and game.over and game.result is not None
        assert game.result.kind in ("win", "stalemate")
        assert sum(state.totals) == sum(game.result.score) >= 0
        check_cards(state)
        again = fold(events)
        assert again.game is not None
        assert again.game.p == game.p and again.totals == state.totals
        assert again.version == state.version == len(events)


def test_invariants_hold_after_every_action() -> None:
    rng = random.Random(11)
    events, state = decide_and_fold(None, StartMatch("m", Ruleset(), ("A", "B"), 0))
    _, state = decide_and_fold(state, StartGame("5e" * 32, None, 1))
    at = 1
    for _ in range(600):
        game = state.game
        assert game is not None
        if game.over:
            break
        check_cards(state)
        if _ % 10 == 0:
            check_views(state)
        mover = game.to_move
        choices = legal_actions(state, mover) + legal_actions(state, 1 - mover)
        at += 1
        _, state = decide_and_fold(state, Act(rng.choice(choices), at))
        assert state.game is not None
        for f in range(16, 24):  # foundations: an Ace, then its suit one rank at a time
            pile = state.game.p[f]
            assert all(c.suit == pile[0].suit and c.rank == i + 1 for i, c in enumerate(pile))
