"""How well a match was played: the win chance at every decision of a verified record and a
judgement of each move (docs/records.md § How well it was played). `crapette analyse`, `crapette
verify --analysis` and the server's analysis workers (server/readmodels/analysis_build.py) all call
`analyse_record`.

A record as a library: this module reads a record (verified by `records.verify`, never
trusted) and asks the evaluator (`domain.evaluator`) for chances; it holds no rules and touches
no store. Each decision of each game is a play action of the seat to move (a move, a turn or a
discard; a pass is the only thing left to do when it is allowed) and is judged by the chance it
threw away: one `rank_actions` of the position as that seat could know it gives the best move
found and its chance (also the chance `before`: the best the position offers), and the chance
after the move played (from the same ranking, or `chance_after` when the ranking lacks it).

A missed Crapette call (domain/analysis.py: a fault of the opponent that nobody called) is a
judgement too: the chance the call would have given the seat that could have made it, against
its chance with the fault standing. Rule faults keep their own marks (the replay's analysis);
this only judges the chances.

Deterministic: the same record, depth and seed give the same figures (the evaluator is seeded;
nothing here draws at random)."""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import domain
from domain.analysis import Fault, analyse
from records.decisions import action_of
from records.verify import Verified, verify_record

DEPTHS = ("quick", "normal", "deep")
JUDGEMENTS = ("best", "good", "inaccuracy", "mistake", "blunder")
# The drop in win chance (0-1, the best move's chance less the played move's) from which a
# decision is judged so, worst first (lichess's 0.1 / 0.2 / 0.3). Under BEST_WITHIN it is `best`
# (the evaluator's own noise between two equally good moves), under the lowest threshold `good`.
THRESHOLDS = ((0.3, "blunder"), (0.2, "mistake"), (0.1, "inaccuracy"))
BEST_WITHIN = 0.02
# A missed call is never judged better than this: a call was there to make, and was not.
MISSED_CALL_AT_LEAST = "inaccuracy"
# A decision's accuracy from its drop d (0-1): lichess's curve on win percentages,
# A * exp(-K * d) - C, clamped to 0-100: 100 for no drop, 91.4 at 0.02, 63.6 at 0.1, 40.0 at
# 0.2, 24.8 at 0.3.
ACCURACY_A, ACCURACY_K, ACCURACY_C = 103.1668, 4.354, 3.1669
# Win chances are given to this many decimals.
DIGITS = 4

Progress = Callable[[int, int], None]


class Evaluator(Protocol):
    """What the judge needs of `domain.evaluator` (docs/evaluator.md)."""

    def win_chance(
        self,
        match: domain.MatchState,
        seat: int,
        *,
        depth: str = ...,
        seed: int = ...,
        omniscient: bool = ...,
    ) -> float: ...

    def rank_actions(
        self,
        match: domain.MatchState,
        seat: int,
        *,
        depth: str = ...,
        seed: int = ...,
        omniscient: bool = ...,
    ) -> list[tuple[domain.Action, float]]: ...

    def chance_after(
        self, match: domain.MatchState, action: domain.Action, *, depth: str = ..., seed: int = ...
    ) -> float: ...


def evaluator() -> Evaluator:
    """The evaluator module (imported when first asked for, so that a record can be verified
    without it; tests put a fake one here)."""
    module: Evaluator = importlib.import_module("domain.evaluator")
    return module


class JudgeError(ValueError):
    """A request the judge cannot answer (an unknown depth)."""


def judgement(drop: float, same: bool = False) -> str:
    """The judgement of a decision that threw away `drop` of its seat's win chance (`same`: the
    move played is the best one found)."""
    if same or drop < BEST_WITHIN:
        return "best"
    return next((name for limit, name in THRESHOLDS if drop >= limit), "good")


def move_accuracy(drop: float) -> float:
    """One decision's accuracy (0-100) from its drop (0-1): 100 for none, falling smoothly."""
    value = ACCURACY_A * math.exp(-ACCURACY_K * max(0.0, drop)) - ACCURACY_C
    return min(100.0, max(0.0, value))


def drop_of(decision: dict[str, Any]) -> float:
    chance = decision["win_chance"]
    return max(0.0, float(chance["best"]) - float(chance["after"]))


