"""The `expert` bot (domain/bots/expert.py): it plays whole games through the engine, every
action one the engine accepts (play_match raises on a refused one, and checks the 104 cards after
every event), decides from its view alone, and repeats itself for a seed."""

from __future__ import annotations

import random

import pytest

import domain
from domain import Ruleset
from domain.bots import make_bot
from domain.bots.arena import derive_seed, play_match
from tests.unit.domain.test_bots_hidden import shuffled_hidden


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.parametrize(("preset", "rival"), [("classic", "sharp"), ("danish", "steady")])
def test_expert_plays_legal_actions_to_the_end(preset: str, rival: str) -> None:
    for deal in range(2):
        pair = (make_bot("expert", seed=deal), make_bot(rival, seed=deal))
        bots = pair if deal % 2 == 0 else pair[::-1]
        seeds = iter([derive_seed("expert", preset, deal)])
        report = play_match(Ruleset.preset(preset), bots, f"m-{preset}-{deal}", seeds, 1)
        (game,) = report.games
        assert report.state.game.over
        assert game.outcome in ("GameWon", "GameStalemated")
        assert not game.faults[bots.index(next(b for b in bots if b.name == "expert"))]


def test_expert_decides_from_its_view_alone() -> None:
    """A twin shown the table with its face-down cards reshuffled takes the same decisions."""
    rng = random.Random(11)
    _, state = domain.decide_and_fold(None, domain.StartMatch("m", Ruleset(), ("a", "b"), 1))
    _, state = domain.decide_and_fold(
        state, domain.StartGame(derive_seed("expert-hidden"), None, 2)
    )
    bot, twin = make_bot("expert", seed=5), make_bot("expert", seed=5)
    rival = make_bot("steady", seed=6)
    now = 2
    for _ in range(40):
        game = state.game
        assert game is not None and not game.over
        mover = game.to_move
        if mover == 0:
            chosen = bot.choose(domain.view(state, 0))
            assert twin.choose(domain.view(shuffled_hidden(state, rng), 0)) == chosen
        else:
            chosen = rival.choose(domain.view(state, 1))
        assert chosen is not None
        now += 100
        _, state = domain.decide_and_fold(state, domain.Act(chosen, now))


def test_expert_shuffle_cap_starts_afresh_each_turn() -> None:
    """The cap of 12 house-to-house moves is per turn: the view's turn number opens a new one
    (the mirror's own turn number never changes, so keying on it capped the whole game)."""
    import dataclasses

    from domain.bots.expert import ExpertBot
    from domain.bots.mirror import mirror_game

    _, state = domain.decide_and_fold(None, domain.StartMatch("m", Ruleset(), ("a", "b"), 1))
    _, state = domain.decide_and_fold(state, domain.StartGame(derive_seed("expert-cap"), None, 2))
    assert state.game is not None
    seen = domain.view(state, state.game.to_move)
    bot = make_bot("expert", seed=1)
    assert isinstance(bot, ExpertBot)
    game = mirror_game(seen)
    bot._no_shuffling_back(seen, game, [])
    bot._shuffles = ExpertBot.SHUFFLES_PER_TURN
    bot._no_shuffling_back(seen, game, [])
    assert bot._shuffles == ExpertBot.SHUFFLES_PER_TURN  # same turn: the count holds
    later = dataclasses.replace(seen, turn_number=seen.turn_number + 1)
    bot._no_shuffling_back(later, mirror_game(later), [])
    assert bot._shuffles == 0


