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
    _, state = domain.play(None, domain.StartMatch("m", Ruleset(), ("a", "b"), 1))
    _, state = domain.play(state, domain.StartGame(derive_seed("expert-hidden"), None, 2))
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
        _, state = domain.play(state, domain.Act(chosen, now))


def test_expert_shuffle_cap_starts_afresh_each_turn() -> None:
    """The cap of 12 house-to-house moves is per turn: the view's turn number opens a new one
    (the mirror's own turn number never changes, so keying on it capped the whole game)."""
    import dataclasses

    from domain.bots.expert import ExpertBot
    from domain.bots.mirror import mirror_game

    _, state = domain.play(None, domain.StartMatch("m", Ruleset(), ("a", "b"), 1))
    _, state = domain.play(state, domain.StartGame(derive_seed("expert-cap"), None, 2))
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


def test_expert_judges_an_end_of_turn_after_the_opponents_reply() -> None:
    """At an end of turn the expert's search looks at the opponent's best reply (sharp's own
    search from his seat) and scores the table it leaves: the table as handed over when he has
    no move to make, another figure somewhere along a game where he has some."""
    from domain.bots.expert import _ReplySearch
    from domain.bots.mirror import mirror_game
    from domain.bots.sharp import _Search, evaluate

    _, state = domain.play(None, domain.StartMatch("m", Ruleset(), ("a", "b"), 1))
    _, state = domain.play(state, domain.StartGame(derive_seed("expert-reply"), None, 2))
    bots = (make_bot("steady", seed=1), make_bot("steady", seed=2))
    now, differed = 2, 0
    for _ in range(150):
        game = state.game
        assert game is not None
        if game.over:
            break
        seat = game.to_move
        mirror = mirror_game(domain.view(state, seat))
        search = _ReplySearch(mirror, seat, 120, True, 40)
        value = search.after_reply(mirror, mirror.p)
        assert search.after_reply(mirror, mirror.p) == value  # kept for the decision
        start = mirror._evolved(p=mirror.p, to_move=1 - seat, seen=frozenset(), emptied=frozenset())
        reply = _Search(start, 1 - seat, 40, True)
        reply.value(start)
        as_handed = evaluate(start, mirror.p, seat, turn_over=True)
        planned = reply.best.get(mirror.p)
        if planned is None or isinstance(planned, str):
            assert value == as_handed
        else:
            differed += value != as_handed
        chosen = bots[seat].choose(domain.view(state, seat))
        assert chosen is not None
        now += 100
        _, state = domain.play(state, domain.Act(chosen, now))
    assert differed > 0
