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
    PlayerLeftQueue,
    PlayerQueued,
    SeatsRotated,
)
from domain.gamefold import evolve_game, new_game
from domain.state import MatchState, Session


def evolve(state: MatchState | None, event: Event) -> MatchState:
    """The state after `event`: the match-level function of the event's kind, or for a game event
    the game's (`domain.gamefold`) inside the current game. Pure; never raises for events that
    `decide` produced. It keeps nothing between calls: a caller that has the states `decide`
    reached takes them from its answer (`domain.engine.Decided`) instead of folding again."""
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


def fold(events: Iterable[Event], state: MatchState | None = None) -> MatchState:
    """Fold events, in order, into `state` (None: from nothing)."""
    for event in events:
        state = evolve(state, event)
    if state is None:
        raise RulesError("no match", "no events to fold")
    return state


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
        session=_new_session(event),
    )


def _new_session(event: MatchStarted) -> Session | None:
    mode = event.ruleset.rotation
    if mode == "off":
        return None
    return Session(mode, event.players, (0, 0), (0, 0), (), (), None)


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
    session = state.session
    if session is not None:
        session = _scored(session, state.players, (s0, s1), wins, state.wins)
    return _with(
        state,
        game=new,
        games_played=state.games_played + 1,
        totals=(state.totals[0] + s0, state.totals[1] + s1),
        wins=wins,
        game_scores=(*state.game_scores, (s0, s1)),
        session=session,
    )


def _scored(
    session: Session,
    players: tuple[str, str],
    score: tuple[int, int],
    wins: tuple[int, int],
    wins_before: tuple[int, int],
) -> Session:
    """The session with a game's score and win added to the two people who played it."""
    totals, person_wins = list(session.totals), list(session.wins)
    for seat in (0, 1):
        person = session.people.index(players[seat])
        totals[person] += score[seat]
        person_wins[person] += wins[seat] - wins_before[seat]
    return session._replace(totals=tuple(totals), wins=tuple(person_wins))


def _seats_rotated(state: MatchState, event: SeatsRotated) -> MatchState:
    session = state.session
    if session is None:
        raise RulesError("no rotation", "SeatsRotated at a table without rotation")
    new = session._replace(queue=event.queue, last=event)
    return _with(state, players=event.players, session=new, **_pair_totals(new, event.players))


def _pair_totals(session: Session, players: tuple[str, str]) -> dict[str, tuple[int, int]]:
    """The match's `totals` and `wins` by seat: those of the people seated."""
    a, b = session.people.index(players[0]), session.people.index(players[1])
    return {
        "totals": (session.totals[a], session.totals[b]),
        "wins": (session.wins[a], session.wins[b]),
    }


def _player_queued(state: MatchState, event: PlayerQueued) -> MatchState:
    session = state.session
    if session is None:
        raise RulesError("no rotation", "PlayerQueued at a table without rotation")
    new = session._replace(
        people=(*session.people, event.name),
        totals=(*session.totals, 0),
        wins=(*session.wins, 0),
        queue=(*session.queue, event.name),
    )
    return _with(state, session=new)


def _player_left_queue(state: MatchState, event: PlayerLeftQueue) -> MatchState:
    session = state.session
    if session is None:
        raise RulesError("no rotation", "PlayerLeftQueue at a table without rotation")
    queue = tuple(name for name in session.queue if name != event.name)
    return _with(state, session=session._replace(queue=queue, gone=(*session.gone, event.name)))


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
    PlayerQueued: _player_queued,
    PlayerLeftQueue: _player_left_queue,
    SeatsRotated: _seats_rotated,
}
