"""`decide` hands on the states it reached (issue 27): no module-level cache, its answer holds
them."""

from __future__ import annotations

import domain.matchfold
from domain import PRESETS, Decided, decide, evolve, fold, legal_actions
from domain.actions import Move
from domain.commands import Act, StartGame, StartMatch
from domain.state import MatchState

SEED = "00" * 32


def started() -> MatchState:
    state = fold(decide(None, StartMatch("m", PRESETS["classic"], ("a", "b"), 0)))
    return fold(decide(state, StartGame(SEED, None, 1)), state)


def test_the_states_are_those_evolve_computes() -> None:
    state = started()
    assert state.game is not None
    seat = state.game.to_move
    action = next(a for a in legal_actions(state, seat) if isinstance(a, Move))
    events = decide(state, Act(action, 2))
    assert isinstance(events, Decided)
    states = events.states_from(state)
    assert states is not None and len(states) == len(events)
    folded = state
    for event, after in zip(events, states, strict=True):
        folded = evolve(folded, event)
        assert after == folded


def test_the_states_are_refused_for_another_state_or_other_events() -> None:
    state = started()
    assert state.game is not None
    events = decide(state, Act(legal_actions(state, state.game.to_move)[0], 2))
    assert events.states_from(started()) is None  # equal, but not the state decided on
    events.append(events[0])
    assert events.states_from(state) is None


def test_evolve_keeps_nothing_between_calls() -> None:
    names = {name for name, value in vars(domain.matchfold).items() if isinstance(value, list)}
    assert names == set()
