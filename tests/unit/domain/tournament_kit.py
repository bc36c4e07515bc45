"""Helpers for the tournament tests: run commands through `decide_and_fold`, keeping every event."""

from __future__ import annotations

from domain import Ruleset
from domain.tournament import (
    CreateTournament,
    Format,
    PairRound,
    RegisterPlayer,
    ReportMatch,
    TournamentCommand,
    TournamentEvent,
    TournamentState,
    decide_and_fold,
)


class Director:
    """A tournament driven command by command; `events` is its whole stream so far."""

    def __init__(self, fmt: Format, names: list[str], rounds: int | None = None) -> None:
        self.events: list[TournamentEvent] = []
        self.state: TournamentState | None = None
        self.clock = 1_000
        self.do(CreateTournament("club", "Club night", fmt, rounds, Ruleset.preset("classic"), 0))
        for name in names:
            self.do(RegisterPlayer(name, self.tick()))

    def tick(self) -> int:
        self.clock += 1
        return self.clock

    def do(self, command: TournamentCommand) -> list[TournamentEvent]:
        events, self.state = decide_and_fold(self.state, command)
        self.events.extend(events)
        return events

    @property
    def now(self) -> TournamentState:
        assert self.state is not None
        return self.state

    def pair(self) -> None:
        self.do(PairRound(self.tick()))

    def report(self, match_id: str, winner: int | None, totals: tuple[int, int]) -> None:
        self.do(ReportMatch(match_id, winner, totals, self.tick()))
