"""Crapette calls: a bot spots the opponent's faults from its view alone and calls them (the
engine must agree: a right call), never calls a proper action, and the weaker settings miss
calls and commit faults as configured."""

from __future__ import annotations

import random

import pytest

import domain
from domain import Act, Call, Ruleset, StartGame, StartMatch, view
from domain.bots import make_bot
from domain.bots.arena import derive_seed


def running(state: domain.MatchState) -> domain.GameState:
    """The match's running game (these positions always have one)."""
    assert state.game is not None
    return state.game


def match(preset: str, seed: str) -> domain.MatchState:
    state = domain.fold(domain.decide(None, StartMatch("m", Ruleset.preset(preset), ("a", "b"), 1)))
    return domain.fold(domain.decide(state, StartGame(derive_seed(seed), None, 2)), state)


def apply(state: domain.MatchState, action: domain.Action, at: int) -> domain.MatchState:
    return domain.fold(domain.decide(state, Act(action, at)), state)


def positions(preset: str, seed: str, limit: int) -> list[domain.MatchState]:
    """Positions of a random game (random players reach every kind of situation)."""
    rng = random.Random(seed)
    state = match(preset, seed)
    seen: list[domain.MatchState] = []
    now = 10
    while not running(state).over and len(seen) < limit:
        seen.append(state)
        mover = running(state).to_move
        plays = [a for a in domain.legal_actions(state, mover) if not isinstance(a, Call)]
        now += 10
        state = apply(state, rng.choice(plays), now)
    return seen


@pytest.mark.parametrize(
    "preset", ["classic", "danish", "finnish", "french", "italian", "italian-three-hands"]
)
def test_every_fault_is_called_right_and_no_proper_action_is_called(preset: str) -> None:
    faults_called = proper_left = named_some = 0
    for state in positions(preset, f"calls-{preset}", 300):
        mover = running(state).to_move
        caller = 1 - mover
        legal = [a for a in domain.legal_actions(state, mover) if not isinstance(a, Call)]
        for action in legal:
            after = apply(state, action, 10**6)
            if running(after).over or running(after).window is None:
                continue
            bot = make_bot("sharp", seed=1)
            bot.choose(view(state, caller))  # it watched the table before the action
            chosen = bot.choose(view(after, caller))
            if domain.fault_of(state, action) is None:
                assert chosen is None or not isinstance(chosen, Call), action
                proper_left += 1
            else:
                assert isinstance(chosen, Call) and chosen.seat == caller, f"missed {action}"
                if chosen.move is not None:  # sharp names the compulsory move it wants played
                    options = domain.compulsory_moves(running(state), action)
                    named = (chosen.move.src, chosen.move.dst)
                    assert named in [(domain.ALL_PILES[s], domain.ALL_PILES[d]) for s, d in options]
                    named_some += 1
                (verdict,) = [
                    e
                    for e in domain.decide(after, Act(chosen, 10**6 + 1))
                    if isinstance(e, domain.CrapetteCalled)
                ]
                assert verdict.verdict == "right"
                faults_called += 1
    assert faults_called >= 10 and proper_left >= 100
    assert named_some >= 10  # positions with a choice of compulsory moves are common


def first_fault(preset: str) -> tuple[domain.MatchState, domain.MatchState]:
    for state in positions(preset, "first-fault", 400):
        mover = running(state).to_move
        for action in domain.legal_actions(state, mover):
            if not isinstance(action, Call) and domain.fault_of(state, action) is not None:
                after = apply(state, action, 10**6)
                if not running(after).over:
                    return state, after
    raise AssertionError("no fault in the game")


def test_miss_call_rate_one_never_calls_zero_always_calls() -> None:
    before, after = first_fault("classic")
    caller = 1 - running(before).to_move
    for seed in range(20):
        assert make_bot("steady", seed=seed, miss_call_rate=1.0).choose(view(after, caller)) is None
        assert make_bot("steady", seed=seed, miss_call_rate=0.0).choose(
            view(after, caller)
        ) == Call(caller)


def test_miss_call_rate_in_between_misses_some() -> None:
    before, after = first_fault("classic")
    caller = 1 - running(before).to_move
    calls = sum(
        make_bot("steady", seed=seed, miss_call_rate=0.5).choose(view(after, caller)) is not None
        for seed in range(200)
    )
    assert 60 < calls < 140


def test_no_calls_outside_call_mode() -> None:
    for preset in ("g4a", "beginner"):
        for state in positions(preset, "no-calls", 150):
            seat = 1 - running(state).to_move
            assert make_bot("sharp").choose(view(state, seat)) is None


def test_fault_rate_makes_a_bot_commit_faults_and_zero_keeps_it_clean() -> None:
    def faults(rate: float) -> tuple[int, int]:
        committed = chances = 0
        for state in positions("classic", "slips", 400):
            mover = running(state).to_move
            legal = domain.legal_actions(state, mover)
            if any(isinstance(a, Call) for a in legal):
                continue  # a call on the opponent comes before anything else
            if not any(domain.fault_of(state, a) for a in legal):
                continue
            chances += 1
            chosen = make_bot("steady", seed=chances, fault_rate=rate).choose(view(state, mover))
            committed += chosen is not None and domain.fault_of(state, chosen) is not None
        return committed, chances

    none, chances = faults(0.0)
    assert chances >= 20 and none == 0
    every, _ = faults(1.0)
    assert every == chances
