"""The events of a tournament stream (`tournament-<id>`), past tense, frozen, JSON-able.

`event_to_payload` / `event_from_payload` turn them into the store's (type, dict) and back; the
ruleset goes in as its full JSON (`Ruleset.to_json`), so the stream says what every table plays.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Literal

from domain.errors import NotationError, quote
from domain.ruleset import Ruleset

Format = Literal["swiss", "round-robin"]
FORMATS: tuple[Format, ...] = ("swiss", "round-robin")


class _Named:
    __slots__ = ()

    @property
    def type(self) -> str:
        return type(self).__name__


@dataclass(frozen=True, slots=True)
class Pairing:
    """One table of a round: `players` by seat (seat 0 first), the match it is played as."""

    table: int  # 1, 2, … within the round
    match_id: str
    players: tuple[str, str]

    def to_json(self) -> dict[str, Any]:
        return {"table": self.table, "match_id": self.match_id, "players": list(self.players)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Pairing:
        players = data["players"]
        return cls(int(data["table"]), str(data["match_id"]), (str(players[0]), str(players[1])))


@dataclass(frozen=True, slots=True)
class TournamentCreated(_Named):
    tournament_id: str
    name: str
    format: Format
    rounds: int | None  # Swiss: the rounds to play; round-robin: None (one cycle, set by n)
    ruleset: Ruleset  # what every table of the tournament plays
    at_ms: int
    director: str = ""  # opaque to the domain: the server keeps its director token's hash here


@dataclass(frozen=True, slots=True)
class PlayerRegistered(_Named):
    name: str
    at_ms: int
    bot: str | None = None  # a bot's kind ("steady"…) when a bot takes the seat


@dataclass(frozen=True, slots=True)
class PlayerWithdrew(_Named):
    name: str
    at_ms: int


@dataclass(frozen=True, slots=True)
class RoundPaired(_Named):
    round: int
    tables: tuple[Pairing, ...]
    byes: tuple[str, ...]
    at_ms: int


@dataclass(frozen=True, slots=True)
class MatchReported(_Named):
    """A table's match ended: `winner` the seat (0/1) that won it, None for a drawn match;
    `totals` the card points of seat 0 and seat 1 (the match's score to its target)."""

    round: int
    table: int
    match_id: str
    winner: int | None
    totals: tuple[int, int]
    at_ms: int


@dataclass(frozen=True, slots=True)
class MatchForfeited(_Named):
    """A table's match was not played: `absent` did not come (a no-show) or had withdrawn.
    The other player wins it; when both are absent, neither scores."""

    round: int
    table: int
    match_id: str
    absent: tuple[str, ...]
    reason: Literal["no-show", "withdrew"]
    at_ms: int


@dataclass(frozen=True, slots=True)
class TournamentFinished(_Named):
    rounds_played: int
    at_ms: int


TournamentEvent = (
    TournamentCreated
    | PlayerRegistered
    | PlayerWithdrew
    | RoundPaired
    | MatchReported
    | MatchForfeited
    | TournamentFinished
)

TOURNAMENT_EVENT_TYPES: dict[str, type[TournamentEvent]] = {
    cls.__name__: cls
    for cls in (
        TournamentCreated,
        PlayerRegistered,
        PlayerWithdrew,
        RoundPaired,
        MatchReported,
        MatchForfeited,
        TournamentFinished,
    )
}


def _dump(value: Any) -> Any:
    if isinstance(value, Ruleset):
        return value.to_json()
    if isinstance(value, Pairing):
        return value.to_json()
    if isinstance(value, tuple):
        return [_dump(item) for item in value]
    return value


def event_to_payload(event: TournamentEvent) -> tuple[str, dict[str, Any]]:
    """(type name, JSON-able dict) of a tournament event."""
    payload = {f.name: _dump(getattr(event, f.name)) for f in fields(event)}
    return event.type, payload


def _load(kind: str, name: str, value: Any) -> Any:
    if name == "ruleset":
        return Ruleset.from_json(value)
    if name == "tables":
        return tuple(Pairing.from_json(item) for item in value)
    if name in ("byes", "absent"):
        return tuple(str(item) for item in value)
    if name in ("totals", "players"):
        return tuple(value)
    return value


def event_from_payload(kind: str, payload: dict[str, Any]) -> TournamentEvent:
    """The event back from `event_to_payload`'s output (`NotationError` if it is not one)."""
    cls = TOURNAMENT_EVENT_TYPES.get(kind)
    if cls is None:
        raise NotationError(f"unknown tournament event type {quote(kind)}")
    if not isinstance(payload, dict):
        raise NotationError(f"bad {kind} payload: not an object")
    try:
        return cls(**{name: _load(kind, name, value) for name, value in payload.items()})
    except (TypeError, KeyError, IndexError, ValueError, AttributeError) as exc:
        raise NotationError(f"bad {kind} payload: {exc}") from None
