"""`decide(state, command) -> events`: a tournament command judged against the folded state,
as the game's `domain.engine.decide` does; `decide_and_fold` also returns the state the events
fold into.

The automatic consequences are events of the same call: a withdrawal forfeits the player's
unplayed match of the running round; a round-robin round forfeits the tables of players who
withdrew; the result that completes the last round finishes the tournament.
"""

from __future__ import annotations

import re
from typing import Literal

from domain.bots import BOT_NAMES
from domain.errors import quote
from domain.names import MAX_NAME, NameRefused, normal_name, same_name
from domain.tournament.commands import (
    CreateTournament,
    FinishTournament,
    PairRound,
    RecordNoShow,
    RegisterPlayer,
    ReportMatch,
    TournamentCommand,
    WithdrawPlayer,
)
from domain.tournament.errors import TournamentError
from domain.tournament.events import (
    FORMATS,
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
from domain.tournament.pairing import next_round
from domain.tournament.state import TournamentState, evolve

ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,39}")
MAX_TITLE = 80
MAX_PLAYERS = 32  # a club evening is 6–16; the Swiss pairing of 32 takes up to 0.3 s (swiss.py)
MAX_SWISS_ROUNDS = 30


def match_id_for(tournament_id: str, round_number: int, table: int) -> str:
    """The match id of a table: `<tournament id>-r<round>-t<table>` (so two processes that
    open the same table open the same match)."""
    return f"{tournament_id}-r{round_number}-t{table}"


def decide(state: TournamentState | None, command: TournamentCommand) -> list[TournamentEvent]:
    """Every event the command causes, or `TournamentError` with the reason it is refused."""
    return decide_and_fold(state, command)[0]


def decide_and_fold(
    state: TournamentState | None, command: TournamentCommand
) -> tuple[list[TournamentEvent], TournamentState]:
    if isinstance(command, CreateTournament):
        if state is not None:
            raise TournamentError("tournament exists", "this tournament has already been created")
        event = _created(command)
        return [event], evolve(None, event)
    if state is None:
        raise TournamentError("no tournament", "create the tournament first")
    if state.finished:
        raise TournamentError("tournament over", "this tournament has finished")
    scratch = _Scratch(state)
    if isinstance(command, RegisterPlayer):
        scratch.emit(_registered(state, command))
    elif isinstance(command, WithdrawPlayer):
        _withdraw(scratch, command)
    elif isinstance(command, PairRound):
        _pair(scratch, command.at_ms)
    elif isinstance(command, ReportMatch):
        _report(scratch, command)
    elif isinstance(command, RecordNoShow):
        _no_show(scratch, command)
    elif isinstance(command, FinishTournament):
        _finish(scratch, command.at_ms)
    else:
        raise TournamentError("unknown command", f"not a tournament command: {quote(command)}")
    return scratch.events, scratch.state


class _Scratch:
    def __init__(self, state: TournamentState) -> None:
        self.state = state
        self.events: list[TournamentEvent] = []

    def emit(self, event: TournamentEvent) -> None:
        self.state = evolve(self.state, event)
        self.events.append(event)

    def finish_if_done(self, at_ms: int) -> None:
        state = self.state
        if state.round_complete and state.started and state.current_round == state.total_rounds:
            self.emit(TournamentFinished(state.current_round, at_ms))


def _created(command: CreateTournament) -> TournamentCreated:
    if not ID_PATTERN.fullmatch(command.tournament_id):
        raise TournamentError(
            "bad id", "a tournament id is 1 to 40 letters, digits, - or _, the first no - or _"
        )
    try:
        name = normal_name(command.name, MAX_TITLE, "A tournament's name")
    except NameRefused as exc:
        raise TournamentError("bad name", exc.message) from None
    if command.format not in FORMATS:
        raise TournamentError("bad format", "the format is swiss or round-robin")
    if command.format == "swiss":
        rounds = command.rounds
        if rounds is None or not 1 <= rounds <= MAX_SWISS_ROUNDS:
            raise TournamentError(
                "bad rounds", f"a Swiss tournament plays 1 to {MAX_SWISS_ROUNDS} rounds"
            )
    elif command.rounds is not None:
        raise TournamentError(
            "bad rounds", "a round-robin plays one cycle: its rounds follow from the players"
        )
    if command.ruleset.rotation != "off":
        raise TournamentError("bad ruleset", "a tournament table seats two players, no rotation")
    return TournamentCreated(
        command.tournament_id,
        name,
        command.format,
        command.rounds,
        command.ruleset,
        command.at_ms,
        command.director,
    )


