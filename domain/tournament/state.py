"""The state of a tournament: the fold of its events (`evolve`, `fold`). Nothing derived is kept
in it: standings, crosstable and the next pairings are computed from it (`standings.py`,
`pairing.py`)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Literal

from domain.errors import quote
from domain.ruleset import Ruleset
from domain.tournament.events import (
    Format,
    MatchForfeited,
    MatchReported,
    Pairing,
    PlayerRegistered,
    PlayerWithdrew,
    RoundPaired,
    TournamentCreated,
    TournamentEvent,
    TournamentFinished,
)


@dataclass(frozen=True, slots=True)
class Entrant:
    name: str
    number: int  # 1, 2, … in registration order: the round-robin's table numbers
    bot: str | None = None
    withdrawn: bool = False


@dataclass(frozen=True, slots=True)
class Result:
    """How a table's match ended: played (`winner` seat or None for a draw, card-point
    `totals` by seat) or forfeited (`absent` lose it, card points 0)."""

    kind: Literal["played", "forfeit"]
    winner: int | None
    totals: tuple[int, int]
    absent: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Round:
    number: int
    tables: tuple[Pairing, ...]
    byes: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class TournamentState:
    tournament_id: str
    name: str
    format: Format
    planned_rounds: int | None
    ruleset: Ruleset
    director: str
    created_at_ms: int
    entrants: tuple[Entrant, ...] = ()
    rounds: tuple[Round, ...] = ()
    results: dict[str, Result] = field(default_factory=dict)  # by match id; never changed in place
    finished: bool = False
    finished_at_ms: int | None = None
    version: int = 1

    # -- queries ---------------------------------------------------------------------------

    def entrant(self, name: str) -> Entrant | None:
        return next((e for e in self.entrants if e.name == name), None)

    @property
    def active(self) -> tuple[Entrant, ...]:
        """The players still in (not withdrawn), in registration order."""
        return tuple(e for e in self.entrants if not e.withdrawn)

    @property
    def started(self) -> bool:
        return bool(self.rounds)

    @property
    def current_round(self) -> int:
        """The number of the last round paired (0 before the first)."""
        return len(self.rounds)

    @property
    def total_rounds(self) -> int | None:
        """The rounds this tournament plays: Swiss, as created; round-robin, one cycle of the
        registered players (n - 1 rounds, n when n is odd), known once registration closes."""
        if self.format == "swiss":
            return self.planned_rounds
        if not self.started:
            return None
        n = len(self.entrants)
        return n - 1 if n % 2 == 0 else n

    def pairing(self, match_id: str) -> tuple[int, Pairing] | None:
        """(round number, table) of a tournament match."""
        for played in self.rounds:
            for table in played.tables:
                if table.match_id == match_id:
                    return played.number, table
        return None

    @property
    def open_tables(self) -> tuple[Pairing, ...]:
        """The current round's tables without a result yet."""
        if not self.rounds:
            return ()
        return tuple(t for t in self.rounds[-1].tables if t.match_id not in self.results)

    @property
    def round_complete(self) -> bool:
        """Every table of the current round has its result (true before the first round)."""
        return not self.open_tables

    def next_table(self, name: str) -> Pairing | None:
        """The player's table of the current round, while its match has no result: "your next
        table" on the player's page."""
        return next((t for t in self.open_tables if name in t.players), None)


# ------------------------------------------------------------------------------- evolve


def evolve(state: TournamentState | None, event: TournamentEvent) -> TournamentState:
    """The state after `event`; one branch per event kind."""
    if isinstance(event, TournamentCreated):
        return TournamentState(
            tournament_id=event.tournament_id,
            name=event.name,
            format=event.format,
            planned_rounds=event.rounds,
            ruleset=event.ruleset,
            director=event.director,
            created_at_ms=event.at_ms,
        )
    if state is None:
        raise ValueError(f"{event.type} before TournamentCreated")
    state = replace(state, version=state.version + 1)
    if isinstance(event, PlayerRegistered):
        entrant = Entrant(event.name, len(state.entrants) + 1, event.bot)
        return replace(state, entrants=(*state.entrants, entrant))
    if isinstance(event, PlayerWithdrew):
        if not state.started:  # before the first round, a withdrawal takes the name off
            kept = [e for e in state.entrants if e.name != event.name]
            return replace(
                state, entrants=tuple(replace(e, number=i) for i, e in enumerate(kept, 1))
            )
        entrants = tuple(
            replace(e, withdrawn=True) if e.name == event.name else e for e in state.entrants
        )
        return replace(state, entrants=entrants)
    if isinstance(event, RoundPaired):
        played = Round(event.round, event.tables, event.byes)
        return replace(state, rounds=(*state.rounds, played))
    if isinstance(event, MatchReported):
        result = Result("played", event.winner, event.totals)
        return replace(state, results={**state.results, event.match_id: result})
    if isinstance(event, MatchForfeited):
        forfeit = Result("forfeit", _forfeit_winner(state, event), (0, 0), event.absent)
        return replace(state, results={**state.results, event.match_id: forfeit})
    if isinstance(event, TournamentFinished):
        return replace(state, finished=True, finished_at_ms=event.at_ms)
    raise ValueError(f"not a tournament event: {quote(event)}")


def _forfeit_winner(state: TournamentState, event: MatchForfeited) -> int | None:
    found = state.pairing(event.match_id)
    if found is None or len(event.absent) != 1:
        return None
    players = found[1].players
    return 1 if players[0] == event.absent[0] else 0


def fold(
    events: Iterable[TournamentEvent], state: TournamentState | None = None
) -> TournamentState:
    for event in events:
        state = evolve(state, event)
    if state is None:
        raise ValueError("a tournament stream starts with TournamentCreated")
    return state
