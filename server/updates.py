"""What a viewer receives for one event: the redacted event and that viewer's view after it."""

from __future__ import annotations

import logging
from typing import Any

import domain

log = logging.getLogger(__name__)

Viewer = int | None  # seat 0, seat 1, or None for a spectator

# The keys of a view a replay frame keeps (the rest is constant over a match or only for players).
REPLAY_VIEW_KEYS = (
    "piles",
    "to_move",
    "turn_number",
    "totals",
    "game_scores",
    "over",
    "result",
    "last_action",
    "call_window",
    "clock",
    "commitment",
    "seed",
    "game_index",
)


def event_json(event: Any, viewer: Viewer) -> dict[str, Any] | None:
    payload = domain.redact(event, viewer)
    if payload is None:
        return None
    return {"type": type(event).__name__, **payload}


def full_event_json(event: Any) -> dict[str, Any]:
    event_type, payload = domain.event_to_payload(event)
    return {"type": event_type, **payload}


def view_json(state: Any, viewer: Viewer) -> dict[str, Any] | None:
    if state is None:
        return None
    result: dict[str, Any] = domain.view(state, viewer).to_json()
    return result


def update_payload(
    match_id: str, version: int, event: Any, state: Any, viewer: Viewer
) -> dict[str, Any]:
    return {
        "match_id": match_id,
        "version": version,
        "event": event_json(event, viewer),
        "view": view_json(state, viewer),
    }


def replay_frame(version: int, at_ms: int, event: Any, state: Any, live: bool) -> dict[str, Any]:
    view = view_json(state, None)
    game = getattr(state, "game", None)
    return {
        "version": version,
        "game_index": None if view is None or game is None else view.get("game_index"),
        "at_ms": at_ms,
        "event": event_json(event, None) if live else full_event_json(event),
        "view": None if view is None else {k: view.get(k) for k in REPLAY_VIEW_KEYS},
    }
