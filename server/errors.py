"""Errors the server turns into `{code, message, ...}` replies; every one has a readable message."""

from __future__ import annotations

from typing import TYPE_CHECKING

from domain.errors import QUOTE_CHARS, clipped
from domain.errors import quote as quoted

# The one helper every message quoting input uses (domain/errors.py), for the server's modules.
__all__ = ["QUOTE_CHARS", "clipped", "quoted"]

if TYPE_CHECKING:
    from flask import Response


# What an error may send back at most, whatever its source quoted: each message (its own and each
# of `details`) cut at this many characters, and each key of `details` (a field name a client
# made up, for an unknown field) at QUOTE_CHARS. Messages quote input with `quoted` (at most
# QUOTE_CHARS of it); this is the net under any that did not.
MAX_MESSAGE_CHARS = 400


def bounded(value: object, depth: int = 0) -> object:
    """`value` (an error's JSON) with every string and key cut as above."""
    if isinstance(value, str):
        return clipped(value, MAX_MESSAGE_CHARS)
    if depth > 4:
        return None
    if isinstance(value, dict):
        return {
            clipped(str(k), QUOTE_CHARS): bounded(v, depth + 1) for k, v in list(value.items())[:50]
        }
    if isinstance(value, (list, tuple)):
        return [bounded(v, depth + 1) for v in value[:50]]
    return value


class ServerError(Exception):
    """A refusal or a malformed input, sent back as a structured error (never a crash)."""

    code = "internal"
    http_status = 500

    def __init__(self, message: str, **extra: object) -> None:
        super().__init__(message)
        self.message = message
        self.extra = extra

    def to_json(self) -> dict[str, object]:
        body = bounded({"message": self.message, **self.extra})
        assert isinstance(body, dict)
        return {"code": self.code, **body}

    def reply(self) -> tuple[Response, int]:
        """The HTTP answer: the JSON body, its status, and `Retry-After` when it has one."""
        from flask import jsonify  # here: a read worker imports this module, never Flask

        response = jsonify(self.to_json())
        retry_after = self.extra.get("retry_after_s")
        if isinstance(retry_after, int):
            response.headers["Retry-After"] = str(retry_after)
        return response, self.http_status


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


class NotAnalysedError(NotFoundError):
    """Progress asked of an analysis nobody started (docs/protocol.md § analysis)."""

    code = "not_analysed"


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


class TableConflictError(CommandConflictError):
    """Another writer (another process of a cluster) appended a fact to the table stream
    between our re-read and our append: the table has been read again, the client (or the
    lobby, for a join) may try once more."""


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


class MatchRunningError(ServerError):
    """An analysis asked of a match still in play (server/services/analyses.py): its judgements
    would say something of the cards nobody may see yet."""

    code = "match_running"
    http_status = 409


class TooEarlyError(ServerError):
    code = "too_early"
    http_status = 409


class ReadsBusyError(ServerError):
    """Too many heavy reads (replays, records, options) wait for a worker already: the client
    may ask again after `retry_after_s` (a `Retry-After` header too)."""

    code = "busy"
    http_status = 503


class ReadFailedError(ServerError):
    """A heavy read's worker process failed twice in a row (server/adapters/workers.py)."""

    code = "unavailable"
    http_status = 503


class FairShareError(ServerError):
    """An address asked for a heavy job of a kind while one of its own of that kind is still
    queued or running (server/adapters/workers.py `FairShares`): one at a time per address and
    kind, so that one visitor cannot hold the workers; it may ask again after `retry_after_s`."""

    code = "rate_limited"
    http_status = 429


class TooCostlyError(ServerError):
    """A job over its kind's cost cap (games and actions per record, frames per GIF, bytes per
    HTML, events per analysis; docs/deploy.md § Security), refused before any work; or one whose
    worker went over its memory bound (the worker is replaced)."""

    code = "too_costly"
    http_status = 422


class AnalysisUnavailableError(ServerError):
    """This server has no evaluator to analyse matches with (server/services/analyses.py): its
    configured analyser cannot be imported."""

    code = "analysis_unavailable"
    http_status = 503


class ReadRefusedError(ServerError):
    """A refusal a read worker made (no such match, a stream no record can describe), sent on
    with the status and body the worker gave it."""

    def __init__(self, http_status: int, body: dict[str, object]) -> None:
        super().__init__(str(body.get("message", "")))
        self.http_status = http_status
        self.body = body

    def to_json(self) -> dict[str, object]:
        return dict(self.body)


class GameInPlayError(ServerError):
    """A picture of a whole game asked for while that game still runs (its GIF would show the
    cards it hides; docs/protocol.md § Shared replays and pictures)."""

    code = "game_in_play"
    http_status = 409
