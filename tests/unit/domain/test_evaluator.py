"""The evaluator (domain/evaluator, docs/evaluator.md): it reads only what a seat sees, is
symmetric between the seats, knows a won game, and ranks the legal actions only, repeatably."""

from __future__ import annotations

import random

import pytest

import domain
from domain import Act, Card, MatchState, Ruleset, StartGame, StartMatch
from domain.bots import make_bot
from domain.bots.arena import derive_seed
from domain.evaluator import DEPTHS, chance_after, rank_actions, win_chance
from domain.piles import ALL_PILES, INDEX
from tests.unit.domain.rules_kit import position
from tests.unit.domain.test_bots_hidden import shuffled_hidden


def _played(moves: int, seed: str = "evaluator", preset: str = "classic") -> MatchState:
    """A classic game after `moves` actions of two `steady` bots."""
    _, state = domain.decide_and_fold(None, StartMatch("m", Ruleset.preset(preset), ("a", "b"), 1))
    _, state = domain.decide_and_fold(state, StartGame(derive_seed(seed, preset), None, 2))
    bots = (make_bot("steady", seed=1), make_bot("steady", seed=2))
    now = 2
    for _ in range(moves):
        game = state.game
        assert game is not None and not game.over
        mover = game.to_move
        chosen = bots[1 - mover].choose(domain.view(state, 1 - mover)) or bots[mover].choose(
            domain.view(state, mover)
        )
        assert chosen is not None
        now += 100
        _, state = domain.decide_and_fold(state, Act(chosen, now))
    return state


@pytest.fixture(scope="module")
def midgame() -> MatchState:
    return _played(60)


def _reshuffled(state: MatchState, rng: random.Random) -> MatchState:
    """The same match with every face-down card moved, and another deal recorded: the same
    view for either seat."""
    return shuffled_hidden(state, rng, other_deal=True)


def test_hidden_cards_are_never_read(midgame: MatchState) -> None:
    game = midgame.game
    assert game is not None
    rng = random.Random(3)
    for _ in range(3):
        other = _reshuffled(midgame, rng)
        assert other.game is not None and other.game.p != game.p
        for seat in (0, 1):
            assert domain.view(other, seat) == domain.view(midgame, seat)
            assert win_chance(other, seat) == win_chance(midgame, seat)
        mover = game.to_move
        assert rank_actions(other, mover) == rank_actions(midgame, mover)
        action = rank_actions(midgame, mover)[-1][0]
        assert chance_after(other, action) == chance_after(midgame, action)


def test_all_knowing_reads_the_real_cards(midgame: MatchState) -> None:
    game = midgame.game
    assert game is not None
    mover = game.to_move
    turn = domain.Turn(mover)
    assert turn in domain.legal_actions(midgame, mover)  # a hand card would come up
    figures = {
        dict(rank_actions(_reshuffled(midgame, random.Random(k)), mover, omniscient=True))[turn]
        for k in range(8)
    }
    assert len(figures) > 1  # the card really turned up decides
    assert len({dict(rank_actions(midgame, mover))[turn]}) == 1


def test_the_two_seats_chances_add_up_to_one(midgame: MatchState) -> None:
    for depth in DEPTHS[:2]:
        a = win_chance(midgame, 0, depth=depth)
        b = win_chance(midgame, 1, depth=depth)
        assert a + b == pytest.approx(1.0, abs=1e-9)


def _swapped_card(card: Card) -> Card:
    return Card(card.rank, card.suit, 1 - card.owner)


def _mirrored(state: MatchState) -> MatchState:
    """The position with the seats exchanged: each seat's piles (and the cards' backs) given to
    the other, the houses of one side moved to the other's, the turn to the other seat."""
    game = state.game
    assert game is not None
    names = list(ALL_PILES)
    partner: dict[str, str] = {}
    for name in names:
        if name[0] in "RQHIJXW":
            partner[name] = f"{name[0]}{1 - int(name[1])}"
        elif name[0] == "T":
            partner[name] = f"T{(int(name[1]) + 4) % 8}"
        else:
            partner[name] = name
    p = tuple(tuple(_swapped_card(c) for c in game.p[INDEX[partner[name]]]) for name in ALL_PILES)
    flipped = game._evolved(
        p=p,
        to_move=1 - game.to_move,
        streaks=game.streaks[::-1],
        targets=game.targets[::-1],
        wrong_calls=game.wrong_calls[::-1],
        skip_next=game.skip_next[::-1],
        first_player=1 - game.first_player,
        seen=frozenset(),
        emptied=frozenset(),
        window=None,
    )
    return state._replace(game=flipped)


def test_symmetric_positions_give_symmetric_chances(midgame: MatchState) -> None:
    plain = midgame._replace(game=midgame.game._evolved(seen=frozenset(), window=None))  # type: ignore[union-attr]
    mirrored = _mirrored(plain)
    for seat in (0, 1):
        assert win_chance(mirrored, 1 - seat) == pytest.approx(win_chance(plain, seat), abs=0.05)


