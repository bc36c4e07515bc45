"""Errors the server turns into `{code, message, ...}` replies; every one has a readable message."""

from __future__ import annotations


class ServerError(Exception):
    """A refusal or a malformed input, sent back as a structured error (never a crash)."""

    code = "internal"
    http_status = 500

    def __init__(self, message: str, **extra: object) -> None:
        super().__init__(message)
        self.message = message
        self.extra = extra

    def to_json(self) -> dict[str, object]:
        return {"code": self.code, "message": self.message, **self.extra}


class InvalidInputError(ServerError):
    code = "invalid"
    http_status = 400


class TooLargeError(ServerError):
    """A request body over the route's size limit."""

    code = "too_large"
    http_status = 413


class OriginRefusedError(ServerError):
    """A browser page of another site sent a request that changes something (docs/protocol.md)."""

    code = "forbidden_origin"
    http_status = 403


class NotFoundError(ServerError):
    code = "not_found"
    http_status = 404


class ForbiddenError(ServerError):
    code = "forbidden"
    http_status = 403


class SeatTakenError(ServerError):
    code = "conflict"
    http_status = 409


class CommandConflictError(ServerError):
    """The position changed under a command twice in a row: the client may send it again."""

    code = "conflict"
    http_status = 409


class NoRematchOfferError(ServerError):
    """An answer to a rematch offer that does not stand (none made, or it lapsed)."""

    code = "conflict"
    http_status = 409


class CommandRefusedError(ServerError):
    """The rules refused the action; `rule` is the domain's short stable code."""

    code = "refused"
    http_status = 422


class NotPlayingError(ServerError):
    code = "not_playing"
    http_status = 409


class TooEarlyError(ServerError):
    code = "too_early"
    http_status = 409
