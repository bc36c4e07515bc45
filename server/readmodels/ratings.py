"""Glicko-2 ratings per player name: a fold over the rated matches of this server, rebuilt from
the store, never stored (docs/tournaments.md, Ratings).

`rate(matches)` is pure: the matches in the order they ended, each a rating period of its own
for its two players (both rated from their ratings before it, as lichess rates every game),
a won match 1, a drawn one ½. It returns every name's history (a point per match, for a graph)
and the leaderboard. `rated_matches(store)` reads which matches count: finished, played here
(not imported), two seats (no rotation table), and not bot against bot.

The arithmetic is the `glicko2` package's (PyPI `glicko2`, Glickman's algorithm as
Ryan Kirkman wrote it), with one correction: its step-5 function f(x) uses the player's
rating μ² where Glickman's paper has the deviation φ² (f(x) = eˣ(Δ² − φ² − v − eˣ) /
2(φ² + v + eˣ)² − (x − a)/τ²). With μ = 0 (a rating of 1500, as in the paper's example) the two
agree, elsewhere the volatility drifts with the rating itself; `_Player` overrides that one
method, and a test holds the result unchanged when every rating is shifted by the same amount.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import glicko2

import domain
from eventstore import EventStore
from records.streams import MATCH_PREFIX, table_stream
from server.model.tables import Table, evolve_table

DEFAULT_RATING = 1500.0
DEFAULT_RD = 350.0
DEFAULT_VOLATILITY = 0.06
PROVISIONAL_RD = 110.0  # above it a rating is provisional (shown with a "?", as lichess does)


class _Player(glicko2.Player):  # type: ignore[misc]
    """`glicko2.Player` with step 5's f(x) as Glickman's paper writes it (φ², not μ²)."""

    def _f(self, x: float, delta: float, v: float, a: float) -> float:
        phi_squared = self._Player__rd**2  # the library's own name-mangled φ
        ex = math.exp(x)
        numerator = ex * (delta**2 - phi_squared - v - ex)
        denominator = 2 * (phi_squared + v + ex) ** 2
        return float(numerator / denominator - (x - a) / self._tau**2)


@dataclass(frozen=True, slots=True)
class Rating:
    rating: float = DEFAULT_RATING
    rd: float = DEFAULT_RD
    volatility: float = DEFAULT_VOLATILITY

    @property
    def provisional(self) -> bool:
        return self.rd > PROVISIONAL_RD


def update(player: Rating, results: Iterable[tuple[Rating, float]]) -> Rating:
    """One Glicko-2 rating period: `player` after `results` (opponent before it, score 1 / ½ /
    0). No result: only the deviation grows (Glickman's step 6)."""
    games = list(results)
    p = _Player(player.rating, player.rd, player.volatility)
    if not games:
        p.did_not_compete()
    else:
        p.update_player(
            [o.rating for o, _ in games], [o.rd for o, _ in games], [s for _, s in games]
        )
    return Rating(float(p.rating), float(p.rd), float(p.vol))


@dataclass(frozen=True, slots=True)
class RatedMatch:
    """A finished match that counts: its two players by seat, `winner` the seat or None."""

    match_id: str
    ended_at_ms: int
    players: tuple[str, str]
    winner: int | None


@dataclass(frozen=True, slots=True)
class RatingPoint:
    """A name's rating after one match (a point of the graph)."""

    at_ms: int
    match_id: str
    opponent: str
    score: float
    rating: float
    rd: float
    volatility: float

    def to_json(self) -> dict[str, Any]:
        return {
            "at_ms": self.at_ms,
            "match_id": self.match_id,
            "opponent": self.opponent,
            "score": self.score,
            "rating": round(self.rating, 2),
            "rd": round(self.rd, 2),
            "volatility": round(self.volatility, 6),
        }


@dataclass
class Ratings:
    """Every rated name: its rating now and its history, oldest first."""

    current: dict[str, Rating] = field(default_factory=dict)
    history: dict[str, list[RatingPoint]] = field(default_factory=dict)

    def history_json(self, name: str) -> dict[str, Any] | None:
        """`{"name", "rating", "rd", "provisional", "matches", "history": [point]}`, or None
        for a name without a rated match."""
        points = self.history.get(name)
        if not points:
            return None
        now = self.current[name]
        return {
            "name": name,
            "rating": round(now.rating, 2),
            "rd": round(now.rd, 2),
            "provisional": now.provisional,
            "matches": len(points),
            "history": [point.to_json() for point in points],
        }

    def leaderboard(self, include_provisional: bool = True) -> list[dict[str, Any]]:
        """The names by rating, best first: `{"rank", "name", "rating", "rd", "provisional",
        "matches", "wins", "draws", "losses", "last_at_ms"}`."""
        rows: list[dict[str, Any]] = []
        for name, now in self.current.items():
            if now.provisional and not include_provisional:
                continue
            points = self.history[name]
            rows.append(
                {
                    "name": name,
                    "rating": round(now.rating, 2),
                    "rd": round(now.rd, 2),
                    "provisional": now.provisional,
                    "matches": len(points),
                    "wins": sum(1 for p in points if p.score == 1.0),
                    "draws": sum(1 for p in points if p.score == 0.5),
                    "losses": sum(1 for p in points if p.score == 0.0),
                    "last_at_ms": points[-1].at_ms,
                }
            )
        rows.sort(key=lambda row: (-row["rating"], row["rd"], row["name"].casefold()))
        for rank, row in enumerate(rows, start=1):
            row["rank"] = rank
        return rows


def rate(matches: Iterable[RatedMatch]) -> Ratings:
    """The ratings after `matches`, taken in the order they ended (then by match id)."""
    ratings = Ratings()
    for match in sorted(matches, key=lambda m: (m.ended_at_ms, m.match_id)):
        a, b = match.players
        if a == b:
            continue  # one name in both seats: nothing to learn
        before = (ratings.current.get(a, Rating()), ratings.current.get(b, Rating()))
        score = 0.5 if match.winner is None else float(match.winner == 0)
        after = (
            update(before[0], [(before[1], score)]),
            update(before[1], [(before[0], 1 - score)]),
        )
        for seat, name in enumerate(match.players):
            ratings.current[name] = after[seat]
            own = score if seat == 0 else 1 - score
            point = RatingPoint(
                match.ended_at_ms,
                match.match_id,
                match.players[1 - seat],
                own,
                after[seat].rating,
                after[seat].rd,
                after[seat].volatility,
            )
            ratings.history.setdefault(name, []).append(point)
    return ratings


# ------------------------------------------------------------------------- from the store


def rated_match(events: list[domain.Event], table: Table | None) -> RatedMatch | None:
    """The match as a rating counts it, or None when it does not count (unfinished, imported,
    a rotation table, bot against bot, a practice game played on from a finished match)."""
    if not events or not isinstance(events[0], domain.MatchStarted):
        return None
    started, last = events[0], events[-1]
    if not isinstance(last, domain.MatchWon) or started.ruleset.rotation != "off":
        return None
    if table is not None:
        if table.imported or table.practice is not None:
            return None
        if all(seat.bot is not None and not seat.takeover for seat in table.seats):
            return None
    players = (started.players[0], started.players[1])
    return RatedMatch(started.match_id, last.at_ms, players, int(last.winner))


def rated_matches(store: EventStore) -> list[RatedMatch]:
    """Every match of `store` that counts for the ratings."""
    found = []
    for stream in store.list_streams(MATCH_PREFIX):
        match_id = stream.removeprefix(MATCH_PREFIX)
        try:
            events = [domain.event_from_payload(r.type, r.data) for r in store.read(stream)]
        except domain.DomainError:
            continue  # a stream the engine cannot read counts for nobody
        table: Table | None = None
        for record in store.read(table_stream(match_id)):
            table = evolve_table(table, record.type, record.data)
        match = rated_match(events, table)
        if match is not None:
            found.append(match)
    return found


def ratings_of(store: EventStore) -> Ratings:
    """The ratings of every name, rebuilt from `store`."""
    return rate(rated_matches(store))
