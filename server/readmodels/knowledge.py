"""What a finished game's replay may show beyond the public view: its analysis (faults, missed
calls, figures for the charts) and, position by position, what each seat could do then.

Both are computed from the states a replay build has already folded, never stored, and only for
games that are over: while a game runs its faults are the opponent's to spot.
"""

from __future__ import annotations

from collections.abc import Iterable

import domain
from domain.analysis import analyse_states
from server.adapters.matches import Applied
from server.readmodels.updates import game_over
from server.wire.payloads import JsonObject


def analysis_json(states: Iterable[Applied]) -> JsonObject:
    """The analysis of the finished games, from a replay's (version, event, state) list."""
    return analyse_states((a.event, a.state) for a in states).to_json()


def seat_options(states: Iterable[Applied], now: domain.MatchState | None, seat: int) -> JsonObject:
    """For each position of a finished game where that game still ran: the actions `seat` could
    take there, each with the priority rule it would have broken (None: a sound action), as
    ``{"seat", "options": [[version, [[notation, rule | null], ...]], ...], "compulsory":
    [[version, [notation, ...]], ...]}``; `compulsory` names, where priority demands one of a few
    moves (every other action a fault), those moves."""
    rows: list[list[object]] = []  # [version, [[notation, rule | None], ...]]
    compulsory: list[list[object]] = []  # [version, [notation, ...]]
    for applied in states:
        state = applied.state
        game = state.game
        if game is None or game.over or not game_over(now, game.game_index):
            continue
        actions = domain.legal_actions(state, seat)
        if not actions:
            continue
        rows.append([applied.version, [[a.notation(), _fault(state, a)] for a in actions]])
        must = [a.notation() for a in actions if domain.is_compulsory(state, a)]
        if must:
            compulsory.append([applied.version, must])
    return {"seat": seat, "options": rows, "compulsory": compulsory}


def _fault(state: domain.MatchState, action: domain.Action) -> str | None:
    try:
        rule: str | None = domain.fault_of(state, action)
    except domain.RulesError:  # not a play action the engine would judge: no fault
        return None
    return rule
