"""What a finished game teaches: every fault (called or missed), and per-seat figures for charts.

The analysis reads a match's events (and the states they fold into) through the engine's public
API only: event fields, `evolve`, the game state's piles and `compulsory_moves`. It is computed
on demand, never stored: a record holds none of it, and `crapette verify` recomputes it.

A fault is public once its game is over, and not before (spotting it is the opponent's part of
the game, docs/spec/rules.md §7): `analyse` leaves a running game out entirely.

Positions in the stream are counted as in `CrapetteCalled.target_index`: the stream index of an
event (0 for `MatchStarted`); `to_json` gives them as `version`, the index + 1 (the match's
version once that event is folded, as replay frames count).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from domain.actions import Action, Discard, Move, Pass
from domain.cards import Card
from domain.engine import compulsory_moves, evolve
from domain.events import (
    ActionVoided,
    CardDiscarded,
    CardMoved,
    CompulsoryMovePlayed,
    CrapetteCalled,
    Event,
    GameResigned,
    GameStalemated,
    GameStarted,
    GameWon,
    HandCardTurned,
    MatchStarted,
    Passed,
    SeatsRotated,
    TurnEnded,
    WasteTurnedOver,
)
from domain.piles import ALL_PILES
from domain.state import GameState, MatchState

_GAME_ENDS = (GameWon, GameStalemated, GameResigned)


@dataclass(frozen=True, slots=True)
class SkippedMove:
    """The compulsory move a fault skipped: what a right call plays (or played) for the offender."""

    src: str
    dst: str
    card: Card

    def to_json(self) -> dict[str, Any]:
        return {"from": self.src, "to": self.dst, "card": str(self.card)}


@dataclass(frozen=True, slots=True)
class Fault:
    """A priority fault. `index`: the stream index of the action's first event (what a call
    targets); `fault_index`: the event that carries the fault (a turn that recycled the waste
    starts with `WasteTurnedOver`). `called_by` is None when nobody called it right: a missed call
    of the opponent's."""

    game_index: int
    index: int
    fault_index: int
    seat: int
    action: Action
    rule: str
    skipped: SkippedMove | None
    called_by: int | None = None
    call_index: int | None = None

    @property
    def missed(self) -> bool:
        return self.called_by is None

    def to_json(self) -> dict[str, Any]:
        return {
            "game_index": self.game_index,
            "version": self.index + 1,
            "fault_version": self.fault_index + 1,
            "seat": self.seat,
            "action": self.action.notation(),
            "rule": self.rule,
            "skipped": self.skipped.to_json() if self.skipped is not None else None,
            "missed": self.missed,
            "called_by": self.called_by,
            "call_version": self.call_index + 1 if self.call_index is not None else None,
        }


@dataclass(slots=True)
class SeatSummary:
    """One seat's game: play actions (moves, turns, discards, passes), its faults, its calls
    (right, wrong, and missed: the opponent's faults it left uncalled), its longest turn, and the
    cards it got onto the foundations (less those a right call took back)."""

    actions: int = 0
    faults: int = 0
    right_calls: int = 0
    wrong_calls: int = 0
    missed_calls: int = 0
    longest_turn_ms: int = 0
    longest_turn_index: int | None = None
    to_foundations: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "actions": self.actions,
            "faults": self.faults,
            "right_calls": self.right_calls,
            "wrong_calls": self.wrong_calls,
            "missed_calls": self.missed_calls,
            "longest_turn_ms": self.longest_turn_ms,
            "longest_turn_version": (
                self.longest_turn_index + 1 if self.longest_turn_index is not None else None
            ),
            "to_foundations": self.to_foundations,
        }


@dataclass(frozen=True, slots=True)
class Think:
    """How long `seat` took over the play action starting at stream `index` (since the turn
    started or its previous action)."""

    index: int
    seat: int
    ms: int


@dataclass(frozen=True, slots=True)
class TurnSpan:
    index: int  # the stream index of the turn's first event
    seat: int
    ms: int
    actions: int


@dataclass(slots=True)
class GameAnalysis:
    """One finished game. `cards_left`: after each event from `GameStarted` on, (index, seat 0's,
    seat 1's) count of cards still to get rid of (reserve, hand, turned card and waste)."""

    game_index: int
    start_index: int
    end_index: int = 0
    outcome: str = ""  # "win", "stalemate" or "resign"
    winner: int | None = None  # the seat that won (a stalemate is no win, even with points)
    score: tuple[int, int] = (0, 0)
    faults: list[Fault] = field(default_factory=list)
    seats: tuple[SeatSummary, SeatSummary] = field(
        default_factory=lambda: (SeatSummary(), SeatSummary())
    )
    cards_left: list[tuple[int, int, int]] = field(default_factory=list)
    thinking: list[Think] = field(default_factory=list)
    turns: list[TurnSpan] = field(default_factory=list)

    @property
    def missed(self) -> list[Fault]:
        return [f for f in self.faults if f.missed]

    def to_json(self) -> dict[str, Any]:
        return {
            "game_index": self.game_index,
            "start_version": self.start_index + 1,
            "end_version": self.end_index + 1,
            "outcome": self.outcome,
            "winner": self.winner,
            "score": list(self.score),
            "faults": [f.to_json() for f in self.faults],
            "seats": [s.to_json() for s in self.seats],
            "cards_left": [[i + 1, a, b] for i, a, b in self.cards_left],
            "thinking": [[t.index + 1, t.seat, t.ms] for t in self.thinking],
            "turns": [[t.index + 1, t.seat, t.ms, t.actions] for t in self.turns],
        }


