"""Tournament commands, named as orders; each carries `at_ms` (the caller's clock, as the game's
commands do). `decide(state, command)` turns one into events or refuses it."""

from __future__ import annotations

from dataclasses import dataclass

from domain.ruleset import Ruleset
from domain.tournament.events import Format


@dataclass(frozen=True, slots=True)
class CreateTournament:
    tournament_id: str
    name: str
    format: Format
    rounds: int | None  # Swiss: required; round-robin: None
    ruleset: Ruleset
    at_ms: int
    director: str = ""


@dataclass(frozen=True, slots=True)
class RegisterPlayer:
    name: str
    at_ms: int
    bot: str | None = None


@dataclass(frozen=True, slots=True)
class WithdrawPlayer:
    """The player leaves: never paired again; an unplayed match of the running round is
    forfeited to the opponent."""

    name: str
    at_ms: int


@dataclass(frozen=True, slots=True)
class PairRound:
    """Pair the next round (the first closes registration). Refused while a round runs."""

    at_ms: int


@dataclass(frozen=True, slots=True)
class ReportMatch:
    """The result of a table's match, read from the match's own `MatchWon` (`result_of_match`)."""

    match_id: str
    winner: int | None
    totals: tuple[int, int]
    at_ms: int


@dataclass(frozen=True, slots=True)
class RecordNoShow:
    """`absent` (one or both players of the table) did not come to `match_id`."""

    match_id: str
    absent: tuple[str, ...]
    at_ms: int


@dataclass(frozen=True, slots=True)
class FinishTournament:
    """End it after the current round (the last planned round's result ends it by itself)."""

    at_ms: int


TournamentCommand = (
    CreateTournament
    | RegisterPlayer
    | WithdrawPlayer
    | PairRound
    | ReportMatch
    | RecordNoShow
    | FinishTournament
)
