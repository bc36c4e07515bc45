"""Standings, tie-breaks and the crosstable, computed from the folded state (never stored).

Points: a won match 1, a drawn match ½, a lost one 0; a forfeit counts as a win for the player
who came (1) and a loss for the absent one (0); a bye scores 1 in a Swiss (the usual full-point
bye) and 0 in a round-robin (every player sits out once there, so it evens out).

Ranking, in this order (docs/tournaments.md gives a worked example):
1. points;
2. Buchholz: the sum of the points of every opponent met (a bye has no opponent, adds 0);
3. Sonneborn-Berger: the points of each opponent beaten, plus half those of each drawn with;
4. direct encounter: among the players still level on 1–3, the points each scored against the
   others of that group;
5. card points: the sum of the player's card-point totals over the matches played (the match's
   own score to its target; a forfeit brings 0).
Players level on all five share a rank (listed by registration number).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace
from typing import Any, Literal

from domain.tournament.state import TournamentState

GameKind = Literal["played", "forfeit", "bye"]


@dataclass(frozen=True, slots=True)
class PlayerGame:
    """One round of one player, once its result is in."""

    round: int
    opponent: str | None  # None for a bye
    seat: int | None
    score: float
    kind: GameKind
    card_points: int = 0


def bye_points(state: TournamentState) -> float:
    return 1.0 if state.format == "swiss" else 0.0


def games_of(state: TournamentState) -> dict[str, list[PlayerGame]]:
    """Every finished round of every player, in round order."""
    games: dict[str, list[PlayerGame]] = {e.name: [] for e in state.entrants}
    bye = bye_points(state)
    for played in state.rounds:
        for name in played.byes:
            games[name].append(PlayerGame(played.number, None, None, bye, "bye"))
        for table in played.tables:
            result = state.results.get(table.match_id)
            if result is None:
                continue
            for seat in (0, 1):
                name, other = table.players[seat], table.players[1 - seat]
                if result.winner is None:
                    score = 0.0 if result.kind == "forfeit" else 0.5
                else:
                    score = 1.0 if result.winner == seat else 0.0
                games[name].append(
                    PlayerGame(played.number, other, seat, score, result.kind, result.totals[seat])
                )
    return games


def scores(state: TournamentState) -> dict[str, float]:
    return {name: sum(g.score for g in games) for name, games in games_of(state).items()}


def met(state: TournamentState) -> set[frozenset[str]]:
    """Every pair of players already paired together (a forfeit counts: they were paired)."""
    return {frozenset(t.players) for r in state.rounds for t in r.tables}


def seat_counts(state: TournamentState) -> dict[str, list[int]]:
    """How often each player sat at seat 0 and at seat 1."""
    counts: dict[str, list[int]] = {e.name: [0, 0] for e in state.entrants}
    for played in state.rounds:
        for table in played.tables:
            counts[table.players[0]][0] += 1
            counts[table.players[1]][1] += 1
    return counts


@dataclass(frozen=True, slots=True)
class Standing:
    rank: int
    name: str
    number: int
    score: float
    buchholz: float
    sonneborn_berger: float
    direct: float
    card_points: int
    played: int
    wins: int
    draws: int
    losses: int
    byes: int
    withdrawn: bool
    bot: str | None

    def key(self) -> tuple[float, float, float, float, int]:
        return (self.score, self.buchholz, self.sonneborn_berger, self.direct, self.card_points)

    def to_json(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "name": self.name,
            "number": self.number,
            "score": self.score,
            "buchholz": self.buchholz,
            "sonneborn_berger": self.sonneborn_berger,
            "direct": self.direct,
            "card_points": self.card_points,
            "played": self.played,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "byes": self.byes,
            "withdrawn": self.withdrawn,
            "bot": self.bot,
        }


def standings(state: TournamentState) -> list[Standing]:
    """Every registered player, best first, with the tie-breaks of the module docstring."""
    games = games_of(state)
    points = {name: sum(g.score for g in gs) for name, gs in games.items()}
    buchholz = {
        name: sum((points[g.opponent] for g in gs if g.opponent is not None), 0.0)
        for name, gs in games.items()
    }
    sb = {name: sum((_sb_part(g, points) for g in gs), 0.0) for name, gs in games.items()}
    first = {name: (points[name], buchholz[name], sb[name]) for name in games}
    groups: dict[tuple[float, float, float], set[str]] = defaultdict(set)
    for name, key in first.items():
        groups[key].add(name)
    direct = {
        name: sum(
            (g.score for g in gs if g.opponent is not None and g.opponent in groups[first[name]]),
            0.0,
        )
        for name, gs in games.items()
    }
    rows = []
    for entrant in state.entrants:
        gs = games[entrant.name]
        played = [g for g in gs if g.kind != "bye"]
        rows.append(
            Standing(
                rank=0,
                name=entrant.name,
                number=entrant.number,
                score=points[entrant.name],
                buchholz=buchholz[entrant.name],
                sonneborn_berger=sb[entrant.name],
                direct=direct[entrant.name],
                card_points=sum(g.card_points for g in gs),
                played=len(played),
                wins=sum(1 for g in played if g.score == 1.0),
                draws=sum(1 for g in played if g.score == 0.5),
                losses=sum(1 for g in played if g.score == 0.0),
                byes=sum(1 for g in gs if g.kind == "bye"),
                withdrawn=entrant.withdrawn,
                bot=entrant.bot,
            )
        )
    rows.sort(key=lambda s: (tuple(-x for x in s.key()), s.number))
    ranked: list[Standing] = []
    for i, row in enumerate(rows):
        same = ranked and ranked[-1].key() == row.key()
        rank = ranked[-1].rank if same else i + 1
        ranked.append(_with_rank(row, rank))
    return ranked


def _sb_part(game: PlayerGame, points: dict[str, float]) -> float:
    if game.opponent is None:
        return 0.0
    return game.score * points[game.opponent]


def _with_rank(row: Standing, rank: int) -> Standing:
    return replace(row, rank=rank)


def ranking(state: TournamentState) -> list[str]:
    """The names in standings order (the Swiss pairing's order within a score group)."""
    return [row.name for row in standings(state)]


@dataclass(frozen=True, slots=True)
class Cell:
    """One round of one crosstable row: `mark` is "1", "½", "0", "+" (won by forfeit), "-"
    (lost by forfeit), "bye", "*" (paired, not played yet) or "" (not paired: withdrawn)."""

    round: int
    opponent: str | None
    seat: int | None
    mark: str

    def to_json(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "opponent": self.opponent,
            "seat": self.seat,
            "mark": self.mark,
        }


def crosstable(state: TournamentState) -> list[tuple[Standing, tuple[Cell, ...]]]:
    """Each player's row (in standings order) with a cell per round paired."""
    games = games_of(state)
    rows = []
    for row in standings(state):
        done = {g.round: g for g in games[row.name]}
        cells = []
        for played in state.rounds:
            cells.append(_cell(played.number, done.get(played.number), row.name, state))
        rows.append((row, tuple(cells)))
    return rows


def _cell(number: int, game: PlayerGame | None, name: str, state: TournamentState) -> Cell:
    if game is None:
        table = next((t for t in state.rounds[number - 1].tables if name in t.players), None)
        if table is None:
            return Cell(number, None, None, "")
        seat = table.players.index(name)
        return Cell(number, table.players[1 - seat], seat, "*")
    if game.kind == "bye":
        return Cell(number, None, None, "bye")
    if game.kind == "forfeit":
        return Cell(number, game.opponent, game.seat, "+" if game.score == 1.0 else "-")
    mark = {1.0: "1", 0.5: "½", 0.0: "0"}[game.score]
    return Cell(number, game.opponent, game.seat, mark)


def crosstable_json(state: TournamentState) -> list[dict[str, Any]]:
    return [
        {**row.to_json(), "rounds": [cell.to_json() for cell in cells]}
        for row, cells in crosstable(state)
    ]
