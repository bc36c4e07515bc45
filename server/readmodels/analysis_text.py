"""A verified record's analysis in words, for `crapette verify --analysis` and `crapette
analyse`: the rule faults (domain/analysis.py) and the judgements of the moves
(server/readmodels/judge.py), recomputed from the engine's events every time (a record holds none
of it)."""

from __future__ import annotations

from typing import Any

from domain import Event, MatchState, evolve
from domain.analysis import Fault, GameAnalysis, MatchAnalysis, analyse, players_by_game


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


def judgement_lines(result: dict[str, Any], batches: list[list[Event]]) -> list[str]:
    """`analyse_record`'s judgements in words (server/readmodels/judge.py): per game each seat's
    accuracy and counts, then its mistakes and blunders (the move played, the best one found)
    and its missed calls; then the match's accuracy per seat."""
    events = [event for batch in batches for event in batch]
    pairs = players_by_game(events)
    states = _states_at(batches, _versions(result))
    numbers = action_numbers(batches)
    lines = [f"judgements (depth {result.get('depth')}, seed {result.get('seed', 0)}):"]
    for game in result["games"]:
        index = int(game["game_index"])
        players = pairs[index] if index < len(pairs) else ("seat 0", "seat 1")
        seats = "; ".join(f"{players[s]} {_summary_text(game['seats'][s])}" for s in (0, 1))
        lines.append(f"game {index + 1}: {seats}")
        judged = [d for d in game["decisions"] if d["judgement"] in ("mistake", "blunder")]
        judged += game.get("missed_calls", [])
        for d in sorted(judged, key=lambda d: (int(d["version"]), d.get("fault") is not None)):
            lines.append(_decision_text(d, players, numbers, states.get(int(d["version"]))))
    if not result["games"]:
        lines.append("no decision to judge")
    match = result.get("match")
    if match is not None and len(pairs) <= 1:
        players = pairs[0] if pairs else ("seat 0", "seat 1")
        seats = "; ".join(f"{players[s]} {_summary_text(match['seats'][s])}" for s in (0, 1))
        lines.append(f"match: {seats}")
    elif match is not None:  # a rotation table: seats, not people
        seats = "; ".join(f"seat {s} {_summary_text(match['seats'][s])}" for s in (0, 1))
        lines.append(f"match: {seats}")
    return lines


_PLURALS = {"best": "best", "good": "good", "inaccuracy": "inaccuracies", "mistake": "mistakes",
            "blunder": "blunders"}  # fmt: skip


def _summary_text(seat: dict[str, Any]) -> str:
    counts = ", ".join(
        f"{n} {j if n == 1 else _PLURALS.get(j, j)}" for j, n in seat["counts"].items()
    )
    return f"accuracy {float(seat['accuracy']):.1f} ({counts})"


def _versions(result: dict[str, Any]) -> set[int]:
    return {
        int(d["version"])
        for g in result["games"]
        for d in g["decisions"] + g.get("missed_calls", [])
    }


def _states_at(batches: list[list[Event]], versions: set[int]) -> dict[int, MatchState]:
    """The match state after each of these versions (the positions decided at)."""
    states: dict[int, MatchState] = {}
    state: MatchState | None = None
    done = 0
    for batch in batches:
        for event in batch:
            state = evolve(state, event)
            done += 1
        if done in versions and state is not None:
            states[done] = state
    return states


def _action_text(action: dict[str, Any] | None, state: MatchState | None) -> str:
    """`T3-F0 5D`: the notation, with the card a move takes from the position."""
    if action is None:
        return "nothing"
    text = str(action.get("text") or action.get("do"))
    game = state.game if state is not None else None
    if action.get("do") == "move" and game is not None and " " not in text:
        pile = game.pile(str(action["from"]))
        if pile:
            text = f"{text} {pile[-1].code}"
    return text


def _pct(p: object) -> str:
    return f"{round(100 * float(str(p)))}%"


def _decision_text(
    d: dict[str, Any],
    players: tuple[str, str],
    numbers: dict[int, int],
    state: MatchState | None,
) -> str:
    chance = d["win_chance"]
    who = players[int(d["seat"])]
    fault = d.get("fault")
    if fault is not None:
        number = numbers.get(int(fault["version"]) - 1, 0)
        return (
            f"  action {number}: {who} missed a call on {players[int(fault['seat'])]}'s "
            f'"{fault["action"]}" ({fault["rule"]}): {_article(d["judgement"])} (win chance '
            f"{_pct(chance['after'])}; {_pct(chance['best'])} with the call)"
        )
    number = numbers.get(int(d["version"]), 0)
    check = d.get("check")
    checked = (
        f"; checked on {check['deals']} deals: best wins {_pct(check['best'])}, "
        f"played {_pct(check['played'])}"
        if check
        else ""
    )
    return (
        f"  action {number}: {who} {_action_text(d['played'], state)}, "
        f"{_article(d['judgement'])} (win chance {_pct(chance['before'])} -> "
        f"{_pct(chance['after'])}); best {_action_text(d['best'], state)} "
        f"({_pct(chance['best'])}){checked}"
    )


def _article(judgement: str) -> str:
    return f"an {judgement}" if judgement[0] in "aeiou" else f"a {judgement}"
