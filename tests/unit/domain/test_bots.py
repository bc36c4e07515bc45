"""Bots: the factory and its options, what a bot may see, and that every strength finishes a game
of every preset through the engine with the rules' invariants checked after each event."""

from __future__ import annotations

import typing

import pytest

import domain
from domain import Call, Move, Ruleset, StartGame, StartMatch, view
from domain.bots import BOT_NAMES, BotOptionError, NotAViewError, UnknownBotError, make_bot
from domain.bots.arena import derive_seed, play_match
from domain.bots.base import Bot
from domain.views import View


def started(preset: str = "classic", seed: str = "ab") -> domain.MatchState:
    state = domain.fold(domain.decide(None, StartMatch("m", Ruleset.preset(preset), ("a", "b"), 1)))
    return domain.fold(domain.decide(state, StartGame(derive_seed(seed), None, 2)), state)


def test_make_bot_builds_each_strength() -> None:
    assert BOT_NAMES == ("random", "steady", "sharp", "expert")
    for name in BOT_NAMES:
        bot = make_bot(name, seed=3)
        assert bot.name == name
        assert isinstance(bot, Bot)


def test_unknown_bot_and_bad_options_are_refused_with_a_reason() -> None:
    with pytest.raises(UnknownBotError, match="known: random, steady, sharp, expert"):
        make_bot("grandmaster")
    with pytest.raises(BotOptionError, match="miss_call_rate"):
        make_bot("steady", miss_call_rate=1.5)
    with pytest.raises(BotOptionError, match="unknown bot option"):
        make_bot("steady", cleverness=3)


def test_choose_takes_a_view_and_refuses_a_state() -> None:
    hints = typing.get_type_hints(Bot.choose)
    assert hints["view"] is View
    state = started()
    for name in BOT_NAMES:
        with pytest.raises(NotAViewError, match="view"):
            make_bot(name).choose(state)  # type: ignore[arg-type]
        with pytest.raises(NotAViewError):
            make_bot(name).choose(state.game)  # type: ignore[arg-type]


def test_a_bot_does_nothing_when_it_is_not_its_turn_and_nothing_to_call() -> None:
    state = started()
    assert state.game is not None
    idle = 1 - state.game.to_move
    for name in BOT_NAMES:
        assert make_bot(name, seed=1).choose(view(state, idle)) is None
        assert make_bot(name, seed=1).choose(view(state, None)) is None  # a spectator's view
        chosen = make_bot(name, seed=1).choose(view(state, state.game.to_move))
        assert chosen in domain.legal_actions(state, state.game.to_move)


def test_same_seed_same_game() -> None:
    def actions(seed: int) -> list[str]:
        bots = (make_bot("steady", seed=seed), make_bot("steady", seed=seed + 1))
        report = play_match(Ruleset.preset("classic"), bots, "m", iter([derive_seed("s")]), 1)
        return [type(e).__name__ + str(getattr(e, "card", "")) for e in report.events]

    assert actions(5) == actions(5)
    assert actions(5) != actions(6)


def test_delay_hints_are_human_and_calls_take_their_own_time() -> None:
    bot = make_bot("steady", seed=1, call_delay_ms=2000, move_delay_ms=500)
    calls = [bot.delay_hint_ms(Call(0)) for _ in range(50)]
    moves = [bot.delay_hint_ms(Move(0, "R0", "F0")) for _ in range(50)]
    assert all(1400 <= d <= 2600 for d in calls) and len(set(calls)) > 1
    assert all(350 <= d <= 650 for d in moves)


PAIRS = [("random", "steady"), ("steady", "sharp"), ("sharp", "random")]


@pytest.mark.parametrize("preset", sorted(domain.PRESETS))
@pytest.mark.parametrize("pair", PAIRS, ids=["random-steady", "steady-sharp", "sharp-random"])
def test_each_bot_plays_every_preset_to_the_end(preset: str, pair: tuple[str, str]) -> None:
    bots = (make_bot(pair[0], seed=1), make_bot(pair[1], seed=2))
    seeds = iter([derive_seed("presets", preset, i) for i in range(5)])
    # play_match checks the 104 cards after every event and the fold of the stream at the end,
    # and raises if a game does not end or a bot picks an action the engine refuses.
    report = play_match(Ruleset.preset(preset), bots, f"m-{preset}", seeds, 1)
    (game,) = report.games
    assert report.state.game.over
    assert game.outcome in ("GameWon", "GameStalemated")
    assert game.actions > 20


def test_the_card_invariant_catches_a_lost_or_doubled_card() -> None:

    from domain.bots.arena import InvariantError, check_cards

    state = started()
    check_cards(state)
    game = state.game
    assert game is not None
    lost = list(game.p)
    lost[0] = lost[0][:-1]
    with pytest.raises(InvariantError, match="103 cards"):
        check_cards(state._replace(game=game._evolved(p=tuple(lost))))
    doubled = list(game.p)
    doubled[0] = (*doubled[0][:-1], doubled[1][-1])
    with pytest.raises(InvariantError, match="twice"):
        check_cards(state._replace(game=game._evolved(p=tuple(doubled))))


def test_with_three_hands_steady_and_sharp_turn_by_the_default_order() -> None:
    """italian-three-hands (docs/spec/rules.md §10): the hands are face down and dealt alike, so
    the strong bots leave the hand to the default order; random names one at will."""
    from domain.positions import position_from_text

    ruleset = Ruleset.preset("italian-three-hands")
    # Nothing to move but the hand card: seat 0 can only turn (from H0, I0 or J0).
    quiet = "T0=KS T1=KH T2=KD T3=KC T4=KS/1 T5=KH/1 T6=KD/1 T7=KC/1"
    state = position_from_text(f"R0=9D H0=2C I0=3C J0=4C R1=9H H1=4S {quiet} to=0", ruleset)
    seen = view(state, 0)
    assert {a.notation() for a in seen.legal if isinstance(a, domain.Turn)} == {
        "turn",
        "turn H0",
        "turn I0",
        "turn J0",
    }
    for name in ("steady", "sharp"):
        for seed in range(5):
            assert make_bot(name, seed=seed).choose(seen) == domain.Turn(0), name
    named = {make_bot("random", seed=seed).choose(seen) for seed in range(40)}
    assert domain.Turn(0, "J0") in named and domain.Turn(0) in named