def seat_summary(decisions: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """A seat's accuracy (the mean of its decisions' accuracies, 100 with none) and how many
    of each judgement."""
    counts = dict.fromkeys(JUDGEMENTS, 0)
    accuracies: list[float] = []
    for d in decisions:
        counts[d["judgement"]] += 1
        accuracies.append(move_accuracy(drop_of(d)))
    accuracy = sum(accuracies) / len(accuracies) if accuracies else 100.0
    return {"accuracy": round(accuracy, 1), "counts": counts}


def action_json(action: domain.Action) -> dict[str, Any]:
    return {**action.to_json(), "text": action.notation()}


@dataclass(frozen=True)
class Step:
    """A decision to judge: the position (after `version` events) and what the seat did there.
    `fault`: a missed call's fault (then `played` is None: the call not made)."""

    version: int
    state: domain.MatchState
    seat: int
    played: domain.Action | None
    fault: Fault | None = None


def steps_of(batches: Sequence[Sequence[domain.Event]]) -> list[Step]:
    """Every decision of a verified record's events (one list per command), in stream order:
    each play action of the seat to move, and each missed call at the position after the fault
    it left uncalled."""
    missed = {
        f.index: f for game in analyse(e for b in batches for e in b).games for f in game.missed
    }
    steps: list[Step] = []
    state: domain.MatchState | None = None
    version = 0
    for batch in batches:
        before = state
        for event in batch:
            state = domain.evolve(state, event)
        played = _played(batch)
        if before is not None and before.game is not None and played is not None:
            steps.append(Step(version, before, played.seat, played))
        fault = missed.get(version)
        if fault is not None and state is not None and state.game is not None:
            call = domain.Call(1 - fault.seat)
            if call in domain.legal_actions(state, call.seat):
                steps.append(Step(version + len(batch), state, call.seat, None, fault))
        version += len(batch)
    return steps


def _played(batch: Sequence[domain.Event]) -> domain.Action | None:
    """The play action (a move, turn or discard) whose command made `batch`, if it is one."""
    if not batch or isinstance(batch[0], domain.GameStarted | domain.MatchStarted):
        return None
    action = action_of(batch[0])
    return action if isinstance(action, domain.Move | domain.Turn | domain.Discard) else None


def action_key(action: domain.Action) -> tuple[Any, ...]:
    """An action whatever card it names (the engine's listing names none)."""
    data = action.to_json()
    return tuple(data.get(k) for k in ("do", "seat", "from", "to", "hand", "move"))


def judge_move(step: Step, ev: Evaluator, depth: str, seed: int) -> dict[str, Any]:
    """A move's decision: the best move found, its chance (the chance before), the played one's."""
    played = step.played
    assert played is not None
    ranking = ev.rank_actions(step.state, step.seat, depth=depth, seed=seed)
    figures = {action_key(a): float(c) for a, c in ranking}
    after = figures.get(action_key(played))
    if after is None:
        after = float(ev.chance_after(step.state, played, depth=depth, seed=seed))
    best, best_chance = (ranking[0][0], float(ranking[0][1])) if ranking else (played, after)
    if after >= best_chance:  # the move played is (as good as) the best found
        best, best_chance = played, after
    same = action_key(best) == action_key(played)
    best_chance, after = round(best_chance, DIGITS), round(after, DIGITS)
    return {
        "version": step.version,
        "seat": step.seat,
        "played": action_json(played),
        "best": action_json(best),
        "win_chance": {"before": best_chance, "after": after, "best": best_chance},
        "judgement": judgement(best_chance - after, same),
    }


def judge_missed_call(step: Step, ev: Evaluator, depth: str, seed: int) -> dict[str, Any]:
    """A missed call's decision: the seat's chance had it called (the best), against its chance
    with the fault standing (`after`: the position as it was left, nobody calling)."""
    fault = step.fault
    assert fault is not None
    call = domain.Call(step.seat)
    game = step.state.game
    assert game is not None
    called = domain.play(step.state, domain.Act(call, game.move_started_at_ms))[1]
    best = float(ev.win_chance(called, step.seat, depth=depth, seed=seed))
    after = float(ev.win_chance(step.state, step.seat, depth=depth, seed=seed))
    best, after = round(max(best, after), DIGITS), round(after, DIGITS)
    judged = judgement(best - after)
    floor = JUDGEMENTS.index(MISSED_CALL_AT_LEAST)
    return {
        "version": step.version,
        "seat": step.seat,
        "played": None,
        "best": action_json(call),
        "win_chance": {"before": best, "after": after, "best": best},
        "judgement": JUDGEMENTS[max(floor, JUDGEMENTS.index(judged))],
        "fault": fault.to_json(),
    }


def analyse_record(
    record: dict[str, Any],
    *,
    depth: str = "normal",
    seed: int = 0,
    progress: Progress | None = None,
    verified: Verified | None = None,
) -> dict[str, Any]:
    """The judgements of every decision of `record` (verified first: RecordError if it does not
    hold; `verified`: the caller verified it already, this is `verify_record(record)`), at the
    evaluator's `depth`, `progress(done, total)` after each decision:
    `{"depth", "seed", "games": [{"game_index", "seats": [{"accuracy", "counts"}] * 2,
    "decisions": [...], "missed_calls": [...]}], "match": {"seats": [...]}}`."""
    if depth not in DEPTHS:
        raise JudgeError(f"depth is one of {', '.join(DEPTHS)}, not {depth!r}")
    if verified is None:
        verified = verify_record(record)
    steps = steps_of(verified.batches)
    ev = evaluator()
    games: dict[int, dict[str, Any]] = {}
    for done, step in enumerate(steps, start=1):
        game = step.state.game
        assert game is not None
        entry = games.setdefault(
            game.game_index,
            {"game_index": game.game_index, "decisions": [], "missed_calls": []},
        )
        if step.fault is None:
            entry["decisions"].append(judge_move(step, ev, depth, seed))
        else:
            entry["missed_calls"].append(judge_missed_call(step, ev, depth, seed))
        if progress is not None:
            progress(done, len(steps))
    ordered = [games[k] for k in sorted(games)]
    for entry in ordered:
        judged = entry["decisions"] + entry["missed_calls"]
        entry["seats"] = [seat_summary(d for d in judged if d["seat"] == s) for s in (0, 1)]
    every = [d for g in ordered for d in g["decisions"] + g["missed_calls"]]
    match = {"seats": [seat_summary(d for d in every if d["seat"] == s) for s in (0, 1)]}
    return {"depth": depth, "seed": seed, "games": ordered, "match": match}
