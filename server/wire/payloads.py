"""The JSON the server sends, one TypedDict per shape, so that mypy checks every producer against
the same keys. docs/protocol.md is the reference for clients; a change here changes the protocol
and goes there too.

A view (`domain.View.to_json`) and an event (`domain.redact`) are the domain's own JSON and stay
plain dicts here."""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict

JsonObject = dict[str, Any]  # a JSON object as parsed or sent (a ruleset, an event's data)
ViewJson = dict[str, Any]  # domain.View.to_json()
EventJson = dict[str, Any]  # domain.redact(): an event as one viewer may see it


# -- the lobby (server.services.tableviews, server.adapters.presence)
# -----------------------------------------------------


class PresetJson(TypedDict):
    name: str
    description: str
    ruleset: JsonObject


class SeatJson(TypedDict):
    name: str | None
    bot: str | None
    connected: bool


class PresenceJson(TypedDict):
    """A seat's presence: when its owner is away, since when, and from when it is claimable."""

    connected: bool
    away_since_ms: int | None
    claimable_at_ms: int | None


class TableJson(TypedDict):
    """A table's lobby view: `GET /api/tables/<id>`, the list, and the `table` message."""

    match_id: str
    status: str  # "open", "playing" or "finished"
    preset: str
    ruleset: JsonObject
    seats: list[SeatJson]
    presence: list[PresenceJson]
    totals: list[int]
    games_played: int
    version: int
    created_at_ms: int
    rematch_of: str | None
    rematch: str | None
    bot_pace: str  # "relaxed", "normal" or "quick" (server.model.tables.BOT_PACES)
    ready: list[bool]  # the seats ready for the next game, while game `ready_game` is over
    ready_game: int | None
    rematch_offer: RematchOfferJson | None  # an offer waiting for the other seat's answer
    rematch_declined: RematchDeclinedJson | None  # the last offer was declined
    rotation: RotationJson | None  # a rotation table's people (None at any other table)
    # Played on from a finished match (server/services/practice.py): {"match_id", "version"} of
    # where.
    practice: JsonObject | None
    # A match in play with nobody at it for a while (`TableViews._idle`): the lobby's "Live games"
    # leaves it out. Not required: a table message built before it was known may lack it.
    idle: NotRequired[bool]
    # The game in play, for the lobby's "Live games" (`TableViews.game_json`): null between
    # games, and when the match is not in this process's memory (nobody is at it here).
    game: NotRequired[GameInPlayJson | None]


class GameInPlayJson(TypedDict):
    index: int  # 0 for the first game
    turn: int  # the game's turn number
    cards_left: list[int]  # each seat's reserve, hand, turned card and waste cards


class RematchOfferJson(TypedDict):
    seat: int  # who offers
    at_ms: int
    expires_at_ms: int  # unanswered by then, it lapses


class RematchDeclinedJson(TypedDict):
    seat: int  # who declined
    at_ms: int


class RematchAnswerJson(TypedDict):
    """The answer to `POST /api/tables/<id>/rematch`: the offer stands, was declined, or the
    new table is open (then its id, and the caller's seat token there: the one he had)."""

    ok: bool
    status: str  # "offered", "declined" or "opened"
    seat: int
    expires_at_ms: NotRequired[int]
    match_id: NotRequired[str]
    seat_token: NotRequired[str]


class SeatTicket(TypedDict):
    """A seat just taken: the token is its owner's only proof, shown once. At a rotation table
    a person may join the queue instead (`seat` None, `waiting` True; a bot has no token)."""

    match_id: str
    seat: int | None
    seat_token: str | None
    waiting: NotRequired[bool]
    name: NotRequired[str]


class JoinAck(TypedDict):
    """The answer to `join_table` (docs/protocol.md): the seat the client watches from (None:
    a spectator, or waiting at a rotation table), and the match's version it is now at; at a
    rotation table a person also learns whether he waits and his name."""

    ok: bool
    match_id: str
    seat: int | None
    waiting: NotRequired[bool]
    name: NotRequired[str | None]
    version: int


class PersonJson(TypedDict):
    """A person at a rotation table (docs/protocol.md, rotation tables)."""

    name: str | None
    bot: str | None
    connected: bool
    seat: int | None  # where he sits now; None while waiting
    waiting: int | None  # his place in the queue, 0 = next; None while seated
    total: int
    wins: int


class SeatChangeJson(TypedDict):
    game_index: int
    version: int
    left: str
    entered: str
    seat: int


class RotationJson(TypedDict):
    mode: str
    max_people: int
    can_join: bool
    people: list[PersonJson]
    seated: list[str | None]
    queue: list[str]
    last_change: SeatChangeJson | None
    winner: str | None


class Done(TypedDict):
    ok: bool


# -- a player's command (server.services.player_commands, server.readmodels.updates)
# ------------------------------------------------------------


class CommandDone(TypedDict):
    """The ack of an applied command: the match version after it."""

    ok: bool
    version: int
    duplicate: NotRequired[bool]  # True: this command id was applied before; nothing new


class SeatMessage(TypedDict):
    """The `seat` message: a rotation table's person changed place (docs/protocol.md)."""

    match_id: str
    seat: int | None
    waiting: bool
    name: str
    version: int
    view: ViewJson | None


class Update(TypedDict):
    """One update of an `updates` message: one event as a viewer may see it, and that viewer's
    view after it."""

    match_id: str
    version: int
    at_ms: int | None  # when the event was recorded
    event: EventJson
    view: ViewJson | None


class Updates(TypedDict):
    """The `updates` message: the updates of one batch (a command's events, a server step's, a
    reconnect backlog) for one viewer, in version order."""

    match_id: str
    updates: list[Update]


# -- reads (server.services.reads)
# --------------------------------------------------------------------------


class ViewAt(TypedDict):
    version: int
    view: ViewJson | None


class ReplayFrame(TypedDict):
    version: int
    game_index: int | None
    at_ms: int
    event: EventJson
    view: JsonObject | None  # the keys of updates.REPLAY_VIEW_KEYS (+ face_down)


class Replay(TypedDict):
    """`GET /api/matches/<id>/replay` before its `frames`, which server.readmodels.replays encodes
    one by one and appends: `ReplayFrame`s, each keyframe whole, the others with `delta` for
    `view`."""

    match_id: str
    format: str
    live: bool
    version: int
    keyframe_every: int
    players: list[str | None]
    ruleset: JsonObject
    analysis: JsonObject  # domain.analysis of the finished games (server.readmodels.knowledge)
    pairs: NotRequired[list[list[str]]]  # a rotation table: who played each game, by index
