"""A verified record's analysis in words, for `crapette verify --analysis`: recomputed from the
engine's events every time (a record holds none of it)."""

from __future__ import annotations

from domain import Event
from domain.analysis import Fault, GameAnalysis, MatchAnalysis, analyse


def action_numbers(batches: list[list[Event]]) -> dict[int, int]:
    """Stream index of each command's first event → its action number in its game (from 1),
    as records count them."""
    numbers: dict[int, int] = {}
    index = 0
    number = 0
    for batch in batches:
        if batch and type(batch[0]).__name__ == "GameStarted":
            number = 0
        elif batch:
            number += 1
            for offset in range(len(batch)):
                numbers[index + offset] = number
        index += len(batch)
    return numbers


def analysis_lines(batches: list[list[Event]]) -> list[str]:
    analysis = analyse([event for batch in batches for event in batch])
    numbers = action_numbers(batches)
    lines: list[str] = []
    for game in analysis.games:
        players = analysis.players
        seats = "; ".join(_seat_text(analysis, game, seat) for seat in (0, 1))
        lines.append(f"game {game.game_index + 1}: {seats}")
        lines.extend(_fault_text(f, players, numbers) for f in game.faults)
    if not analysis.games:
        lines.append("no finished game to analyse")
    return lines


def _seat_text(analysis: MatchAnalysis, game: GameAnalysis, seat: int) -> str:
    s = game.seats[seat]
    return (
        f"{analysis.players[seat]} {s.faults} fault(s), calls {s.right_calls} right "
        f"{s.wrong_calls} wrong {s.missed_calls} missed, {s.to_foundations} card(s) to the "
        f"foundations, longest turn {s.longest_turn_ms / 1000:.1f} s"
    )


def _fault_text(fault: Fault, players: tuple[str, str], numbers: dict[int, int]) -> str:
    number = numbers.get(fault.index, 0)
    who = players[fault.seat]
    move = fault.skipped
    skipped = f"; compulsory {move.src}-{move.dst} {move.card}" if move is not None else ""
    if fault.called_by is None:
        judged = f"missed: {players[1 - fault.seat]} could have called Crapette!"
    else:
        judged = f"called by {players[fault.called_by]}"
    return f"  action {number}: {who} {fault.action.notation()}, {fault.rule}; {judged}{skipped}"
