"""What the server decided, in record words, from the events one command produced.

Export and verify share this: export describes the events stored in a match stream, verify
describes the events the engine produces afresh, and the two descriptions are compared key by key.
So a record's decisions are exactly what this module makes of the engine's events.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import domain
from domain import (
    ActionVoided,
    CardDiscarded,
    CardMoved,
    CompulsoryMovePlayed,
    CrapetteCalled,
    DrawAccepted,
    DrawOffered,
    GameResigned,
    GameStalemated,
    GameWon,
    HandCardTurned,
    MatchWon,
    Passed,
    SeatsRotated,
    TimeExpired,
    TurnEnded,
    WasteTurnedOver,
)
from records.errors import RecordError

# The order in which decisions are compared (and written): the first that differs is reported.
DECISION_KEYS = (
    "card",
    "fault",
    "rule",
    "recycled",
    "verdict",
    "penalty",
    "target",
    "voided",
    "compulsory",
    "discarded",
    "turn_end",
)

# An undone step in game words (docs/spec/rules.md §7: what a right call takes back).
_VOIDED_WORDS = {
    "CardMoved": "move",
    "HandCardTurned": "turn",
    "WasteTurnedOver": "recycle",
    "CardDiscarded": "discard",
    "Passed": "pass",
    "TurnEnded": "turn-end",
}


def voided_text(event: ActionVoided) -> str:
    """``move T3-F0 AS/1``, ``turn 7C/0``, ``recycle 12``, ``discard 7C/0``, ``turn-end``..."""
    word = _VOIDED_WORDS.get(event.voided, event.voided.lower())
    if event.voided == "CardMoved":
        return f"{word} {event.src}-{event.dst} {event.card}"
    if event.voided == "WasteTurnedOver":
        return f"{word} {event.count}"
    if event.card is not None:
        return f"{word} {event.card}"
    return word


def action_of(event: domain.Event) -> domain.Action | None:
    """The player action whose command starts with `event` (None: not an action's first event)."""
    if isinstance(event, CardMoved):
        return domain.Move(event.seat, event.src, event.dst)
    if isinstance(event, HandCardTurned):
        return event.action
    if isinstance(event, WasteTurnedOver):
        return domain.Turn(event.seat)
    if isinstance(event, CardDiscarded):
        return domain.Discard(event.seat)
    if isinstance(event, Passed):
        return domain.Pass(event.seat)
    if isinstance(event, CrapetteCalled):
        if event.named is not None:  # the call as the caller made it, named move included
            try:
                return domain.parse_action(f"crapette {event.named}", event.caller)
            except domain.NotationError:
                pass
        return domain.Call(event.caller)
    if isinstance(event, DrawOffered):
        return domain.OfferDraw(event.seat)
    if isinstance(event, DrawAccepted):
        return domain.AcceptDraw(event.seat)
    if isinstance(event, TimeExpired):
        return domain.TimeOut(event.seat)
    if isinstance(event, GameResigned):
        return domain.Resign(event.seat)
    if isinstance(event, MatchWon) and event.abandoned_by is not None:
        return domain.Abandon(event.abandoned_by, claimed=event.claimed)  # between two games
    return None


def describe(
    action: domain.Action, events: Sequence[domain.Event], action_number: Callable[[int], int]
) -> tuple[dict[str, Any], dict[str, Any] | None, dict[str, Any] | None]:
    """(decisions, game result or None, match result or None) of one command's events.

    `action_number(stream_index)` names the action (1-based, within the game) whose first event
    has that stream index, for a call's target.
    """
    out: dict[str, Any] = {}
    game_result: dict[str, Any] | None = None
    match_result: dict[str, Any] | None = None
    primary = True
    for event in events:
        if primary and (
            isinstance(event, (CardMoved, HandCardTurned))
            or (isinstance(event, CardDiscarded) and isinstance(action, domain.Discard))
        ):
            out["card"] = str(event.card)
            _fault(out, event.fault)
        elif isinstance(event, CardDiscarded):
            out["discarded"] = {"card": str(event.card), "reason": event.auto or ""}
        elif isinstance(event, Passed):
            _fault(out, event.fault)
        elif isinstance(event, WasteTurnedOver):
            out["recycled"] = event.count
            continue  # the turned card that follows is still the action's own event
        elif isinstance(event, CrapetteCalled):
            out["verdict"] = event.verdict
            if event.rule is not None:
                out["rule"] = event.rule
            if event.penalty:
                out["penalty"] = True
            out["target"] = action_number(event.target_index)
        elif isinstance(event, ActionVoided):
            out.setdefault("voided", []).append(voided_text(event))
        elif isinstance(event, CompulsoryMovePlayed):
            out["compulsory"] = {"from": event.src, "to": event.dst, "card": str(event.card)}
        elif isinstance(event, TurnEnded):
            out.setdefault("turn_end", []).append({"next": event.next_seat, "reason": event.reason})
        elif isinstance(event, GameWon):
            game_result = _result("win", event.winner, event.reason, event.score, None)
        elif isinstance(event, GameStalemated):
            game_result = _result("stalemate", None, event.reason, event.score, event.penalties)
        elif isinstance(event, GameResigned):
            reason = f"seat {event.seat} resigned"
            game_result = _result("resign", event.winner, reason, event.score, None)
        elif isinstance(event, MatchWon):
            match_result = {"finished": True, "winner": event.winner, "totals": list(event.totals)}
        elif isinstance(event, (DrawOffered, DrawAccepted, TimeExpired)):
            pass  # the action itself says it all
        elif isinstance(event, SeatsRotated):
            pass  # the game's `seat_change` (docs/spec/records.md §3), not the action's
        else:
            # An event of a newer engine: refuse rather than write a record that loses it.
            raise RecordError(f"{type(event).__name__} has no place in a record of this version")
        primary = False
    return out, game_result, match_result


def _fault(out: dict[str, Any], fault: str | None) -> None:
    if fault is not None:
        out["fault"] = True
        out["rule"] = fault


def _result(
    outcome: str,
    winner: int | None,
    reason: str,
    score: Sequence[int],
    penalties: Sequence[int] | None,
) -> dict[str, Any]:
    return {
        "outcome": outcome,
        "winner": winner,
        "reason": reason,
        "score": list(score),
        "penalties": list(penalties) if penalties is not None else None,
    }
