"""Public hands (domain/evaluator/sampling.py): a hand turned over from a waste is known card by
card to whoever watched, so a determinization may keep it as it lies; nothing else changes."""

from __future__ import annotations

import random

import domain
from domain.bots.arena import derive_seed
from domain.evaluator import fit
from domain.evaluator.sampling import Sampler, public_hands
from domain.piles import HAND, RESERVE, WASTE


def _game() -> list[domain.MatchState]:
    states, _ = fit.play_one(
        domain.Ruleset.preset("classic"), ("sharp", "sharp"), derive_seed("memory", "game", 2)
    )
    return states


def test_a_hand_is_public_only_after_it_ran_out_with_a_waste_to_turn_over() -> None:
    states = _game()
    flags = public_hands(states)
    assert len(flags) == len(states)
    for seat in (0, 1):
        first = next((k for k, f in enumerate(flags) if f[seat]), None)
        if first is None:
            continue
        before = states[first - 1].game
        assert before is not None
        assert not before.p[HAND[seat]] and before.p[WASTE[seat]]  # it ran out just then
        assert all(f[seat] for f in flags[first:])  # and stays public for the rest of the game
        assert not any(f[seat] for f in flags[:first])
    assert any(f[0] or f[1] for f in flags)  # this game turns a waste over


def test_a_public_hand_is_kept_as_it_lies_and_the_rest_is_still_shuffled() -> None:
    states = _game()
    flags = public_hands(states)
    k = next(k for k, f in enumerate(flags) if any(f))
    state = states[k]
    game = state.game
    assert game is not None
    seat = 0 if flags[k][0] else 1
    mover = game.to_move
    public = Sampler(state, mover, flags[k])
    plain = Sampler(state, mover)
    rng = random.Random(3)
    hands = {public.draw(rng).p[HAND[seat]] for _ in range(20)}
    assert hands == {game.p[HAND[seat]]}  # the hand as it really lies, every time
    shuffled = {plain.draw(rng).p[HAND[seat]] for _ in range(20)}
    assert len(game.p[HAND[seat]]) < 2 or len(shuffled) > 1  # without memory it is shuffled
    reserves = {public.draw(rng).p[RESERVE[1 - mover]] for _ in range(20)}
    assert len(game.p[RESERVE[1 - mover]]) < 3 or len(reserves) > 1  # reserves stay unknown