def test_a_won_game_is_certain() -> None:
    state = position("R0=2H F0=AH R1=3C,7S H1=4D,8C W1=9H T0=KS T4=KD")
    _, won = domain.decide_and_fold(state, Act(domain.parse_action("R0-F0", 0), 1000))
    assert won.game is not None and won.game.over
    assert win_chance(won, 0) == 1.0 and win_chance(won, 1) == 0.0
    # One move from the win, the move that wins is found and worth the whole game.
    ranked = rank_actions(state, 0)
    assert ranked[0][0] == domain.parse_action("R0-F0", 0) and ranked[0][1] == 1.0
    assert win_chance(state, 0) == 1.0 and win_chance(state, 1) == 0.0
    assert chance_after(state, ranked[0][0]) == 1.0


def test_ranks_only_legal_actions_best_first_repeatably(midgame: MatchState) -> None:
    game = midgame.game
    assert game is not None
    mover = game.to_move
    for depth in DEPTHS:
        ranked = rank_actions(midgame, mover, depth=depth, seed=4)
        legal = domain.legal_actions(midgame, mover)
        assert ranked and all(action in legal for action, _ in ranked)
        assert len({a for a, _ in ranked}) == len(ranked)
        chances = [v for _, v in ranked]
        assert chances == sorted(chances, reverse=True)
        assert all(0.0 <= v <= 1.0 for v in chances)
        assert rank_actions(midgame, mover, depth=depth, seed=4) == ranked
        for action, chance in ranked:
            assert chance_after(midgame, action, depth=depth, seed=4) == chance
    # Not the seat to move: nothing to rank.
    assert rank_actions(midgame, 1 - mover) == []


def test_an_illegal_action_is_refused(midgame: MatchState) -> None:
    game = midgame.game
    assert game is not None
    with pytest.raises(domain.RulesError):
        chance_after(midgame, domain.Pass(1 - game.to_move))


def test_an_unknown_depth_is_refused(midgame: MatchState) -> None:
    mover = midgame.game.to_move if midgame.game else 0
    with pytest.raises(ValueError, match="depth"):
        win_chance(midgame, 0, depth="fast")
    with pytest.raises(ValueError, match="depth"):
        rank_actions(midgame, mover, depth="")
    with pytest.raises(ValueError, match="depth"):
        chance_after(midgame, rank_actions(midgame, mover)[0][0], depth="ultra")


def test_a_decision_s_figures_shift_together_onto_the_anchor() -> None:
    import math

    from domain.evaluator.features import CONTEXT_NAMES
    from domain.evaluator.value import Model
    from domain.evaluator.weights import WEIGHTS

    weights = dict(WEIGHTS)
    weights["calibration"] = {}
    # An anchor that says logit 0.5 * logit(best) + 0.25 + (the context's first input).
    coefs = [1.0] + [0.0] * (len(CONTEXT_NAMES) - 1)
    weights["anchor"] = {"normal": {"logit": 0.5, "b": 0.25, "w": coefs, "context": CONTEXT_NAMES}}
    model = Model(weights)
    context = [0.5] + [3.0] * (len(CONTEXT_NAMES) - 1)

    def logit(p: float) -> float:
        return math.log(p / (1 - p))

    figures = [0.6, 0.8, 0.3, 0.0]
    shifted = model.anchored(figures, "normal", context)
    assert logit(shifted[1]) == pytest.approx(0.5 * logit(0.8) + 0.25 + 0.5)  # the best
    for before, after in zip(figures[:3], shifted[:3], strict=True):  # distances kept
        assert logit(after) - logit(shifted[1]) == pytest.approx(logit(before) - logit(0.8))
    assert shifted[3] == 0.0  # a lost line stays lost
    # A won line: the position is won, nothing moves; other depths have no anchor.
    assert model.anchored([1.0, 0.4], "normal", context) == [1.0, 0.4]
    assert model.anchored(figures, "deep", context) == figures
    weights["anchor"]["normal"]["context"] = ["something", "else"]
    with pytest.raises(ValueError, match="context"):
        Model(weights)


def test_win_chance_is_the_anchored_best_candidate(midgame: MatchState) -> None:
    game = midgame.game
    assert game is not None
    mover = game.to_move
    ranked = rank_actions(midgame, mover, seed=3)
    assert win_chance(midgame, mover, seed=3) == ranked[0][1]
    assert win_chance(midgame, 1 - mover, seed=3) == pytest.approx(1 - ranked[0][1])


def test_the_anchor_never_lets_a_better_line_lower_the_position_s_chance() -> None:
    import numpy as np

    from domain.evaluator import fit

    rng = np.random.default_rng(0)
    n = 4000
    context = rng.normal(0, 1, (n, 1))
    won = (rng.random(n) < 1 / (1 + np.exp(-2 * context[:, 0]))).astype(float)
    # A figure that follows the outcome: its coefficient comes out positive.
    good = np.clip(0.5 + 0.3 * (won - 0.5) + rng.normal(0, 0.1, n), 0.01, 0.99)
    anchor = fit.fit_anchor(good, context, won, ("x",))
    assert anchor["logit"] > 0.5 and anchor["w"][0] > 1.0
    # A figure that goes against the outcome: held at 0, the context fitted alone.
    bad = np.clip(0.5 - 0.3 * (won - 0.5) + rng.normal(0, 0.1, n), 0.01, 0.99)
    anchor = fit.fit_anchor(bad, context, won, ("x",))
    assert anchor["logit"] == 0.0 and anchor["w"][0] == pytest.approx(2.0, abs=0.3)
