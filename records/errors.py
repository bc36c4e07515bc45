"""What can go wrong with a match record, as errors a person can read.

The CLI maps them to exit codes: a file that is not a record at all is a `RecordFormatError`
(exit 2); a well-formed record whose stated decisions the engine does not confirm is a
`RecordMismatchError` (exit 1, naming the first action that differs).
"""

from __future__ import annotations

from typing import Any

from domain.errors import clipped


class RecordError(Exception):
    """Base class of every record problem; `message` is one readable sentence."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class RecordFormatError(RecordError):
    """The file is not a `crapette-record/1` record (bad JSON, bad text form, missing fields...)."""

    def __init__(self, message: str, details: dict[str, object] | None = None) -> None:
        super().__init__(message)
        self.details = details or {}


class RecordMismatchError(RecordError):
    """The record says one thing, the engine another.

    `game` and `action` are 1-based (as a reader counts them); `action` is None for a difference
    in the deal (seed, commitment, packs, first player); `stated` / `engine` are kept as given,
    and the message (and `error_reply`) shows at most QUOTE_CHARS (40) characters of each, as
    every error quotes what it refuses (docs/protocol.md: a stated pack once quoted ~400).
    """

    def __init__(
        self, game: int, action: int | None, what: str, stated: object, engine: object
    ) -> None:
        where = f"game {game}, " + (f"action {action}" if action is not None else "deal")
        said, found = clipped(str(stated)), clipped(str(engine))
        super().__init__(f"{where}: {what}: the record says {said}, the engine says {found}")
        self.game = game
        self.action = action
        self.what = what
        self.stated = stated
        self.engine = engine


class RecordRefusedError(RecordMismatchError):
    """The engine refuses an action of the record outright (not a legal action there)."""

    def __init__(self, game: int, action: int, notation: str, reason: str) -> None:
        RecordError.__init__(
            self,
            f"game {game}, action {action}: {clipped(notation)}: the engine refuses it: {reason}",
        )
        self.game = game
        self.action = action
        self.what = "action"
        self.stated = notation
        self.engine = reason


class RecordIncompleteError(RecordError):
    """A live export: a game's deal is still secret, so its actions cannot be recomputed."""


class MatchNotFoundError(RecordError):
    """No match stream of that id in the store."""


class MatchExistsError(RecordError):
    """Importing would overwrite a match already in the store. `same_record` tells whether the
    stored match is the one being imported (then its replay is what the uploader wants);
    `free_id` is an id nothing uses yet, to offer for an import under a new id."""

    def __init__(
        self, message: str, *, match_id: str = "", same_record: bool = False, free_id: str = ""
    ) -> None:
        super().__init__(message)
        self.match_id = match_id
        self.same_record = same_record
        self.free_id = free_id


def error_reply(exc: RecordError) -> tuple[dict[str, Any], int]:
    """The structured error body (docs/protocol.md) and HTTP status of a record problem."""
    body: dict[str, Any] = {"code": "invalid", "message": exc.message}
    status = 400
    if isinstance(exc, RecordFormatError):
        body["details"] = exc.details
    elif isinstance(exc, MatchNotFoundError):
        body["code"], status = "not_found", 404
    elif isinstance(exc, MatchExistsError):
        body["code"], status = "conflict", 409
        body.update(
            match_id=exc.match_id,
            same_record=exc.same_record,
            existing_replay_url=f"/replay/{exc.match_id}",
            free_id=exc.free_id,
        )
    elif isinstance(exc, RecordMismatchError):
        body.update(
            code="mismatch",
            game=exc.game,
            action=exc.action,
            what=exc.what,
            stated=clipped(str(exc.stated)),
            engine=clipped(str(exc.engine)),
        )
        status = 422
    else:
        body["code"], status = "mismatch", 422
    return body, status