@dataclass(slots=True)
class MatchAnalysis:
    """The finished games of a match, and the match score after each (index, total 0, total 1)."""

    players: tuple[str, str]
    games: list[GameAnalysis] = field(default_factory=list)
    scores: list[tuple[int, int, int]] = field(default_factory=list)

    @property
    def faults(self) -> list[Fault]:
        return [f for game in self.games for f in game.faults]

    def to_json(self) -> dict[str, Any]:
        return {
            "players": list(self.players),
            "games": [g.to_json() for g in self.games],
            "scores": [[i + 1, a, b] for i, a, b in self.scores],
        }


def players_by_game(events: Iterable[Event]) -> list[tuple[str, str]]:
    """Who sat in seats 0 and 1 in each game dealt, by game index: the match's players, or at a
    rotation table (docs/spec/rules.md §10) the pair each `SeatsRotated` seated."""
    pair: tuple[str, str] | None = None
    pairs: list[tuple[str, str]] = []
    for event in events:
        if isinstance(event, MatchStarted | SeatsRotated):
            pair = event.players
        elif isinstance(event, GameStarted) and pair is not None:
            pairs.append(pair)
    return pairs


def analyse(events: Iterable[Event]) -> MatchAnalysis:
    """The analysis of a match stream (folded here; see `analyse_states` to reuse states)."""
    return analyse_states(_folded(events))


def _folded(events: Iterable[Event]) -> Iterator[tuple[Event, MatchState]]:
    state: MatchState | None = None
    for event in events:
        state = evolve(state, event)
        yield event, state


def analyse_states(steps: Iterable[tuple[Event, MatchState]]) -> MatchAnalysis:
    """The analysis from each event of a stream, in order, with the match state after it.
    Games still running at the end are left out (their faults are not public yet)."""
    reader = Analyser()
    for event, state in steps:
        reader.read(event, state)
    return reader.result()


