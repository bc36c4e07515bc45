"""The next round's tables and byes, from the folded state: round-robin by Berger tables,
Swiss by maximum-weight matching (`swiss.py`)."""

from __future__ import annotations

from domain.tournament.roundrobin import berger_round
from domain.tournament.standings import games_of, met, ranking, scores
from domain.tournament.state import TournamentState
from domain.tournament.swiss import SwissPlayer, pair_swiss


def next_round(state: TournamentState) -> tuple[list[tuple[str, str]], list[str]]:
    """(tables as (seat 0, seat 1) names, byes) of round `state.current_round + 1`."""
    if state.format == "round-robin":
        return _round_robin(state)
    return _swiss(state)


def _round_robin(state: TournamentState) -> tuple[list[tuple[str, str]], list[str]]:
    names = {e.number: e.name for e in state.entrants}
    tables: list[tuple[str, str]] = []
    byes: list[str] = []
    for a, b in berger_round(len(names), state.current_round + 1):
        if a in names and b in names:
            tables.append((names[a], names[b]))
        else:
            byes.append(names[a] if a in names else names[b])
    return tables, byes


def _swiss(state: TournamentState) -> tuple[list[tuple[str, str]], list[str]]:
    points = scores(state)
    games = games_of(state)
    active = {e.name for e in state.active}
    players = []
    for name in ranking(state):
        if name not in active:
            continue
        seats = [g.seat for g in games[name] if g.seat is not None]
        players.append(
            SwissPlayer(
                name=name,
                score=points[name],
                had_bye=any(name in r.byes for r in state.rounds),
                seat_balance=seats.count(0) - seats.count(1),
                last_seat=seats[-1] if seats else None,
            )
        )
    return pair_swiss(players, met(state))
