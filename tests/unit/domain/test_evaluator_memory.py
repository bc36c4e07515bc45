"""Public hands (domain/evaluator/sampling.py): a hand turned over from a waste is known card by
card to whoever watched, so a determinization may keep it as it lies; and exact chance points
(domain/evaluator/search.py): a card that comes up is each kind of card in turn, never a
sample."""

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


def test_the_figures_do_not_depend_on_the_seed() -> None:
    """A card that comes up is each kind of card in turn (`kinds_of`), never a sample: two seeds
    rank every action of a game's positions alike, to the last digit (docs/evaluator.md)."""
    from domain.evaluator import rank_actions

    states, _ = fit.play_one(
        domain.Ruleset.preset("classic"), ("steady", "sharp"), derive_seed("memory", "game", 5)
    )
    for state in states[::7][:40]:
        game = state.game
        assert game is not None
        mover = game.to_move
        assert rank_actions(state, mover, seed=0) == rank_actions(state, mover, seed=1)


def test_kinds_of_cards_share_out_the_unseen_cards() -> None:
    """The kinds' shares add up to one, and the cards of one kind fit the same foundations and
    houses of the table."""
    from domain.evaluator.search import kinds_of
    from domain.moves import foundation_index, house_index

    state = _game()[60]
    game = state.game
    assert game is not None
    unseen = list(Sampler(state, game.to_move).unseen)
    kinds = kinds_of(game, unseen, game.to_move)
    assert abs(sum(share for _, share in kinds) - 1.0) < 1e-9
    assert len(kinds) < len(unseen)  # most cards fit nowhere: they make one kind
    founds, (wanted, _, _) = foundation_index(game), house_index(game)
    for card, share in kinds:
        alike = [
            c
            for c in unseen
            if (c.fkey in founds, tuple(wanted.get(c.hkey, ())))
            == (card.fkey in founds, tuple(wanted.get(card.hkey, ())))
        ]
        assert share * len(unseen) <= len(alike)