class Analyser:
    """The analysis built one event at a time (`read(event, state after it)`, in stream order;
    `result()` at any point), for callers that fold the stream anyway. It keeps the game before
    each event (a fault's compulsory move is judged on the state before its action) and the
    running game's figures."""

    def __init__(self) -> None:
        self.players: tuple[str, str] = ("", "")
        self.games: list[GameAnalysis] = []
        self.scores: list[tuple[int, int, int]] = []
        self.game: GameAnalysis | None = None
        self.before: GameState | None = None  # the game before the current event
        self.index = 0
        self.faults: dict[int, Fault] = {}  # the running game's faults by action index
        self.called: int | None = None  # the action index of the last right call
        self.recycle: tuple[int, GameState | None] | None = None  # a WasteTurnedOver: a turn
        self.turn_start = (0, 0, 0)  # (index, seat, at_ms) of the running turn
        self.turn_actions = 0
        self.last_ms = 0  # when the mover's previous action (or the turn) started

    def result(self) -> MatchAnalysis:
        return MatchAnalysis(self.players, self.games, self.scores)

    def read(self, event: Event, state: MatchState) -> None:
        index = self.index
        self.index += 1
        before, after = self.before, state.game
        self.before = after
        if isinstance(event, MatchStarted):
            self.players = event.players
            return
        if isinstance(event, GameStarted):
            self._start(event, index)
        game = self.game
        if game is None or after is None:
            return
        self._action(event, index, before, game)
        self._count(event, index, game)
        game.cards_left.append((index, _left(after, 0), _left(after, 1)))
        if isinstance(event, TurnEnded):
            self._end_turn(index, event.seat, event.at_ms, event.next_seat)
        elif isinstance(event, _GAME_ENDS):
            self._end_game(event, index, state)

    def _start(self, event: GameStarted, index: int) -> None:
        self.game = GameAnalysis(event.game_index, index)
        self.faults = {}
        self.called = None
        self.recycle = None
        self.turn_start = (index, event.first_player, event.at_ms)
        self.turn_actions = 0
        self.last_ms = event.at_ms

    def _action(
        self, event: Event, index: int, before: GameState | None, game: GameAnalysis
    ) -> None:
        """A play action's first event: its thinking time, and its fault if it carries one."""
        recycle, self.recycle = self.recycle, None
        if isinstance(event, WasteTurnedOver):
            self.recycle = (index, before)
            self._think(event.seat, index, event.at_ms, game)
            return
        action: Action | None = None
        fault: str | None = None
        if isinstance(event, CardMoved):
            action, fault = Move(event.seat, event.src, event.dst), event.fault
        elif isinstance(event, HandCardTurned):
            action, fault = event.action, event.fault
        elif isinstance(event, CardDiscarded) and event.auto is None:
            action, fault = Discard(event.seat), event.fault
        elif isinstance(event, Passed):
            action, fault = Pass(event.seat), event.fault
        if action is None:
            return
        start, base = index, before
        if isinstance(event, HandCardTurned) and recycle is not None and recycle[0] == index - 1:
            start, base = recycle  # the turn began by turning the waste over: one action
        else:
            self._think(action.seat, index, event.at_ms, game)
        if fault is not None and base is not None:
            found = Fault(game.game_index, start, index, action.seat, action, fault, None)
            self.faults[start] = replace(found, skipped=_skipped(base, action))
            game.seats[action.seat].faults += 1

    def _think(self, seat: int, index: int, at_ms: int, game: GameAnalysis) -> None:
        game.seats[seat].actions += 1
        game.thinking.append(Think(index, seat, max(0, at_ms - self.last_ms)))
        self.last_ms = at_ms
        self.turn_actions += 1

    def _count(self, event: Event, index: int, game: GameAnalysis) -> None:
        """Calls, and cards onto (or taken back from) the foundations."""
        if isinstance(event, CrapetteCalled):
            seat = game.seats[event.caller]
            if event.verdict != "right":
                seat.wrong_calls += 1
                return
            seat.right_calls += 1
            fault = self.faults.get(event.target_index)
            if fault is not None:
                self.faults[fault.index] = replace(fault, called_by=event.caller, call_index=index)
                self.called = fault.index
        elif isinstance(event, (CardMoved, CompulsoryMovePlayed)):
            if event.dst.startswith("F"):
                game.seats[event.seat].to_foundations += 1
            if isinstance(event, CompulsoryMovePlayed) and self.called is not None:
                # The move the call played (the caller may have named another one of the level).
                fault = self.faults[self.called]
                played = SkippedMove(event.src, event.dst, event.card)
                self.faults[fault.index] = replace(fault, skipped=played)
        elif (
            isinstance(event, ActionVoided)
            and event.voided == "CardMoved"
            and (event.dst or "").startswith("F")
        ):
            game.seats[event.seat].to_foundations -= 1

    def _end_turn(self, index: int, seat: int, at_ms: int, next_seat: int) -> None:
        """A turn ended. A right call on a discard ends the offender's turn a second time (the
        first end was voided): then the caller's turn simply starts again at the call."""
        game = self.game
        assert game is not None
        start, mover, started_ms = self.turn_start
        span = TurnSpan(start, mover, max(0, at_ms - started_ms), self.turn_actions)
        if seat == mover and (span.actions or span.ms):
            game.turns.append(span)
            summary = game.seats[mover]
            if summary.longest_turn_index is None or span.ms > summary.longest_turn_ms:
                summary.longest_turn_ms = span.ms
                summary.longest_turn_index = span.index
        self.turn_start = (index + 1, next_seat, at_ms)
        self.turn_actions = 0
        self.last_ms = at_ms

    def _end_game(
        self, event: GameWon | GameStalemated | GameResigned, index: int, state: MatchState
    ) -> None:
        game = self.game
        assert game is not None
        mover = self.turn_start[1]
        self._end_turn(index, mover, event.at_ms, mover)  # the turn the game ended in
        game.end_index = index
        game.score = event.score
        if isinstance(event, GameStalemated):
            game.outcome = "stalemate"
        else:
            game.outcome = "win" if isinstance(event, GameWon) else "resign"
            game.winner = event.winner
        game.faults = [self.faults[k] for k in sorted(self.faults)]
        for fault in game.faults:
            if fault.missed:
                game.seats[1 - fault.seat].missed_calls += 1
        self.scores.append((index, state.totals[0], state.totals[1]))
        self.games.append(game)
        self.game = None


def _skipped(base: GameState, action: Action) -> SkippedMove | None:
    """The compulsory move a right call on `action` (played from `base`) plays by default."""
    moves: Sequence[tuple[int, int]] = compulsory_moves(base, action)
    if not moves:
        return None
    src, dst = ALL_PILES[moves[0][0]], ALL_PILES[moves[0][1]]
    return SkippedMove(src, dst, base.pile(src)[-1])


def _left(game: GameState, seat: int) -> int:
    return game.reserve_cards(seat) + game.loose_cards(seat)
