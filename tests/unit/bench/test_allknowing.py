"""The all-knowing expert of `crapette bench bots --all-knowing` (bench/allknowing.py): a bound,
shown the whole match by the arena's `watch`, whose search goes on through every card that
comes up; the arena shows `watch` the state before every decision."""

from __future__ import annotations

import pytest

import domain
from bench.allknowing import AllKnowingExpert, _OpenSearch, _ReplySearch
from domain import Ruleset
from domain.bots import make_bot
from domain.bots.arena import derive_seed, play_match
from domain.bots.expert import _KnownSearch
from domain.bots.sharp import LOSS, WIN
from domain.moves import apply_step
from domain.priority import legal_steps


def _started(deal: str) -> domain.MatchState:
    _, state = domain.decide_and_fold(None, domain.StartMatch("m", Ruleset(), ("a", "b"), 1))
    _, state = domain.decide_and_fold(state, domain.StartGame(derive_seed(deal), None, 2))
    return state


def test_its_search_goes_on_where_a_reserve_card_comes_up() -> None:
    state = _started("all-knowing-reserve")
    game = state.game
    assert game is not None
    seat = game.to_move
    reserve = domain.piles.RESERVE[seat]
    assert len(game.p[reserve]) > 1  # a face-down card lies under the top at the deal
    honest = _KnownSearch(game, seat, 120, True, hand_known=False)
    bound = _OpenSearch(game, seat, 120, True, hand_known=True)
    assert honest.uncovers(game, reserve)
    assert not bound.uncovers(game, reserve)


def test_it_plays_only_where_the_arena_shows_it_all() -> None:
    state = _started("all-knowing-blind")
    game = state.game
    assert game is not None
    bot = AllKnowingExpert(seed=1)
    with pytest.raises(RuntimeError, match="shows it all"):
        bot.choose(domain.view(state, game.to_move))


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_it_plays_a_whole_game_and_is_shown_every_position() -> None:
    bound = AllKnowingExpert(seed=3)
    shown: list[domain.MatchState] = []

    def watch(state: domain.MatchState) -> None:
        shown.append(state)
        bound.watch(state)

    bots = (bound, make_bot("sharp", seed=4))
    report = play_match(
        Ruleset.preset("classic"), bots, "m-bound", iter([derive_seed("bound", 0)]), 1, watch=watch
    )
    (game,) = report.games
    assert report.state.game.over
    assert game.outcome in ("GameWon", "GameStalemated")
    assert not game.faults[0]
    assert len(shown) == game.actions  # one look before every action


def test_the_reply_bound_answers_at_most_its_number_of_tables() -> None:
    """With `replies`, the ends of turn of the first tables are judged after sharp's turn
    played out on the true match; past that many tables a line is judged as the expert does."""
    state = _started("all-knowing-replies")
    game = state.game
    assert game is not None
    seat = game.to_move
    search = _ReplySearch(game, seat, 120, True, state, replies=1)
    first = search.ender_value(game, "pass")
    assert len(search.answered) == 1 and LOSS <= first <= WIN
    src, dst = legal_steps(game, seat)[0]  # another table: one move made
    other_table = game._evolved(p=apply_step(game.p, src, dst), seen=frozenset())
    honest = _OpenSearch(game, seat, 120, True, hand_known=True)
    assert search.ender_value(other_table, "pass") == honest.ender_value(other_table, "pass")
    assert len(search.answered) == 1


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_the_reply_bound_plays_a_whole_game() -> None:
    bound = AllKnowingExpert(replies=4, seed=5)
    bots = (make_bot("sharp", seed=6), bound)
    report = play_match(
        Ruleset.preset("classic"),
        bots,
        "m-reply",
        iter([derive_seed("reply", 0)]),
        1,
        watch=bound.watch,
    )
    (game,) = report.games
    assert report.state.game.over
    assert game.outcome in ("GameWon", "GameStalemated")
    assert not game.faults[1]
