"""What a viewer receives for one event: the redacted event and that viewer's view after it."""

from __future__ import annotations

from collections.abc import Sequence

import domain
from server.adapters.matches import Applied
from server.wire.payloads import EventJson, JsonObject, ReplayFrame, Update, ViewJson

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


def event_json(event: domain.Event, viewer: Viewer, state: domain.MatchState | None) -> EventJson:
    """The event as that viewer may see it, judged against `state` (seed and faults are shown
    once the event's game is over)."""
    return domain.redact(event, viewer, state)


def view_json(state: domain.MatchState | None, viewer: Viewer) -> ViewJson | None:
    if state is None:
        return None
    return domain.view(state, viewer).to_json()


def update_payload(
    match_id: str,
    version: int,
    event: domain.Event,
    state: domain.MatchState,
    viewer: Viewer,
    final: bool = True,
    at_ms: int | None = None,
) -> Update:
    """`final` is False for an event that other events of the same batch follow: its position is
    already past when the client sees it, so its view offers no legal actions (a client acting on
    it would only be refused). `at_ms`: when the event was recorded (a live replay's timing)."""
    return update_payloads(match_id, version, event, state, (viewer,), final, at_ms)[0]


def update_payloads(
    match_id: str,
    version: int,
    event: domain.Event,
    state: domain.MatchState,
    viewers: Sequence[Viewer],
    final: bool = True,
    at_ms: int | None = None,
) -> list[Update]:
    """`update_payload` for each of `viewers`, in their order: the position's public view is
    built once and each viewer's made from its JSON (`domain.seat_view_json`)."""
    public = domain.public_view_json(state)
    payloads: list[Update] = []
    for viewer in viewers:
        view = domain.seat_view_json(public, state, viewer, with_legal=final)
        payloads.append(
            {
                "match_id": match_id,
                "version": version,
                "at_ms": at_ms,
                "event": event_json(event, viewer, state),
                "view": view,
            }
        )
    return payloads


def batch_updates(
    match_id: str, items: Sequence[Applied], viewers: Sequence[Viewer]
) -> list[list[Update]]:
    """Each of `viewers`' updates for `items` (events just folded, in order), in the viewers'
    order: what one `updates` message to each viewer's room carries. Only the last event's
    views offer legal actions (`update_payload`'s `final`)."""
    last = items[-1].version
    batches: list[list[Update]] = [[] for _ in viewers]
    for item in items:
        payloads = update_payloads(
            match_id,
            item.version,
            item.event,
            item.state,
            viewers,
            final=item.version == last,
            at_ms=item.at_ms,
        )
        for batch, payload in zip(batches, payloads, strict=True):
            batch.append(payload)
    return batches


def replay_frame(
    version: int,
    at_ms: int,
    event: domain.Event,
    state: domain.MatchState,
    now: domain.MatchState | None,
    show_all: bool = False,
) -> ReplayFrame:
    """One replay step: the public event (judged against the match `now`, so finished games are
    shown in full) and the spectator view after it. With `show_all` (a finished match), and in
    any game that is over in `now`, the view shows every card, and `face_down` says how many at
    the bottom of each pile were hidden."""
    view = view_json(state, None)
    frame_view: JsonObject | None
    if view is None:
        frame_view = None
    else:
        frame_view = {k: view.get(k) for k in REPLAY_VIEW_KEYS}
        if "session" in view:  # a rotation table: who sits, and everyone's totals
            frame_view["players"] = view["players"]
            frame_view["session"] = view["session"]
        game = state.game
        if game is not None and (show_all or game_over(now, game.game_index)):
            hidden = {name: cards.count(None) for name, cards in view["piles"].items()}
            frame_view["piles"] = {name: [str(c) for c in game.piles[name]] for name in hidden}
            frame_view["face_down"] = hidden
    return {
        "version": version,
        "game_index": None if view is None else view.get("game_index"),
        "at_ms": at_ms,
        "event": event_json(event, None, now),
        "view": frame_view,
    }


def game_over(now: domain.MatchState | None, game_index: int) -> bool:
    """Is game `game_index` over in the match as it stands (`now`)? Its cards, faults and
    analysis are public then."""
    if now is None or now.game is None:
        return False
    return bool(now.finished or game_index < now.game.game_index or now.game.over)
