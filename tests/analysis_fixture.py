"""A stand-in analyser with the shape of `server.readmodels.judge.analyse_record` (docs/records.md
§ analysis), for the tests of the server and the replay page: they are about the plumbing (the
worker, the cache, the refusals, what the page draws), not about how good the judgements are,
and must not take the real evaluator's seconds. Deterministic: its figures come from a hash of
the record and the decision, and its best move is the `steady` bot's choice at that position,
so that it is always a legal action there. Each fault nobody called is a missed call, judged a
`mistake` (its chance a hash too).

`CRAPETTE_FIXTURE_DELAY_S` makes it spend that long per decision (a test that watches the
progress, or a benchmark that needs a long analysis, sets it)."""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable
from typing import Any

import domain
from domain.analysis import Fault, analyse
from domain.bots import make_bot
from records.verify import verify_record

THRESHOLDS = ((0.3, "blunder"), (0.2, "mistake"), (0.1, "inaccuracy"))
# The match ids of the records analysed in this process (a test counts the analyses a cache saved).
CALLS: list[str] = []


def _unit(*parts: object) -> float:
    digest = hashlib.sha256(repr(parts).encode()).digest()
    return int.from_bytes(digest[:4], "big") / 2**32


def _action_json(action: domain.Action) -> dict[str, Any]:
    return {**action.to_json(), "text": action.notation()}


def analyse_record(
    record: dict[str, Any],
    *,
    depth: str = "normal",
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    CALLS.append(str(record.get("match_id")))
    verified = verify_record(record)
    delay = float(os.environ.get("CRAPETTE_FIXTURE_DELAY_S", "0"))
    steps: list[tuple[int, domain.MatchState, domain.Action]] = []
    state: domain.MatchState | None = None
    version = 0
    events = [event for batch in verified.batches for event in batch]
    uncalled = {f.index: f for g in analyse(events).games for f in g.missed}
    missed: list[tuple[int, Fault]] = []  # (the position after the fault, the fault)
    for batch in verified.batches:
        before = state
        for event in batch:
            state = domain.evolve(state, event)
        action = _played(batch)
        if before is not None and before.game is not None and action is not None:
            steps.append((version, before, action))
        if version in uncalled:
            missed.append((version + len(batch), uncalled[version]))
        version += len(batch)
    games: dict[int, dict[str, Any]] = {}
    for i, (at, before, played) in enumerate(steps):
        game = before.game
        assert game is not None
        entry = games.setdefault(
            game.game_index,
            {"game_index": game.game_index, "decisions": [], "missed_calls": []},
        )
        entry["decisions"].append(_decision(at, before, played, seed))
        if delay:  # busy, like a real evaluator: it would show on a loop it ran on
            until = time.monotonic() + delay
            while time.monotonic() < until:
                pass
        if progress is not None:
            progress(i + 1, len(steps))
    for at, fault in missed:
        if fault.game_index in games:
            games[fault.game_index]["missed_calls"].append(_missed_call(at, fault))
    for entry in games.values():
        entry["seats"] = [_seat(entry["decisions"], seat) for seat in (0, 1)]
    return {"depth": depth, "games": [games[k] for k in sorted(games)]}


def _played(batch: list[domain.Event]) -> domain.Action | None:
    from records.decisions import action_of

    if not batch or isinstance(batch[0], domain.GameStarted | domain.MatchStarted):
        return None
    action = action_of(batch[0])
    return action if isinstance(action, domain.Move | domain.Turn | domain.Discard) else None


def _decision(
    version: int, before: domain.MatchState, played: domain.Action, seed: int
) -> dict[str, Any]:
    seat = played.seat
    best = make_bot("steady", seed=seed).choose(domain.view(before, seat)) or played
    chance = 0.2 + 0.6 * _unit("before", version)
    same = best.notation() == played.notation()
    drop = 0.0 if same else 0.45 * _unit("drop", version) ** 2
    judgement = "best" if same else next((j for t, j in THRESHOLDS if drop >= t), "good")
    after = max(0.0, chance - drop)
    decision: dict[str, Any] = {
        "version": version,
        "seat": seat,
        "played": _action_json(played),
        "best": _action_json(best),
        "win_chance": {"before": round(chance, 3), "after": round(after, 3), "best": chance},
        "judgement": judgement,
        "check": None,
    }
    if judgement in ("inaccuracy", "mistake", "blunder"):  # checked, as the real judge's are
        played_share = round(max(0.0, chance - drop - 0.02), 3)
        decision["check"] = {"deals": 32, "best": round(chance, 3), "played": played_share}
    return decision


def _missed_call(version: int, fault: Fault) -> dict[str, Any]:
    """A missed call as the real judge gives it: the call the seat could have made, a mistake."""
    seat = 1 - fault.seat
    chance = 0.2 + 0.6 * _unit("call", version)
    return {
        "version": version,
        "seat": seat,
        "played": None,
        "best": _action_json(domain.Call(seat)),
        "win_chance": {"before": chance, "after": round(chance - 0.2, 3), "best": chance},
        "judgement": "mistake",
        "fault": fault.to_json(),
    }


def _seat(decisions: list[dict[str, Any]], seat: int) -> dict[str, Any]:
    own = [d for d in decisions if d["seat"] == seat]
    counts = {j: 0 for j in ("best", "good", "inaccuracy", "mistake", "blunder")}
    for d in own:
        counts[d["judgement"]] += 1
    drops = [d["win_chance"]["best"] - d["win_chance"]["after"] for d in own]
    accuracy = 100.0 if not drops else max(0.0, 100 - 100 * sum(drops) / len(drops) * 3)
    return {"accuracy": round(accuracy, 1), "counts": counts}


def judge_try(
    state: domain.MatchState, action: domain.Action, *, depth: str = "normal", seed: int = 0
) -> float:
    """A try's win chance, as `analyse_record` judges: the steady bot's choice keeps the
    chance it gives the best move, any other loses some (more than `AS_GOOD`)."""
    best = make_bot("steady", seed=seed).choose(domain.view(state, action.seat))
    chance = 0.2 + 0.6 * _unit("before", state.version)
    if best is not None and best.notation() == action.notation():
        return chance
    return max(0.0, chance - 0.05 - 0.3 * _unit("try", state.version, action.notation()))
