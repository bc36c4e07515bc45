"""Marshmallow schemas for every inbound payload (REST bodies and Socket.IO messages).

Anything that fails here becomes an `invalid` error with per-field details; nothing unvalidated
reaches the service."""

from __future__ import annotations

import re
from typing import Any

from marshmallow import RAISE, Schema, ValidationError, fields, validate

from server.errors import InvalidInputError

try:
    from domain.bots import BOT_NAMES as BOTS
except ImportError:  # the bots package is optional for the server: a random bot stands in
    BOTS = ("random", "steady", "sharp")
_NAME = validate.Length(min=1, max=40)
# Server-made ids are "m-" + 10 hex digits; imported records may bring their own.
MATCH_ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,79}$")
_MATCH_ID = validate.Regexp(MATCH_ID_PATTERN, error="Not a match id.")
_TOKEN = validate.Length(min=8, max=128)
_SEAT = validate.OneOf([0, 1])


class _Strict(Schema):
    class Meta:
        unknown = RAISE


class CreateTableSchema(_Strict):
    name = fields.String(required=True, validate=_NAME)
    preset = fields.String(load_default="classic", validate=validate.Length(min=1, max=40))
    options = fields.Dict(keys=fields.String(), load_default=dict)
    match = fields.String(load_default=None, allow_none=True, validate=validate.Length(max=40))
    move_time_limit_s = fields.Integer(
        load_default=None, allow_none=True, validate=validate.Range(min=1, max=3600)
    )
    bot = fields.String(load_default=None, allow_none=True, validate=validate.OneOf(BOTS))
    seat = fields.Integer(load_default=None, allow_none=True, validate=_SEAT, strict=True)


class JoinSeatSchema(_Strict):
    name = fields.String(required=True, validate=_NAME)
    seat = fields.Integer(load_default=None, allow_none=True, validate=_SEAT, strict=True)


class RematchSchema(_Strict):
    seat_token = fields.String(required=True, validate=_TOKEN)


class JoinTableSchema(_Strict):
    match_id = fields.String(required=True, validate=_MATCH_ID)
    seat_token = fields.String(load_default=None, allow_none=True, validate=_TOKEN)
    last_version = fields.Integer(
        load_default=None, allow_none=True, strict=True, validate=validate.Range(min=0)
    )


class ActionField(fields.Dict):
    """An action object of RECORDS.md §2; its content is checked by the domain parser."""


class CommandSchema(_Strict):
    match_id = fields.String(required=True, validate=_MATCH_ID)
    seat_token = fields.String(required=True, validate=_TOKEN)
    command_id = fields.String(
        required=True,
        validate=validate.Regexp(
            r"^[A-Za-z0-9_-]{8,64}$", error="8-64 characters of A-Z a-z 0-9 _ -."
        ),
    )
    action = ActionField(keys=fields.String(), required=True)


class ClaimSchema(_Strict):
    match_id = fields.String(required=True, validate=_MATCH_ID)
    seat_token = fields.String(required=True, validate=_TOKEN)
    what = fields.String(required=True, validate=validate.OneOf(["resign", "bot"]))


class LeaveTableSchema(_Strict):
    match_id = fields.String(required=True, validate=_MATCH_ID)


# One instance of each: building a schema binds every field (costly); loading is reentrant.
CREATE_TABLE = CreateTableSchema()
JOIN_SEAT = JoinSeatSchema()
REMATCH = RematchSchema()
JOIN_TABLE = JoinTableSchema()
COMMAND = CommandSchema()
CLAIM = ClaimSchema()
LEAVE_TABLE = LeaveTableSchema()


def load(schema: Schema, payload: Any) -> dict[str, Any]:
    """Validate `payload`; raise InvalidInputError with marshmallow's per-field messages."""
    if not isinstance(payload, dict):
        raise InvalidInputError("Expected a JSON object.", details={"_schema": ["Not an object."]})
    try:
        result: dict[str, Any] = schema.load(payload)
    except ValidationError as exc:
        messages = exc.messages if isinstance(exc.messages, dict) else {"_schema": exc.messages}
        raise InvalidInputError("The message is malformed.", details=messages) from None
    return result