def _watched_game(deal: str, actions: int) -> list[domain.MatchState]:
    """The positions of a game between two `sharp` bots (long enough for wastes to be turned
    over into new hands)."""
    _, state = domain.decide_and_fold(None, domain.StartMatch("m", Ruleset(), ("a", "b"), 1))
    _, state = domain.decide_and_fold(state, domain.StartGame(derive_seed(deal), None, 2))
    bots = (make_bot("sharp", seed=1), make_bot("sharp", seed=2))
    states, now = [state], 2
    for _ in range(actions):
        game = state.game
        assert game is not None
        if game.over:
            break
        chosen = bots[1 - game.to_move].choose(domain.view(state, 1 - game.to_move))
        if chosen is None:
            chosen = bots[game.to_move].choose(domain.view(state, game.to_move))
        assert chosen is not None
        now += 100
        _, state = domain.decide_and_fold(state, domain.Act(chosen, now))
        states.append(state)
    return states


def test_hand_memory_knows_a_turned_over_waste_card_by_card() -> None:
    """Shown every view of a game, the memory fills in a hand once its waste has been turned
    over, and what it fills in is the hand as it really lies (read here from the true table,
    which the memory never sees); it never claims to know any other hand."""
    from domain.bots.expert import HandMemory
    from domain.piles import HAND

    memory = HandMemory()
    known_positions = 0
    for state in _watched_game("expert-memory", 3000):
        game = state.game
        assert game is not None
        if game.over:
            break  # a finished game shows every card
        piles, known = memory.piles(domain.view(state, 0))
        for seat in (0, 1):
            hand = [card.text for card in game.p[HAND[seat]]]
            if known[seat]:
                known_positions += 1
                assert [card.text if card else None for card in piles[f"H{seat}"]] == hand
            else:
                assert all(card is None for card in piles[f"H{seat}"])
    assert known_positions > 50


def test_hand_memory_forgets_a_waste_turned_over_unseen() -> None:
    """A memory that missed the views around a waste turned over (the hand now holds more cards
    than the waste it remembers) does not guess, and stays unknowing after."""
    import dataclasses

    from domain.bots.expert import HandMemory

    memory = HandMemory()
    for state in _watched_game("expert-memory", 3000):
        view = domain.view(state, 0)
        memory.piles(view)
        emptied = [s for s in (0, 1) if not view.piles[f"H{s}"] and len(view.piles[f"W{s}"]) > 3]
        if emptied:
            break  # that seat's hand is empty: its waste is remembered now
    else:
        pytest.fail("no hand ran out in this game")
    seat = emptied[0]
    hand, waste = f"H{seat}", f"W{seat}"
    cards = len(view.piles[waste])
    hidden: list[str | None] = [None] * (cards + 1)
    unseen = {**view.piles, hand: hidden, waste: hidden[:0]}
    _, known = memory.piles(dataclasses.replace(view, piles=unseen))
    assert not known[seat]
    again = {**view.piles, hand: hidden[: cards - 1], waste: hidden[:0]}
    _, known = memory.piles(dataclasses.replace(view, piles=again))
    assert not known[seat]


def test_the_expert_searches_on_through_a_hand_card_it_knows() -> None:
    """Where the mover's next hand card is known, the search goes on past turning it (the
    table after the turn is searched); `sharp`'s search stops there."""
    from domain.bots.expert import HandMemory, _KnownSearch, turned
    from domain.bots.mirror import mirror_game
    from domain.bots.sharp import _Search
    from domain.piles import HAND, SHOWN

    memory = HandMemory()
    searched = 0
    for state in _watched_game("expert-memory", 3000):
        game = state.game
        assert game is not None
        seat = game.to_move
        piles, known = memory.piles(domain.view(state, seat))
        if not known[seat] or game.p[SHOWN[seat]]:
            continue
        mirror = mirror_game(domain.view(state, seat), piles)
        after = turned(mirror.p, seat)
        assert after is not None and after[SHOWN[seat]] == (game.p[HAND[seat]][-1],)
        search = _KnownSearch(mirror, seat, 120, True, True)
        search.ender_value(mirror, "turn")
        assert after in search.memo
        plain = _Search(mirror, seat, 120, True)
        plain.ender_value(mirror, "turn")
        assert after not in plain.memo
        searched += 1
    assert searched > 5
