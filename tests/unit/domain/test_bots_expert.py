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