def _registered(state: TournamentState, command: RegisterPlayer) -> PlayerRegistered:
    if state.started:
        raise TournamentError("registration closed", "the first round has been paired")
    try:
        name = normal_name(command.name, MAX_NAME, "A player's name")
    except NameRefused as exc:
        raise TournamentError("bad name", exc.message) from None
    # One name, however it is spelt: `Ann` and Cyrillic `Аnn` are one player (domain.names).
    taken = next((e.name for e in state.entrants if same_name(e.name, name)), None)
    if taken is not None:
        raise TournamentError("name taken", f"{taken} is already registered")
    if len(state.entrants) >= MAX_PLAYERS:
        raise TournamentError("tournament full", f"a tournament takes at most {MAX_PLAYERS}")
    if command.bot is not None and command.bot not in BOT_NAMES:
        raise TournamentError("unknown bot", f"no bot is called {quote(command.bot)}")
    return PlayerRegistered(name, command.at_ms, command.bot)


def _withdraw(scratch: _Scratch, command: WithdrawPlayer) -> None:
    entrant = scratch.state.entrant(command.name)
    if entrant is None:
        raise TournamentError("not registered", f"{command.name} is not in this tournament")
    if entrant.withdrawn:
        raise TournamentError("withdrawn", f"{command.name} has already withdrawn")
    table = scratch.state.next_table(command.name)
    scratch.emit(PlayerWithdrew(command.name, command.at_ms))
    if table is not None:
        _forfeit(scratch, table, (command.name,), "withdrew", command.at_ms)
        scratch.finish_if_done(command.at_ms)


def _forfeit(
    scratch: _Scratch,
    table: Pairing,
    absent: tuple[str, ...],
    reason: Literal["no-show", "withdrew"],
    at_ms: int,
) -> None:
    number = scratch.state.current_round
    scratch.emit(MatchForfeited(number, table.table, table.match_id, absent, reason, at_ms))


def _pair(scratch: _Scratch, at_ms: int) -> None:
    state = scratch.state
    if not state.round_complete:
        raise TournamentError("round running", f"round {state.current_round} is not over yet")
    if len(state.active) < 2:
        raise TournamentError("too few players", "a round needs two players at least")
    total = state.total_rounds
    if state.started and total is not None and state.current_round >= total:
        raise TournamentError("all rounds played", f"all {total} rounds have been played")
    number = state.current_round + 1
    tables, byes = next_round(state)
    pairings = tuple(
        Pairing(i, match_id_for(state.tournament_id, number, i), seats)
        for i, seats in enumerate(tables, start=1)
    )
    scratch.emit(RoundPaired(number, pairings, tuple(byes), at_ms))
    for table in pairings:
        gone = tuple(name for name in table.players if _withdrawn(scratch.state, name))
        if gone:
            _forfeit(scratch, table, gone, "withdrew", at_ms)
    scratch.finish_if_done(at_ms)


def _withdrawn(state: TournamentState, name: str) -> bool:
    entrant = state.entrant(name)
    return entrant is not None and entrant.withdrawn


def _open_table(state: TournamentState, match_id: str) -> Pairing:
    found = state.pairing(match_id)
    if found is None:
        raise TournamentError(
            "not a tournament match", f"{match_id} is no table of this tournament"
        )
    if match_id in state.results:
        raise TournamentError("already reported", f"{match_id} already has its result")
    return found[1]


def _report(scratch: _Scratch, command: ReportMatch) -> None:
    table = _open_table(scratch.state, command.match_id)
    if command.winner not in (0, 1, None):
        raise TournamentError("bad result", "the winner is seat 0, seat 1 or none (a draw)")
    totals = command.totals
    if len(totals) != 2 or any(not isinstance(t, int) or t < 0 for t in totals):
        raise TournamentError("bad result", "the totals are two card-point counts, 0 or more")
    number = scratch.state.current_round
    scratch.emit(
        MatchReported(
            number,
            table.table,
            table.match_id,
            command.winner,
            (totals[0], totals[1]),
            command.at_ms,
        )
    )
    scratch.finish_if_done(command.at_ms)


def _no_show(scratch: _Scratch, command: RecordNoShow) -> None:
    table = _open_table(scratch.state, command.match_id)
    absent = tuple(dict.fromkeys(command.absent))
    if not absent or any(name not in table.players for name in absent):
        raise TournamentError("bad no-show", "name one or both players of that table")
    _forfeit(scratch, table, absent, "no-show", command.at_ms)
    scratch.finish_if_done(command.at_ms)


def _finish(scratch: _Scratch, at_ms: int) -> None:
    state = scratch.state
    if not state.started:
        raise TournamentError("not started", "pair a first round before finishing")
    if not state.round_complete:
        raise TournamentError("round running", f"round {state.current_round} is not over yet")
    scratch.emit(TournamentFinished(state.current_round, at_ms))
