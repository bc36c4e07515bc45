"""Bots never see hidden cards: shuffling the face-down cards (reserves below their tops, both
hands) changes neither the view nor any decision a bot takes, all through a game."""

from __future__ import annotations

import random

import pytest

import domain
from domain import Act, Ruleset, StartGame, StartMatch, view
from domain.bots import make_bot
from domain.bots.arena import derive_seed
from domain.piles import HAND, RESERVE


def running(state: domain.MatchState) -> domain.GameState:
    """The match's running game (these positions always have one)."""
    assert state.game is not None
    return state.game


def shuffled_hidden(
    state: domain.MatchState, rng: random.Random, other_deal: bool = False
) -> domain.MatchState:
    """The same match with every face-down card moved to another face-down place (and, with
    `other_deal`, another deal recorded: the packs reversed)."""
    game = state.game
    assert game is not None
    slots = [(i, k) for i in RESERVE for k in range(len(game.p[i]) - 1)]
    slots += [(i, k) for i in HAND for k in range(len(game.p[i]))]
    cards = [game.p[i][k] for i, k in slots]
    rng.shuffle(cards)
    piles = [list(pile) for pile in game.p]
    for (i, k), card in zip(slots, cards, strict=True):
        piles[i][k] = card
    p = tuple(tuple(pile) for pile in piles)
    if other_deal:
        packs = (tuple(reversed(game.packs[0])), tuple(reversed(game.packs[1])))
        return state._replace(game=game._evolved(p=p, packs=packs))
    return state._replace(game=game._evolved(p=p))


@pytest.mark.parametrize("preset", ["classic", "danish"])
@pytest.mark.parametrize("name", ["random", "steady", "sharp"])
def test_decisions_do_not_depend_on_face_down_cards(name: str, preset: str) -> None:
    rng = random.Random(7)
    state = domain.fold(domain.decide(None, StartMatch("m", Ruleset.preset(preset), ("a", "b"), 1)))
    state = domain.fold(
        domain.decide(state, StartGame(derive_seed("hidden", preset), None, 2)), state
    )
    # Each seat has two identical bots: one shown the real table, one a table whose face-down
    # cards are reshuffled before every look. They must agree on every single decision.
    real = [make_bot(name, seed=s) for s in (1, 2)]
    blind = [make_bot(name, seed=s) for s in (1, 2)]
    # The opponent is steady, so the game goes on at a steady pace whatever the bot under test.
    driver = [make_bot("steady", seed=9), make_bot("steady", seed=10)]
    now, compared = 10, 0
    while not running(state).over and compared < 400:
        mover = running(state).to_move
        chosen = None
        for seat in (1 - mover, mover):
            other = shuffled_hidden(state, rng)
            assert view(other, seat).to_json() == view(state, seat).to_json()
            mine = real[seat].choose(view(state, seat))
            assert blind[seat].choose(view(other, seat)) == mine
            compared += 1
            driver_choice = driver[seat].choose(view(state, seat))
            chosen = chosen or (mine if seat == 0 else driver_choice)
            if chosen is not None:
                break
        assert chosen is not None
        now += 100
        state = domain.fold(domain.decide(state, Act(chosen, now)), state)
    assert compared >= 100
