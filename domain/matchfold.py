"""Folding one event into a `MatchState` (`evolve`): the match events here, the game events in
`domain.gamefold`, one function per event kind, dispatched by type."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from domain.errors import RulesError
from domain.events import (
    Event,
    GameResigned,
    GameStalemated,
    GameStarted,
    GameWon,
    MatchStarted,
    MatchWon,
)
from domain.gamefold import evolve_game, new_game
from domain.state import MatchState

# The states `decide` reached while judging its last command, as (state, event, next state): folding
# exactly that event onto exactly that state again gives the same state, so `evolve` reuses it
# instead of computing it twice (the server decides, stores the events, then folds them). Only the
# last command's chain (a few events) is kept, and a list scanned by identity is cheaper to build
# than a dictionary.
_last_chain: list[tuple[MatchState, Event, MatchState]] = []


def remember_chain(chain: list[tuple[MatchState, Event, MatchState]]) -> None:
    """Offer `evolve` the states `decide` reached for its last command."""
    global _last_chain
    _last_chain = chain


def evolve(state: MatchState | None, event: Event) -> MatchState:
    """The state after `event`. Pure; never raises for events that `decide` produced."""
    for before, known, after in _last_chain:
        if known is event and before is state:
            return after
    return next_state(state, event)


def fold(events: Iterable[Event], state: MatchState | None = None) -> MatchState:
    """Fold events, in order, into `state` (None: from nothing)."""
    for event in events:
        state = evolve(state, event)
    if state is None:
        raise RulesError("no match", "no events to fold")
    return state


def next_state(state: MatchState | None, event: Event) -> MatchState:
    """`evolve` computed: the match-level function of the event's kind, or for a game event the
    game's (`domain.gamefold`) inside the current game."""
    if state is None:
        if type(event) is MatchStarted:
            return _match_started(state, event)
        raise RulesError("no match", f"{type(event).__name__} before MatchStarted")
    match_level = _EVOLVE.get(type(event))
    if match_level is not None:
        return match_level(state, event)
    game = state.game
    if game is None:
        raise RulesError("no game", f"{type(event).__name__} before GameStarted")
    index = state.version
    return state.with_game(evolve_game(game, event, index), index + 1)


def _match_started(state: MatchState | None, event: MatchStarted) -> MatchState:
    return MatchState(
        ruleset=event.ruleset,
        players=event.players,
        match_id=event.match_id,
        games_played=0,
        totals=(0, 0),
        wins=(0, 0),
        game_scores=(),
        game=None,
        finished=False,
        winner=None,
        version=1,
        started_at_ms=event.at_ms,
        previous_first=None,
    )


def _game_started(state: MatchState, event: GameStarted) -> MatchState:
    started = new_game(state.ruleset, event)
    return _with(state, game=started, previous_first=event.first_player)


def _game_ended(state: MatchState, event: GameWon | GameStalemated | GameResigned) -> MatchState:
    """A game's last event: the game's own evolve, then its score added to the match."""
    game = state.game
    if game is None:
        raise RulesError("no game", f"{type(event).__name__} before GameStarted")
    new = evolve_game(game, event, state.version)
    s0, s1 = event.score
    wins = state.wins
    winner = new.result.winner if new.result is not None else None
    if winner is not None and not isinstance(event, GameStalemated):
        wins = (wins[0] + (winner == 0), wins[1] + (winner == 1))
    return _with(
        state,
        game=new,
        games_played=state.games_played + 1,
        totals=(state.totals[0] + s0, state.totals[1] + s1),
        wins=wins,
        game_scores=(*state.game_scores, (s0, s1)),
    )


def _match_won(state: MatchState, event: MatchWon) -> MatchState:
    return _with(state, finished=True, winner=event.winner)


def _with(state: MatchState, **changes: Any) -> MatchState:
    return state._replace(version=state.version + 1, **changes)


# The evolve function of each match-level event kind; every other event is the current game's.
_EVOLVE: dict[type[Event], Callable[[MatchState, Any], MatchState]] = {
    MatchStarted: _match_started,
    GameStarted: _game_started,
    GameWon: _game_ended,
    GameStalemated: _game_ended,
    GameResigned: _game_ended,
    MatchWon: _match_won,
}
